"""kpass.leaderboard: its numbers against independent references (numpy by the definitions,
scipy's paired t-test, a brute-force Holm, Monte Carlo of the posteriors), bad input, and
seeded simulations of the joint rank sets' coverage and family-wise error.

In the simulations a model's success rate on question q is expit(a_j + b_q): the question's
difficulty b_q is shared by every model (paired questions), and the population value of
Pass@k is E[1 - (1 - p)^k] over b ~ N(0, s^2), computed by quadrature, never with kpass.
"""

import math

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import expit

import kpass


def random_runs(seed, models=4, m=40, n=6):
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0.0, 1.5, size=(m, 1))
    return {f"model-{j}": rng.binomial(1, expit(0.3 * j + difficulty), size=(m, n))
            for j in range(models)}


def per_question_pass(R, k):
    """Unbiased Pass@k per question, by the definition 1 - C(n-c, k) / C(n, k)."""
    R = np.asarray(R)
    n = R.shape[1]
    return np.array([1 - math.comb(n - int(c), k) / math.comb(n, k) for c in R.sum(axis=1)])


@pytest.mark.parametrize("k", [1, 3])
def test_rows_and_pairs_equal_numpy_and_scipy_paired_t_tests(k):
    runs = random_runs(1)
    board = kpass.leaderboard(kpass.pass_at_k, runs, k)
    values = {name: per_question_pass(R, k) for name, R in runs.items()}
    m = len(next(iter(values.values())))
    assert board.questions == m and board.df == m - 1 and board.k == k
    estimates = [row.estimate for row in board.rows]
    assert estimates == sorted(estimates, reverse=True)
    t = stats.t.ppf(0.975, m - 1)
    for row in board.rows:
        s = values[row.name]
        assert row.estimate == pytest.approx(s.mean(), abs=1e-14)
        assert row.se == pytest.approx(s.std(ddof=1) / math.sqrt(m), rel=1e-12)
        assert (row.lo, row.hi) == pytest.approx((s.mean() - t * row.se, s.mean() + t * row.se),
                                                 rel=1e-12)
        assert row.rank == 1 + sum(e > row.estimate for e in estimates)
    assert len(board.pairs) == 6
    for pair in board.pairs:
        a, b = values[pair.a], values[pair.b]
        reference = stats.ttest_rel(a, b)
        assert pair.difference == pytest.approx(a.mean() - b.mean(), abs=1e-14)
        assert pair.difference >= 0
        assert pair.se == pytest.approx((a - b).std(ddof=1) / math.sqrt(m), rel=1e-12)
        assert pair.p_value == pytest.approx(reference.pvalue, rel=1e-9)
    # p_adjusted is the rank sets' own max-|T| stepdown (issue 29: the two multiplicity
    # answers agree); tests/stats/test_leaderboard_verdicts.py checks it against brute force.
    assert board.adjustment == "max-t"
    assert all(pair.better == (pair.p_adjusted <= 0.05) for pair in board.pairs)


def test_clustered_standard_errors_follow_the_cluster_formula():
    runs = random_runs(2, models=3, m=30)
    clusters = [q // 5 for q in range(30)]  # 6 clusters of 5 questions
    board = kpass.leaderboard(kpass.pass_at_k, runs, 1, clusters=clusters)
    assert board.df == 5
    values = {name: per_question_pass(R, 1) for name, R in runs.items()}
    for pair in board.pairs:
        d = values[pair.a] - values[pair.b]
        residual = d - d.mean()
        sums = [sum(residual[q] for q in range(30) if clusters[q] == g) for g in range(6)]
        expected = math.sqrt(6 / 5 * sum(s * s for s in sums) / 30 ** 2)
        assert pair.se == pytest.approx(expected, rel=1e-12)
        p = 2 * stats.t.sf(abs(d.mean()) / expected, 5)
        assert pair.p_value == pytest.approx(p, rel=1e-9)


def test_dataset_level_metrics_use_the_jackknife_of_standard_error():
    runs = random_runs(3, models=3, m=25)
    board = kpass.leaderboard(kpass.geom_ds_at_k, runs, 2)
    for row in board.rows:
        assert row.estimate == pytest.approx(kpass.geom_ds_at_k(runs[row.name], 2), abs=1e-14)
        assert row.se == pytest.approx(kpass.standard_error(kpass.geom_ds_at_k,
                                                            runs[row.name], 2), rel=1e-10)
    for pair in board.pairs:
        # The paired jackknife of the difference, by its definition over the 25 questions.
        def stat(mask, a=runs[pair.a], b=runs[pair.b]):
            return kpass.geom_ds_at_k(a[mask], 2) - kpass.geom_ds_at_k(b[mask], 2)

        leave = np.array([stat(np.arange(25) != q) for q in range(25)])
        expected = math.sqrt(24 / 25 * np.sum((leave - leave.mean()) ** 2))
        assert pair.se == pytest.approx(expected, rel=1e-9)


def test_rank_probabilities_equal_monte_carlo_of_the_posteriors():
    runs = random_runs(4, models=4, m=12, n=3)
    board = kpass.leaderboard(kpass.pass_at_k, runs, 1)
    rng = np.random.default_rng(5)
    mu = np.array([row.mean for row in board.rows])
    sd = np.array([row.sd for row in board.rows])
    for row in board.rows:
        posterior_mean, posterior_sd = kpass.pass_at_k_ci(runs[row.name], 1)[:2]
        assert (row.mean, row.sd) == pytest.approx((posterior_mean, posterior_sd), rel=1e-12)
    draws = rng.normal(mu, sd, size=(400_000, mu.size))
    ranks = 1 + (draws[:, None, :] > draws[:, :, None]).sum(axis=2)
    for i, row in enumerate(board.rows):
        for j in range(1, mu.size + 1):
            assert row.prob_top[j - 1] == pytest.approx(np.mean(ranks[:, i] <= j), abs=4e-3)
        assert row.prob_best == row.prob_top[0]
    assert sum(row.prob_best for row in board.rows) == pytest.approx(1.0, abs=1e-6)
    assert all(row.prob_top[-1] == pytest.approx(1.0, abs=1e-9) for row in board.rows)


def test_several_k_give_one_leaderboard_each():
    runs = random_runs(6)
    boards = kpass.leaderboard(kpass.pass_at_k, runs, [1, 2, 4])
    assert [board.k for board in boards] == [1, 2, 4]
    for board, k in zip(boards, [1, 2, 4], strict=True):
        single = kpass.leaderboard(kpass.pass_at_k, runs, k)
        assert [row.as_dict() for row in board.rows] == [row.as_dict() for row in single.rows]


def test_counts_with_ids_are_matched_by_id_and_shared_keeps_the_common_questions():
    runs = random_runs(7, models=3, m=20)
    ids = [f"q{i}" for i in range(20)]
    counts = {name: kpass.BinaryCounts(np.full(20, R.shape[1]), R.sum(axis=1), ids=ids)
              for name, R in runs.items()}
    shuffled = dict(counts)
    order = np.random.default_rng(0).permutation(20)
    shuffled["model-2"] = counts["model-2"].select(order)
    by_row = kpass.leaderboard(kpass.pass_at_k, counts, 1)
    by_id = kpass.leaderboard(kpass.pass_at_k, shuffled, 1)
    assert [r.as_dict() for r in by_id.rows] == [r.as_dict() for r in by_row.rows]
    fewer = dict(counts)
    fewer["model-1"] = counts["model-1"].select(np.arange(15))
    with pytest.raises(ValueError, match=r"5 ids of 'model-0' are not in 'model-1'.*shared=True"):
        kpass.leaderboard(kpass.pass_at_k, fewer, 1)
    board = kpass.leaderboard(kpass.pass_at_k, fewer, 1, shared=True)
    assert board.questions == 15
    common = {name: R[:15] for name, R in runs.items()}
    expected = kpass.leaderboard(kpass.pass_at_k, common, 1)
    assert [r.estimate for r in board.rows] == pytest.approx([r.estimate for r in expected.rows])
    clusters = [i % 4 for i in range(20)]
    clustered = kpass.leaderboard(kpass.pass_at_k, fewer, 1, shared=True, clusters=clusters)
    # clusters of 4, 4, 4, 3 questions: the Bell-McCaffrey df of the CR2 SE, as compare's
    pair = kpass.compare(kpass.pass_at_k, fewer["model-0"], fewer["model-1"], 1, shared=True,
                         clusters=clusters)
    assert clustered.units == 4 and clustered.df == pytest.approx(pair.df) and clustered.df < 3


@pytest.mark.parametrize("runs, args, error, needle", [
    ([[1, 0]], (1,), TypeError, "`runs` must map each model's name"),
    ({"a": [[1, 0]]}, (1,), ValueError, "at least 2 models"),
    ({"a": [[1, 0]], 3: [[1, 1]]}, (1,), TypeError, "keyed by model names"),
    ({"a": [[1, 0], [0, 1]], "b": [[1, 1]]}, (1,), ValueError, "same questions"),
    ({"a": [[1, 0], [0, 1]], "b": [[1, 1], [0, 2]]}, (1,), ValueError, "model 'b'"),
    ({"a": [[1, 0]], "b": [[1, 1]]}, (1,), ValueError, "at least 2 questions"),
])
def test_bad_input_is_refused_with_the_argument_named(runs, args, error, needle):
    with pytest.raises(error, match=needle):
        kpass.leaderboard(kpass.pass_at_k, runs, *args)


def test_bad_options_are_refused():
    runs = random_runs(8, models=2, m=6)
    with pytest.raises(TypeError, match="`shared` must be True or False"):
        kpass.leaderboard(kpass.pass_at_k, runs, 1, shared="yes")
    with pytest.raises(ValueError, match="confidence"):
        kpass.leaderboard(kpass.pass_at_k, runs, 1, confidence=1.5)
    with pytest.raises(TypeError, match="point function"):
        kpass.leaderboard(kpass.pass_at_k_ci, runs, 1)
    with pytest.raises(ValueError, match="shared=True needs question ids on every run"):
        kpass.leaderboard(kpass.pass_at_k, runs, 1, shared=True)


def test_identical_differences_on_every_question_use_the_sign_test():
    # Every question: A solves one more sample of 4 than B: d_q = 0.25, se = 0.
    A = [[1, 1, 0, 0], [1, 0, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]]
    B = [[1, 0, 0, 0], [0, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0]]
    board = kpass.leaderboard(kpass.pass_at_k, {"A": A, "B": B}, 1)
    pair, = board.pairs
    assert pair.se == 0 and pair.difference == pytest.approx(0.25)
    assert pair.p_value == pytest.approx(2 * 0.5 ** 4)  # all 4 signs agree
    assert not pair.better  # no SE: the joint procedure cannot tell them apart
    assert [(row.rank_lo, row.rank_hi) for row in board.rows] == [(1, 2), (1, 2)]


def test_str_and_pandas_show_every_model():
    pd = pytest.importorskip("pandas")
    board = kpass.leaderboard(kpass.pass_at_k, random_runs(9), 1)
    text = str(board)
    assert "95% joint rank sets" in text and all(row.name in text for row in board.rows)
    frame = board.to_pandas()
    assert isinstance(frame, pd.DataFrame) and list(frame["name"]) == [r.name for r in board.rows]
    assert list(frame.columns[-4:]) == ["p_top1", "p_top2", "p_top3", "p_top4"]


# ----------------------------------------------------------------------------- simulations


def population_pass(a, k, spread):
    """E[1 - (1 - expit(a + b))^k], b ~ N(0, spread^2), by quadrature (not kpass)."""
    def integrand(b):
        return (1 - (1 - expit(a + b)) ** k) * stats.norm.pdf(b, scale=spread)

    return integrate.quad(integrand, -12 * spread, 12 * spread, epsabs=1e-13)[0]


def simulate(abilities, m, n, k, replications, seed, spread=1.5, clusters=None):
    """Joint coverage of the rank sets, coverage of each interval, any-pair rejections."""
    truth = np.array([population_pass(a, k, spread) for a in abilities])
    true_rank = np.array([1 + np.sum(truth > t + 1e-12) for t in truth])
    rng = np.random.default_rng(seed)
    joint = interval = rejected = holm_rejected = exact = 0
    for _ in range(replications):
        if clusters is None:
            difficulty = rng.normal(0, spread, size=(m, 1))
        else:  # questions come in groups sharing most of their difficulty
            groups = rng.normal(0, spread * 0.9, size=(m // clusters, 1))
            difficulty = (np.repeat(groups, clusters, axis=0)
                          + rng.normal(0, spread * math.sqrt(1 - 0.81), size=(m, 1)))
        runs = {f"m{j}": rng.binomial(1, expit(a + difficulty), size=(m, n))
                for j, a in enumerate(abilities)}
        labels = None if clusters is None else np.arange(m) // clusters
        board = kpass.leaderboard(kpass.pass_at_k, runs, k, clusters=labels)
        rows = {row.name: row for row in board.rows}
        ok = [rows[f"m{j}"].rank_lo <= true_rank[j] <= rows[f"m{j}"].rank_hi
              for j in range(len(abilities))]
        joint += all(ok)
        interval += sum(rows[f"m{j}"].lo <= truth[j] <= rows[f"m{j}"].hi
                        for j in range(len(abilities)))
        rejected += any(pair.better for pair in board.pairs)
        holm_rejected += any(pair.p_adjusted < 0.05 for pair in board.pairs)
        exact += all(row.rank_lo == row.rank_hi for row in board.rows)
    return {"joint": joint / replications,
            "interval": interval / (replications * len(abilities)),
            "rejected": rejected / replications, "holm": holm_rejected / replications,
            "exact": exact / replications}


@pytest.mark.slow
@pytest.mark.parametrize("abilities, m, n, k, marginal", [
    ([0.0, 0.0, 0.15, 0.15, 0.4], 50, 4, 1, True),           # ties and near-ties
    ([0.0, 0.08, 0.16, 0.24, 0.32, 0.40], 200, 4, 1, True),  # a field of close models
    # Pass@4 on 30 questions: per-question values pile up at 1, and the per-model t
    # interval covers only ~91% (measured 0.914 here; the small-sample work of issue 20);
    # the joint rank sets still hold.
    ([0.0, 0.1, 0.3, 0.3], 30, 8, 4, False),
])
def test_rank_sets_cover_all_true_ranks_jointly(abilities, m, n, k, marginal):
    found = simulate(abilities, m, n, k, replications=400, seed=11)
    # 400 replications: sd of a 95% rate is 1.1 points; the sets are conservative by design.
    assert found["joint"] >= 0.93, found
    if marginal:
        assert 0.93 <= found["interval"] <= 0.97, found


@pytest.mark.slow
def test_rank_sets_hold_with_few_clusters():
    found = simulate([0.0, 0.1, 0.2, 0.2], m=60, n=4, k=1, replications=400, seed=12,
                     clusters=6)  # 10 clusters of 6 questions
    assert found["joint"] >= 0.93, found


@pytest.mark.slow
@pytest.mark.parametrize("m", [20, 200])
def test_no_pair_is_told_apart_under_the_global_null_beyond_five_percent(m):
    found = simulate([0.2] * 5, m=m, n=4, k=1, replications=600, seed=13)
    # Every model equal: "some pair differs" is a family-wise error. Claimed <= 5%.
    assert found["rejected"] <= 0.07, found
    assert found["holm"] <= 0.07, found
    assert found["joint"] >= 0.93, found


@pytest.mark.slow
def test_rank_sets_are_single_ranks_when_models_are_far_apart():
    found = simulate([-2.0, 0.0, 2.0], m=200, n=4, k=1, replications=100, seed=14)
    assert found["exact"] >= 0.99, found
