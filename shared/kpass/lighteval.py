r"""kpass inside lighteval: a custom metric for the pass family with kpass's interval.

lighteval's custom metrics need no patch of lighteval (checked with ``lighteval==0.13.0``).
:func:`pass_metrics` returns a ``SampleLevelMetricGrouping`` to put in a custom task's
``metrics``; lighteval then generates ``n`` samples per document (it asks every
``SamplingMetric`` for ``num_samples()``), scores each, and reports kpass's numbers in its
own results table. In the file given to ``lighteval ... --custom-tasks my_tasks.py``::

    from lighteval.tasks.lighteval_task import LightevalTaskConfig
    from kpass.lighteval import pass_metrics

    my_task = LightevalTaskConfig(
        name="my_task", prompt_function=my_prompt, hf_repo=..., hf_subset="default",
        evaluation_splits=["test"], generation_size=256, stop_sequence=["\n"],
        metrics=[pass_metrics(k=[1, 4], n=8, families=("pass@k", "pass^k"))])
    TASKS_TABLE = [my_task]

``import kpass.lighteval`` does not import lighteval (there is no ``[lighteval]`` extra:
lighteval is large); :func:`pass_metrics` imports it when called, inside the custom-task
file that lighteval loads.

How the numbers are made:
    * **Per document** (lighteval's sample level): the first ``n`` generations
      (``model_response.final_text``) are scored 0/1 as lighteval's own ``pass@k`` scores
      them (``SamplingMetric``: ``normalize`` and ``strip_strings`` applied to gold and
      prediction, then ``sample_scoring_function``, by default exact match), giving c
      correct of n; each family's unbiased per-question value is then kpass's, e.g.
      Pass@k = 1 - C(n-c, k)/C(n, k) (Chen et al. 2021), Pass^k = C(c, k)/C(n, k) (Yao et
      al. 2024), G-Pass@k_tau = sum_{j >= ceil(tau k)} C(c, j) C(n-c, k-j)/C(n, k) (Liu et
      al. 2024) (:func:`question_values`). lighteval keeps them per document in its details.
    * **Over documents** (the corpus level): the mean of the per-document values (the
      dataset's value, as ``kpass report`` prints it), its standard error over questions
      sqrt(sum (s_q - s_bar)^2 / (M (M - 1))) (Miller 2024; :func:`kpass.standard_error`'s
      formula for these per-question values) and kpass's interval over questions
      (:func:`kpass.stats.errors.summary_of_values`, the numbers of
      ``kpass.inspect.interval()``), reported as ``NAME``, ``NAME_stderr``, ``NAME_lo`` and
      ``NAME_hi`` (:class:`corpus_summary`).

lighteval's own ``pass@k`` (``Metrics.pass_at_k``) gives the same per-document Pass@k and,
with its ``np.mean`` aggregation, the same standard error (its ``mean_stderr`` is the sample
SD over sqrt(M)); kpass adds Pass^k and the other families of binary outcomes, the
interval (Student's t at few questions, a score interval near 0 or 1) and ``short``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._core.counting.checks import InputError, check_short
from ._core.counting.counts import BinaryCounts
from .families import function as family_function
from .registry import FAMILIES, Family, family
from .stats.errors import summary_of_values

__all__ = ["USABLE", "Measure", "corpus_summary", "measures", "pass_metrics", "question_values"]

#: The families a lighteval metric can give: binary outcomes, a per-question value that
#: depends on the question's (n, c) alone, a budget k, and no argument after k but tau.
USABLE: tuple[str, ...] = tuple(
    f.key for f in FAMILIES if f.data == "binary" and f.values == "state" and f.per_k
    and f.binarize is None and f.parameters in ((), ("tau",)))


@dataclass(frozen=True)
class Measure:
    """One number a lighteval metric reports: a family at a budget k (and tau).

    Attributes:
        name: lighteval's metric name (``kpass_pass@4``, ``kpass_g-pass@4_tau0.5``).
        function: the kpass point function's name (``pass_at_k``).
        k: the budget.
        args: the point function's arguments after k (``(tau,)`` or ``()``).
    """

    name: str
    function: str
    k: int
    args: tuple[float, ...]


def _check_int(value: Any, what: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
        raise InputError(f"kpass.lighteval: {what} must be an integer >= {least}; "
                         f"got {value!r}")
    return int(value)


def measures(k: int | Sequence[int], families: Sequence[str] = ("pass@k", "pass^k"),
             tau: float = 0.5, prefix: str = "kpass_") -> tuple[Measure, ...]:
    """The numbers a metric reports: every family at every k, named for lighteval.

    Args:
        k: a budget or a list of budgets (positive integers).
        families: registry keys of :data:`USABLE` families (``"pass@k"``, ``"pass^k"``,
            ``"g-pass@k_tau"``, ``"mg-pass@k"``, ...).
        tau: G-Pass@k_tau's threshold, in [0, 1] (used by families that take it).
        prefix: put before each name, to tell kpass's numbers from lighteval's own.

    Returns:
        One :class:`Measure` per family and k, families first.

    Raises:
        ValueError: an unknown or unusable family, a bad k or tau.

    Example:
        >>> [m.name for m in measures([1, 4], ("pass@k", "g-pass@k_tau"), tau=0.5)]
        ['kpass_pass@1', 'kpass_pass@4', 'kpass_g-pass@1_tau0.5', 'kpass_g-pass@4_tau0.5']
    """
    # one budget (2.0, "4": refused by name below, never iterated) or several
    given: list[Any] = ([k] if isinstance(k, (str, bytes)) or not isinstance(k, Iterable)
                        else list(k))
    if not given:
        raise InputError("kpass.lighteval: k must name at least one budget; got []")
    ks = list(dict.fromkeys(_check_int(budget, "k", 1) for budget in given))  # each once
    if isinstance(tau, bool) or not isinstance(tau, (int, float)) or not 0.0 <= tau <= 1.0:
        raise InputError(f"kpass.lighteval: tau must be a number in [0, 1]; got {tau!r}")
    tau = float(tau) + 0.0  # -0.0 is 0.0: one name for one threshold
    if isinstance(families, str):
        families = (families,)
    if not families:
        raise InputError("kpass.lighteval: families must name at least one family; got ()")
    out = []
    for key in dict.fromkeys(families):  # each once, in the order given
        if key not in USABLE:
            raise InputError(f"kpass.lighteval: family {key!r} cannot be a lighteval metric; "
                             f"expected one of {', '.join(USABLE)}")
        chosen: Family = family(key)
        args = (float(tau),) if chosen.uses_tau else ()
        for budget in ks:
            name = chosen.template.format(k=budget, tau=float(tau))
            out.append(Measure(prefix + name, chosen.function, budget, args))
    return tuple(out)


def question_values(outcomes: Sequence[Any], chosen: Sequence[Measure], short: str = "error",
                    doc: str = "the document") -> dict[str, float]:
    """One document's value of every measure, from its n scored generations.

    Args:
        outcomes: one score per generation, each 0 or 1 (``True``/``False`` too).
        chosen: the measures (:func:`measures`).
        short: a document with fewer than k generations: ``"error"`` (a ValueError) or
            ``"skip"`` (NaN, left out of the corpus numbers).
        doc: how to name the document in an error.

    Returns:
        ``{name: value}``: each measure's unbiased per-question value, as kpass's point
        function gives it for counts (n, c).

    Raises:
        ValueError: a score that is not 0 or 1, too few generations with ``short="error"``.

    Example:
        >>> question_values([1, 0, 1, 0], measures(2))     # n = 4, c = 2
        {'kpass_pass@2': 0.8333333333333333, 'kpass_pass^2': 0.16666666666666666}
    """
    check_short(short)
    correct = 0
    for i, score in enumerate(outcomes):
        if isinstance(score, (bool, np.bool_)) or (
                isinstance(score, (int, float, np.integer, np.floating)) and score in (0, 1)):
            correct += int(score)
        else:
            raise InputError(f"kpass.lighteval: {doc}, generation {i}: the sample scoring "
                             f"function gave {score!r}; expected 0 or 1 (return 0/1 from "
                             "sample_scoring_function, thresholding a soft score there)")
    n = len(outcomes)
    counts = BinaryCounts(np.array([n]), np.array([correct]))
    values: dict[str, float] = {}
    for measure in chosen:
        if n < measure.k:
            if short == "error":
                raise InputError(f"kpass.lighteval: {doc} has {n} generations; "
                                 f"{measure.name} needs at least k = {measure.k} (generate "
                                 "n >= k, or pass short='skip' to leave it out)")
            values[measure.name] = math.nan
            continue
        point = family_function(measure.function)
        values[measure.name] = float(point(counts, measure.k, *measure.args))
    return values


class corpus_summary:  # noqa: N801 - used as a function, a class to be picklable
    """lighteval's corpus-level function for one measure: estimate, stderr and interval.

    ``corpus_summary(name, confidence)(values)`` takes the per-document values (NaN: left
    out) and returns ``{name, name_stderr, name_lo, name_hi}``
    (:func:`kpass.stats.errors.summary_of_values`); lighteval puts a dict an aggregation
    returns into its results as it is, and shows ``name_stderr`` in its ``Stderr`` column.
    (A class, so that lighteval can copy and pickle the task config holding it.)

    Args:
        name: the measure's name.
        confidence: the interval's level, in (0, 1).

    Example:
        >>> result = corpus_summary("kpass_pass@1")([0.75, 0.25, 1.0, 0.25])
        >>> result["kpass_pass@1"], result["kpass_pass@1_stderr"]
        (0.5625, 0.1875)
    """

    def __init__(self, name: str, confidence: float = 0.95) -> None:
        if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not (
                0.0 < confidence < 1.0):
            raise InputError(f"kpass.lighteval: confidence must be in (0, 1); "
                             f"got {confidence!r}")
        self.name = name
        self.confidence = float(confidence)
        self.__name__ = f"kpass_summary_{name}"

    def __call__(self, values: list[float]) -> dict[str, float]:
        """The estimate, stderr, lo and hi of the measure over the documents' values."""
        result = summary_of_values(values, self.confidence)
        name = self.name
        return {name: result["estimate"], f"{name}_stderr": result["se"],
                f"{name}_lo": result["lo"], f"{name}_hi": result["hi"]}


def pass_metrics(k: int | Sequence[int], n: int, families: Sequence[str] = ("pass@k", "pass^k"),
                 tau: float = 0.5, confidence: float = 0.95, short: str = "error",
                 prefix: str = "kpass_", **scoring: Any) -> Any:
    """A lighteval metric (``SampleLevelMetricGrouping``) giving kpass's pass family.

    Imports lighteval (call it in a lighteval custom-task file). lighteval generates ``n``
    samples per document for it (with sampling: set the model's temperature > 0).

    Args:
        k: a budget or a list of budgets, each at most ``n``.
        n: the generations per document to ask lighteval for (and to score).
        families: registry keys of :data:`USABLE` families.
        tau: G-Pass@k_tau's threshold, in [0, 1].
        confidence: the interval's level, in (0, 1).
        short: a document with fewer than k generations (a model that returned fewer):
            ``"error"`` stops the run naming it, ``"skip"`` leaves it out of that measure.
        prefix: put before each metric name.
        **scoring: lighteval's ``SamplingMetric`` options: ``normalize``,
            ``strip_strings`` (True unless given, as lighteval's ``pass@k``),
            ``sample_scoring_function`` (a function of (doc, model_response) returning 0
            or 1; by default exact match of the prediction with the gold).

    Returns:
        A ``lighteval.metrics.utils.metric_utils.SampleLevelMetricGrouping``, metric names
        those of :func:`measures`, generative, higher is better.

    Raises:
        ValueError: a bad k, n, family, tau, confidence, short or scoring option.
        ImportError: lighteval is not installed.
    """
    chosen = measures(k, families, tau, prefix)
    n = _check_int(n, "n", 1)
    if max(m.k for m in chosen) > n:
        raise InputError(f"kpass.lighteval: k = {max(m.k for m in chosen)} is more than the "
                         f"n = {n} generations asked for; ask for n >= k")
    check_short(short)
    unknown = set(scoring) - {"normalize", "strip_strings", "sample_scoring_function"}
    if unknown:
        raise InputError(f"kpass.lighteval: unknown scoring option(s) {sorted(unknown)}; "
                         "expected normalize, strip_strings, sample_scoring_function")
    names = [m.name for m in chosen]
    aggregations = {name: corpus_summary(name, confidence) for name in names}
    try:
        from lighteval.metrics.utils.metric_utils import SampleLevelMetricGrouping
        from lighteval.tasks.requests import SamplingMethod
    except ImportError:
        raise ImportError("kpass.lighteval.pass_metrics needs lighteval: pip install "
                          "lighteval") from None
    sampler = _sampler_class()(chosen, n, short, **{"strip_strings": True, **scoring})
    return SampleLevelMetricGrouping(
        metric_name=names, higher_is_better=dict.fromkeys(names, True),
        category=SamplingMethod.GENERATIVE, sample_level_fn=sampler,
        corpus_level_fn=aggregations)


_SAMPLER: list[type] = []


def __getattr__(name: str) -> Any:
    """``kpass.lighteval.KpassPassFamily``: the sample-level class, made on first use.

    So that pickle finds the class by name (lighteval copies task configs).
    """
    if name == "KpassPassFamily":
        return _sampler_class()
    raise AttributeError(f"module 'kpass.lighteval' has no attribute {name!r}")


def _sampler_class() -> type:
    """The sample-level computation, a subclass of lighteval's ``SamplingMetric``.

    Made on first use (its bases are lighteval's); lighteval asks a ``SamplingMetric``
    metric for ``num_samples()`` to decide how many generations each document gets.
    """
    if _SAMPLER:
        return _SAMPLER[0]
    try:
        from lighteval.metrics.metrics_sample import SampleLevelComputation, SamplingMetric
        from lighteval.models.model_output import ModelResponse
        from lighteval.tasks.requests import Doc
    except ImportError:
        raise ImportError("kpass.lighteval.KpassPassFamily needs lighteval: pip install "
                          "lighteval") from None

    class KpassPassFamily(SamplingMetric, SampleLevelComputation):
        """kpass's pass family from a document's n generations (kpass.lighteval)."""

        def __init__(self, chosen: tuple[Measure, ...], n: int, short: str,
                     **scoring: Any) -> None:
            super().__init__(**scoring)
            self.measures = chosen
            self.n = n
            self.short = short

        def num_samples(self) -> int:
            return self.n

        def compute(self, doc: Any, model_response: Any, **kwargs: Any) -> dict[str, float]:
            """Score the first n generations as lighteval's pass@k does, then kpass's values."""
            name = f"document {getattr(doc, 'id', None)!r} of task {doc.task_name!r}"
            if self.type_exact_match is not None and len(doc.get_golds()) != 1:
                raise InputError(f"kpass.lighteval: {name} has {len(doc.get_golds())} "
                                 "golds; exact match needs one (give a "
                                 "sample_scoring_function)")
            gold_doc = Doc(choices=[self.preprocess(g) for g in doc.choices],
                           query=doc.query, gold_index=doc.gold_index)
            outcomes = [self.compute_score(gold_doc, ModelResponse(text=[self.preprocess(p)]))
                        for p in model_response.final_text[: self.n]]
            return question_values(outcomes, self.measures, self.short, name)

    KpassPassFamily.__module__ = __name__
    KpassPassFamily.__qualname__ = "KpassPassFamily"  # pickle finds it by module __getattr__
    _SAMPLER.append(KpassPassFamily)
    return KpassPassFamily
