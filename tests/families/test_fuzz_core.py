"""Fuzzing every public function of kpass with odd dtypes, masks, extreme priors and rewards.

The registry below is built from ``kpass.__all__`` and each function's signature, so a
new public function is fuzzed as soon as it is exported (and
:func:`test_every_public_function_is_classified` fails until its arguments are known).
For every example the contract is: a finite result in range (in [0, 1] for the binary
families and the vote; within [min w, max w] for the rewarded ones), never -0.0, and
the same value whatever container the outcomes come in (list, numpy dtype, masked
array, pandas nullable table, counts); or a ValueError/TypeError whose message names
an argument. Never NaN, inf or another exception type.
"""

from __future__ import annotations

import inspect
import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import kpass

pd = pytest.importorskip("pandas")

FUZZ = settings(max_examples=30, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

COUNTS_BUILDERS = ("binary_counts", "categorical_counts")


def kind_of(fn) -> str | None:
    """The family of a public function, from its signature (None: unknown)."""
    params = list(inspect.signature(fn).parameters)
    if fn.__name__ in COUNTS_BUILDERS:
        return "counts"
    if fn.__module__ == "kpass.families.tailpass.weights":
        return "weights"
    if fn.__name__ in ("choose_questions", "subset_estimate", "subset_compare",
                       "subset_leaderboard"):
        return "subset"
    if fn.__name__ in ("cost_summary", "cost_front", "cost_difference"):
        return "cost"
    if params[:1] == ["frame"]:
        return "frames"
    if params[:1] == ["counts"]:
        return "report"
    if params[:2] == ["a", "b"]:
        return "compare_table"
    if params[:1] == ["metric"]:
        return "stats"
    if params == ["R", "threshold"]:
        return "binarize"
    if params[:3] == ["answers", "references", "k"]:
        return "vote"
    if params[:1] == ["R"] and "w" in params:
        return "rewarded"
    if params[:2] == ["R", "k"]:
        return "binary"
    return None


#: Arguments the fuzzer knows how to draw (beyond the outcomes and k).
KNOWN = {"R", "k", "answers", "references", "w", "R0", "tau", "weights", "alpha0", "beta0",
         "confidence", "bounds", "short", "per_question", "pass_power", "unanimous_power",
         "lam", "ties", "prior", "draws", "seed", "n_categories", "name",
         "metric", "R_a", "R_b", "args", "kwargs", "threshold", "theta", "kappa",
         "mean_threshold", "payoff", "runs", "counts", "budget", "a", "b", "reference", "m",
         "subset", "subset_a", "subset_b", "subsets", "R_new", "n_samples", "n_correct", "cost",
         "values", "costs", "cost_a", "cost_b", "frame", "id", "outcome"}

FUNCTIONS = {name: getattr(kpass, name) for name in kpass.__all__
             if inspect.isfunction(getattr(kpass, name))}


def test_every_public_function_is_classified():
    for name, fn in FUNCTIONS.items():
        assert kind_of(fn) is not None, f"{name}: add its family to the fuzz registry"
        required = {p.name for p in inspect.signature(fn).parameters.values()
                    if p.default is inspect.Parameter.empty}
        assert required <= KNOWN, f"{name}: teach the fuzzer to draw {required - KNOWN}"


# ----------------------------------------------------------------------------- strategies

EXTREME = [1e-300, 1e-30, 1e-16, 1e-3, 0.5, 1.0, 7.0, 1e6, 1e16, 1e30, 1e300]
priors = st.one_of(st.sampled_from(EXTREME),
                   st.floats(-30, 30).map(lambda e: 10.0 ** e))
rewards = st.one_of(st.sampled_from([0.0, 1.0, -1.0, 1e-300, 1e155, -1e155, 1e300, -1e300]),
                    st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False))


def ragged(values: st.SearchStrategy, max_questions: int = 5, max_samples: int = 7):
    return st.lists(st.lists(values, min_size=1, max_size=max_samples),
                    min_size=1, max_size=max_questions)


CONTAINERS = ["list", "int8", "uint64", "float16", "bool", "object", "masked", "pandas", "counts"]


def contain(rows: list[list[int]], container: str, data, categorical: bool):
    """The rows in another container that means the same outcomes (None: not expressible)."""
    width = max(len(row) for row in rows)
    rectangular = all(len(row) == width for row in rows)
    top = max(max(row) for row in rows)
    if container == "list":
        return rows
    if container in ("masked", "pandas"):
        # Pad to a rectangle with masked/missing entries holding junk the mask must hide.
        junk = data.draw(st.sampled_from([7, -3, 2**40]), label="junk")
        matrix = np.array([row + [junk] * (width - len(row)) for row in rows], dtype=np.int64)
        missing = np.array([[j >= len(row) for j in range(width)] for row in rows])
        if container == "masked":
            return np.ma.array(matrix, mask=missing)
        if top > 100:
            return None
        frame = pd.DataFrame(np.where(missing, 0, matrix)).astype("Int8")
        return frame.mask(missing)
    if container == "counts":
        n = np.array([len(row) for row in rows])
        if not categorical:
            if top > 1:
                return None
            return kpass.BinaryCounts(n, np.array([sum(row) for row in rows]))
        table = np.array([[row.count(j) for j in range(top + 1)] for row in rows])
        return kpass.CategoricalCounts(table, np.zeros_like(table))
    if not rectangular:
        return None
    if container == "bool":
        return np.array(rows, dtype=bool) if top <= 1 else None
    if container == "int8":
        return np.array(rows, dtype=np.int8) if top < 128 else None
    if container == "float16":
        return np.array(rows, dtype=np.float16) if top <= 2048 else None
    return np.array(rows, dtype=np.uint64 if container == "uint64" else object)


def draw_k(data, smallest_n: int, latent: bool):
    top = smallest_n + (3 if latent else 0)
    k = data.draw(st.integers(1, top), label="k")
    shape = data.draw(st.sampled_from(["int", "numpy", "0-d", "list"]), label="k shape")
    if shape == "numpy":
        return np.int64(k)
    if shape == "0-d":
        return np.array(k)
    if shape == "list":
        return sorted({k, data.draw(st.integers(1, top), label="k2")})
    return k


def extra_arguments(fn, data, k, categories: int | None = None) -> dict:
    params = inspect.signature(fn).parameters
    ks = k if isinstance(k, list) else [int(k)]
    out = {}
    draw = data.draw
    if "tau" in params:
        out["tau"] = draw(st.floats(0.0, 1.0), label="tau")
    if "weights" in params:
        required = params["weights"].default is inspect.Parameter.empty
        if required or draw(st.booleans(), label="give weights"):
            vectors = []
            for budget in ks:
                raw = np.array(draw(st.lists(st.floats(0.0, 1.0), min_size=budget,
                                             max_size=budget), label="weights"))
                vectors.append((raw / max(1.0, raw.sum() * (1 + 1e-9))).tolist())
            out["weights"] = vectors if isinstance(k, list) else vectors[0]
    for name in ("alpha0", "beta0"):
        if name in params:
            out[name] = draw(priors, label=name)
    if "confidence" in params:
        out["confidence"] = draw(st.floats(0.01, 0.999), label="confidence")
    for name in ("pass_power", "unanimous_power"):
        if name in params:
            out[name] = draw(st.floats(0.0, 2.0), label=name)
    if "lam" in params:
        out["lam"] = draw(st.floats(0.0, 1.0), label="lam")
    if "ties" in params:
        out["ties"] = draw(st.sampled_from(["fractional", "wrong"]), label="ties")
    if "prior" in params:
        out["prior"] = draw(st.one_of(st.sampled_from([1e-300, 1e-30, 1.0, 1e12]),
                                      st.floats(-30, 12).map(lambda e: 10.0 ** e)), label="prior")
    if "draws" in params:
        out["draws"] = draw(st.integers(2, 16), label="draws")
    if "seed" in params:
        out["seed"] = draw(st.integers(0, 2**32), label="seed")
    if "R0" in params and categories is not None and draw(st.booleans(), label="give R0"):
        out["R0"] = None  # filled by the caller, who knows the questions
    return out


# ----------------------------------------------------------------------------- the contract

NAMED = re.compile(r"`[A-Za-z_]\w*(\[\d+\])?`|\b(R0?|answers|references)\[\d")


def call(fn, *args, **kwargs):
    """The result, or None when the function refused with a message naming an argument."""
    try:
        return fn(*args, **kwargs)
    except (ValueError, TypeError) as error:
        assert NAMED.search(str(error)), f"{fn.__name__}: message names no argument: {error}"
        return None


def profile_numbers(profile):
    """A TailPass profile's exact summaries: each a probability in [0, 1], or a refusal."""
    size = profile.thresholds.size
    summaries = [lambda: profile.mean, lambda: profile.std, lambda: profile.question_mean,
                 lambda: profile.linear(np.full(size, 1.0 / size)), lambda: profile.moment(1.0),
                 lambda: profile.moment(2.0), lambda: profile.moment(0.5),
                 profile.discovery, profile.stability]
    values = []
    for summary in summaries:
        found = call(summary)
        if found is not None:
            values.extend(numbers(found))
    return values


def numbers(result):
    if isinstance(result, kpass.TailPassProfile):
        yield from profile_numbers(result)
    elif isinstance(result, list):
        for item in result:
            yield from numbers(item)
    elif isinstance(result, tuple):
        for item in result:
            yield from numbers(item)
    elif isinstance(result, np.ndarray):
        yield from (float(x) for x in result.ravel())
    else:
        assert isinstance(result, float), f"result of type {type(result).__name__}"
        yield result


def check_result(result, low: float, high: float, *, skipped_nan: bool = False):
    slack = 1e-12 * max(abs(low), abs(high), 1e-300)
    values = list(numbers(result))
    for value in values:
        if skipped_nan and math.isnan(value):
            continue
        assert math.isfinite(value), f"non-finite {value} in {result}"
        assert not (value == 0.0 and math.copysign(1.0, value) < 0), f"-0.0 in {result}"
    parts = result if isinstance(result, list) else [result]
    parts = [_profile_values(part) for part in parts]
    for part in parts:
        if isinstance(part, tuple):  # (mu, sigma[, lo, hi])
            assert low - slack <= part[0] <= high + slack, f"mu {part[0]} not in [{low}, {high}]"
            assert part[1] >= 0.0
            if len(part) == 4:
                assert part[2] <= part[3]
        else:
            for value in numbers(part):
                if not math.isnan(value):
                    assert low - slack <= value <= high + slack, f"{value} not in [{low}, {high}]"


def _profile_values(part):
    if isinstance(part, kpass.TailPassProfile):
        return np.array(profile_numbers(part))
    return part


def same_result(a, b, scale: float = 1.0):
    left, right = list(numbers(a)), list(numbers(b))
    assert len(left) == len(right)
    for x, y in zip(left, right, strict=True):
        assert (math.isnan(x) and math.isnan(y)) or abs(x - y) <= 1e-9 * max(scale, abs(y))


def by_kind(kind):
    return sorted(name for name, fn in FUNCTIONS.items() if kind_of(fn) == kind)


@pytest.mark.parametrize("name", by_kind("binary"))
@settings(FUZZ)
@given(data=st.data())
def test_fuzz_binary_family(name, data):
    fn = FUNCTIONS[name]
    rows = data.draw(ragged(st.integers(0, 1)), label="rows")
    smallest = min(len(row) for row in rows)
    latent = "short" not in inspect.signature(fn).parameters  # k may exceed n
    k = draw_k(data, smallest, latent)
    kwargs = extra_arguments(fn, data, k)
    per_question = "per_question" in inspect.signature(fn).parameters and \
        data.draw(st.booleans(), label="per_question")
    if per_question:
        kwargs["per_question"] = True
    reference = call(fn, rows, k, **kwargs)
    if reference is None:
        return
    check_result(reference, 0.0, 1.0)
    container = data.draw(st.sampled_from(CONTAINERS), label="container")
    other = contain(rows, container, data, categorical=False)
    if other is not None:
        same_result(fn(other, k, **kwargs), reference)


@pytest.mark.parametrize("name", by_kind("rewarded"))
@settings(FUZZ)
@given(data=st.data())
def test_fuzz_rewarded_family(name, data):
    fn = FUNCTIONS[name]
    params = inspect.signature(fn).parameters
    top = data.draw(st.integers(1, 4), label="top category")
    rows = data.draw(ragged(st.integers(0, top)), label="rows")
    binary = max(max(row) for row in rows) <= 1
    w = data.draw(st.one_of(st.none(), st.lists(rewards, min_size=top + 1, max_size=top + 1))
                  if binary else st.lists(rewards, min_size=top + 1, max_size=top + 1), label="w")
    low, high = (0.0, 1.0) if w is None else (min(w), max(w))
    if name.startswith("tailpass"):  # probabilities of reaching a score, whatever w
        low, high = 0.0, 1.0
    args = [rows]
    k = None
    if "k" in params:
        k = draw_k(data, min(len(row) for row in rows), latent="short" not in params)
        args.append(k)
    kwargs = extra_arguments(fn, data, k if k is not None else 1, categories=top + 1)
    if "R0" in kwargs:
        kwargs["R0"] = data.draw(st.lists(st.lists(st.integers(0, top), max_size=3),
                                          min_size=len(rows), max_size=len(rows)), label="R0")
    if "per_question" in params and data.draw(st.booleans(), label="per_question"):
        kwargs["per_question"] = True
    reference = call(fn, *args, w=w, **kwargs)
    if reference is None:
        return
    if fn is kpass.avg and not kwargs.get("per_question"):
        check_result(reference[0], low, high)
        assert math.isfinite(reference[1]) and reference[1] >= 0.0
    else:
        check_result(reference, low, high)
    container = data.draw(st.sampled_from(CONTAINERS), label="container")
    other = contain(rows, container, data, categorical=True)
    if other is not None:
        same_result(fn(other, *args[1:], w=w, **kwargs), reference,
                    scale=max(abs(low), abs(high), 1.0))


@pytest.mark.parametrize("name", by_kind("vote"))
@settings(FUZZ)
@given(data=st.data())
def test_fuzz_vote_family(name, data):
    fn = FUNCTIONS[name]
    answers = data.draw(ragged(st.sampled_from(["A", "B", "C", None, 1, 1.0])), label="answers")
    references = data.draw(st.lists(st.sampled_from(["A", "B", "D", 1]), min_size=len(answers),
                                     max_size=len(answers)), label="references")
    k = draw_k(data, min(len(row) for row in answers), latent=False)
    kwargs = extra_arguments(fn, data, k)
    result = call(fn, answers, references, k, **kwargs)
    if result is not None:
        check_result(result, 0.0, 1.0)


@pytest.mark.parametrize("name", by_kind("counts"))
@settings(FUZZ)
@given(data=st.data())
def test_fuzz_counts_builders(name, data):
    fn = FUNCTIONS[name]
    categorical = name == "categorical_counts"
    rows = data.draw(ragged(st.integers(0, 3 if categorical else 1)), label="rows")
    reference = fn(rows)
    container = data.draw(st.sampled_from(CONTAINERS[:-1]), label="container")
    other = contain(rows, container, data, categorical=categorical)
    if other is None:
        return
    result = fn(other)
    if categorical:
        width = max(result.counts.shape[1], reference.counts.shape[1])
        assert np.array_equal(result.with_categories(width).counts,
                              reference.with_categories(width).counts)
    else:
        assert np.array_equal(result.n_samples, reference.n_samples)
        assert np.array_equal(result.n_correct, reference.n_correct)


@settings(FUZZ)
@given(data=st.data())
def test_fuzz_bad_arguments_are_refused_by_name(data):
    """Any public binary or rewarded function, one argument made bad: a named refusal."""
    name = data.draw(st.sampled_from(by_kind("binary") + by_kind("rewarded")), label="function")
    fn = FUNCTIONS[name]
    params = inspect.signature(fn).parameters
    bad = data.draw(st.sampled_from(
        [("k", 0), ("k", -2), ("k", 2.5), ("k", "3"), ("k", np.array([[1]])), ("R", "R"),
         ("R", [[0, None]]), ("R", [[]]), ("R", np.ma.array([[1]], mask=[[1]])),
         ("R", [[0, 1e300]]), ("R", np.full((1, 2), np.nan)), ("alpha0", 0.0),
         ("beta0", -1.0), ("alpha0", 1e301), ("confidence", 1.0), ("w", [0.0, np.inf]),
         ("w", [0.0, 1e301]), ("w", "ab"), ("tau", 1.5), ("prior", 1e20), ("short", "x")]),
        label="bad argument")
    if bad[0] not in params:
        return
    kwargs = {"R": [[0, 1, 1], [1, 1, 0]]}
    if "k" in params:
        kwargs["k"] = 2
    if "tau" in params:
        kwargs["tau"] = 0.5
    if "weights" in params and params["weights"].default is inspect.Parameter.empty:
        kwargs["weights"] = [0.5, 0.5]
    kwargs[bad[0]] = bad[1]
    with pytest.raises((ValueError, TypeError)) as info:
        fn(**kwargs)
    assert NAMED.search(str(info.value)), str(info.value)


WEIGHT_ARGUMENTS = st.one_of(st.sampled_from([0, 1, 2, 7, -1, 2.5, True, None, "2", 0.5, 1e-300,
                                              1e300, float("nan"), float("inf"), [1, 2]]),
                             st.integers(-3, 300), st.floats(allow_nan=True))


@pytest.mark.parametrize("name", by_kind("weights"))
@settings(FUZZ)
@given(data=st.data())
def test_fuzz_weights_family(name, data):
    """TailPass threshold weights: a convex weight vector, or a refusal naming the argument."""
    fn = FUNCTIONS[name]
    if name == "payoff_weights":
        args = [data.draw(st.one_of(
            st.lists(st.floats(allow_nan=True), max_size=6),
            st.lists(st.floats(0, 1), min_size=1, max_size=6).map(
                lambda v: [0.0, *sorted(v), 1.0])), label="payoff")]
    else:
        args = [data.draw(WEIGHT_ARGUMENTS, label=param)
                for param in inspect.signature(fn).parameters]
    try:
        weights = fn(*args)
    except (ValueError, TypeError) as error:
        assert NAMED.search(str(error)), str(error)
        return
    assert isinstance(weights, np.ndarray) and weights.ndim == 1 and weights.size >= 1
    assert np.all(np.isfinite(weights)) and np.all(weights >= 0.0)
    assert math.isclose(float(weights.sum()), 1.0, abs_tol=1e-12)


#: Fields that may be infinite by definition: a comparison's MDE when every question agrees
#: (se = 0) at fewer than 6 questions, where no exact sign test can reject (documented).
MAY_BE_INFINITE = {"mde"}


def fields(result):
    """Every float a stats result holds (dataclass fields, lists of them, arrays, a float)."""
    if isinstance(result, (list, tuple)):
        for item in result:
            yield from fields(item)
    elif isinstance(result, np.ndarray) and result.dtype.kind == "f":
        yield from (float(x) for x in result.ravel())
    elif isinstance(result, float):
        yield result
    elif hasattr(result, "__dataclass_fields__"):
        for name in result.__dataclass_fields__:
            value = getattr(result, name)
            if isinstance(value, float) and name in MAY_BE_INFINITE and math.isinf(value):
                assert value > 0, f"{name}: -inf"
                continue
            if isinstance(value, float):
                yield value
            elif isinstance(value, np.ndarray):
                yield from fields(value)
            elif isinstance(value, (list, tuple)):  # a leaderboard's rows and pairs
                yield from fields(value)


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.slow)
                                  if name in ("plan", "allocate") else name
                                  for name in by_kind("stats")])  # plan 2.2 s, allocate 2.5 s
@settings(FUZZ)
@given(data=st.data())
def test_fuzz_stats_over_questions(name, data):
    """Functions taking a metric: no inf, no -0.0, no stray exception type."""
    fn = FUNCTIONS[name]
    metric = data.draw(st.sampled_from([kpass.pass_at_k, kpass.pass_hat_k, kpass.maj_at_k,
                                        kpass.auc_at_k, kpass.mg_pass_at_k]), label="metric")
    rows = data.draw(ragged(st.integers(0, 1), max_questions=6), label="rows")
    k = data.draw(st.integers(1, min(len(row) for row in rows)), label="k")
    container = data.draw(st.sampled_from(CONTAINERS), label="container")
    other = contain(rows, container, data, categorical=False)
    R = rows if other is None else other
    if name in ("compare", "confidence_sequence"):
        flipped = [[1 - x for x in row] for row in rows]
        result = call(fn, metric, R, flipped, k)
    elif name == "allocate":
        budget = data.draw(st.integers(0, 12), label="budget")
        result = call(fn, metric, R, k, budget)
        if result is not None:
            assert int(np.sum(result)) == budget and (np.asarray(result) >= 0).all()
    elif name == "leaderboard":
        flipped = [[1 - x for x in row] for row in rows]
        result = call(fn, metric, {"a": R, "b": flipped, "c": rows}, k)
        if result is not None:
            board = result[0] if isinstance(result, list) else result
            assert sorted(row.rank for row in board.rows)[0] == 1
            assert all(1 <= row.rank_lo <= row.rank <= row.rank_hi <= 3
                       or row.rank_lo <= row.rank_hi for row in board.rows)
    else:
        result = call(fn, metric, R, k)
    if result is None:
        return
    for value in fields(result):
        assert not math.isinf(value), f"{name}: inf in {result}"
        assert not (value == 0.0 and math.copysign(1.0, value) < 0), f"{name}: -0.0 in {result}"


@settings(FUZZ)
@given(data=st.data())
def test_fuzz_subset(data):
    """choose_questions then subset_estimate (and subset_compare of two models on the subset,
    subset_leaderboard of them beside a full run) on small random references: a subset whose
    inclusion probabilities lie in (0, 1], and a finite estimate, or one named error."""
    models = data.draw(st.integers(2, 4), label="models")
    questions = data.draw(st.integers(4, 10), label="questions")
    samples = data.draw(st.integers(1, 4), label="samples")
    outcomes = st.lists(st.lists(st.integers(0, 1), min_size=samples, max_size=samples),
                        min_size=questions, max_size=questions)
    reference = {f"m{j}": data.draw(outcomes, label=f"m{j}") for j in range(models)}
    m = data.draw(st.integers(1, questions + 1), label="m")
    design = data.draw(st.sampled_from(["simple", "stratified"]), label="design")
    chosen = call(kpass.choose_questions, reference, m, seed=data.draw(
        st.integers(0, 3), label="seed"), design=design)
    if chosen is None:
        return
    assert len(chosen.ids) == m and np.all((chosen.inclusion > 0) & (chosen.inclusion <= 1))
    new = [data.draw(st.lists(st.integers(0, 1), min_size=samples, max_size=samples),
                     label="new") for _ in chosen.ids]
    k = data.draw(st.integers(1, samples), label="k")
    metric = data.draw(st.sampled_from([kpass.pass_at_k, kpass.pass_hat_k]), label="metric")
    result = call(kpass.subset_estimate, metric, new, k, subset=chosen, reference=reference)
    if result is None:
        return
    for value in (result.estimate, result.se, result.lo, result.hi):
        assert math.isfinite(value), f"subset_estimate: not finite in {result}"
    assert result.lo <= result.estimate <= result.hi
    other = [data.draw(st.lists(st.integers(0, 1), min_size=samples, max_size=samples),
                       label="other") for _ in chosen.ids]
    both = call(kpass.subset_compare, metric, new, other, k, subset_a=chosen, subset_b=chosen,
                reference=reference)
    if both is None:
        return
    for value in (both.difference, both.se, both.lo, both.hi, both.p_value):
        assert math.isfinite(value), f"subset_compare: not finite in {both}"
    assert both.lo <= both.difference <= both.hi and 0 <= both.p_value <= 1
    full = reference["m0"]  # a full run beside the two subset models
    board = call(kpass.subset_leaderboard, metric, {"full": full, "new": new, "other": other},
                 k, subsets={"new": chosen, "other": chosen}, reference=reference)
    if board is None:
        return
    for row in board.rows:
        for value in (row.estimate, row.se, row.lo, row.hi):
            assert math.isfinite(value), f"subset_leaderboard: not finite in {board.as_dict()}"
        assert row.lo <= row.estimate <= row.hi and 1 <= row.rank_lo <= row.rank_hi <= 3
    assert all(0 <= pair.p_value <= pair.p_adjusted <= 1 for pair in board.pairs)


@settings(FUZZ)
@given(data=st.data())
def test_fuzz_cost(data):
    """cost_summary and cost_difference on small random runs and costs (zeros, huge values,
    a negative or non-finite cost now and then): intervals that hold their estimate (ends
    may be infinite where a solved rate is not told apart from 0), or one named error."""
    questions = data.draw(st.integers(1, 6), label="questions")
    n = data.draw(st.integers(1, 4), label="samples")
    k = data.draw(st.integers(1, 5), label="k")
    cost = st.one_of(st.floats(0, 1e6), st.sampled_from([0.0, -1.0, math.inf, math.nan]))

    def run(label):
        return (data.draw(st.lists(st.integers(0, n), min_size=questions, max_size=questions),
                          label=f"{label} correct"),
                data.draw(st.lists(cost, min_size=questions, max_size=questions),
                          label=f"{label} cost"))

    (correct_a, cost_a), (correct_b, cost_b) = run("a"), run("b")
    one = call(kpass.cost_summary, [n] * questions, correct_a, cost_a, k)
    if one is not None:
        assert one.cost_lo <= one.cost <= one.cost_hi
        assert one.per_solved_lo <= one.per_solved <= one.per_solved_hi
    pair = call(kpass.cost_difference, kpass.BinaryCounts([n] * questions, correct_a),
                kpass.BinaryCounts([n] * questions, correct_b), cost_a, cost_b, k=k)
    if pair is None:
        return
    for row in pair:
        assert not math.isnan(row.lo) and not math.isnan(row.hi), row
        if row.difference is not None:
            assert row.difference == pytest.approx(row.a - row.b, rel=1e-9, abs=1e-9)
            assert row.lo <= row.difference <= row.hi, row


@pytest.mark.parametrize("name", by_kind("compare_table"))
@settings(FUZZ)
@given(data=st.data())
def test_fuzz_compare_table(name, data):
    """The comparison table from counts: each row's A and B equal kpass.pass_at_k, or one
    named error."""
    fn = FUNCTIONS[name]
    rows = data.draw(ragged(st.integers(0, 1), max_questions=6), label="rows")
    k = data.draw(st.integers(1, 8), label="k")
    flipped = [[1 - x for x in row] for row in rows]
    result = call(fn, rows, flipped, metrics="pass@k", k=k)
    if result is None:
        return
    for row in result.rows:
        if row.get("k") == k:
            assert row["a"] == pytest.approx(kpass.pass_at_k(rows, k), abs=1e-12)
            assert row["b"] == pytest.approx(kpass.pass_at_k(flipped, k), abs=1e-12)
    assert str(result)


@pytest.mark.parametrize("name", by_kind("report"))
@settings(FUZZ)
@given(data=st.data())
def test_fuzz_report_table(name, data):
    """The report from counts: Pass@k rows equal kpass.pass_at_k, or one named error."""
    fn = FUNCTIONS[name]
    rows = data.draw(ragged(st.integers(0, 2), max_questions=6), label="rows")
    k = data.draw(st.integers(1, 8), label="k")
    container = data.draw(st.sampled_from(CONTAINERS), label="container")
    other = contain(rows, container, data, categorical=False)
    R = rows if other is None else other
    result = call(fn, R, metrics="pass@k", k=k)
    if result is None:
        return
    row, = result.rows
    assert row["estimate"] == kpass.pass_at_k(rows, k)
    assert str(result).splitlines()[0].startswith("counts: ")


@pytest.mark.parametrize("name", by_kind("binarize"))
@settings(FUZZ)
@given(data=st.data())
def test_fuzz_binarize(name, data):
    """Soft scores to outcomes: 0/1 exactly where the score is above the threshold."""
    fn = FUNCTIONS[name]
    rows = data.draw(ragged(st.one_of(rewards, st.integers(-3, 3), st.booleans())), label="rows")
    threshold = data.draw(st.one_of(rewards, st.floats(-1, 1)), label="threshold")
    result = call(fn, rows, threshold)
    if result is None:
        return
    for row, out in zip(rows, result, strict=True):
        assert [int(x) for x in out] == [int(float(x) > threshold) for x in row]


# ----------------------------------------------------------------------------- from_long
# Random long frames on every installed engine against a pure-Python group-by: the
# same counts, or the same one-line ValueError/TypeError everywhere (the offending row
# is the one with the smallest question id, then the smallest value).

FRAME_ENGINES = ("pandas", "polars", "polars-lazy", "pyarrow", "duckdb", "dask", "datasets")
FRAMES_FUZZ = settings(max_examples=30, deadline=None, derandomize=True,
                       suppress_health_check=[HealthCheck.too_slow,
                                              HealthCheck.data_too_large])
ID_POOLS = {"int": [-3, 0, 1, 2, 7, 2**40], "str": ["a", "b", "Q1", "q10", "q2", "é"],
            "float": [0.5, 1.0, 2.0], "mixed": [1, "1", 2, "b"]}
OUTCOME_POOLS = {"int": [0, 1, 1, 0, 2, 3, -1, 65535, 65536, 10**9, 2**62, None],
                 "float": [0.0, 1.0, 0.0, 1.0, 0.5, 2.0, -0.0, 3.0, float("nan"), float("inf"),
                           float("-inf"), 1e300, -1e300, 65535.0, None],
                 "bool": [True, False, None],
                 "int8": [0, 1, 1, 0, 2, -1, 127, -128, None],
                 "uint64": [0, 1, 1, 0, 3, 65535, 65536, 2**64 - 1, None]}
PANDAS_DTYPES = {"int": "Int64", "float": "float64", "bool": "boolean", "int8": "Int8",
                 "uint64": "UInt64"}


def native_frame(engine: str, frame):
    if engine == "pandas":
        return frame
    if engine in ("polars", "polars-lazy"):
        import polars as pl

        converted = pl.from_pandas(frame)
        return converted.lazy() if engine == "polars-lazy" else converted
    if engine == "pyarrow":
        import pyarrow as pa

        return pa.Table.from_pandas(frame, preserve_index=False)
    if engine == "duckdb":
        import duckdb

        return duckdb.from_df(frame)
    if engine == "dask":
        import dask.dataframe as dd

        return dd.from_pandas(frame, npartitions=2)
    datasets = pytest.importorskip("datasets")
    return datasets.Dataset.from_pandas(frame, preserve_index=False)


def long_reference(ids, values, samples, id_kind, outcome_kind, mode, threshold):
    """Counts by a plain-Python group-by, or (exception type, exact message)."""
    rows = list(zip(ids, values, samples or [None] * len(ids), strict=True))

    def missing(v):
        return v is None or (isinstance(v, float) and math.isnan(v))

    def smallest(found):
        """The smallest row; the first one where str and int ids cannot be ordered."""
        try:
            return min(found)
        except TypeError:
            return found[0]

    if not rows:
        return ValueError, "the frame has no rows; a question needs at least one sample"
    if any(q is None for q in ids):
        return ValueError, (f"`qid` is missing in {sum(q is None for q in ids)} rows; every "
                            "sample needs its question id")
    if id_kind == "float":
        return TypeError, "`qid` must be a column of str or int question ids; got dtype Float64"
    gone = [(q, v) for q, v, _ in rows if missing(v)]
    if gone:
        return ValueError, (f"`value` is missing (null or NaN) for question id "
                            f"{smallest([q for q, _ in gone])!r} ({len(gone)} missing outcomes "
                            "in all)")
    if mode == "categorical":
        top = 65535
        expected = "an integer category in [0, 65535] (at most 65536 categories)"
    else:
        top = 1
        expected = ("0 or 1 (soft scores need threshold=T)" if mode == "binary"
                    else "a finite score")
    if mode == "threshold":
        bad = [(q, v) for q, v, _ in rows if outcome_kind == "float" and not math.isfinite(v)]
    else:
        bad = [(q, v) for q, v, _ in rows if not (math.isfinite(v) and v == int(v)
                                                  and 0 <= v <= top)]
    if bad:
        q, v = smallest(bad)
        shown = repr(v)
        return ValueError, (f"`value` must be {expected}; got value={shown} for question id "
                            f"{q!r} ({len(bad)} such rows)")
    if samples is not None:
        seen: dict = {}
        for q, _, s in rows:
            seen[(q, s)] = seen.get((q, s), 0) + 1
        repeated = [(q, s, n) for (q, s), n in seen.items() if n > 1]  # first-seen order
        if repeated:
            q, s, n = smallest(repeated)
            return ValueError, (f"(id, sample) = ({q!r}, {s!r}) is repeated ({n} rows); each "
                                "sample of a question must appear once")
    order = sorted({q for q, _, _ in rows}, key=lambda q: (0, q) if isinstance(q, int)
                   else (1, q))
    if mode == "categorical":
        width = max(int(v) for _, v, _ in rows) + 1
        table = {q: [0] * width for q in order}
        for q, v, _ in rows:
            table[q][int(v)] += 1
        return tuple(order), [table[q] for q in order]
    n = {q: 0 for q in order}
    c = {q: 0 for q in order}
    for q, v, _ in rows:
        n[q] += 1
        c[q] += int(v > threshold) if mode == "threshold" else int(v)
    return tuple(order), [[n[q], c[q]] for q in order]


@pytest.mark.filterwarnings("ignore:Dask support is moving:FutureWarning")
@pytest.mark.parametrize("mode", ["binary", "threshold", "categorical"])
@settings(FRAMES_FUZZ)
@given(data=st.data())
@pytest.mark.slow
def test_fuzz_from_long_on_every_engine(mode, data):
    """from_long == a plain group-by, or the same kpass error on every engine."""
    pytest.importorskip("narwhals")
    id_kind = data.draw(st.sampled_from(["int", "str"] * 3 + ["float", "mixed"]),
                        label="id kind")
    outcome_kind = data.draw(st.sampled_from(["int", "float", "bool", "int8", "uint64"]),
                             label="outcome kind")
    empty = data.draw(st.integers(0, 15), label="empty") == 7
    size = 0 if empty else data.draw(st.integers(1, 10), label="rows")
    pool = ID_POOLS[id_kind]
    if id_kind != "mixed" and data.draw(st.integers(0, 7), label="missing ids") == 3:
        pool = [*pool, None]
    ids = data.draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size), label="ids")
    clean = data.draw(st.booleans(), label="clean outcomes")
    outcome_pool = OUTCOME_POOLS[outcome_kind]
    if data.draw(st.integers(0, 3), label="missing outcomes") != 2:
        outcome_pool = [v for v in outcome_pool if v is not None and v == v]
    if clean:  # valid outcomes for the mode, so that counting is exercised as often
        integers = [0, 1] + ([2, 3] if mode == "categorical" else [])
        outcome_pool = {"int": integers, "int8": integers, "uint64": integers,
                        "float": [0.0, 1.0] + ([0.25, 0.75] if mode == "threshold" else []),
                        "bool": [True, False]}[outcome_kind]
    values = data.draw(st.lists(st.sampled_from(outcome_pool), min_size=size, max_size=size),
                       label="values")
    samples = None
    if data.draw(st.booleans(), label="with samples"):
        samples = data.draw(st.lists(st.integers(0, 3), min_size=size, max_size=size),
                            label="samples")
    threshold = None
    if mode == "threshold":
        threshold = data.draw(st.sampled_from([0.5, 0.0, 2.5, -1.0, 1e300, -1e300,
                                               float(2**62)]), label="threshold")
    id_dtype = {"int": "Int64", "str": object, "float": "float64", "mixed": object}[id_kind]
    columns = {"qid": pd.Series(ids, dtype=id_dtype),
               "value": pd.Series(values, dtype=PANDAS_DTYPES[outcome_kind])}
    if samples is not None:
        columns["sample"] = pd.Series(samples, dtype="int64")
    frame = pd.DataFrame(columns)
    py_values = [None if v is None else (float(v) if outcome_kind == "float" else v)
                 for v in values]
    expected = long_reference(ids, py_values, samples, id_kind, outcome_kind, mode, threshold)
    event("counts" if isinstance(expected[0], tuple) else expected[1].split(";")[0][:40])
    engines = ["pandas"] if id_kind == "mixed" else list(FRAME_ENGINES)
    options = {"id": "qid", "outcome": "value", "sample": "sample" if samples else None}
    outcomes = {}
    for engine in engines:
        native = native_frame(engine, frame)
        try:
            if mode == "categorical":
                counts = kpass.CategoricalCounts.from_long(native, **options)
                outcomes[engine] = (counts.ids, counts.counts.tolist())
            else:
                counts = kpass.BinaryCounts.from_long(native, threshold=threshold, **options)
                outcomes[engine] = (counts.ids, np.stack([counts.n_samples, counts.n_correct],
                                                         axis=1).tolist())
        except (ValueError, TypeError) as error:
            kind = TypeError if isinstance(error, TypeError) else ValueError
            outcomes[engine] = (kind, str(error))
    for engine, outcome in outcomes.items():
        assert outcome == expected, f"{engine}: {outcome} != {expected}"


COST_POOLS = {"float": [0.0, 0.5, 1.25, 3.0, 1e300, -1.0, float("inf"), float("nan"), None],
              "int": [0, 1, 7, 2**40, -2, None]}


def cost_reference(ids, values, costs):
    """(ids, n, c, mean cost) by a plain-Python group-by, or (exception type, message)."""
    gone = sorted(((0, q) if isinstance(q, int) else (1, q))
                  for q, x in zip(ids, costs, strict=True)
                  if x is None or (isinstance(x, float) and math.isnan(x)))
    if gone:
        return ValueError, (f"`cost` column `usd` is missing (null or NaN) for question id "
                            f"{gone[0][1]!r} ({len(gone)} missing costs in all); every sample "
                            "needs its cost")
    bad = sorted(((0, q) if isinstance(q, int) else (1, q), x)
                 for q, x in zip(ids, costs, strict=True) if not (math.isfinite(x) and x >= 0))
    if bad:
        (_, q), x = bad[0]
        return ValueError, (f"`cost` column `usd` must hold finite numbers >= 0 (each sample's "
                            f"cost); got usd={x!r} for question id {q!r} ({len(bad)} such rows)")
    order = sorted(set(ids), key=lambda q: (0, q) if isinstance(q, int) else (1, q))
    rows = {q: [(v, x) for p, v, x in zip(ids, values, costs, strict=True) if p == q]
            for q in order}
    return (tuple(order), [len(rows[q]) for q in order], [sum(v for v, _ in rows[q])
                                                          for q in order],
            [sum(x for _, x in rows[q]) / len(rows[q]) for q in order])


@pytest.mark.filterwarnings("ignore:Dask support is moving:FutureWarning")
@pytest.mark.parametrize("name", by_kind("frames"))
@settings(FRAMES_FUZZ)
@given(data=st.data())
@pytest.mark.slow
def test_fuzz_from_long_with_costs_on_every_engine(name, data):
    """Counts and mean costs == a plain group-by, or the same kpass error on every engine."""
    pytest.importorskip("narwhals")
    fn = FUNCTIONS[name]
    id_kind = data.draw(st.sampled_from(["int", "str"]), label="id kind")
    cost_kind = data.draw(st.sampled_from(["int", "float"]), label="cost kind")
    size = data.draw(st.integers(1, 10), label="rows")
    ids = data.draw(st.lists(st.sampled_from(ID_POOLS[id_kind]), min_size=size,
                             max_size=size), label="ids")
    values = data.draw(st.lists(st.integers(0, 1), min_size=size, max_size=size),
                       label="values")
    pool = COST_POOLS[cost_kind]
    if data.draw(st.booleans(), label="clean costs"):
        pool = [x for x in pool if x is not None and x == x and 0 <= x < math.inf]
    costs = data.draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size),
                      label="costs")
    frame = pd.DataFrame({"qid": pd.Series(ids, dtype="Int64" if id_kind == "int" else object),
                          "value": pd.Series(values, dtype="int64"),
                          "usd": pd.Series(costs, dtype="Int64" if cost_kind == "int"
                                           else "float64")})
    py_costs = [None if x is None else (float(x) if cost_kind == "float" else x)
                for x in costs]
    expected = cost_reference(ids, values, py_costs)
    event("costs" if isinstance(expected[0], tuple) else expected[1][:40])
    for engine in FRAME_ENGINES:
        try:
            counts, found = fn(native_frame(engine, frame), id="qid", outcome="value",
                               cost="usd")
        except (ValueError, TypeError) as error:
            kind = TypeError if isinstance(error, TypeError) else ValueError
            assert (kind, str(error)) == expected, engine
            continue
        assert isinstance(expected[0], tuple), f"{engine}: no error, expected {expected}"
        assert (counts.ids, counts.n_samples.tolist(), counts.n_correct.tolist()) == \
            expected[:3], engine
        assert found.tolist() == pytest.approx(expected[3], rel=1e-12), engine
