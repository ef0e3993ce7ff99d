"""``kpass compare A B --sequential``: the running, anytime-valid verdict.

For every metric and k, :func:`kpass.confidence_sequence` of the paired difference A - B
over the questions in the order of A's file, and one line: ``decided after 140
questions: A better (...)`` or ``not yet: -0.020 to 0.090 after 60 questions``. Re-running
it as the files grow (``docs/how-to/adaptive.md``) is covered by the guarantee: the sequence over
the first t questions does not change when more are appended, and it holds over all t at
once.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
from typing import Any

from .._core.counting.counts import BinaryCounts
from ..io.errors import ReportError
from ..stats.comparison import margin_claim
from .compare_render import CompareRequest, pairing_head
from .output import brief_notes

__all__ = ["sequential_rows", "sequential_text"]

SEQUENTIAL_HELP = ("print the running anytime-valid verdict instead of the fixed-sample table: "
                   "a betting confidence sequence of A - B over the questions in the order of "
                   "A's file (at --confidence), valid however often you look")

SEQUENTIAL_NULL_HELP = ("with --sequential, what the sequence assumes: exchangeable (default: "
                        "A and B interchangeable on each question, the null of the "
                        "fixed-sample sign-flip tests; decides in fewer questions) or bounded "
                        "(any differences in [-1, 1] with the given mean)")


def sequential_rows(first: BinaryCounts, second: BinaryCounts, families: list[Any],
                    ks: list[int], taus: list[float], confidence: float, short: str,
                    clusters: list[Any] | None, shared: bool = False, null: str | None = None,
                    margin: float | None = None, equivalence: bool = False
                    ) -> list[tuple[str, Any]]:
    """(label, ConfidenceSequence) for every metric with per-question values, k and tau."""
    from ..families import function
    from ..registry import names
    from ..stats.align import align_runs, subset_labels
    from ..stats.sequential import confidence_sequence

    if shared and first.ids is not None and second.ids is not None:
        alignment = align_runs([first, second], ["A", "B"], shared=True, verb="compare")
        first, second = alignment.runs
        clusters = subset_labels(clusters, alignment)
    dataset_level = set(names(values="dataset"))
    options: dict[str, Any] = {"confidence": confidence, "clusters": clusters, "null": null,
                               "margin": margin, "equivalence": equivalence}
    if short != "error":
        options["short"] = short
    rows: list[tuple[str, Any]] = []
    for fam in families:
        if fam.answers or fam.function in dataset_level:
            continue
        point = function(fam.function)
        if not fam.per_k:
            rows.append((fam.label(None, None, "n"),
                         confidence_sequence(point, first, second, **options)))
            continue
        for tau in taus if fam.uses_tau else [None]:
            head = () if tau is None else (tau,)
            for k in ks:
                if k in fam.constant_at:
                    continue
                rows.append((fam.label(k, tau, "n"),
                             confidence_sequence(point, first, second, k, *head, **options)))
    return rows


def sequential_text(first: BinaryCounts, second: BinaryCounts, families: list[Any],
                    ks: list[int], args: argparse.Namespace, clusters: list[Any] | None,
                    labels: list[str], request: CompareRequest, m: int) -> str:
    """The ``--sequential`` output in ``args.format`` (table/markdown lines, csv, json).

    The head line begins with plain compare's pairing line (:func:`pairing_head`: the
    questions paired and by what), and the notes follow the rows as in plain compare: one
    short line each, in full with ``--explain``. JSON and CSV records carry ``matched_by``.
    """
    try:
        rows = sequential_rows(first, second, families, ks, args.tau, args.confidence,
                               args.short, clusters, bool(getattr(args, "shared", False)),
                               getattr(args, "sequential_null", None),
                               getattr(args, "margin", None),
                               bool(getattr(args, "equivalence", False)))
    except (TypeError, ValueError) as error:
        message = str(error).replace("pass shared=True", "pass --shared")
        raise ReportError(f"{args.files[0]} vs {args.files[1]}", message) from None
    if not rows:
        raise ReportError(f"{args.files[0]} vs {args.files[1]}", "--sequential: none of the "
                          "metrics has per-question values to follow")
    records = [{"metric": label, "k": cs.k, "steps": cs.steps, "units": cs.units,
                "estimate": float(cs.estimate[-1]) if cs.steps else None,
                "lo": float(cs.lo[-1]) if cs.steps else None,
                "hi": float(cs.hi[-1]) if cs.steps else None, "confidence": cs.confidence,
                "decided": cs.decided, "stop_at": cs.stop_at, "verdict": cs.verdict,
                "null": cs.null, "margin": cs.margin, "equivalence": cs.equivalence,
                "matched_by": request.matched_by or "row order"}
               for label, cs in rows]
    if args.format == "json":
        return json.dumps(records, indent=2) + "\n"
    if args.format == "csv":
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(records[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(records)
        return buffer.getvalue()
    width = max(len(label) for label, _ in rows)
    first_cs = rows[0][1]
    assumed = ("A and B exchangeable on each question" if first_cs.null == "exchangeable"
               else "differences bounded in [-1, 1]")
    head = (f"{pairing_head(m, request, labels)}; anytime-valid "
            f"{first_cs.confidence:.0%} confidence sequence of A - B ({assumed}), questions "
            "in the order of A's file")
    if first_cs.margin is not None:
        head += (f"; deciding whether {margin_claim(first_cs.margin, first_cs.equivalence)}"
                 " (B the new model)")
    head = "\n".join([head, *(f"  {line}" for line in request.run_lines())])
    lines = [f"{label:<{width}}  {cs.summary()}" for label, cs in rows]
    notes = ([f"note: {note}" for note in request.notes] if request.explain
             else [f"note: {line}" for line in brief_notes(request.notes)])
    tail = "\n\n" + "\n".join(notes) if notes else ""
    if args.format == "markdown":
        return head + "\n\n" + "\n".join(f"- {line}" for line in lines) + tail + "\n"
    return head + "\n" + "\n".join(lines) + tail + "\n"
