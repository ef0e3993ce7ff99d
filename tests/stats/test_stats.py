"""kpass.standard_error / compare / plan against independent references (exact formulas written
out here, lm-evaluation-harness's stderr, a bootstrap over questions)."""

import math
import statistics

import numpy as np
import pytest
from scipy import special
from scipy import stats as sps

import kpass

RNG = np.random.default_rng(20261123)
R_RECT = RNG.integers(0, 2, size=(30, 8)).tolist()
R_RAGGED = [RNG.integers(0, 2, size=int(n)).tolist() for n in RNG.integers(3, 10, size=25)]

# (metric, extra positional args after k) for every family with per-question values
PER_QUESTION_METRICS = [
    (kpass.pass_at_k, ()), (kpass.pass_hat_k, ()), (kpass.unanimous_at_k, ()),
    (kpass.g_pass_at_k, ()), (kpass.g_pass_at_k_tau, (0.5,)), (kpass.mg_pass_at_k, ()),
    (kpass.maj_at_k, ()), (kpass.cons_at_k, ()), (kpass.auc_at_k, ()), (kpass.geom_at_k, ()),
]


def lm_eval_mean_stderr(values):
    # lm-evaluation-harness, lm_eval/api/metrics.py: sample_stddev(arr) =
    # sqrt(sum((x - mean)^2) / (len(arr) - 1));
    # mean_stderr(arr) = sample_stddev(arr) / sqrt(len(arr))
    mu = sum(values) / len(values)
    spread = math.sqrt(sum((x - mu) ** 2 for x in values) / (len(values) - 1))
    return spread / math.sqrt(len(values))


def clt(values):
    values = [v for v in values if not math.isnan(v)]
    return statistics.stdev(values) / math.sqrt(len(values))


@pytest.mark.parametrize("metric, extra", PER_QUESTION_METRICS,
                         ids=lambda x: getattr(x, "__name__", ""))
@pytest.mark.parametrize("R", [R_RECT, R_RAGGED], ids=["rectangular", "ragged"])
def test_standard_error_is_the_clt_formula_for_every_k(metric, extra, R):
    ks = [1, 2, 3]
    got = kpass.standard_error(metric, R, ks, *extra)
    for k, se in zip(ks, got, strict=True):
        values = metric(R, k, *extra, per_question=True).tolist()
        assert se == pytest.approx(clt(values), rel=1e-12)
        assert kpass.standard_error(metric, R, k, *extra) == pytest.approx(se, rel=1e-15)


def test_short_skip_uses_only_the_questions_with_k_samples():
    k = 6
    se = kpass.standard_error(kpass.pass_at_k, R_RAGGED, k, short="skip")
    kept = [row for row in R_RAGGED if len(row) >= k]
    assert se == pytest.approx(clt(kpass.pass_at_k(kept, k, per_question=True).tolist()), rel=1e-12)


def test_categorical_and_answer_metrics():
    R = RNG.integers(0, 3, size=(20, 6))
    w = [0.0, 0.5, 1.0]
    for metric, args in ((kpass.avg, (w,)), (kpass.bayes, (w,)), (kpass.max_at_k, (2, w))):
        values = metric(R, *args, per_question=True).tolist()
        assert kpass.standard_error(metric, R, *args) == pytest.approx(clt(values), rel=1e-12)
    answers = [["1", "2", "1", "3"], ["2", "2", "2", "1"], ["5", "1", "1", "1"],
               ["4", "4", "2", "4"]]
    refs = ["1", "2", "1", "3"]
    values = kpass.vote_at_k(answers, refs, 3, per_question=True).tolist()
    assert kpass.standard_error(kpass.vote_at_k, answers, refs, 3) == pytest.approx(clt(values))


def test_mean_accuracy_matches_lm_evaluation_harness_stderr():
    # one sample per question: lm-eval's acc stderr of the 0/1 column
    R = RNG.integers(0, 2, size=(57, 1))
    expected = lm_eval_mean_stderr([float(x) for x in R[:, 0]])
    assert kpass.standard_error(kpass.pass_at_k, R, 1) == pytest.approx(expected, rel=1e-12)
    # several samples per question: lm-eval's stderr of the per-question mean (repeats)
    R = RNG.integers(0, 2, size=(57, 5))
    expected = lm_eval_mean_stderr([float(x) for x in R.mean(axis=1)])
    assert kpass.standard_error(kpass.avg, R) == pytest.approx(expected, rel=1e-12)


def test_clustered_standard_error_written_out():
    R = RNG.integers(0, 2, size=(24, 6))
    labels = [f"doc{q // 4}" for q in range(24)]  # 6 clusters of 4
    s = kpass.pass_at_k(R, 2, per_question=True).tolist()
    mean = sum(s) / len(s)
    sums = {}
    for label, value in zip(labels, s, strict=True):
        sums[label] = sums.get(label, 0.0) + (value - mean)
    groups = len(sums)
    expected = math.sqrt(groups / (groups - 1) * sum(v * v for v in sums.values()) / len(s) ** 2)
    assert kpass.standard_error(kpass.pass_at_k, R, 2, clusters=labels) == pytest.approx(expected)
    # one question per cluster is the plain SE exactly
    assert kpass.standard_error(kpass.pass_at_k, R, 2, clusters=range(24)) == pytest.approx(
        kpass.standard_error(kpass.pass_at_k, R, 2), rel=1e-12)


@pytest.mark.parametrize("metric, args", [(kpass.geom_ds_at_k, (3,)),
                                          (kpass.geo_spectrum_at_k, (4,)),
                                          (kpass.geo_spectrum_star_at_k, (4,))])
def test_dataset_level_blends_get_a_jackknife_over_questions(metric, args):
    R = RNG.integers(0, 2, size=(15, 6)).tolist()
    leave_out = [metric(R[:i] + R[i + 1:], *args) for i in range(len(R))]
    mean = sum(leave_out) / len(leave_out)
    g = len(R)
    expected = math.sqrt((g - 1) / g * sum((x - mean) ** 2 for x in leave_out))
    assert kpass.standard_error(metric, R, *args) == pytest.approx(expected, rel=1e-10)


def test_bootstrap_over_questions_agrees_with_the_clt_se():
    rng = np.random.default_rng(7)
    p = rng.beta(1.5, 2.0, size=300)
    R = (rng.random((300, 8)) < p[:, None]).astype(np.int8)
    s = np.asarray(kpass.pass_at_k(R, 4, per_question=True))
    draws = rng.integers(0, 300, size=(4000, 300))
    boot = s[draws].mean(axis=1).std(ddof=1)
    # Monte-Carlo error of a bootstrap sd from 4000 draws is about 1.1%
    assert kpass.standard_error(kpass.pass_at_k, R, 4) == pytest.approx(boot, rel=0.05)


def test_compare_written_out():
    A = RNG.integers(0, 2, size=(40, 6))
    B = RNG.integers(0, 2, size=(40, 6))
    c = kpass.compare(kpass.pass_at_k, A, B, 2, confidence=0.9, reference="normal")
    sa = kpass.pass_at_k(A, 2, per_question=True)
    sb = kpass.pass_at_k(B, 2, per_question=True)
    d = (sa - sb).tolist()
    se = statistics.stdev(d) / math.sqrt(40)
    z = statistics.NormalDist().inv_cdf(0.95)
    assert c.difference == pytest.approx(kpass.pass_at_k(A, 2) - kpass.pass_at_k(B, 2))
    assert (c.a, c.b) == pytest.approx((kpass.pass_at_k(A, 2), kpass.pass_at_k(B, 2)))
    assert c.se == pytest.approx(se)
    assert (c.lo, c.hi) == pytest.approx((c.difference - z * se, c.difference + z * se))
    assert c.p_value == pytest.approx(2 * statistics.NormalDist().cdf(-abs(c.difference) / se))
    assert c.se_unpaired == pytest.approx(math.hypot(clt(sa.tolist()), clt(sb.tolist())))
    assert c.correlation == pytest.approx(float(np.corrcoef(sa, sb)[0, 1]))
    assert c.mde == pytest.approx((z + statistics.NormalDist().inv_cdf(0.8)) * se)
    mu_a, sd_a, *_ = kpass.pass_at_k_ci(A, 2)
    mu_b, sd_b, *_ = kpass.pass_at_k_ci(B, 2)
    assert c.prob_a_better == pytest.approx(
        statistics.NormalDist().cdf((mu_a - mu_b) / math.hypot(sd_a, sd_b)))
    assert c.questions == 40 and c.k == 2 and c.metric == "pass_at_k"
    many = kpass.compare(kpass.pass_at_k, A, B, [1, 2])
    assert [x.k for x in many] == [1, 2] and many[1] == kpass.compare(kpass.pass_at_k, A, B, 2)


def test_compare_with_short_skip_uses_questions_scored_in_both():
    A = [[1, 0, 1], [1, 1, 1, 1], [0, 0, 0, 1, 1], [1, 0, 0, 0]]
    B = [[1, 1, 1, 1], [0, 1], [0, 1, 0, 1, 1], [0, 0, 0, 0]]
    c = kpass.compare(kpass.pass_at_k, A, B, 4, short="skip")
    assert c.questions == 2  # rows 2 and 3 have 4 samples in both runs
    assert c.a == pytest.approx(kpass.pass_at_k([A[2], A[3]], 4))


def test_compare_refuses_what_cannot_be_paired():
    A = RNG.integers(0, 2, size=(10, 4))
    with pytest.raises(ValueError, match="same questions.*10 and 9"):
        kpass.compare(kpass.pass_at_k, A, A[:9], 1)
    with pytest.raises(ValueError, match="at least 2 questions"):
        kpass.compare(kpass.pass_at_k, A[:1], A[:1], 1)
    with pytest.raises(ValueError, match="one label per question"):
        kpass.compare(kpass.pass_at_k, A, A, 1, clusters=[1, 2, 3])
    with pytest.raises(TypeError, match="point function"):
        kpass.compare(kpass.pass_at_k_ci, A, A, 1)
    with pytest.raises(ValueError, match="confidence"):
        kpass.compare(kpass.pass_at_k, A, A, 1, confidence=1.5)


def test_standard_error_refuses_bad_input():
    with pytest.raises(ValueError, match="at least 2 questions"):
        kpass.standard_error(kpass.pass_at_k, [[1, 0, 1]], 1)
    with pytest.raises(ValueError, match=r"one label per question \(M=2\)"):
        kpass.standard_error(kpass.pass_at_k, [[1, 0], [0, 1]], 1, clusters=["a"])
    with pytest.raises(TypeError, match="`clusters`"):
        kpass.standard_error(kpass.pass_at_k, [[1, 0], [0, 1]], 1, clusters="ab")
    with pytest.raises(ValueError, match="at least 2 clusters"):
        kpass.standard_error(kpass.pass_at_k, [[1, 0], [0, 1]], 1, clusters=["a", "a"])
    with pytest.raises(TypeError, match="`metric`"):
        kpass.standard_error(len, [[1, 0], [0, 1]], 1)
    with pytest.raises(TypeError, match="not the posterior"):
        kpass.standard_error(kpass.maj_at_k_ci, [[1, 0], [0, 1]], 1)


def t_power(m, noncentrality, alpha=0.05):
    """Power of the two-sided t test on m values (scipy.stats.nct, the reference)."""
    df = m - 1
    q = sps.t.ppf(1 - alpha / 2, df)
    return sps.nct.sf(q, df, noncentrality) + sps.nct.cdf(-q, df, noncentrality)


def test_plan_pilot_se_is_the_standard_error_and_within_is_exact_for_the_mean():
    rng = np.random.default_rng(3)
    p = rng.beta(2, 2, size=200)
    R = (rng.random((200, 10)) < p[:, None]).astype(int)
    pilot = kpass.plan(kpass.pass_at_k, R, 1, alpha0=1.0, beta0=1.0)
    assert pilot.populations == ((1.0, 1.0),)
    assert pilot.se() == pytest.approx(kpass.standard_error(kpass.pass_at_k, R, 1), rel=1e-9)
    # Pass@1: Var(c/n | p) = p(1-p)/n; under the posterior Beta(1 + c, 1 + n - c),
    # E[p(1-p)] = a b / ((a + b)(a + b + 1)); written out per question:
    c = R.sum(axis=1)
    a, b = 1 + c, 1 + 10 - c
    for n in (1, 10, 40):
        expected = float(np.mean(a * b / ((a + b) * (a + b + 1)) / n))
        assert pilot.within_at(n) == pytest.approx(expected, rel=1e-9)
    # The t test's power (noncentral t, scipy.stats.nct) reaches 0.8 at the planned M and
    # not at M - 1; the normal approximation's M is at most a question or two below it.
    sd = math.sqrt(pilot.between + pilot.within_at(10))
    m = pilot.questions_for(0.05, samples=10)
    assert t_power(m, 0.05 / sd * math.sqrt(m)) >= 0.8 > t_power(m - 1, 0.05 / sd
                                                                    * math.sqrt(m - 1))
    z = statistics.NormalDist().inv_cdf(0.975) + statistics.NormalDist().inv_cdf(0.8)
    assert 0 <= m - math.ceil(z * z * sd * sd / 0.05 ** 2) <= 2
    n = pilot.samples_for(0.04, questions=300)
    assert n is not None and n > 1
    assert t_power(300, 0.04 / pilot.se(300, n)) >= 0.8 > t_power(300, 0.04 / pilot.se(300, n - 1))
    with pytest.raises(ValueError, match="between-question variance alone"):
        pilot.samples_for(0.001, questions=300)  # the between part alone is too large


def test_plan_fits_the_population_by_maximum_likelihood():
    rng = np.random.default_rng(4)
    R = (rng.random((300, 4)) < rng.beta(0.5, 0.8, size=300)[:, None]).astype(int)
    c = R.sum(axis=1)
    pilot = kpass.plan(kpass.pass_at_k, R, 1)
    (a, b), = pilot.populations

    def loglik(x, y):  # Beta-binomial likelihood, written out with Beta functions
        return float(np.sum(special.betaln(x + c, y + 4 - c) - special.betaln(x, y)))

    best = loglik(a, b)
    for da, db in [(0.97, 1), (1.03, 1), (1, 0.97), (1, 1.03), (0.97, 0.97), (1.03, 1.03)]:
        assert loglik(a * da, b * db) <= best + 1e-7
    # Within part at n: mean posterior E[p(1-p)]/n under Beta(a + c, b + 4 - c).
    x, y = a + c, b + 4 - c
    for n in (1, 7):
        moment = float(np.mean(x * y / ((x + y) * (x + y + 1))))
        assert pilot.within_at(n) == pytest.approx(moment / n, rel=1e-9)
    with pytest.raises(ValueError, match="together"):
        kpass.plan(kpass.pass_at_k, R, 1, alpha0=1.0)


def test_plan_refuses_bad_input():
    R = [[1, 0, 1], [0, 0, 1]]
    with pytest.raises(TypeError, match="for planning"):
        kpass.plan(kpass.geom_ds_at_k, R, 1)
    with pytest.raises(TypeError, match="one int"):
        kpass.plan(kpass.pass_at_k, R, [1, 2])
    pilot = kpass.plan(kpass.pass_at_k, R, 2)
    with pytest.raises(ValueError, match="`difference`"):
        pilot.questions_for(0.0)
    with pytest.raises(ValueError, match="`samples`"):
        pilot.se(samples=1)
    with pytest.raises(ValueError, match="`power`"):
        pilot.questions_for(0.1, power=1.0)


def test_compare_matches_questions_by_id_whatever_the_order():
    A = RNG.integers(0, 2, size=(12, 5))
    B = RNG.integers(0, 2, size=(12, 5))
    ids = [f"q{i}" for i in range(12)]
    order = RNG.permutation(12)
    counts_a = kpass.BinaryCounts(A.sum(axis=1) * 0 + 5, A.sum(axis=1), ids=ids)
    counts_b = kpass.BinaryCounts(np.full(12, 5), B[order].sum(axis=1),
                                  ids=[ids[i] for i in order])
    assert kpass.compare(kpass.pass_at_k, counts_a, counts_b, 2) == kpass.compare(
        kpass.pass_at_k, A, B, 2)
    other = kpass.BinaryCounts(np.full(12, 5), B.sum(axis=1), ids=ids[:11] + ["extra"])
    with pytest.raises(ValueError, match=r"1 ids of A are not in B \(e.g. \['q11'\]\).*extra"):
        kpass.compare(kpass.pass_at_k, counts_a, other, 2)
    with pytest.raises(ValueError, match=r"only some runs carry question ids \(B does not\)"):
        kpass.compare(kpass.pass_at_k, counts_a, B, 2)


def test_counts_with_ids_merge_shards_and_refuse_duplicates():
    first = kpass.BinaryCounts([4, 4], [1, 4], ids=["a", "b"])
    second = kpass.BinaryCounts([2, 3], [2, 0], ids=["c", "a"])
    merged = kpass.BinaryCounts.concat([first, second])
    assert merged.ids == ("a", "b", "c")
    assert merged.n_samples.tolist() == [7, 4, 2] and merged.n_correct.tolist() == [1, 4, 2]
    with pytest.raises(ValueError, match="unique; 'a' appears more than once"):
        kpass.BinaryCounts([1, 1], [0, 1], ids=["a", "a"])
    with pytest.raises(ValueError, match="one id per question"):
        kpass.BinaryCounts([1, 1], [0, 1], ids=["a"])
    with pytest.raises(ValueError, match="all carry question ids or none"):
        kpass.BinaryCounts.concat([first, kpass.BinaryCounts([1], [1])])
    with pytest.raises(TypeError, match=r"ids\[1\]"):
        kpass.BinaryCounts([1, 1], [0, 1], ids=["a", 2.5])


@pytest.mark.parametrize("spread", ["dense", "sparse"])
def test_per_question_values_map_each_question_to_its_own_state(spread):
    # Dense keys (rectangular-ish n) take a direct table, sparse keys (n up to 1e9) a
    # binary search; both must return question q's own 1 - C(n-c, k)/C(n, k), in input order.
    from math import comb

    rng = np.random.default_rng(7)
    m = 300
    if spread == "dense":
        n = rng.integers(4, 12, size=m)
    else:
        n = rng.choice([4, 9, 10**6, 10**9], size=m)
    c = np.array([rng.integers(0, int(x) + 1) if x < 100 else rng.choice([0, 1, int(x) - 2, x])
                  for x in n], dtype=np.int64)
    counts = kpass.BinaryCounts(n, c)
    got = kpass.pass_at_k(counts, 3, per_question=True)

    def exact(total, correct):
        if total < 100:
            return 1 - comb(total - correct, 3) / comb(total, 3)
        wrong = total - correct  # ratio of falling factorials, exact enough in floats
        return 1 - (wrong / total) * ((wrong - 1) / (total - 1)) * ((wrong - 2) / (total - 2))

    expected = [exact(int(a), int(b)) for a, b in zip(n, c, strict=True)]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


def test_standard_error_by_state_agrees_with_per_question_values_on_sparse_states():
    # Counts with n up to 1e9 take the sorted-unique path of the weighted-state SE.
    rng = np.random.default_rng(11)
    n = rng.choice([5, 40, 10**6, 10**9], size=200)
    c = np.minimum(rng.integers(0, 6, size=200), n)
    counts = kpass.BinaryCounts(n, c)
    for metric, extra in PER_QUESTION_METRICS:
        got = kpass.standard_error(metric, counts, [1, 4], *extra)
        for k, se in zip([1, 4], got, strict=True):
            values = metric(counts, k, *extra, per_question=True).tolist()
            assert se == pytest.approx(clt(values), rel=1e-10), metric.__name__


def test_standard_error_refusals_count_questions_not_states():
    # 3 of the 30 questions have 2 samples; the message must say so (not "1 of 2" states).
    R = [[1, 0]] * 3 + [[1, 0, 1, 1]] * 27
    with pytest.raises(ValueError, match="3 of 30 questions"):
        kpass.standard_error(kpass.pass_at_k, R, 4)


@pytest.mark.parametrize("R", [R_RECT, R_RAGGED], ids=["rectangular", "ragged"])
@pytest.mark.parametrize("metric, extra", PER_QUESTION_METRICS)
def test_estimates_and_standard_errors_are_the_point_function_and_its_se(R, metric, extra):
    # What `kpass report` takes from one evaluation per state must be the very floats of
    # the two public calls it replaces.
    from kpass.stats.errors import estimates_and_standard_errors

    counts = kpass.binary_counts(R)
    ks = [1, 2, 3]
    both = estimates_and_standard_errors(metric, counts, ks, *extra)
    assert both is not None
    assert both[0] == metric(kpass.binary_counts(R), ks, *extra)
    assert both[1] == kpass.standard_error(metric, kpass.binary_counts(R), ks, *extra)
    # the per-question values written out: the CLT formula over questions
    values = metric(kpass.binary_counts(R), ks, *extra, per_question=True)
    for se, column in zip(both[1], values, strict=True):
        assert se == pytest.approx(lm_eval_mean_stderr(list(column)), rel=1e-12)


def test_estimates_and_standard_errors_of_avg_are_the_se_over_questions():
    from kpass.stats.errors import estimates_and_standard_errors

    counts = kpass.binary_counts(R_RAGGED)
    (estimate,), (se,) = estimates_and_standard_errors(kpass.avg, counts, None)
    averages = [sum(row) / len(row) for row in R_RAGGED]
    assert estimate == pytest.approx(statistics.fmean(averages), rel=1e-12)
    assert se == pytest.approx(lm_eval_mean_stderr(averages), rel=1e-12)


def test_estimates_and_standard_errors_leave_the_other_cases_to_the_two_calls():
    from kpass.stats.errors import estimates_and_standard_errors

    ragged = kpass.binary_counts(R_RAGGED)
    assert estimates_and_standard_errors(kpass.pass_at_k, ragged, [ragged.smallest_n + 1]
                                         ) is None  # a question short of k
    assert estimates_and_standard_errors(kpass.geo_spectrum_star_at_k, ragged, [1]) is None
    assert estimates_and_standard_errors(kpass.pass_at_k, kpass.binary_counts([[1, 0]]),
                                         [1]) is None  # one question: no SE
    assert estimates_and_standard_errors(kpass.g_pass_at_k_tau, ragged, [2], 1.5) is None
    assert estimates_and_standard_errors(kpass.pass_at_k, ragged, []) is None


def test_per_question_values_stay_right_when_the_states_are_reused():
    # The map from states back to questions is cached on the states, which the counts
    # cache: asking again (other k, other metric) gives the same per-question values.
    counts = kpass.binary_counts(R_RAGGED)
    for _ in range(2):
        for k in (1, 3):
            values = kpass.pass_at_k(counts, k, per_question=True)
            expected = [1 - math.comb(len(row) - sum(row), k) / math.comb(len(row), k)
                        for row in R_RAGGED]
            assert values.tolist() == pytest.approx(expected, rel=1e-12)
