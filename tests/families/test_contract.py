"""Contract: names, signatures, defaults and return types frozen against the reference library."""

import importlib
import inspect

import numpy as np
import pytest

import kpass

se = pytest.importorskip("scorio.eval")
se_tailpass = importlib.import_module("scorio.eval.tailpass")

REFERENCE_NAMES = [
    "bayes", "bayes_ci", "avg", "avg_ci", "pass_at_k", "pass_at_k_ci", "pass_hat_k",
    "pass_hat_k_ci", "unanimous_at_k", "unanimous_at_k_ci", "g_pass_at_k", "g_pass_at_k_ci",
    "g_pass_at_k_tau", "g_pass_at_k_tau_ci", "mg_pass_at_k", "mg_pass_at_k_ci", "maj_at_k",
    "maj_at_k_ci", "auc_at_k", "auc_at_k_ci", "geom_at_k", "geom_at_k_ci", "geom_ds_at_k",
    "geom_ds_at_k_ci", "geo_spectrum_at_k", "geo_spectrum_at_k_ci", "geo_spectrum_star_at_k",
    "geo_spectrum_star_at_k_ci", "threshold_spectrum_at_k", "threshold_spectrum_at_k_ci",
    "max_at_k", "max_at_k_ci",
]
EXTRA_NAMES = ["ArgumentTypeError", "InputError", "BinaryCounts", "CategoricalCounts", "binarize",
               "binary_counts",
               "categorical_counts", "cons_at_k", "cons_at_k_ci", "vote_at_k", "vote_at_k_ci",
               # the named result of every *_ci
               "Posterior",
               # uncertainty over questions and paired comparison (kpass.stats)
               "Comparison", "Design", "Plan", "SmallSampleWarning", "compare", "plan",
               "standard_error",
               # many models ranked jointly (kpass.leaderboard), the report from counts
               "Leaderboard", "RankedPair", "Standing", "leaderboard", "report_table",
               "compare_table",
               # adaptive evaluation (kpass.stats.allocation, kpass.stats.sequential)
               "allocate", "confidence_sequence", "ConfidenceSequence", "SequentialMonitor",
               # the winner of a leaderboard, a planned split of a budget
               "Winner", "Split",
               # cost per question and per solved question, the estimate-vs-cost front
               "CostSummary", "CostFront", "cost_summary", "cost_front",
               "from_long_with_costs",
               "CostDifference", "cost_difference",
               # a benchmark's value from a subset of its questions
               "Subset", "SubsetEstimate", "choose_questions", "subset_estimate",
               "SubsetComparison", "subset_compare", "SubsetLeaderboard", "SubsetStanding",
               "subset_leaderboard"]
# TailPass (kpass.tailpass): a profile object, not a float; its contract is checked below.
TAILPASS_NAMES = ["tailpass", "tailpass_empirical", "TailPassProfile", "TailPassDraws"]
# scorio.eval.tailpass_weights: convex threshold weights for TailPassProfile.linear.
TAILPASS_WEIGHT_NAMES = ["uniform_weights", "threshold_weights", "discovery_weights",
                         "stability_weights", "moment_weights", "beta_weights",
                         "maxent_weights", "payoff_weights"]
TAILPASS_METHODS = {
    "TailPassProfile": ["linear", "moment", "discovery", "stability", "at_k", "sample", "ci",
                        "linear_ci", "moment_ci"],
    "TailPassDraws": ["linear", "moment", "power_mean", "qrs", "rollout", "harmonic",
                      "discovery", "stability", "shortfall", "at_k", "summary"],
}


def test_all_is_frozen():
    assert sorted(kpass.__all__) == sorted(REFERENCE_NAMES + EXTRA_NAMES + TAILPASS_NAMES
                                           + TAILPASS_WEIGHT_NAMES)
    for name in kpass.__all__:
        assert hasattr(kpass, name)


def _tailpass_callables():
    pairs = [(name, getattr(kpass, name), getattr(se, name))
             for name in ("tailpass", "tailpass_empirical")]
    weights = importlib.import_module("scorio.eval.tailpass_weights")
    pairs += [(name, getattr(kpass, name), getattr(weights, name))
              for name in TAILPASS_WEIGHT_NAMES]
    for cls, methods in TAILPASS_METHODS.items():
        pairs += [(f"{cls}.{method}", getattr(getattr(kpass, cls), method),
                   getattr(getattr(se_tailpass, cls), method)) for method in methods]
    return pairs


@pytest.mark.parametrize("name", REFERENCE_NAMES + [name for name, _, _ in _tailpass_callables()])
def test_reference_signature_is_a_prefix_and_extensions_are_keyword_only(name):
    found = {label: (mine, ref) for label, mine, ref in _tailpass_callables()}
    mine_fn, ref_fn = found.get(name, (getattr(kpass, name, None), getattr(se, name, None)))
    ours = inspect.signature(mine_fn).parameters
    theirs = inspect.signature(ref_fn).parameters
    ours_list = list(ours.values())
    theirs_list = list(theirs.values())
    if "lambda_" in theirs:  # the reference's alias of lam: kpass has one name, and what
        # followed it is keyword-only (a positional lambda_ cannot bind to confidence)
        assert "lambda_" not in ours
        after = [p.name for p in theirs_list].index("lambda_")
        for mine in ours_list[after:]:
            assert mine.kind is inspect.Parameter.KEYWORD_ONLY, (name, mine.name)
            assert mine.name not in theirs or mine.default == theirs[mine.name].default
        theirs_list = theirs_list[:after]
    assert [p.name for p in ours_list[: len(theirs_list)]] == [p.name for p in theirs_list]
    for mine, ref in zip(ours_list, theirs_list, strict=False):
        assert mine.kind == ref.kind, name
        assert mine.default == ref.default, (name, mine.name)
    for extra in ours_list[len(theirs_list):]:
        assert extra.kind is inspect.Parameter.KEYWORD_ONLY, (name, extra.name)


R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
RC = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])


def _call(name):
    fn = getattr(kpass, name)
    if name.startswith(("bayes", "avg")):
        return fn(RC, np.array([0.0, 0.5, 1.0]))
    if name.startswith("max_at_k"):
        return fn(RC, 2, np.array([0.0, 0.5, 1.0]))
    if name.startswith("g_pass_at_k_tau"):
        return fn(R, 2, 0.5)
    if name.startswith("threshold_spectrum"):
        return fn(R, 2, [0.5, 0.5])
    return fn(R, 2)


def test_tailpass_properties_and_return_types_match_the_reference():
    for cls in TAILPASS_METHODS:
        public = {name for name in dir(getattr(se_tailpass, cls)) if not name.startswith("_")}
        assert public <= set(dir(getattr(kpass, cls))), cls
    profile = kpass.tailpass(RC, 3, np.array([0.0, 0.5, 1.0]))
    assert isinstance(profile, kpass.TailPassProfile)
    assert type(profile.question_count) is int and type(profile.k) is int
    for name in ("mean", "std", "thresholds"):
        assert getattr(profile, name).shape == (3,)
    assert profile.covariance.shape == (3, 3) and profile.question_mean.shape == (2, 3)
    for result in (profile.linear([0.2, 0.3, 0.5]), profile.moment(2.0), profile.discovery(),
                   profile.stability()):
        assert type(result) is tuple and [type(v) for v in result] == [float, float]
    for result in (profile.linear_ci([0.2, 0.3, 0.5], rng=0, n_draws=50),
                   profile.moment_ci(0.5, method="normal")):
        assert type(result) is kpass.Posterior and [type(v) for v in result] == [float] * 4
    draws = profile.sample(50, rng=0)
    assert isinstance(draws, kpass.TailPassDraws)
    assert draws.discovery().shape == (50,) and draws.profile.shape == (50, 3)
    assert isinstance(kpass.tailpass_empirical(R, 2), np.ndarray)


@pytest.mark.parametrize("name", REFERENCE_NAMES)
def test_return_types_are_python_floats(name):
    result = _call(name)
    if name.endswith("_ci"):
        assert type(result) is kpass.Posterior and len(result) == 4
    elif name in ("bayes", "avg"):
        assert type(result) is tuple and len(result) == 2
    else:
        result = (result,)
    assert all(type(value) is float for value in result), [type(v) for v in result]


@pytest.mark.parametrize("name", ["pass_at_k", "pass_hat_k", "maj_at_k", "auc_at_k",
                                  "pass_at_k_ci", "mg_pass_at_k_ci", "geom_at_k_ci"])
def test_several_k_give_a_list_in_order(name):
    fn = getattr(kpass, name)
    assert fn(R, [3, 1, 2]) == [fn(R, 3), fn(R, 1), fn(R, 2)]
    assert fn(R, (2,)) == [fn(R, 2)]


@pytest.mark.parametrize("name", [name for name in REFERENCE_NAMES if name.endswith("_ci")]
                         + ["cons_at_k_ci", "vote_at_k_ci"])
def test_every_ci_returns_a_named_posterior_that_is_still_the_reference_4_tuple(name):
    if name == "vote_at_k_ci":
        result = kpass.vote_at_k_ci([["a", "b", "a"], ["b", "b", "a"]], ["a", "b"], 2)
        reference = None
    else:
        result = _call(name)
        reference = None if name == "cons_at_k_ci" else getattr(se, name)(
            *([RC, np.array([0.0, 0.5, 1.0])] if name.startswith(("bayes", "avg")) else
              [RC, 2, np.array([0.0, 0.5, 1.0])] if name.startswith("max_at_k") else
              [R, 2, 0.5] if name.startswith("g_pass_at_k_tau") else
              [R, 2, [0.5, 0.5]] if name.startswith("threshold_spectrum") else [R, 2]))
    assert isinstance(result, kpass.Posterior) and isinstance(result, tuple)
    assert result._fields == ("mean", "sd", "cred_lo", "cred_hi")
    mean, sd, cred_lo, cred_hi = result
    assert (result.mean, result.sd, result.cred_lo, result.cred_hi) == (mean, sd, cred_lo,
                                                                         cred_hi)
    assert result == (mean, sd, cred_lo, cred_hi) and cred_lo <= mean <= cred_hi
    if reference is not None:  # scorio returns a bare tuple: equal to it, element by element
        assert result == pytest.approx(tuple(reference), rel=1e-9, abs=1e-12)
    several = getattr(kpass, name)(R, [1, 2]) if name in ("pass_at_k_ci", "maj_at_k_ci") else []
    assert all(type(item) is kpass.Posterior for item in several)


def test_argument_type_error_is_both_type_and_value_error():
    assert issubclass(kpass.ArgumentTypeError, TypeError)
    assert issubclass(kpass.ArgumentTypeError, ValueError)


def test_counts_objects_are_accepted_everywhere_and_merge():
    counts = kpass.BinaryCounts.concat([kpass.binary_counts(R[:1]), kpass.binary_counts(R[1:])])
    assert kpass.pass_at_k_ci(counts, 2) == kpass.pass_at_k_ci(R, 2)
    categorical = kpass.categorical_counts(RC)
    w = np.array([0.0, 0.5, 1.0])
    assert kpass.max_at_k_ci(categorical, 2, w) == kpass.max_at_k_ci(RC, 2, w)
    assert kpass.bayes(categorical, w) == kpass.bayes(RC, w)


def test_array_likes_are_accepted_like_numpy_arrays():
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(R)
    assert kpass.pass_at_k_ci(frame, 2) == kpass.pass_at_k_ci(R, 2)
    assert kpass.bayes(pandas.DataFrame(RC), [0.0, 0.5, 1.0]) == kpass.bayes(RC, [0.0, 0.5, 1.0])
    assert kpass.pass_at_k([np.array([1, 0, 1]), np.array([0, 1])], 1) == kpass.pass_at_k(
        [[1, 0, 1], [0, 1]], 1)


def test_per_k_spectrum_weights_follow_the_order_of_k_even_when_k_repeats():
    got = kpass.threshold_spectrum_at_k(R, [2, 2], [[0.0, 1.0], [1.0, 0.0]])
    assert got == pytest.approx([kpass.pass_hat_k(R, 2), kpass.pass_at_k(R, 2)], abs=1e-15)
    got_ci = kpass.threshold_spectrum_at_k_ci(R, [2, 2], [[0.0, 1.0], [1.0, 0.0]])
    assert got_ci[0] == pytest.approx(kpass.pass_hat_k_ci(R, 2), abs=1e-15)
    assert got_ci[1] == pytest.approx(kpass.pass_at_k_ci(R, 2), abs=1e-15)
