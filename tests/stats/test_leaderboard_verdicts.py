"""The leaderboard's verdicts (issue 29, item 3; issue 28, item 5): pairs told apart by a
studentised sign-flip max-|T| stepdown that agrees with the rank sets, se = 0 pairs by the
exact sign test, ties, clipped intervals, refused levels, bounded size.

References: brute-force enumeration of every sign pattern with scipy's one-sample t test as
the studentisation and the Westfall-Young stepdown written from its definition; scipy's
binomtest; Holm by its definition over scipy's paired t tests; quadrature of P(best) with
scipy.integrate; seeded simulations for the family-wise error and the power.
"""

import itertools
import json
import math
import warnings

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import expit

import kpass
from kpass.report.cli import main
from kpass.stats import rank_sets
from kpass.stats.rank_sets import (
    MAX_MODELS,
    TOP_RANKS,
    _covariance,
    _pair_verdicts,
    _rank_probabilities,
    _unit_totals,
)

pytestmark = pytest.mark.filterwarnings("ignore::kpass.SmallSampleWarning")


def board_of(values, confidence=0.95, clusters=None):
    """A leaderboard of per-question values (one sample per question: Pass@1 = the value)."""
    runs = {f"m{j}": [[int(x)] for x in row] for j, row in enumerate(values)}
    return kpass.leaderboard(kpass.pass_at_k, runs, 1, confidence=confidence,
                             clusters=clusters)


def brute_force_stepdown(values, codes=None, skip=()):
    """Westfall-Young stepdown adjusted p-values over unordered pairs, by definition.

    Every sign pattern of the units (questions, or clusters flipping as a whole) is applied
    to each pair's per-question differences; each flipped pair is studentised by its own
    SE (scipy's one-sample t test without clusters; the CR2 formula sum_g (sum_{q in g}
    r_q)^2 / (1 - n_g/M) / M^2 with clusters); the stepdown removes the pair with the largest
    |T| and recomputes the max over the pairs left. Pairs in ``skip`` are left out.
    """
    values = np.asarray(values, dtype=float)
    k, m = values.shape
    clustered = codes is not None
    codes = np.arange(m) if codes is None else np.asarray(codes)
    groups = sorted(set(codes.tolist()))
    signs = np.array(list(itertools.product([1.0, -1.0], repeat=len(groups))))
    flips = signs[:, [groups.index(g) for g in codes]]  # (patterns, M)

    def t_of(d):  # d: (patterns, M) -> |T| per pattern
        if not clustered:
            return np.abs(stats.ttest_1samp(d, 0.0, axis=1).statistic)
        r = d - d.mean(axis=1, keepdims=True)
        sums = np.stack([r[:, codes == g].sum(axis=1) for g in groups], axis=1)
        sizes = np.array([np.sum(codes == g) for g in groups])
        se = np.sqrt((sums ** 2 / (1.0 - sizes / m)).sum(axis=1) / m ** 2)  # CR2
        return np.abs(d.mean(axis=1) / se)

    pairs = [p for p in itertools.combinations(range(k), 2) if p not in skip]
    observed = {p: float(t_of((values[p[0]] - values[p[1]])[None, :])[0]) for p in pairs}
    flipped = {p: t_of(flips * (values[p[0]] - values[p[1]])) for p in pairs}
    order = sorted(pairs, key=lambda p: -observed[p])
    adjusted, running = {}, 0.0
    for i, pair in enumerate(order):
        largest = np.max([flipped[q] for q in order[i:]], axis=0)
        running = max(running, float(np.mean(largest >= observed[pair] * (1 - 1e-9))))
        adjusted[pair] = running
    return adjusted


# ------------------------------------------------------------------------- fast references


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_adjusted_p_values_equal_brute_force_enumeration_of_sign_flips(seed):
    rng = np.random.default_rng(seed)
    m = 9
    values = rng.binomial(1, [[0.3], [0.5], [0.7], [0.8]], size=(4, m))
    board = board_of(values)
    assert board.adjustment == "max-t"
    expected = brute_force_stepdown(values)
    for pair in board.pairs:
        key = tuple(sorted((int(pair.a[1:]), int(pair.b[1:]))))
        if pair.se == 0:
            continue  # tested by the sign test (below)
        assert pair.p_adjusted == pytest.approx(expected[key], abs=1e-12), key
        assert pair.better == (expected[key] <= 0.05)


def test_clustered_adjusted_p_values_equal_brute_force_enumeration():
    rng = np.random.default_rng(5)
    codes = np.repeat(np.arange(8), [4, 3, 2, 2, 1, 1, 1, 1])  # 8 unequal clusters
    values = rng.binomial(1, [[0.2], [0.5], [0.9]], size=(3, codes.size))
    board = board_of(values, clusters=codes.tolist())
    assert board.adjustment == "max-t" and board.units == 8 and 1 < board.df < 7  # CR2 / BM df
    expected = brute_force_stepdown(values, codes)
    for pair in board.pairs:
        key = tuple(sorted((int(pair.a[1:]), int(pair.b[1:]))))
        assert pair.p_adjusted == pytest.approx(expected[key], abs=1e-12), key


def test_random_patterns_do_not_depend_on_the_order_of_the_questions():
    rng = np.random.default_rng(8)
    values = rng.binomial(1, [[0.4], [0.5], [0.6], [0.75]], size=(4, 40))  # 40 > 15: random
    shuffled = values[:, rng.permutation(40)]
    first, second = board_of(values), board_of(shuffled)
    assert [p.p_adjusted for p in first.pairs] == [p.p_adjusted for p in second.pairs]


def test_a_pair_with_se_zero_is_told_apart_by_the_exact_sign_test():
    runs = {"perfect": [[1, 1, 1, 1]] * 40, "zero": [[0, 0, 0, 0]] * 40}
    board = kpass.leaderboard(kpass.pass_at_k, runs, 1)
    pair, = board.pairs
    assert pair.se == 0 and pair.difference == 1.0
    assert pair.p_value == pytest.approx(stats.binomtest(40, 40, 0.5).pvalue, rel=1e-12)
    assert pair.better and pair.p_adjusted <= 0.05
    assert [(row.name, row.rank_lo, row.rank_hi) for row in board.rows] == [
        ("perfect", 1, 1), ("zero", 2, 2)]


def test_se_zero_pairs_take_a_bonferroni_share_beside_the_max_t_pairs():
    rng = np.random.default_rng(3)
    other = rng.binomial(1, 0.5, size=(2, 30))
    values = np.vstack([np.ones(30), np.zeros(30), other])
    board = board_of(values)
    by_key = {(p.a, p.b): p for p in board.pairs}
    top = by_key[("m0", "m1")]
    testable = sum(1 for p in board.pairs if p.se > 0 or p.difference != 0)
    assert top.p_adjusted == pytest.approx(testable * stats.binomtest(30, 30).pvalue)
    assert top.better


def test_a_constant_pair_that_the_sign_test_cannot_separate_keeps_its_share():
    # 7 questions: the se = 0 pair has p = 2 / 2^7; with 6 testable pairs 6 p = 0.094 > 0.05,
    # so it stays untold and the 5 other pairs are tested at level 0.05 * 5 / 6.
    values = np.array([[1] * 7, [0] * 7, [1, 0, 1, 1, 0, 1, 1], [0, 0, 1, 0, 0, 1, 0]])
    board = board_of(values)
    by_key = {(p.a, p.b): p for p in board.pairs}
    constant = by_key[("m0", "m1")]
    assert constant.p_value == pytest.approx(2 / 2 ** 7)
    assert constant.p_adjusted == pytest.approx(6 * 2 / 2 ** 7) and not constant.better
    expected = brute_force_stepdown(values, skip={(0, 1)})
    others = [p for p in board.pairs if p.se > 0]
    assert len(others) == 5
    for pair in others:
        key = tuple(sorted((int(pair.a[1:]), int(pair.b[1:]))))
        assert pair.p_adjusted == pytest.approx(min(1.0, expected[key] * 6 / 5), abs=1e-12)
        assert pair.better == (pair.p_adjusted <= 0.05)


def test_few_questions_fall_back_to_holm_over_unordered_pairs():
    rng = np.random.default_rng(4)
    values = rng.binomial(1, [[0.1], [0.5], [0.9]], size=(3, 6))
    board = board_of(values)
    assert board.adjustment == "holm"  # 2^5 patterns cannot reach 0.05 / 2
    p = [stats.ttest_rel(values[int(x.a[1:])], values[int(x.b[1:])]).pvalue
         if x.se > 0 else (1.0 if x.difference == 0 else 2 * 0.5 ** 6) for x in board.pairs]
    order = sorted(range(len(p)), key=lambda i: p[i])
    holm, running = [0.0] * len(p), 0.0
    for position, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - position) * p[i]))
        holm[i] = running
    assert [x.p_adjusted for x in board.pairs] == pytest.approx(holm, rel=1e-9)


@pytest.mark.parametrize("seed", range(12))
def test_rank_sets_and_the_pairs_told_apart_agree(seed):
    rng = np.random.default_rng(100 + seed)
    m = int(rng.integers(12, 40))
    abilities = np.sort(rng.normal(0, 0.8, size=12))
    difficulty = rng.normal(0, 1.5, size=m)
    runs = {f"m{j}": rng.binomial(1, expit(a + difficulty)[:, None], size=(m, 4))
            for j, a in enumerate(abilities)}
    board = kpass.leaderboard(kpass.pass_at_k, runs, 1)
    told = [(p.a, p.b) for p in board.pairs if p.better]
    assert all(p.better == (p.p_adjusted <= 0.05) for p in board.pairs)
    for row in board.rows:
        assert row.rank_lo == 1 + sum(b == row.name for _, b in told)
        assert row.rank_hi == len(board.rows) - sum(a == row.name for a, _ in told)
        assert row.rank_lo <= row.rank <= row.rank_hi


def test_equal_estimates_share_a_rank_whatever_the_summation_order():
    values = [0.1, 0.7, 0.2, 0.3, 0.6, 0.9, 0.4] * 5
    rng = np.random.default_rng(0)
    for _ in range(200):
        other = list(rng.permutation(values))
        if np.mean(other) != np.mean(values):
            break
    else:
        pytest.fail("no permutation changed the floating-point mean")
    # per-question values with 10 samples: c / 10
    runs = {"a": [[1] * round(10 * v) + [0] * (10 - round(10 * v)) for v in values],
            "b": [[1] * round(10 * v) + [0] * (10 - round(10 * v)) for v in other]}
    board = kpass.leaderboard(kpass.pass_at_k, runs, 1)
    assert [row.rank for row in board.rows] == [1, 1]
    assert board.pairs[0].difference == 0.0 and not board.pairs[0].better
    assert [(row.rank_lo, row.rank_hi) for row in board.rows] == [(1, 2), (1, 2)]


def test_intervals_are_clipped_to_zero_and_one():
    runs = {"strong": [[1, 1]] * 29 + [[1, 0]], "weak": [[0, 0]] * 29 + [[0, 1]]}
    board = kpass.leaderboard(kpass.pass_at_k, runs, 1)
    from kpass.stats.intervals import interval

    t = stats.t.ppf(0.975, 29)
    for row in board.rows:
        assert 0.0 <= row.lo <= row.estimate <= row.hi <= 1.0
        # each model's interval is kpass report's (pinned in test_intervals.py): here the
        # t interval reaches past 0 or 1, so it is the score interval, inside [0, 1]
        ends = interval(row.estimate, row.se, 29, 30)
        assert (row.lo, row.hi) == pytest.approx((ends.lo, ends.hi), abs=1e-12)
        assert ends.method == "score"
    assert board.rows[0].estimate + t * board.rows[0].se > 1.0 > board.rows[0].hi
    assert board.rows[1].estimate - t * board.rows[1].se < 0.0 < board.rows[1].lo


@pytest.mark.parametrize("confidence", [0.2, 0.4999])
def test_confidence_below_one_half_is_refused(confidence):
    with pytest.raises(ValueError, match="`confidence` must be at least 0.5"):
        board_of(np.eye(3, 10), confidence=confidence)


def test_cli_refuses_confidence_below_one_half(tmp_path, capsys):
    for name in ("a", "b"):
        (tmp_path / f"{name}.csv").write_text("correct\n1\n0\n1\n")
    code = main(["leaderboard", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"),
                 "--confidence", "0.3"])
    err = capsys.readouterr().err
    assert code == 2 and "--confidence must be at least 0.5" in err
    assert len(err.strip().splitlines()) == 1


def test_too_many_models_are_refused_naming_the_argument_and_the_limit():
    runs = {f"m{j}": [[1], [0]] for j in range(MAX_MODELS + 1)}
    with pytest.raises(ValueError, match=f"`runs` holds {MAX_MODELS + 1} models.*at most "
                                         f"{MAX_MODELS}"):
        kpass.leaderboard(kpass.pass_at_k, runs, 1)


def test_p_best_equals_quadrature_beyond_the_truncated_ranks():
    rng = np.random.default_rng(6)
    mu = rng.uniform(0.3, 0.7, size=14)
    sd = rng.uniform(0.02, 0.08, size=14)
    sd[3] = 0.0  # a point mass
    top = _rank_probabilities(mu, sd)
    assert top.shape == (14, TOP_RANKS)
    for i in (0, 5, 9):
        def integrand(x, i=i):
            others = [stats.norm.cdf(x, mu[j], sd[j]) if sd[j] > 0 else float(mu[j] < x)
                      for j in range(14) if j != i]
            return stats.norm.pdf(x, mu[i], sd[i]) * math.prod(others)

        reference = integrate.quad(integrand, mu[i] - 9 * sd[i], mu[i] + 9 * sd[i],
                                   points=[mu[3]], limit=200)[0]
        assert top[i, 0] == pytest.approx(reference, abs=2e-6)
    # P(rank <= j) by Monte Carlo of the normal posteriors
    draws = rng.normal(mu, sd, size=(200000, 14))
    ranks = 1 + (draws[:, None, :] > draws[:, :, None]).sum(axis=2)
    for j in range(TOP_RANKS):
        assert top[:, j] == pytest.approx((ranks <= j + 1).mean(axis=0), abs=5e-3)


def test_cli_says_rows_were_matched_by_order_and_gives_each_tables_df(tmp_path, capsys):
    rng = np.random.default_rng(1)
    for name in ("a", "b"):
        rows = rng.binomial(1, 0.5, size=(40, 2)).tolist()
        rows[0] = rows[0][:1]  # one question with a single sample: skipped at k = 2
        (tmp_path / f"{name}.jsonl").write_text(
            "".join(json.dumps({"outcomes": r}) + "\n" for r in rows))
    code = main(["leaderboard", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"),
                 "--k", "1,2", "--short", "skip", "--explain"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "note: rows were matched by order (no --id)" in out
    text = " ".join(out.split())
    assert "t with degrees of freedom 39 (Pass@1), 38 (Pass@2)" in text
    assert "P(best), not a verdict" in out


# ------------------------------------------------------------------------- simulations

UNEQUAL = [13, 5, 3, 2, 2, 1, 1, 1, 1, 1]


def simulate(models, design, abilities, replications, seed):
    """(any pair told apart the wrong way or under the null, share of true pairs found)."""
    rng = np.random.default_rng(seed)
    errors, found_maxt, found_holm = 0, 0.0, 0.0
    for _ in range(replications):
        if isinstance(design, int):
            difficulty, codes = rng.normal(0, 1.5, size=design), None
        else:
            codes = np.repeat(np.arange(len(design)), design)
            difficulty = (rng.normal(0, 1.35, size=len(design))[codes]
                          + rng.normal(0, 1.5 * math.sqrt(0.19), size=codes.size))
        values = rng.binomial(4, expit(abilities[:, None] + difficulty[None, :])) / 4
        estimates = values.mean(axis=1)
        sigma, df, count = _covariance(values, codes)
        rows, cols = np.triu_indices(models, 1)
        difference = estimates[rows] - estimates[cols]
        truth = np.sign(abilities[rows] - abilities[cols])
        _, _, told, _ = _pair_verdicts(estimates, sigma, df, 0.95,
                                       _unit_totals(values, codes), rows, cols, difference,
                                       count)
        _, _, holm, _ = _pair_verdicts(estimates, sigma, df, 0.95, None, rows, cols,
                                       difference, count)
        errors += bool(np.any(told & (np.sign(difference) != truth)))
        if np.any(truth != 0):
            right = np.sign(difference) == truth
            found_maxt += float(np.mean(told & right))
            found_holm += float(np.mean(holm & right))
    return errors / replications, found_maxt / replications, found_holm / replications


@pytest.fixture
def fewer_draws(monkeypatch):
    # Valid at any number of draws ((1 + hits) / (1 + B)); fewer keep the simulation fast.
    monkeypatch.setattr(rank_sets, "DRAWS", 500)


@pytest.mark.slow
@pytest.mark.parametrize("models, design", [(8, 20), (5, 50), (8, UNEQUAL)])
def test_family_wise_error_under_the_null(models, design, fewer_draws):
    error, _, _ = simulate(models, design, np.zeros(models), replications=1500, seed=29)
    # 1500 replications: sd of a 5% rate is 0.56 points; the targets are 0.06 (0.07 with
    # 10 unequal clusters); measured 0.045-0.05 (benchmarks/bench_leaderboard_fwer.py).
    assert 0.02 <= error <= (0.07 if isinstance(design, list) else 0.06), error


@pytest.mark.slow
def test_power_is_kept_against_holm(fewer_draws):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        error, maxt, holm = simulate(8, 20, 0.25 * np.arange(8), replications=400, seed=30)
    assert error <= 0.06, error  # a pair told apart the wrong way round
    # Measured 0.163 against Holm's 0.137 (2000 replications): the correlation of the pairs
    # is used, not thrown away.
    assert maxt >= holm + 0.01 and maxt >= 0.12, (maxt, holm)
