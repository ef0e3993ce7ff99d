"""kpass's sequential, multiplicity and exact-test numbers against implementations it does
not share a line with, on seeded random cases.

- Confidence sequences: the ``confseq`` package (Howard & Waudby-Smith) itself, through
  ``tests/fixtures/confseq/betting.json``, written by confseq 0.0.11's ``betting_mart`` and
  ``betting_cs`` (``lambda_aKelly`` bets, ``convex_comb=True``, ``trunc_scale=0.75``) in a
  scratch venv (its only release is an sdist that needs NumPy < 2 and a C++ build; the
  command is in ``tests/fixtures/confseq/make.py``). Beside it, the hedged capital process
  of Waudby-Smith & Ramdas (2024) with aGRAPA bets truncated at c = 3/4, written here
  plainly: capital as running *products* over the candidate grid, one observation at a
  time, where kpass works with log-capital in time-chunks on a shrinking window of
  candidates, on many more seeded cases than the fixture holds.
- Holm's step-down: ``statsmodels.stats.multitest.multipletests(method="holm")``.
- The exact sign-flip p of ``kpass.compare`` (``p_exact``): ``scipy.stats.permutation_test``
  with ``permutation_type="samples"`` on one sample (which flips signs), enumerated
  exactly.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import kpass
from kpass.report.output import holm
from kpass.stats.sequential import betting_bounds, log_capital
from kpass.stats.small_sample import sign_flip_p

STEPS = 2000  # kpass's candidate grid (kpass.stats.sequential.GRID_STEPS), 0.0005 apart
TRUNCATION = 0.75


def hedged_capital_cs(x: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Running [lo, hi] of the hedged-capital confidence sequence, from the paper's
    definitions: K_t(m) = 1/2 prod (1 + l+_i (x_i - m)) + 1/2 prod (1 - l-_i (x_i - m)),
    l_i = (mu_{i-1} - m) / (s2_{i-1} + (mu_{i-1} - m)^2) (aGRAPA), l+ = min(max(l, 0), c/m),
    l- = min(max(-l, 0), c/(1-m)); candidates m = j / STEPS kept while K_t(m) < 1/alpha."""
    m = np.arange(1, STEPS) / STEPS
    up = np.ones_like(m)
    down = np.ones_like(m)
    mean, var = 0.5, 0.25  # mu_0 and s2_0: the prior observation's
    total = squares = 0.0
    low, high = 0.0, 1.0
    lo, hi = [], []
    for t, value in enumerate(x, start=1):
        bet = (mean - m) / (var + (mean - m) ** 2)
        up = up * (1.0 + np.clip(bet, 0.0, TRUNCATION / m) * (value - m))
        down = down * (1.0 - np.clip(-bet, 0.0, TRUNCATION / (1.0 - m)) * (value - m))
        kept = np.flatnonzero((up + down) / 2.0 < 1.0 / alpha)
        if kept.size:
            new_low = max(m[kept[0]] - 1.0 / STEPS, 0.0) if kept[0] > 0 else 0.0
            new_high = min(m[kept[-1]] + 1.0 / STEPS, 1.0) if kept[-1] < m.size - 1 else 1.0
            if max(low, new_low) <= min(high, new_high):
                low, high = max(low, new_low), min(high, new_high)
        lo.append(low)
        hi.append(high)
        total += value
        mean = (0.5 + total) / (t + 1)  # mu_t includes x_t
        squares += (value - mean) ** 2
        var = (0.25 + squares) / (t + 1)
    return np.array(lo), np.array(hi)


def random_runs(rng: np.random.Generator, questions: int, samples: int, p: float
                ) -> list[list[int]]:
    rates = np.clip(rng.beta(2.0, 2.0, size=questions) * 2 * p, 0.0, 1.0)
    return (rng.random((questions, samples)) < rates[:, None]).astype(int).tolist()


CS_CASES = [(seed, questions, samples, paired)
            for seed, (questions, samples) in enumerate([(60, 1), (150, 4), (300, 8), (120, 16)])
            for paired in (False, True)]


@pytest.mark.parametrize(("seed", "questions", "samples", "paired"), CS_CASES)
def test_confidence_sequence_equals_the_plain_hedged_capital_process(seed, questions, samples,
                                                                     paired):
    rng = np.random.default_rng(seed)
    R_a = random_runs(rng, questions, samples, 0.55)
    R_b = random_runs(rng, questions, samples, 0.45) if paired else None
    # the bounded-mean sequence (a pair's default is now the exchangeable one, tested in
    # tests/stats/test_sequential_null.py against its own plain product)
    cs = kpass.confidence_sequence(kpass.pass_at_k, R_a, R_b, 1, confidence=0.95,
                                   null="bounded")
    per_a = np.mean(R_a, axis=1)
    x = (per_a - np.mean(R_b, axis=1) + 1.0) / 2.0 if paired else per_a
    lo, hi = hedged_capital_cs(x, 0.05)
    if paired:
        lo, hi = 2.0 * lo - 1.0, 2.0 * hi - 1.0
    # The same grid, so the same bounds up to rounding; a candidate whose capital sits
    # within rounding of 1/alpha could move a bound by one grid step at most.
    step = (2.0 if paired else 1.0) / STEPS
    assert np.max(np.abs(cs.lo - lo)) <= step + 1e-12
    assert np.max(np.abs(cs.hi - hi)) <= step + 1e-12
    assert np.mean(np.isclose(cs.lo, lo, atol=1e-9) & np.isclose(cs.hi, hi, atol=1e-9)) >= 0.99
    assert hi[-1] - lo[-1] < (1.0 if paired else 0.5)  # the sequence did narrow


@pytest.mark.slow
def test_the_plain_process_is_a_valid_sequence_on_a_known_mean():
    """The oracle itself: its intervals keep the true mean (seeded, 200 paths of 100)."""
    rng = np.random.default_rng(7)
    misses = 0
    for _ in range(200):
        lo, hi = hedged_capital_cs((rng.random(100) < 0.3).astype(float), 0.1)
        misses += bool(np.any((lo > 0.3) | (hi < 0.3)))
    assert misses <= 20 + 8  # P(ever miss) <= alpha = 0.1; 28 is 2 binomial SDs above


@pytest.fixture(scope="module")
def multitest():
    return pytest.importorskip("statsmodels.stats.multitest")


@pytest.mark.parametrize("seed", range(6))
def test_holm_equals_statsmodels(seed, multitest):
    rng = np.random.default_rng(seed)
    size = int(rng.integers(2, 30))
    p = rng.random(size) ** 3
    p[rng.random(size) < 0.2] = p[0]  # ties
    expected = multitest.multipletests(p, method="holm")[1]
    assert np.max(np.abs(np.array(holm(p.tolist())) - expected)) <= 1e-15


@pytest.mark.parametrize("seed", range(4))
def test_the_leaderboards_holm_p_equals_statsmodels(seed, multitest):
    """A board on fewer than 8 questions adjusts its pairs' p-values with Holm."""
    rng = np.random.default_rng(100 + seed)
    runs = {name: random_runs(rng, 6, 8, p) for name, p in
            zip("abcd", rng.uniform(0.2, 0.8, size=4), strict=True)}
    with pytest.warns(kpass.SmallSampleWarning):
        board = kpass.leaderboard(kpass.pass_at_k, runs, 1)
    assert board.adjustment == "holm"
    pairs = [pair for pair in board.pairs if pair.se > 0]
    raw = np.array([pair.p_value for pair in pairs])
    expected = multitest.multipletests(raw, method="holm")[1]
    got = np.array([pair.p_adjusted for pair in pairs])
    assert len(pairs) == len(board.pairs) and np.max(np.abs(got - expected)) <= 1e-12


def scipy_sign_flip_p(values: np.ndarray) -> float:
    from scipy import stats

    result = stats.permutation_test(
        (values,), lambda x, axis: np.abs(np.sum(x, axis=axis)), vectorized=True,
        permutation_type="samples", alternative="greater", n_resamples=np.inf)
    return float(result.pvalue)


@pytest.mark.parametrize("seed", range(8))
def test_exact_sign_flip_p_equals_scipy_permutation_test(seed):
    rng = np.random.default_rng(200 + seed)
    questions = int(rng.integers(3, 13))
    # per-question differences of pass@k-like values: multiples of 1/4 (ties, zeros)
    differences = rng.integers(-4, 5, size=questions) / 4.0 + 0.5 * (seed % 2) / 4.0
    assert abs(sign_flip_p(differences) - scipy_sign_flip_p(differences)) <= 1e-12
    codes = rng.integers(0, 4, size=questions)
    codes = np.unique(codes, return_inverse=True)[1]
    cluster_sums = np.array([differences[codes == c].sum() for c in range(codes.max() + 1)])
    assert abs(sign_flip_p(differences, codes) - scipy_sign_flip_p(cluster_sums)) <= 1e-12


def test_compare_reports_the_exact_sign_flip_p_of_its_differences():
    rng = np.random.default_rng(300)
    R_a, R_b = random_runs(rng, 10, 4, 0.6), random_runs(rng, 10, 4, 0.4)
    with pytest.warns(kpass.SmallSampleWarning):
        result = kpass.compare(kpass.pass_at_k, R_a, R_b, 2)
    d = np.array([kpass.pass_at_k([row], 2) for row in R_a]) - np.array(
        [kpass.pass_at_k([row], 2) for row in R_b])
    assert result.p_exact == pytest.approx(scipy_sign_flip_p(d), abs=1e-12)


CONFSEQ = json.loads((Path(__file__).parents[1] / "fixtures" / "confseq" / "betting.json")
                     .read_text())


def test_the_confseq_fixture_was_written_by_confseq():
    assert CONFSEQ["made_by"].startswith("confseq 0.0.11")
    assert len(CONFSEQ["martingales"]) == 72 and len(CONFSEQ["sequences"]) == 12


@pytest.mark.parametrize("case", range(72))
def test_log_capital_equals_confseqs_betting_mart(case):
    record = CONFSEQ["martingales"][case]
    ours = log_capital(np.array(record["x"]), record["m"], null="bounded")
    np.testing.assert_allclose(ours, record["log_capital"], rtol=0, atol=1e-9)


@pytest.mark.parametrize("case", range(12))
def test_betting_bounds_equal_confseqs_betting_cs(case):
    record = CONFSEQ["sequences"][case]
    assert record["breaks"] == kpass.stats.sequential.GRID_STEPS
    lo, hi = betting_bounds(np.array(record["x"]), record["alpha"])
    np.testing.assert_allclose(lo, record["lo"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(hi, record["hi"], rtol=0, atol=1e-12)
    assert np.all(np.diff(lo) >= 0) and np.all(np.diff(hi) <= 0)
    assert hi[-1] - lo[-1] < 1.0  # the sequences narrowed: the comparison is not vacuous
