"""``kpass next RUN --budget N --k K``: which questions to sample next, and how often.

Reads a run like ``kpass report`` does and writes, per question, how many extra samples
:func:`kpass.allocate` gives it (``id,extra_samples``), for the harness to run; then
``kpass report`` (or ``kpass next`` again) on the grown file.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..io.errors import ReportError
from ..registry import PRIMARY


def _out_path(text: str) -> str:
    suffix = Path(text).suffix.lower()
    if suffix not in (".csv", ".jsonl", ".json") or text.endswith(("/", "\\")):
        raise argparse.ArgumentTypeError(f"the output file must end in .csv, .jsonl or .json "
                                         f"(the extension picks the format); got {text!r}")
    return text


def _prior(text: str) -> tuple[float, float] | str:
    if text in ("uniform", "empirical"):
        return text
    parts = text.split(",")
    try:
        a, b = (float(part) for part in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected uniform, empirical or A,B (two positive "
                                         f"numbers); got {text!r}") from None
    if not (a > 0 and b > 0 and a < float("inf") and b < float("inf")):
        raise argparse.ArgumentTypeError(f"the prior's A and B must be positive and finite; "
                                         f"got {text!r}")
    return a, b


def add_next_parser(commands: Any, _count: Callable[..., Any],
                    _harness_options: Callable[..., Any], _metrics: Callable[..., Any],
                    _taus: Callable[..., Any]) -> None:
    """The ``next`` subcommand's options.

    Called by :func:`kpass.report.parser.build_parser` with its argument checks, so this
    module does not import the parser back.
    """
    command = commands.add_parser(
        "next", help="which questions to sample next: extra samples per question for a budget",
        description="Read a run and write, per question, how many extra samples to draw so "
                    "that the metric's within-question variance is smallest (greedy over "
                    "each question's Beta posterior; see docs/how-to/adaptive.md). Output: "
                    "id,extra_samples (questions without ids are named by their 0-based row).",
        epilog="Questions with fewer than K samples are first brought up to K. Sampling in "
               "rounds does better than one shot: give --budget one round's share, run "
               "those samples, and run kpass next again on the grown file (see "
               "docs/how-to/adaptive.md for what rounds buy).")
    command.add_argument("files", nargs="*", metavar="RUN", help="the run's outcome file")
    command.add_argument("--budget", type=_count(0), required=True, metavar="N",
                         help="extra samples to spread over the questions")
    command.add_argument("--k", type=_count(1), required=True, metavar="K",
                         help="the metric's k")
    command.add_argument("--metrics", type=_metrics, default=PRIMARY.report, metavar="LIST",
                         help="comma-separated metrics to plan for (default: pass@k); with "
                              "several, each one's variance counts relative to its current one")
    command.add_argument("--tau", type=_taus, default=[0.5], metavar="TAU",
                         help="G-Pass@k threshold (default: 0.5)")
    command.add_argument("--prior", type=_prior, default="empirical", metavar="A,B",
                         help="Beta prior of every question's success rate: empirical "
                              "(default: fitted to the run's questions; the uniform prior when "
                              "the fit is degenerate), uniform or A,B")
    command.add_argument("--out", type=_out_path, metavar="FILE",
                         help="write to FILE (.csv, .jsonl or .json) instead of CSV on stdout")
    command.add_argument("--column", metavar="NAME", help="the outcome column")
    _harness_options(command)
    command.add_argument("--id", metavar="COLUMN", help="the question-id column (long files: "
                                                        "one row per sample)")
    command.add_argument("--chunk-size", type=_count(1), default=65536, metavar="ROWS",
                         help="rows read and counted at a time (default: 65536)")
    command.add_argument("--explain", action="store_true",
                         help="also say on stderr how the split was made and what it spends "
                              "(stdout stays the CSV the harness reads)")
    command.set_defaults(command_parser=command)


def run_next(args: argparse.Namespace) -> int:
    """Run ``kpass next`` with parsed arguments; the exit status."""
    from ..families import function
    from ..io.inputs import load_file
    from ..io.progress import Progress
    from ..registry import names
    from ..stats.allocation import _check_inputs, _greedy, allocation_outlook
    from ..stats.allocation import _prior as check_prior
    from .output import _write
    from .table import FAMILIES, parse_metrics

    if len(args.files) != 1:
        print("kpass next: error: give exactly one run file (see kpass next --help)",
              file=sys.stderr)
        return 2
    try:
        families = parse_metrics(args.metrics, answers=True)  # vote@k refused below
    except ValueError as error:
        print(f"kpass next: error: {error}", file=sys.stderr)
        return 2
    # What allocation can plan for: the families whose per-question value is a U-statistic
    # of a binary credit (the registry's `credit`), under their --metrics names.
    credit = set(names(credit=True))
    allocatable = [fam.key for fam in FAMILIES if fam.function in credit]
    refused = [fam.key for fam in families if fam.function not in credit]
    if refused:
        print(f"kpass next: error: --metrics {','.join(refused)}: allocation plans for "
              f"{', '.join(allocatable)} (means of per-question U-statistics)", file=sys.stderr)
        return 2
    source = args.files[0]
    try:
        loaded: Any
        if args.id is not None:
            from ..io.long.load import load_long

            loaded = load_long(source, id=args.id, column=args.column,
                               chunk_size=args.chunk_size, tool=args.from_, filter=args.filter)
        else:
            loaded = load_file(source, tool=args.from_, filter=args.filter, column=args.column,
                               chunk_size=args.chunk_size, skip_bad=False,
                               progress=Progress(f"reading {source}"))
        counts = loaded.counts
        objectives: list[tuple[Any, tuple[Any, ...], dict[str, Any]]] = []
        labels: list[str] = []
        for fam in families:
            point = function(fam.function)
            for tau in (args.tau if fam.uses_tau else [None]):  # every tau asked for
                extra = (tau,) if tau is not None else ()
                objectives.append((point, (args.k, *extra), {}))
                labels.append(fam.key + ("" if tau is None else f" tau={tau:g}"))
        try:
            _, counts, k, budget = _check_inputs([o[0] for o in objectives], counts, args.k,
                                                 args.budget)
            a0, b0 = check_prior(args.prior, counts)
            split = _greedy(objectives, counts, k, budget, a0, b0)
        except (TypeError, ValueError) as error:
            message = str(error).replace("`budget`", "--budget").replace("`k`", "--k")
            raise ReportError(source, message) from None
    except ReportError as error:
        print(f"kpass next: error: {error}", file=sys.stderr)
        return 1
    ids = list(counts.ids) if counts.ids is not None else list(range(counts.n_questions))
    rows = [(question, int(extra)) for question, extra in zip(ids, split, strict=True)]
    if args.explain:
        given = sum(1 for _, extra in rows if extra > 0)
        print(f"kpass next: {sum(extra for _, extra in rows)} extra samples over {given} of "
              f"{len(rows)} questions, for {', '.join(fam.key for fam in families)} at k={k}: "
              "greedy, each sample where it most lowers the within-question variance the "
              f"questions' Beta({a0:.3g}, {b0:.3g}) posteriors expect (questions with fewer than k "
              "samples first brought up to k; docs/adaptive.md)", file=sys.stderr)
        for label, (point, extra_args, _) in zip(labels, objectives, strict=True):
            ratio, share = allocation_outlook(point, counts, k, split, *extra_args[1:],
                                              prior=(a0, b0))
            print(f"kpass next: {label}: expected within-question "
                  f"variance {ratio:.3f}x an even spread's; that part is {share:.0%} of the "
                  "estimate's variance (the rest is between questions: more questions lower "
                  "it, more samples do not)", file=sys.stderr)
    text = _render(rows, args.out)
    if args.out is None:
        return _write(text)
    try:
        Path(args.out).write_text(text, encoding="utf-8")
    except OSError as error:
        print(f"kpass next: error: cannot write {args.out}: {error.strerror or error}",
              file=sys.stderr)
        return 1
    return 0


def _render(rows: list[tuple[Any, int]], out: str | None) -> str:
    suffix = "" if out is None else Path(out).suffix.lower()
    if suffix == ".jsonl":
        return "".join(json.dumps({"id": _plain(q), "extra_samples": m}) + "\n" for q, m in rows)
    if suffix == ".json":
        return json.dumps([{"id": _plain(q), "extra_samples": m} for q, m in rows]) + "\n"
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["id", "extra_samples"])
    writer.writerows(rows)
    return buffer.getvalue()


def _plain(value: Any) -> Any:
    """An id as JSON has it (numpy scalars as Python ones)."""
    return value.item() if hasattr(value, "item") else value
