"""kpass.subset_compare: two models' full-benchmark difference from subsets. The numbers on one
draw against subset_estimate's and the formulas by hand (paired: the same subset; Welch: two
draws; a full run: SE 0), bad input, and by seeded simulation the coverage of the full runs'
difference, the paired estimator's gain and the type-I error at an exactly zero difference."""

import numpy as np
import pytest

import kpass

N = 300


def test_one_draw_against_subset_estimate_and_the_formulas(subset_world, subset_run):
    from scipy.stats import t as student

    reference, probability, ids, _ = subset_world(0, N)
    rng = np.random.default_rng(1)
    A, B = subset_run(rng, probability(0.8), ids, 4), subset_run(rng, probability(0.1), ids, 4)
    one = kpass.choose_questions(reference, 60, seed=1)
    two = kpass.choose_questions(reference, 60, seed=2)
    est = {(name, s): kpass.subset_estimate(kpass.pass_at_k, R, 2, subset=subset,
                                            reference=reference)
           for name, R in (("A", A), ("B", B)) for s, subset in ((1, one), (2, two))}
    # (b) two draws: difference of the estimates, se^2 added, Welch-Satterthwaite df
    r = kpass.subset_compare(kpass.pass_at_k, A, B, 2, subset_a=one, subset_b=two,
                             reference=reference)
    ea, eb = est["A", 1], est["B", 2]
    assert not r.same_subset
    assert (r.a, r.b, r.se_a, r.se_b) == pytest.approx((ea.estimate, eb.estimate, ea.se, eb.se))
    assert r.difference == pytest.approx(ea.estimate - eb.estimate, abs=1e-12)
    assert r.se == pytest.approx(np.hypot(ea.se, eb.se)) and r.se_unpaired == r.se
    df = (ea.se**2 + eb.se**2) ** 2 / (ea.se**4 / ea.df + eb.se**4 / eb.df)
    assert r.df == pytest.approx(df)
    q = student.ppf(0.975, df)
    assert (r.lo, r.hi) == pytest.approx((r.difference - q * r.se, r.difference + q * r.se))
    assert r.p_value == pytest.approx(2 * student.sf(abs(r.difference) / r.se, df))
    # (a) one draw: the same two estimates, the paired se from the per-question residuals
    p = kpass.subset_compare("pass@k", A, B, 2, subset_a=one, subset_b=one, reference=reference)
    ea, eb = est["A", 1], est["B", 1]
    assert p.same_subset and p.df == ea.df
    assert p.difference == pytest.approx(ea.estimate - eb.estimate, abs=1e-12)
    assert p.se_unpaired == pytest.approx(np.hypot(ea.se, eb.se))
    assert 0 < p.se < p.se_unpaired
    # the same draw read back (an equal Subset, not the same object) is paired too
    again = kpass.Subset(ids=one.ids, inclusion=one.inclusion.copy(), stratum=one.stratum.copy(),
                         population=N, design=one.design)
    assert kpass.subset_compare(kpass.pass_at_k, A, B, 2, subset_a=one, subset_b=again,
                                reference=reference).se == p.se
    # a model against itself on one subset: exactly 0, se 0, p = 1
    same = kpass.subset_compare(kpass.pass_at_k, A, A, 2, subset_a=one, subset_b=one,
                                reference=reference)
    assert (same.difference, same.se, same.p_value) == (0.0, 0.0, 1.0)
    # (c) B run fully: its value exactly, se 0; the comparison's se and df are A's
    f = kpass.subset_compare(kpass.pass_at_k, A, B, 2, subset_a=one, subset_b=None,
                             reference=reference)
    assert f.b == pytest.approx(kpass.pass_at_k(B, 2)) and f.se_b == 0.0
    assert (f.se, f.df) == pytest.approx((est["A", 1].se, est["A", 1].df))
    assert f.difference == pytest.approx(est["A", 1].estimate - kpass.pass_at_k(B, 2))
    # a full run without ids, rows in the references' order, gives the same
    bare = kpass.BinaryCounts(B.n_samples, B.n_correct)
    assert kpass.subset_compare(kpass.pass_at_k, A, bare, 2, subset_a=one, subset_b=None,
                                reference=reference).difference == f.difference


@pytest.mark.parametrize(("change", "words"), [
    ({"subset_a": None, "subset_b": None}, "both None"),
    ({"subset_a": "q1"}, "`subset_a` must be a Subset"),
    ({"subset_b": [1]}, "`subset_b` must be a Subset"),
    ({"R_a": kpass.BinaryCounts([1, 1], [1, 0], ids=["q0", "q1"])}, "`R_a` lacks"),
    ({"subset_b": None, "R_b": kpass.BinaryCounts([1, 1], [1, 0], ids=["q0", "q1"])},
     "`R_b` is a full run"),
    ({"subset_b": None, "R_b": kpass.BinaryCounts([1, 1], [1, 0])}, "one row per benchmark"),
    ({"metric": "nope"}, "`metric` must be"),
    ({"irt": "3pl"}, "`irt` must be one of"),
    ({"confidence": 1.5}, "confidence"),
])
def test_bad_input(change, words, subset_world, subset_run):
    reference, probability, ids, _ = subset_world(2, N, K=8)
    rng = np.random.default_rng(0)
    subset = kpass.choose_questions(reference, 30, seed=0)
    arguments = {"metric": kpass.pass_at_k, "R_a": subset_run(rng, probability(0.5), ids, 1),
                 "R_b": subset_run(rng, probability(0.0), ids, 1), "subset_a": subset,
                 "subset_b": subset, "irt": "2pl", "confidence": 0.95}
    arguments.update(change)
    with pytest.raises((TypeError, ValueError), match=words):
        kpass.subset_compare(arguments["metric"], arguments["R_a"], arguments["R_b"], 1,
                             subset_a=arguments["subset_a"], subset_b=arguments["subset_b"],
                             reference=reference, irt=arguments["irt"],
                             confidence=arguments["confidence"])


@pytest.mark.slow
@pytest.mark.parametrize(("shared", "gain"), [(0.0, 1.0), (1.0, 0.97)])
def test_coverage_pairing_and_type_one_error(shared, gain, subset_world, subset_run):
    """400 replications on a 300-question 2PL benchmark, 20 reference models, m = 60: the two
    new models' full runs redrawn, then one subset for both (a) or one each (b). ``shared``:
    the sd of a per-question logit offset the two new models share and the references lack
    (two checkpoints of one family); the paired interval is narrower than the independent
    one always, and by 3% or more with such an offset (with one sample per question the
    residuals are mostly independent binary noise: measured 0.98x and 0.93x)."""
    reference, probability, ids, _ = subset_world(3, N)
    rng = np.random.default_rng(7)
    offset = rng.normal(0, shared, N) if shared else 0.0

    def new(theta):
        return 1 / (1 + np.exp(-(np.log(probability(theta) / (1 - probability(theta)))
                                 + offset)))

    p_a, p_b = new(0.7), new(0.2)
    # a model whose full-benchmark value is A's exactly: A's outcomes swapped between
    # neighbours in difficulty (a realistic model, and a true difference of exactly 0)
    order = np.argsort(np.mean([r.n_correct for r in reference.values()], axis=0))
    swap = np.arange(N)
    swap[order[0::2]], swap[order[1::2]] = order[1::2], order[0::2]
    hits = {"a": [], "b": []}
    widths = {"a": [], "b": []}
    rejects = {"a": [], "b": []}
    power = {"a": [], "b": []}
    for rep in range(400):
        A, B = subset_run(rng, p_a, ids, 1), subset_run(rng, p_b, ids, 1)
        truth = kpass.pass_at_k(A, 1) - kpass.pass_at_k(B, 1)
        twin = kpass.BinaryCounts(A.n_samples[swap], A.n_correct[swap], ids=ids)
        assert kpass.pass_at_k(twin, 1) == kpass.pass_at_k(A, 1)
        one = kpass.choose_questions(reference, 60, seed=2 * rep)
        two = kpass.choose_questions(reference, 60, seed=2 * rep + 1)
        for kind, other in (("a", one), ("b", two)):
            r = kpass.subset_compare(kpass.pass_at_k, A, B, 1, subset_a=one, subset_b=other,
                                     reference=reference)
            hits[kind].append(r.lo <= truth <= r.hi)
            widths[kind].append(r.hi - r.lo)
            power[kind].append(r.p_value < 0.05)
            if not shared:
                null = kpass.subset_compare(kpass.pass_at_k, A, twin, 1, subset_a=one,
                                            subset_b=other, reference=reference)
                rejects[kind].append(null.p_value < 0.05)
    for kind in "ab":
        assert 0.93 <= np.mean(hits[kind]) <= 0.97, (kind, np.mean(hits[kind]))
        if not shared:
            assert 0.03 <= np.mean(rejects[kind]) <= 0.07, (kind, np.mean(rejects[kind]))
        # power at the true difference of about 0.1 (measured 0.22-0.28 with one sample)
        assert np.mean(power[kind]) > 0.2, (kind, np.mean(power[kind]))
    assert np.mean(widths["a"]) < gain * np.mean(widths["b"])
