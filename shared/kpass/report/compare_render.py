"""``kpass compare``'s outputs: verdict lines, the table, Markdown, CSV and JSON.

The comparisons are computed by :mod:`kpass.report.compare` (one :class:`Line` per metric
and k); this lays them out, with the plain-words verdicts above the table and the legend
under it.
"""

from __future__ import annotations

import argparse
import math
import textwrap
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..io.harness.metadata import RunInfo
from .cost import difference_records
from .output import brief_notes
from .rows import LEGEND_WIDTH, markdown_cell

FIELDS = ("metric", "label", "k", "tau", "questions", "a", "b", "difference", "se", "lo", "hi",
          "p_value", "prob_a_better", "mde", "se_unpaired", "correlation", "confidence",
          "se_a", "se_b", "df", "p_exact", "a_only", "b_only", "role", "adjust", "p_adjusted",
          "verdict", "margin", "equivalence", "p_margin", "p_margin_exact",
          "same_as", "reference")


@dataclass(frozen=True)
class CompareRequest:
    """What the outputs of a comparison say about how it was asked: built once, read-only.

    ``kpass compare`` builds it from its command line (:meth:`from_args`) after the files
    are read, :class:`kpass.report.compare_table.CompareTable` from its arguments; every
    renderer takes it explicitly (nothing is written into the argparse namespace).

    Attributes:
        files: the names of A and B as the head lines show them.
        confidence: the level of the intervals (``--confidence``).
        digits: decimals of the table, Markdown and verdict lines.
        matched_by: the question-id column questions were matched by (``"question id"``
            for a harness file's own ids), or None for row order.
        clusters: the cluster column (None: no clusters).
        short: ``--short``.
        shared: ``--shared``.
        adjust: the joint adjustment of the secondary rows, ``"max-t"`` or ``"holm"``.
        percent: values shown in percent (``--percent``).
        notes: the notes printed under the table.
        explain: print the legend, the full notes and what pairing bought
            (``--explain``); without, one short line per note.
        runs: A's and B's runs as their harnesses recorded them
            (:func:`kpass.io.harness.metadata.run_info`; None each where none is): one
            line per side under the head line, ``run`` in JSON.
        groups: the primary row broken down by group (``--group``,
            :class:`kpass.report.compare_groups.GroupComparison`), or None.
        cost_difference: with ``--cost`` or ``--cost-per-1k-tokens``, A - B of the cost per
            question and per solved question (:func:`kpass.stats.cost.cost_difference`), else
            None: one line under the table (``cost_line``), ``cost_difference`` in JSON.
        cost_line: that line.
    """

    files: tuple[str, ...]
    confidence: float
    digits: int = 3
    matched_by: str | None = None
    clusters: str | None = None
    short: str = "error"
    shared: bool = False
    adjust: str = "max-t"
    percent: bool = False
    notes: tuple[str, ...] = ()
    explain: bool = False
    runs: tuple[RunInfo | None, ...] = ()
    groups: Any = None
    cost_difference: Any = None
    cost_line: str | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace, *, matched_by: str | None,
                  notes: list[str], runs: tuple[RunInfo | None, ...] = ()) -> CompareRequest:
        """The request of ``kpass compare``'s parsed command line.

        Args:
            args: the parsed command line (read, never written).
            matched_by: the id column questions were matched by (``args.id``, or
                ``"question id"`` for a harness file's own ids; None: row order).
            notes: the notes gathered while comparing.
            runs: A's and B's recorded runs (:func:`kpass.io.harness.metadata.run_info`).
        """
        return cls(files=tuple(args.files), confidence=args.confidence, digits=args.digits,
                   matched_by=matched_by, clusters=args.clusters, short=args.short,
                   shared=bool(getattr(args, "shared", False)),
                   adjust=str(getattr(args, "adjust", None) or "max-t"),
                   percent=bool(getattr(args, "percent", False)), notes=tuple(notes),
                   explain=bool(getattr(args, "explain", False)), runs=runs)

    def run_lines(self) -> list[str]:
        """One line per side whose harness recorded its run: ``A: model ...; inspect ...``."""
        return [f"{side}: {run.line()}" for side, run in zip("AB", self.runs, strict=False)
                if run is not None]


VERDICTS_IN_FULL = 8
"""Up to this many rows every row gets a verdict line; above, only the rows with a detected
difference, and one line for the rest."""


@dataclass
class Line:
    """One metric at one k (and tau): the paired comparison of the two files, judged.

    Rows equal on every question are one Line: ``names`` holds every row's label,
    ``members`` the merged Lines. ``role`` is ``"primary"`` (tested alone) or
    ``"secondary"`` (adjusted jointly by ``adjust``); ``p_adjusted`` is the p its
    ``verdict`` uses.
    """

    metric: str
    label: str
    k: int | None
    tau: float | None
    result: Any  # kpass.Comparison
    values: Any = None  # per-question values and unit differences (compare._Values)
    names: list[str] = field(default_factory=list)
    members: list[Any] = field(default_factory=list)
    role: str | None = None
    adjust: str | None = None
    p_adjusted: float | None = None
    verdict: str | None = None

    @property
    def title(self) -> str:
        """The row's name, or its merged names joined by `` = ``."""
        return " = ".join(self.names) if self.names else self.label

    def as_dict(self, judged: Line | None = None) -> dict[str, Any]:
        """Plain JSON-safe fields; ``judged``: the merged row whose verdict this one shares."""
        row = self if judged is None else judged
        fields = {name: value for name, value in self.result.as_dict().items()
                  if name not in ("metric", "k")}
        return {"metric": self.metric, "label": self.label, "k": self.k, "tau": self.tau,
                **fields, "names": list(row.names or [row.label]),
                "same_as": None if row is self else row.label, "role": row.role,
                "adjust": row.adjust, "p_adjusted": row.p_adjusted, "verdict": row.verdict}

    def records(self) -> list[dict[str, Any]]:
        """One dict per row merged into this one (its own numbers, the shared verdict)."""
        return [member.as_dict(None if member is self else self)
                for member in self.members or [self]]


ADJUST_NAMES = {"max-t": "max-T p", "holm": "Holm p"}
"""How the verdict lines name a secondary row's adjusted p."""


def _in_percent(result: Any) -> Any:
    """A Comparison with its values, differences and SEs x 100."""
    names = ("a", "b", "difference", "se", "lo", "hi", "mde", "se_unpaired", "se_a", "se_b")
    return replace(result, **{name: None if getattr(result, name) is None
                              else 100.0 * getattr(result, name) for name in names})


def verdicts(lines: list[Line], confidence: float, unit: str = "", digits: int = 3,
             terse: bool = False) -> list[str]:
    """Plain-words verdicts: the primary row first, then the secondary rows.

    ``terse`` (the default table): one line per verdict, each starting with its role
    (``primary:``, ``secondary:``) in place of the two heading lines.

    A row shows a difference when its ``p_adjusted`` (the primary's own p; a secondary's
    adjusted p) is below alpha = 1 - confidence. The better run is named, with the
    difference as better - worse and its interval in the same direction, in the table's
    ``digits`` decimals.
    """
    alpha = 1.0 - confidence
    level = f"{confidence * 100:g}%"

    def number(value: float) -> str:
        return _number(value, digits) + unit

    def p_words(name: str, p: float) -> str:
        return f"{name} < 0.001" if p < 0.001 else f"{name} = {p:.3f}"

    def one(line: Line, name: str) -> tuple[bool, str]:
        r = line.result
        p = line.p_adjusted if line.p_adjusted is not None else r.p_value
        if line.verdict in ("shown", "not shown"):  # a margin's claim (B the new model)
            shown = r.margin * (100.0 if unit else 1.0)
            from ..stats.comparison import margin_words

            return line.verdict == "shown", (
                margin_words(r, p, round(shown, 12), f" on {line.title}", unit, name)
                + f"; difference A - B {number(r.difference)}")
        if line.verdict == "A better":
            return True, (f"A is better than B on {line.title} by {number(r.difference)} "
                          f"({level} CI {_number(r.lo, digits)} to {number(r.hi)}, "
                          f"{p_words(name, p)})")
        if line.verdict == "B better":
            return True, (f"B is better than A on {line.title} by {number(-r.difference)} "
                          f"({level} CI {_number(-r.hi, digits)} to {number(-r.lo)}, "
                          f"{p_words(name, p)})")
        # an infinite MDE (se = 0 under 6 questions): no difference could have been shown
        mde = (f"MDE {number(r.mde)}" if math.isfinite(r.mde) else
               f"no difference is detectable at {r.questions} questions")
        return False, (f"no detectable difference on {line.title}: difference A - B "
                       f"{number(r.difference)}, {mde} ({p_words(name, p)})")

    if len(lines) == 1:
        return [one(lines[0], "p")[1]]
    primary = [line for line in lines if line.role == "primary"]
    secondary = [line for line in lines if line.role != "primary"]
    indent = ("secondary: " if primary else "") if terse else "  "
    out = []
    if primary:
        if terse:
            out.append("primary: " + one(primary[0], "p")[1])
        else:
            out += [f"primary comparison, tested alone at alpha = {alpha:.3g}:",
                    "  " + one(primary[0], "p")[1]]
    method = secondary[0].adjust or "max-t"
    name = ADJUST_NAMES.get(method, "p adj")
    how = ("max-T stepdown over the same sign flips" if method == "max-t"
           else "Holm's stepdown")
    rows = f"{len(secondary)} row{'s' if len(secondary) != 1 else ''}"
    whole = "; with the primary, the whole table errs up to 2 x alpha" if primary else ""
    if not terse:
        out.append(f"{'secondary comparisons' if primary else 'comparisons'} ({rows}, "
                   f"adjusted jointly by {how}{whole}):")
    items = [one(line, name) for line in secondary]
    if len(items) <= VERDICTS_IN_FULL:
        return out + [indent + text for _, text in items]
    found = [text for detected, text in items if detected]
    out += [indent + text for text in found[:VERDICTS_IN_FULL]]
    if len(found) > VERDICTS_IN_FULL:
        out.append(f"{indent}... and {len(found) - VERDICTS_IN_FULL} more rows with a "
                   "detected difference (see the table)")
    rest = len(items) - len(found)
    if rest:
        out.append(f"{indent}no detectable difference on "
                   f"{'the other' if found else 'any of the'} {rest} rows ({name} >= "
                   f"{alpha:.3g})")
    return out


def _legend(labels: list[str], confidence: float, clustered: bool,
            several: bool = False, exact: bool = False, width: int | None = LEGEND_WIDTH,
            adjust: str = "max-t", primary: bool = True, margin: bool = False) -> list[str]:
    """The legend's lines wrapped at ``width``, or its paragraphs whole (``width=None``).

    With ``margin`` the p columns are the margin's: p margin and p margin exact.
    """
    level = f"{confidence * 100:g}%"
    units = "clusters" if clustered else "questions"
    alpha = f"{1 - confidence:.3g}"
    joint = ("max-T: the studentised max-T stepdown (Westfall and Young 1993), every row "
             f"resampled with the same random sign flips of its per-{units[:-1]} differences, "
             "so rows that move together (Pass@1 and Pass@2) cost little"
             if adjust == "max-t" else
             "Holm: Holm's stepdown over their p, which ignores how the rows move together")
    paragraphs = [
        f"A = {labels[0]}, B = {labels[1]}; difference = A - B over the questions both were "
        "scored on (positive favours A).",
        "se: paired standard error of the difference over questions"
        f"{' (clustered)' if clustered else ''}; "
        f"{level} interval: difference -/+ t se, t from Student's t with {units} - 1 degrees "
        "of freedom (not adjusted for the other rows; a score interval where that reaches past "
        "-1 or 1, an exact bound when se = 0: the notes name such rows); "
        + ("p margin: one-sided t test of the margin's claim (H0: A - B >= margin; with "
           "--equivalence the larger p of the two one-sided tests); " if margin else
           "p: two-sided t test of no difference; ")
        + f"MDE: the smallest true difference detected with 80% power at alpha = {alpha}. "
        "These treat the questions as a sample of questions like these (Miller 2024)."
        + ((" p adj: the p each verdict uses. The primary row (the first; --primary) is "
            f"tested alone at alpha = {alpha}, so its p adj is its p. The other rows are "
            f"secondary and adjusted jointly by {joint}; the chance of any false 'better' "
            "verdict among them stays at alpha (in the whole table at most twice alpha; "
            "--primary none adjusts every row jointly). Rows equal on every question are one "
            "row." if primary else
            f" p adj: the p each verdict uses: every row adjusted jointly by {joint}; the "
            "chance of any false 'better' verdict in the table stays at alpha. Rows equal on "
            "every question are one row.") if several else "")
        + ((f" p margin exact: the sign-flip counterpart of p margin: the one-sided sign-flip "
            f"test of the per-{units[:-1]} differences shifted by the margin (H0: symmetric "
            "about the margin; exact enumeration up to 20 units, 20000 seeded random flips "
            "beyond), needing no normality; read it beside p margin."
            if margin else
            f" p exact: the sign-flip permutation test of the per-{units[:-1]} differences "
            "(exact enumeration up to 20 units): a test that the differences are symmetric "
            "about 0, needing no normality; with equal means but skewed differences it rejects "
            "more often than alpha (8-14% at 20 questions in kpass's simulations), so read "
            "it beside p.")
           if exact else ""),
        "P(A>B): posterior probability that A beats B on these very questions with unlimited "
        "samples (uniform Beta(1,1) prior per question), a statement about these questions, "
        "not new ones, and not used by the verdicts; it is computed from each question's "
        "posterior success rate rather than from the estimates, so it can disagree with the "
        "difference (0.000 with P(A>B) = 0.958 when A solves the same questions with more of "
        "its samples).",
    ]
    if width is None:
        return paragraphs
    return [line for paragraph in paragraphs
            for line in textwrap.wrap(paragraph, width, break_on_hyphens=False)]


def _number(value: float, digits: int) -> str:
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def _p_value(value: float) -> str:
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _columns(lines: list[Line]) -> tuple[bool, bool]:
    """(p adj column, exact-p column): several rows; few questions (or clusters)."""
    from ..stats.small_sample import FEW_QUESTIONS

    several = len(lines) > 1
    exact = any(r.p_exact is not None and (r.df if r.df is not None else r.questions)
                < FEW_QUESTIONS for r in (line.result for line in lines))
    return several, exact


def _table_cells(line: Line, digits: int, several: bool, exact: bool,
                 full: bool = True) -> list[str]:
    r = line.result
    cells = [line.title, _number(r.a, digits), _number(r.b, digits),
             _number(r.difference, digits), _number(r.se, digits),
             f"[{_number(r.lo, digits)}, {_number(r.hi, digits)}]",
             _p_value(r.p_value if r.p_margin is None else r.p_margin)]
    if several:
        cells.append(_p_value(line.p_adjusted) if line.p_adjusted is not None else "")
    if exact:
        flip = r.p_exact if r.margin is None else r.p_margin_exact
        cells.append(_p_value(flip) if flip is not None else "-")
    if not full:
        return cells
    return cells + [f"{r.prob_a_better:.3f}", _number(r.mde, digits), str(r.questions)]


def _header(confidence: float, several: bool, exact: bool, full: bool = True,
            margin: bool = False) -> list[str]:
    """The table's columns.

    Without ``full`` (the default table) P(A>B), MDE and questions are left out: the
    verdicts give the MDE, the head line the questions, ``--explain`` all three.
    """
    return (["metric", "A", "B", "difference", "se", f"{confidence * 100:g}% interval",
             "p margin" if margin else "p"]
            + (["p adj"] if several else [])
            + (["p margin exact" if margin else "p exact"] if exact else [])
            + (["P(A>B)", "MDE", "questions"] if full else []))


def _head_lines(lines: list[Line], m: int, request: CompareRequest,
                labels: list[str] | None = None) -> list[str]:
    matched = "id (" + request.matched_by + ")" if request.matched_by else "row order"
    found = verdicts(lines, request.confidence, " points" if request.percent else "",
                     request.digits, terse=not request.explain)
    runs = [f"  {line}" for line in request.run_lines()]
    if not request.explain:
        return [pairing_head(m, request, labels), *runs, *found]
    return [f"A: {request.files[0]}", f"B: {request.files[1]}",
            f"{m} questions matched by {matched}", *runs, "", *found]


def pairing_head(m: int, request: CompareRequest, labels: list[str] | None = None) -> str:
    """The head line saying what was paired: ``A = a, B = b: 40 questions paired by id (id)``.

    ``kpass compare`` prints it first, and ``--sequential`` begins its head line with it.
    """
    matched = "id (" + request.matched_by + ")" if request.matched_by else "row order"
    clustered = f", clustered by {request.clusters}" if request.clusters else ""
    a, b = labels if labels else request.files
    return f"A = {a}, B = {b}: {m} questions paired by {matched}{clustered}"


def _has_margin(lines: list[Line]) -> bool:
    return any(getattr(line.result, "margin", None) is not None for line in lines)


def _has_primary(lines: list[Line]) -> bool:
    return any(line.role == "primary" for line in lines)


def _margin_note(request: CompareRequest, margin: bool) -> list[str]:
    """With a margin, the one line that keeps the table's interval from being misread."""
    if not margin:
        return []
    level = f"{request.confidence * 100:g}%"
    return [f"a margin is tested one-sided at {level} (p margin), so a row can be shown while "
            f"its two-sided {level} interval reaches past the margin"]


def _notes(request: CompareRequest, margin: bool = False) -> list[str]:
    return [f"note: {_margin_columns(note, margin)}"
            for note in _margin_note(request, margin) + list(request.notes)]


def _brief_notes(request: CompareRequest, margin: bool) -> list[str]:
    return _margin_note(request, margin) + [_margin_columns(line, margin)
                                            for line in brief_notes(request.notes)]


def _margin_columns(note: str, margin: bool) -> str:
    """A note naming the p columns as a margin's table names them (p margin, p margin exact)."""
    if not margin:
        return note
    return (note.replace("read p exact beside p", "check p margin exact")
            .replace("(column p exact)", "(column p margin exact)"))


def render_table(lines: list[Line], labels: list[str], m: int, request: CompareRequest) -> str:
    """The verdicts and the paired table for the terminal; the notes, each on one short line.

    With ``request.explain`` the full table (P(A>B), MDE, questions), the notes in full,
    what pairing bought (:func:`pairing_lines`) and the legend.
    """
    several, exact = _columns(lines)
    full, margin = request.explain, _has_margin(lines)
    header = _header(request.confidence, several, exact, full, margin)
    body = [_table_cells(line, request.digits, several, exact, full) for line in lines]
    widths = [max(len(row[i]) for row in [header] + body) for i in range(len(header))]
    left = {0, 5}

    def row(cells: list[str]) -> str:
        return "  ".join(cell.ljust(widths[i]) if i in left else cell.rjust(widths[i])
                         for i, cell in enumerate(cells)).rstrip()

    out = [*_head_lines(lines, m, request, labels), "", row(header)]
    out += [row(cells) for cells in body]
    if request.cost_line:
        out += ["", request.cost_line]
    if request.groups is not None:
        from .compare_groups import group_text

        out += [""] + group_text(request.groups, request.digits, request.confidence,
                                 percent=request.percent)
    if not full:
        briefs = [f"note: {line}" for line in _brief_notes(request, margin)]
        return "\n".join(out + ([""] + briefs if briefs else [])) + "\n"
    out += [""] + [wrapped for note in _notes(request, margin)
                   for wrapped in textwrap.wrap(note, LEGEND_WIDTH, subsequent_indent="  ")]
    out += [""] if _notes(request) else []
    out += pairing_lines(lines, request.digits) + [""]
    out.extend(_legend(labels, request.confidence, bool(request.clusters), several, exact,
                       adjust=request.adjust, primary=_has_primary(lines), margin=margin))
    return "\n".join(out) + "\n"


def pairing_lines(lines: list[Line], digits: int = 3) -> list[str]:
    """What pairing bought, per row: the numbers a user can check by hand.

    The Pearson correlation of A's and B's per-question values, the paired se beside the
    se the difference would have unpaired (sqrt(se_A^2 + se_B^2), each over the same
    questions), and with one 0/1 sample per question the discordant questions (A only
    right, B only right), the only ones the difference is made of.
    """
    out = textwrap.wrap("pairing: r, the correlation of A's and B's per-question values; se "
                        "unpaired = sqrt(se_A^2 + se_B^2), the se of the difference were the "
                        "runs independent; with one 0/1 sample per question, the questions "
                        "only A, only B got right:", LEGEND_WIDTH, subsequent_indent="  ")
    width = max(len(line.title) for line in lines)
    for line in lines:
        r = line.result
        correlation = ("n/a (a constant run)" if r.correlation is None
                       else f"{r.correlation:.{digits}f}")
        text = (f"  {line.title.ljust(width)}  r {correlation}, se {_number(r.se, digits)} "
                f"paired vs {_number(r.se_unpaired, digits)} unpaired")
        if r.a_only is not None:
            text += f"; A only right {r.a_only}, B only right {r.b_only}"
        out.append(text)
    return out


def render_markdown(lines: list[Line], labels: list[str], m: int,
                    request: CompareRequest) -> str:
    """The verdicts, the paired table as GitHub-flavoured Markdown, notes and the legend."""
    several, exact = _columns(lines)
    margin = _has_margin(lines)
    header = _header(request.confidence, several, exact, request.explain, margin)
    align = [":---"] + ["---:"] * 4 + [":---"] + ["---:"] * (len(header) - 6)
    head = _head_lines(lines, m, request, labels)
    top = (3 if request.explain else 1) + len(request.run_lines())
    text = [f"{item.strip()}  " for item in head[:top]] + [""]
    text += [f"  - {item.strip()}" if item.startswith("  ") else f"- {item}"
             for item in head[top + (1 if request.explain else 0):]] + [""]
    text += ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    text += ["| " + " | ".join(map(markdown_cell, _table_cells(line, request.digits, several,
                                                                 exact, request.explain)))
             + " |" for line in lines]
    if request.cost_line:
        text += ["", request.cost_line]
    if request.groups is not None:
        from .compare_groups import group_text

        text += [""] + group_text(request.groups, request.digits, request.confidence,
                                  markdown=True, percent=request.percent)
    if not request.explain:
        briefs = [item for line in _brief_notes(request, margin)
                  for item in ("", f"> note: {line}")]
        return "\n".join(text + briefs) + "\n"
    text += [""] + [f"> {note}" for note in _notes(request, margin)] + (
        [""] if _notes(request) else [])
    text += [item.strip() for item in pairing_lines(lines, request.digits)] + [""]
    for paragraph in _legend(labels, request.confidence, bool(request.clusters), several, exact,
                             width=None, adjust=request.adjust, primary=_has_primary(lines),
                             margin=margin):
        text += [paragraph, ""]
    return "\n".join(text[:-1]) + "\n"


def _records(lines: list[Line], labels: list[str], groups: Any = None
             ) -> list[dict[str, Any]]:
    """Every row's record, then with ``--group`` the primary row's breakdown.

    With ``--group`` each row has its ``group`` (None: all questions), and the breakdown
    follows: its aggregate (``group`` None, ``role`` aggregate), then each group.
    """
    files = {"a_file": labels[0], "b_file": labels[1]}
    if groups is None:
        return [{**files, **record} for line in lines for record in line.records()]
    return ([{**files, **record, "group": None} for line in lines
             for record in line.records()]
            + [{**files, **record} for record in groups.records()])


def render_csv(lines: list[Line], labels: list[str], m: int, request: CompareRequest) -> str:
    """One CSV line per metric, k and tau, at full precision.

    With ``--cost``, two more lines (their ``quantity`` column ``cost`` and ``per_solved``):
    the cost differences A - B (:func:`kpass.report.cost.difference_records`).
    """
    import csv
    import io

    buffer = io.StringIO()
    extra = () if request.groups is None else ("group", "weights")
    costs = difference_records(request.cost_difference, labels)
    writer = csv.DictWriter(buffer, fieldnames=("a_file", "b_file") + extra + FIELDS
                            + (("quantity",) if costs else ()),
                            lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for record in _records(lines, labels, request.groups) + costs:
        writer.writerow({key: "" if value is None else value for key, value in record.items()})
    return buffer.getvalue()


def render_json(lines: list[Line], labels: list[str], m: int, request: CompareRequest) -> str:
    """The comparison as JSON: the inputs, how they were matched, one object per line."""
    import json

    document = {"a": request.files[0], "b": request.files[1], "questions": m,
                "matched_by": request.matched_by or "row order", "clusters": request.clusters,
                "confidence": request.confidence, "short": request.short,
                "shared": request.shared,
                "primary": next((line.title for line in lines if line.role == "primary"),
                                None),
                # the adjustment used, None when no row was adjusted (one row: its own t)
                "adjust": (request.adjust if any(line.adjust for line in lines) else None),
                "verdicts": [text.strip() for text in verdicts(lines, request.confidence,
                                                                digits=request.digits)],
                "notes": list(request.notes),
                "run": {side: None if run is None else run.as_dict()
                         for side, run in zip("ab", request.runs, strict=False)} or None,
                # strict JSON: an infinite MDE (se = 0 at under 6 questions) is null
                "results": [{key: None if isinstance(value, float) and not math.isfinite(value)
                             else value for key, value in record.items()}
                            for record in _records(lines, labels, request.groups)]}
    if request.groups is not None:
        document.update(group=request.groups.column, weights=request.groups.weights)
    if request.cost_difference is not None:  # A - B per question, then per solved question
        document["cost_difference"] = [row.as_dict() for row in request.cost_difference]
    return json.dumps(document, indent=2, default=lambda value: float(np.asarray(value))) + "\n"


RENDERERS = {"table": render_table, "markdown": render_markdown, "csv": render_csv,
             "json": render_json}
