"""The rows of ``kpass report``: one metric at one k for one input, and the whole report.

Below both the computing (:mod:`kpass.report.table`) and the rendering
(:mod:`kpass.report.render`), which import them from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..io.readers import LoadedFile

LEGEND_WIDTH = 96


@dataclass
class Row:
    """One metric at one k (and tau) for one input.

    ``se`` is the standard error over questions (None with fewer than 2 questions) and
    ``se_lo``, ``se_hi`` the interval estimate -/+ t se clipped to [0, 1], t the quantile of
    Student's t with questions - 1 degrees of freedom; ``mean``,
    ``sd``, ``lo``, ``hi`` are the Bayesian posterior's (questions held fixed).
    """

    metric: str
    label: str
    k: int | None
    tau: float | None
    questions: int
    estimate: float
    mean: float
    sd: float
    lo: float
    hi: float
    se: float | None = None
    se_lo: float | None = None
    se_hi: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-safe fields."""
        return {
            "metric": self.metric, "label": self.label, "k": self.k, "tau": self.tau,
            "questions": self.questions, "estimate": self.estimate, "se": self.se,
            "se_lo": self.se_lo, "se_hi": self.se_hi, "mean": self.mean,
            "sd": self.sd, "lo": self.lo, "hi": self.hi,
        }

    def in_percent(self) -> Row:
        """A copy with every value, SE and interval end x 100 (the percent tables)."""
        names = ("estimate", "mean", "sd", "lo", "hi", "se", "se_lo", "se_hi")
        scaled: dict[str, Any] = {name: None if getattr(self, name) is None
                                  else 100.0 * getattr(self, name) for name in names}
        return replace(self, **scaled)

    def with_se(self, se: float | None, confidence: float) -> Row:
        """Set the standard error over questions and the interval it gives; return the row."""
        if se is not None:
            from .._core.small_sample import t_test

            self.se = float(se)
            lo, hi, _, _ = t_test(self.estimate, self.se, confidence, max(self.questions - 1, 1))
            self.se_lo, self.se_hi = min(max(lo, 0.0), 1.0), min(max(hi, 0.0), 1.0)
        return self


@dataclass
class Report:
    """The numbers for every input, row-aligned across inputs.

    Attributes:
        inputs: the files read.
        labels: a short name for each input (column headers).
        rows: for each input, its rows, in the same metric/k/tau order for all.
        confidence: the credibility level of the intervals.
        short: the policy for questions with fewer than k samples.
        notes: lines printed under the table (data attribution and the like).
        warnings: problems worth a look that did not stop the run (also on stderr),
            e.g. no answer of a whole file matching its reference.
    """

    inputs: list[LoadedFile]
    labels: list[str]
    rows: list[list[Row]]
    confidence: float
    short: str
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
