"""In the loop: an anytime-valid verdict after every ``compute()``, so evaluation can stop.

:class:`SequentialMonitor` (``kpass.SequentialMonitor``) keeps the questions scored so far
(batch after batch, as a training or evaluation loop produces them) and after each batch
returns the :func:`~kpass.stats.sequential.confidence_sequence` of the paired difference
(or of one model's metric): the interval, and whether it is decided. Because the sequence
is valid under continuous monitoring, checking ``monitor.decided`` after every batch and
stopping at the first True keeps the error rate at 1 - ``confidence``; stopping at the first
p < 0.05 of the fixed-sample comparison does not.

Example:
    >>> from kpass.stats.monitor import SequentialMonitor
    >>> monitor = SequentialMonitor("pass@k", k=1)
    >>> A = [[1, 1, 1, 1], [0, 1, 1, 1]] * 15
    >>> B = [[0, 0, 0, 1], [0, 0, 1, 0]] * 15
    >>> out = monitor.update(A[:6], B[:6])
    >>> monitor.decided, out["pass@1_cs_questions"]
    (False, 6.0)
    >>> out = monitor.update(A[6:], B[6:])
    >>> monitor.decided, monitor.sequence.stop_at, out["pass@1_cs_verdict"]
    (True, 8, 'A better')
"""

from __future__ import annotations

from typing import Any

from .._core.counting.checks import ArgumentTypeError, InputError, _show, check_choice
from .._core.counting.counts import BinaryCounts
from .._core.counting.inputs import binary_counts
from ..families import function as family_function
from ..registry import PRIMARY, compared, number_label, of_function
from ._common import _check_metric
from .comparison import check_margin, margin_claim
from .sequential import NULLS, confidence_sequence


class SequentialMonitor:
    """Anytime-valid confidence sequence over batches of questions (see the module doc).

    Args:
        metric: the metric key, as ``kpass_compare`` takes it (``"pass@k"``, ``"pass^k"``,
            ``"g-pass@k_tau"`` with ``tau``, ...), or its point function
            (``kpass.pass_at_k``) or the function's name.
        k: the budget (one int).
        tau: the threshold of ``"g-pass@k_tau"``.
        confidence: the level over the whole sequence, however often it is checked.
        half_width: stop once the interval's half-width is at most this (default: a pair
            decides the sign only; one model stops at +-0.02).
        null: ``"exchangeable"`` (a pair's default) or ``"bounded"``: what the sequence
            assumes (:func:`kpass.confidence_sequence`).
        margin: a pair's non-inferiority margin (B, ``predictions2``, the new model).
        equivalence: with ``margin``, decide |A - B| < margin.
        **kwargs: passed to :func:`kpass.confidence_sequence` (``short``, ``clusters``
            are not: batches carry no cluster labels).
    """

    def __init__(self, metric: Any = PRIMARY.key, k: int = 1, *, tau: float | None = None,
                 confidence: float = 0.95, half_width: float | None = None,
                 null: str | None = None, margin: float | None = None,
                 equivalence: bool = False, **kwargs: Any) -> None:
        families = {family.key: family for family in compared()}
        if callable(metric) or (isinstance(metric, str) and metric not in families):
            try:  # a point function or its name: its registry key, by the one resolver
                metric = of_function(_check_metric(metric)[0]).key
            except (LookupError, ArgumentTypeError):
                pass  # refused below, naming the keys kpass_compare takes
        name = check_choice(metric, "metric", families)
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ArgumentTypeError(f"`k` must be one int >= 1; got k={_show(k)}")
        template, function = families[name].template, families[name].function
        if ("{tau}" in template) != (tau is not None):
            raise InputError(f"`tau` is needed with metric={name!r} and only with it; got "
                             f"tau={_show(tau)}")
        self.metric, self.k, self.tau, self.half_width = name, k, tau, half_width
        if null is not None:
            check_choice(null, "null", NULLS)
        check_margin(margin, equivalence)
        self.null, self.margin, self.equivalence = null, margin, equivalence
        self.confidence = confidence
        self.key = template.format(k=k, tau=None if tau is None else number_label(tau))
        self._function = function
        self._options = kwargs
        self._a: list[Any] = []
        self._b: list[Any] = []
        self._paired: bool | None = None
        self.sequence: Any = None

    @property
    def decided(self) -> bool:
        """Whether the sequence has reached its verdict (then stop evaluating)."""
        return bool(self.sequence is not None and self.sequence.decided)

    @property
    def questions(self) -> int:
        """Questions seen so far."""
        return len(self._a)

    def update(self, predictions1: Any, predictions2: Any = None) -> dict[str, Any]:
        """Add a batch of new questions (A's outcomes, and B's on the same questions).

        Returns:
            ``<key>_cs_lo``, ``<key>_cs_hi``, ``<key>_cs_estimate``, ``<key>_cs_questions``
            (floats), ``<key>_cs_decided`` (bool), and once decided ``<key>_cs_stop_at``
            (int) and ``<key>_cs_verdict`` (str), for the results dict of ``compute()``.
        """
        paired = predictions2 is not None
        if self._paired is not None and self._paired != paired:
            raise InputError("every batch must give predictions2 (a pair) or none of them "
                             "(one model), as the first did")
        batch_a = list(predictions1)
        batch_b = list(predictions2) if paired else []
        if paired and len(batch_b) != len(batch_a):
            raise InputError(f"`predictions1` and `predictions2` must hold the same questions; "
                             f"got {len(batch_a)} and {len(batch_b)}")
        # The batch is checked (by computing the sequence on a copy) before the monitor
        # keeps it: a batch that fails leaves the monitor as it was, so the next one works.
        run_a, run_b = self._a + batch_a, self._b + batch_b
        point = family_function(self._function)
        args = (self.k,) if self.tau is None else (self.k, self.tau)
        cs: Any = confidence_sequence(
            point, run_a, run_b if paired else None, *args, confidence=self.confidence,
            half_width=self.half_width, null=self.null, margin=self.margin,
            equivalence=self.equivalence, **self._options)
        self._a, self._b, self._paired, self.sequence = run_a, run_b, paired, cs
        out: dict[str, Any] = {
            f"{self.key}_cs_lo": float(cs.lo[-1]), f"{self.key}_cs_hi": float(cs.hi[-1]),
            f"{self.key}_cs_estimate": float(cs.estimate[-1]),
            f"{self.key}_cs_questions": float(cs.steps), f"{self.key}_cs_decided": cs.decided}
        if cs.decided:
            out[f"{self.key}_cs_stop_at"] = int(cs.stop_at)
            out[f"{self.key}_cs_verdict"] = str(cs.verdict)
        return out


def space_line(compared: Any, kind: str, a: dict[str, Any], b: dict[str, Any],
               ks: list[int] | None, options: dict[str, Any],
               ids: dict[str, list[Any]] | None = None, *, null: str | None = None,
               margin: float | None = None, equivalence: bool = False) -> str:
    """The Space's second line under a comparison: the sequential verdict of its first metric.

    Args:
        compared: ``(label, kpass function name)`` of the tab's metrics (the first with
            per-question values in [0, 1] is followed).
        kind: the module's input kind (only ``"binary"`` outcomes are followed).
        a: model A's columns (``predictions``).
        b: model B's columns.
        ks: the tab's k values (the smallest is followed), or None.
        options: the tab's options (``confidence``, default 0.95).
        ids: each box's question ids in its own order (``{"A": [...], "B": [...]}``): the
            questions are matched by id, in A's order; None: by line.
        null: the sequence's null, ``"exchangeable"`` (None: the default) or ``"bounded"``
            (:func:`kpass.stats.sequential.confidence_sequence`).
        margin: decide "B is not worse than A by more than margin" (B the new model).
        equivalence: with ``margin``, decide |A - B| < margin.

    Returns:
        A blank line, then ``Sequential (anytime-valid, 95%, ...): pass@1 decided after 12
        questions: A better (...).`` (a second paragraph under the tab's note), in the boxes'
        line order; or "" when there is nothing to follow.
    """
    confidence = float(options.get("confidence", 0.95))
    if kind != "binary":
        return ""
    for label, name in compared:
        try:
            function = family_function(name)
            args = (min(ks),) if ks else ()
            run_a, run_b = a["predictions"], b["predictions"]
            if ids is not None:
                run_a, run_b = (BinaryCounts(c.n_samples, c.n_correct, ids=ids[side])
                                for side, c in (("A", binary_counts(run_a)),
                                                ("B", binary_counts(run_b))))
            cs = confidence_sequence(function, run_a, run_b, *args, confidence=confidence,
                                     null=null, margin=margin, equivalence=equivalence)
        except (TypeError, ValueError, LookupError):
            continue
        if isinstance(cs, list):
            continue
        shown = label[:-1] + str(cs.k) if cs.k is not None and label.endswith("k") else label
        order = "matched by id, in A's line order" if ids is not None else "in line order"
        claim = ("" if margin is None else
                 f" (deciding whether {margin_claim(margin, equivalence)})")
        return (f"\n\nSequential (anytime-valid, {confidence:.0%}, {cs.null} null, questions "
                f"{order}): {shown}{claim} {cs.summary()}.")
    return ""
