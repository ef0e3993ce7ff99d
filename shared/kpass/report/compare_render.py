"""``kpass compare``'s outputs: verdict lines, the table, Markdown, CSV and JSON.

The comparisons are computed by :mod:`kpass.report.compare` (one :class:`Line` per metric
and k); this lays them out, with the plain-words verdicts above the table and the legend
under it. Re-exported by :mod:`kpass.report.compare`.
"""

from __future__ import annotations

import argparse
import math
import textwrap
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .table import LEGEND_WIDTH

FIELDS = ("metric", "label", "k", "tau", "questions", "a", "b", "difference", "se", "lo", "hi",
          "p_value", "prob_a_better", "mde", "se_unpaired", "correlation", "confidence",
          "se_a", "se_b", "df", "p_exact", "p_holm", "reference")


VERDICTS_IN_FULL = 8
"""Up to this many rows every row gets a verdict line; above, only the rows with a detected
difference, and one line for the rest."""


@dataclass
class Line:
    """One metric at one k (and tau): the paired comparison of the two files."""

    metric: str
    label: str
    k: int | None
    tau: float | None
    result: Any  # kpass.Comparison
    p_holm: float | None = None  # Holm-adjusted over the rows of the table (several rows)

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-safe fields."""
        fields = {name: value for name, value in self.result.as_dict().items()
                  if name not in ("metric", "k")}
        return {"metric": self.metric, "label": self.label, "k": self.k, "tau": self.tau,
                **fields, "p_holm": self.p_holm}


def _in_percent(result: Any) -> Any:
    """A Comparison with its values, differences and SEs x 100."""
    names = ("a", "b", "difference", "se", "lo", "hi", "mde", "se_unpaired", "se_a", "se_b")
    return replace(result, **{name: None if getattr(result, name) is None
                              else 100.0 * getattr(result, name) for name in names})


def verdicts(lines: list[Line], confidence: float, unit: str = "") -> list[str]:
    """Plain-words verdicts: which run is better on which row, or that no difference shows.

    A row shows a difference when its p-value (Holm-adjusted when the table tests several
    rows) is below alpha = 1 - confidence. The better run is named, with the difference as
    better - worse and its interval in the same direction.
    """
    alpha = 1.0 - confidence
    level = f"{confidence * 100:g}%"
    items: list[tuple[bool, str]] = []
    for line in lines:
        r = line.result
        p = line.p_holm if line.p_holm is not None else r.p_value
        which = "Holm p" if line.p_holm is not None else "p"
        if p < alpha and r.difference > 0:
            items.append((True, f"A is better than B on {line.label} by {r.difference:.3g}{unit} "
                                f"({level} CI {r.lo:.3g} to {r.hi:.3g}{unit}, {which} = "
                                f"{_p_words(p)})"))
        elif p < alpha and r.difference < 0:
            items.append((True, f"B is better than A on {line.label} by {-r.difference:.3g}"
                                f"{unit} ({level} CI {-r.hi:.3g} to {-r.lo:.3g}{unit}, {which} = "
                                f"{_p_words(p)})"))
        else:
            items.append((False, f"no detectable difference on {line.label}: difference "
                                 f"A - B {r.difference:.3g}{unit}, MDE {r.mde:.3g}{unit} "
                                 f"({which} = "
                                 f"{_p_words(p)})"))
    if len(items) <= VERDICTS_IN_FULL:
        return [text for _, text in items]
    found = [text for detected, text in items if detected]
    out = found[:VERDICTS_IN_FULL]
    if len(found) > VERDICTS_IN_FULL:
        out.append(f"... and {len(found) - VERDICTS_IN_FULL} more rows with a detected "
                   "difference (see the table)")
    rest = len(items) - len(found)
    if rest:
        out.append(f"no detectable difference on {'the other' if found else 'any of the'} "
                   f"{rest} rows (Holm p >= {alpha:.2g})")
    return out


def _p_words(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.2g}" if p < 0.01 else f"{p:.2f}"


def _legend(labels: list[str], confidence: float, clustered: bool,
            several: bool = False, exact: bool = False, width: int | None = LEGEND_WIDTH
            ) -> list[str]:
    """The legend's lines wrapped at ``width``, or its paragraphs whole (``width=None``)."""
    level = f"{confidence * 100:g}%"
    units = "clusters" if clustered else "questions"
    paragraphs = [
        f"A = {labels[0]}, B = {labels[1]}; difference = A - B over the questions both were "
        "scored on (positive favours A).",
        "se: paired standard error of the difference over questions"
        f"{' (clustered)' if clustered else ''}; "
        f"{level} interval: difference -/+ t se, t from Student's t with {units} - 1 degrees "
        "of freedom; p: two-sided t test of no difference; MDE: the smallest true difference "
        f"detected with 80% power at alpha = {1 - confidence:.2g}. These treat the questions "
        "as a sample of questions like these (Miller 2024)."
        + (" Holm p: p adjusted by Holm's step-down method over all rows of the table, so "
           "the chance of any false 'better' verdict stays at alpha; the verdicts use it."
           if several else "")
        + (" p exact: the sign-flip permutation test of the per-question differences (exact "
           "enumeration up to 20 units), valid without normality: trust it with few "
           "questions." if exact else ""),
        "P(A>B): posterior probability that A beats B on these very questions with unlimited "
        "samples (uniform Beta(1,1) prior per question); the questions themselves held fixed.",
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
    """(Holm column, exact-p column): several rows; few questions (or clusters)."""
    from .._core.small_sample import FEW_QUESTIONS

    several = len(lines) > 1
    exact = any(r.p_exact is not None and (r.df if r.df is not None else r.questions)
                < FEW_QUESTIONS for r in (line.result for line in lines))
    return several, exact


def _table_cells(line: Line, digits: int, several: bool, exact: bool) -> list[str]:
    r = line.result
    cells = [line.label, _number(r.a, digits), _number(r.b, digits),
             _number(r.difference, digits), _number(r.se, digits),
             f"[{_number(r.lo, digits)}, {_number(r.hi, digits)}]", _p_value(r.p_value)]
    if several:
        cells.append(_p_value(line.p_holm) if line.p_holm is not None else "")
    if exact:
        cells.append(_p_value(r.p_exact) if r.p_exact is not None else "-")
    return cells + [f"{r.prob_a_better:.3f}", _number(r.mde, digits), str(r.questions)]


def _header(confidence: float, several: bool, exact: bool) -> list[str]:
    return (["metric", "A", "B", "difference", "se", f"{confidence * 100:g}% interval", "p"]
            + (["Holm p"] if several else []) + (["p exact"] if exact else [])
            + ["P(A>B)", "MDE", "questions"])


def _head_lines(lines: list[Line], m: int, args: argparse.Namespace) -> list[str]:
    matched = "id (" + args.id + ")" if args.id else "row order"
    return [f"A: {args.files[0]}", f"B: {args.files[1]}",
            f"{m} questions matched by {matched}", "",
            *verdicts(lines, args.confidence, " points" if getattr(args, "percent", False)
                      else "")]


def _notes(args: argparse.Namespace) -> list[str]:
    notes = getattr(args, "notes", [])
    return [f"note: {note}" for note in notes]


def render_table(lines: list[Line], labels: list[str], m: int, args: argparse.Namespace) -> str:
    """The verdicts, the paired table for the terminal, notes and a legend."""
    several, exact = _columns(lines)
    header = _header(args.confidence, several, exact)
    body = [_table_cells(line, args.digits, several, exact) for line in lines]
    widths = [max(len(row[i]) for row in [header] + body) for i in range(len(header))]
    left = {0, 5}

    def row(cells: list[str]) -> str:
        return "  ".join(cell.ljust(widths[i]) if i in left else cell.rjust(widths[i])
                         for i, cell in enumerate(cells)).rstrip()

    out = [*_head_lines(lines, m, args), "", row(header)] + [row(cells) for cells in body]
    out += [""] + [wrapped for note in _notes(args)
                   for wrapped in textwrap.wrap(note, LEGEND_WIDTH, subsequent_indent="  ")]
    out += [""] if _notes(args) else []
    out.extend(_legend(labels, args.confidence, bool(args.clusters), several, exact))
    return "\n".join(out) + "\n"


def render_markdown(lines: list[Line], labels: list[str], m: int,
                    args: argparse.Namespace) -> str:
    """The verdicts, the paired table as GitHub-flavoured Markdown, notes and the legend."""
    several, exact = _columns(lines)
    header = _header(args.confidence, several, exact)
    align = [":---"] + ["---:"] * 4 + [":---"] + ["---:"] * (len(header) - 6)
    head = _head_lines(lines, m, args)
    text = [f"{item}  " for item in head[:3]] + [""] + [f"- {item}" for item in head[4:]] + [""]
    text += ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    text += ["| " + " | ".join(_table_cells(line, args.digits, several, exact)) + " |"
             for line in lines]
    text += [""] + [f"> {note}" for note in _notes(args)] + ([""] if _notes(args) else [])
    for paragraph in _legend(labels, args.confidence, bool(args.clusters), several, exact,
                             width=None):
        text += [paragraph, ""]
    return "\n".join(text[:-1]) + "\n"


def _records(lines: list[Line], labels: list[str]) -> list[dict[str, Any]]:
    return [{"a_file": labels[0], "b_file": labels[1], **line.as_dict()} for line in lines]


def render_csv(lines: list[Line], labels: list[str], m: int, args: argparse.Namespace) -> str:
    """One CSV line per metric, k and tau, at full precision."""
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=("a_file", "b_file") + FIELDS,
                            lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for record in _records(lines, labels):
        writer.writerow({key: "" if value is None else value for key, value in record.items()})
    return buffer.getvalue()


def render_json(lines: list[Line], labels: list[str], m: int, args: argparse.Namespace) -> str:
    """The comparison as JSON: the inputs, how they were matched, one object per line."""
    import json

    document = {"a": args.files[0], "b": args.files[1], "questions": m,
                "matched_by": args.id or "row order", "clusters": args.clusters,
                "confidence": args.confidence, "short": args.short,
                "shared": bool(getattr(args, "shared", False)),
                "verdicts": verdicts(lines, args.confidence),
                "notes": list(getattr(args, "notes", [])),
                # strict JSON: an infinite MDE (se = 0 at under 6 questions) is null
                "results": [{key: None if isinstance(value, float) and not math.isfinite(value)
                             else value for key, value in record.items()}
                            for record in _records(lines, labels)]}
    return json.dumps(document, indent=2, default=lambda value: float(np.asarray(value))) + "\n"


RENDERERS = {"table": render_table, "markdown": render_markdown, "csv": render_csv,
             "json": render_json}
