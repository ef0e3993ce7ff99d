"""The rows of ``kpass report``: one metric at one k for one input, and the whole report.

Below both the computing (:mod:`kpass.report.table`) and the rendering
(:mod:`kpass.report.render`), which import them from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..io.formats.readers import LoadedFile
from ..io.harness.metadata import RunInfo
from ..stats.cost import CostSummary

LEGEND_WIDTH = 96


def markdown_cell(text: str) -> str:
    """``text`` safe in a Markdown table cell: ``|`` escaped, line breaks as spaces.

    Model names, file names and labels are user text; a ``|`` in one would split its cell.
    """
    return " ".join(str(text).replace("\\", "\\\\").replace("|", "\\|").split())


@dataclass
class Row:
    """One metric at one k (and tau) for one input.

    ``se`` is the standard error over questions (None with fewer than 2 questions; CR2
    over clusters with ``--clusters``) and ``lo``, ``hi`` the confidence interval
    over questions of :func:`kpass.stats.intervals.interval`, ``se_method`` which one it is
    (``t``: estimate -/+ t se with questions - 1 degrees of freedom, or the Bell-McCaffrey
    df with clusters; ``score``: near 0 or 1, the Wilson score interval on the
    effective number of questions; ``exact``: the bound for se = 0; ``constant``: a
    metric constant by definition at this k, mG-Pass@1 = 0, with no se). ``mean``, ``sd``,
    ``cred_lo``, ``cred_hi`` are the Bayesian posterior's (a :class:`kpass.Posterior`): a
    statement about these very questions with unlimited samples (questions held fixed), not
    about questions like them.
    """

    metric: str
    label: str
    k: int | None
    tau: float | None
    questions: int
    estimate: float
    mean: float
    sd: float
    cred_lo: float
    cred_hi: float
    se: float | None = None
    lo: float | None = None
    hi: float | None = None
    se_method: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-safe fields."""
        return {
            "metric": self.metric, "label": self.label, "k": self.k, "tau": self.tau,
            "questions": self.questions, "estimate": self.estimate, "se": self.se,
            "lo": self.lo, "hi": self.hi, "se_method": self.se_method,
            "mean": self.mean,
            "sd": self.sd, "cred_lo": self.cred_lo, "cred_hi": self.cred_hi,
        }

    def in_percent(self) -> Row:
        """A copy with every value, SE and interval end x 100 (the percent tables)."""
        names = ("estimate", "mean", "sd", "cred_lo", "cred_hi", "se", "lo", "hi")
        scaled: dict[str, Any] = {name: None if getattr(self, name) is None
                                  else 100.0 * getattr(self, name) for name in names}
        return replace(self, **scaled)

    def with_se(self, se: float | None, confidence: float, units: int | None = None,
                df: float | None = None) -> Row:
        """Set the standard error over questions and the interval it gives; return the row.

        Args:
            se: the standard error (None: fewer than 2 questions, no interval).
            confidence: the level.
            units: questions (clusters) the mean is over; default ``questions``.
            df: degrees of freedom of the t quantile; default ``units - 1``.
        """
        if se is not None:
            from ..stats.intervals import interval

            self.se = float(se)
            units = self.questions if units is None else units
            df = max(units - 1, 1) if df is None else df
            bounds = interval(self.estimate, self.se, df, units, confidence)
            self.lo, self.hi, self.se_method = bounds.lo, bounds.hi, bounds.method
        return self


@dataclass
class Breakdown:
    """One input's breakdown by group.

    Attributes:
        weights: ``"questions"`` or ``"groups"``.
        groups: the group labels, in display order.
        rows: per group, its rows (aligned with the aggregate's).
        sizes: per group, its number of questions.
        column: the ``--group`` column (or the harness's grouping, e.g. ``task``).
    """

    weights: str
    groups: list[Any]
    rows: list[list[Row]]
    sizes: list[int]
    column: str = ""


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
        clusters: with ``--clusters``, per input {"clusters": G, "df": the Bell-McCaffrey
            df of its CR2 standard error over all questions}; None without.
        explain: print the legend and the method notes in full (``--explain``); without,
            one short line per condition that needs attention.
        posterior: show the posterior columns (``--posterior``: True); None shows them
            unless every input has one sample per question.
        by: ``--by COLUMN``: the inputs are the models of one input (labels: its values).
        runs: per input, the run its harness recorded (:func:`kpass.io.harness.metadata.
            run_info`: model, harness, date, samples, tokens), None where none is; None
            for none at all.
        costs: with ``--cost`` or ``--cost-per-1k-tokens``, per input its
            :class:`~kpass.stats.cost.CostSummary` at k = 1 and the largest k; None without.
        cost_lines: the lines that show them under the table.
        breakdowns: with ``--group``, per input its :class:`Breakdown` (``rows`` then
            hold each input's aggregate); None without.
    """

    inputs: list[LoadedFile]
    labels: list[str]
    rows: list[list[Row]]
    confidence: float
    short: str
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    clusters: list[dict[str, float]] | None = None
    explain: bool = False
    posterior: bool | None = None
    by: str | None = None
    runs: list[RunInfo | None] | None = None
    costs: list[list[CostSummary]] | None = None
    cost_lines: list[str] = field(default_factory=list)
    breakdowns: list[Breakdown] | None = None

    @property
    def shows_posterior(self) -> bool:
        """Whether the table shows the posterior columns (mean, sd, credible interval).

        ``posterior`` None (the default): shown unless every input has one sample per
        question, where the posterior of each question's rate from one 0/1 outcome is
        mostly the prior and describes another quantity than the estimate (``--posterior``
        shows them there too).
        """
        if self.posterior is not None:
            return self.posterior
        return any(loaded.n_max > 1 for loaded in self.inputs)
