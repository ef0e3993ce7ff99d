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
import math
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


def _cost(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not (value >= 0 and value < float("inf")):
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0; got {text!r}")
    return value


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
                         help="extra samples to spread over the questions (money with "
                              "--cost-sample)")
    command.add_argument("--cost-question", type=_cost, metavar="C",
                         help="the cost of one new question (default 0); with it (or "
                              "--cost-sample) stderr also says whether --budget buys a "
                              "smaller SE as new questions or as these samples, as kpass plan "
                              "--budget splits it")
    command.add_argument("--cost-sample", type=_cost, metavar="C",
                         help="the cost of one sample (default 1); --budget is then money "
                              "and buys floor(N / C) samples")
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
    command.add_argument("--by", metavar="COLUMN",
                         help="one model per value of this column (with --id), or per file "
                              "of a folder (`file`): each model gets --budget extra samples, "
                              "written as COLUMN,id,extra_samples")
    command.add_argument("--chunk-size", type=_count(1), default=65536, metavar="ROWS",
                         help="rows read and counted at a time (default: 65536)")
    command.add_argument("--explain", action="store_true",
                         help="also say on stderr how the split was made and what it spends "
                              "(stdout stays the CSV the harness reads)")
    command.set_defaults(command_parser=command)


def run_next(args: argparse.Namespace) -> int:
    """Run ``kpass next`` with parsed arguments; the exit status."""
    from ..io.inputs import load_file
    from ..io.progress import Progress
    from ..registry import names
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
    if getattr(args, "by", None) is not None:
        return _run_next_by(args, families, source)
    try:
        loaded: Any
        if args.id is not None:
            from ..io.long.load import load_long

            loaded = load_long(source, id=args.id, column=args.column,
                               chunk_size=args.chunk_size, tool=args.from_, filter=args.filter,
                               partial=args.partial)
        else:
            loaded = load_file(source, tool=args.from_, filter=args.filter, column=args.column,
                               chunk_size=args.chunk_size, skip_bad=False,
                               progress=Progress(f"reading {source}"), partial=args.partial)
        rows, k, (a0, b0), outlook = _allocated(loaded.counts, families, args, source)
    except ReportError as error:
        print(f"kpass next: error: {error}", file=sys.stderr)
        return 1
    if args.explain:
        given = sum(1 for _, extra in rows if extra > 0)
        print(f"kpass next: {sum(extra for _, extra in rows)} extra samples over {given} of "
              f"{len(rows)} questions, for {', '.join(fam.key for fam in families)} at k={k}: "
              "greedy, each sample where it most lowers the within-question variance the "
              f"questions' Beta({a0:.3g}, {b0:.3g}) posteriors expect (questions with fewer "
              "than k samples first brought up to k; docs/adaptive.md)", file=sys.stderr)
    for line in outlook:
        print(f"kpass next: {line}", file=sys.stderr)
    return _output(_render(rows, args.out), args)


def _output(text: str, args: argparse.Namespace) -> int:
    """``text`` on stdout, or in ``--out``; the exit status."""
    from .output import _write

    if args.out is None:
        return _write(text)
    try:
        Path(args.out).write_text(text, encoding="utf-8")
    except OSError as error:
        print(f"kpass next: error: cannot write {args.out}: {error.strerror or error}",
              file=sys.stderr)
        return 1
    return 0


def _allocated(counts: Any, families: list[Any], args: argparse.Namespace, source: str
               ) -> tuple[list[tuple[Any, int]], int, tuple[float, float], list[str]]:
    """One run's split: its (question, extra samples) rows, k, the prior and the outlook.

    The outlook (``--explain`` only) is one line per metric on what the split is expected
    to buy against an even spread, and the share of the variance allocation can move.
    """
    from ..families import function
    from ..stats.allocation import _check_inputs, _greedy, allocation_outlook
    from ..stats.allocation import _prior as check_prior

    objectives: list[tuple[Any, tuple[Any, ...], dict[str, Any]]] = []
    labels: list[str] = []
    for fam in families:
        point = function(fam.function)
        for tau in (args.tau if fam.uses_tau else [None]):  # every tau asked for
            extra = (tau,) if tau is not None else ()
            objectives.append((point, (args.k, *extra), {}))
            labels.append(fam.key + ("" if tau is None else f" tau={tau:g}"))
    try:
        per_sample = 1.0 if args.cost_sample is None else args.cost_sample
        if per_sample <= 0:
            raise ValueError(f"--cost-sample must be > 0; got --cost-sample {per_sample:g}")
        _, counts, k, budget = _check_inputs([o[0] for o in objectives], counts, args.k,
                                             int(args.budget // per_sample))
        a0, b0 = check_prior(args.prior, counts)
        split = _greedy(objectives, counts, k, budget, a0, b0)
    except (TypeError, ValueError) as error:
        message = str(error).replace("`budget`", "--budget").replace("`k`", "--k")
        raise ReportError(source, message) from None
    outlook = []
    for label, (point, extra_args, _) in zip(labels, objectives, strict=True):
        if not args.explain:
            break
        ratio, share = allocation_outlook(point, counts, k, split, *extra_args[1:],
                                          prior=(a0, b0))
        outlook.append(f"{label}: expected within-question variance {ratio:.3f}x an even "
                       f"spread's; that part is {share:.0%} of the estimate's variance (the "
                       "rest is between questions: more questions lower it, more samples do "
                       "not)")
    if args.cost_question is not None or args.cost_sample is not None:
        for label, (point, extra_args, _) in zip(labels, objectives, strict=True):
            outlook.append(_new_or_more(label, point, extra_args, counts, split, (a0, b0),
                                        args))
    ids = list(counts.ids) if counts.ids is not None else list(range(counts.n_questions))
    return [(question, int(extra)) for question, extra in zip(ids, split, strict=True)], k, (
        a0, b0), outlook


def _new_or_more(label: str, point: Any, extra_args: tuple[Any, ...], counts: Any,
                 split: Any, prior: tuple[float, float], args: argparse.Namespace) -> str:
    """One line: does --budget buy a smaller SE as new questions or as this split's samples?

    New questions: :meth:`kpass.Plan.grow`'s (the run as the pilot, the same prior).
    More samples: this split, SE^2 = between / M + the within-question variance its
    posteriors expect (:func:`kpass.stats.allocation.expected_within_variance`).
    """
    import warnings

    import kpass

    from ..stats.allocation import expected_within_variance

    short = int((counts.n_samples < extra_args[0]).sum())
    if short:
        return (f"{label}: new questions or more samples: cannot say until every question has "
                f"k={extra_args[0]} samples ({short} not yet: run this split, which tops them "
                "up, and ask again)")
    correct = int(counts.n_correct.sum())
    if correct in (0, int(counts.n_samples.sum())):
        return (f"{label}: new questions or more samples: cannot say (every outcome so far "
                f"is {0 if correct == 0 else 1}: no variance to split)")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", kpass.SmallSampleWarning)
            plan = kpass.plan(point, counts, *extra_args, alpha0=prior[0], beta0=prior[1])
        assert isinstance(plan, kpass.Plan)  # a pilot: a Plan (for mypy)
        new, _ = plan.grow(args.budget, cost_question=args.cost_question or 0.0,
                           cost_sample=1.0 if args.cost_sample is None else args.cost_sample)
    except ValueError as error:
        return f"{label}: new questions or more samples: cannot say ({error})"
    within = expected_within_variance(point, counts, extra_args[0], split, *extra_args[1:],
                                      prior=prior)
    more = math.sqrt(plan.between / plan.questions + within)
    spent = int(split.sum())
    head = (f"{label}: {new.questions:,} new questions x {new.samples} samples: SE "
            f"{new.se:.4f}; {spent:,} more samples on these {plan.questions:,}: SE {more:.4f}")
    if new.questions == 0:
        return (f"{label}: the budget buys no new question; {spent:,} more samples on these "
                f"{plan.questions:,}: SE {more:.4f}")
    if abs(new.se - more) <= 5e-5:
        return f"{head}; the same"
    better, worse = ("new questions", "more samples") if new.se < more else (
        "more samples", "new questions")
    return (f"{head}; {better} give a {1.0 - min(new.se, more) / max(new.se, more):.0%} "
            f"smaller SE than {worse}")


def _run_next_by(args: argparse.Namespace, families: list[Any], source: str) -> int:
    """``kpass next --by COLUMN``: each model of the input gets ``--budget`` extra samples.

    The models are planned one by one (each its own posterior and prior fit); the rows
    are ``COLUMN,id,extra_samples`` (``model`` for ``--by file``), models in label order.
    """
    from ..io.inputs import BY_FILE, InputOptions, load_split

    options = InputOptions(id=args.id, column=args.column, tool=args.from_, filter=args.filter,
                           chunk_size=args.chunk_size, by=args.by, pool=True,
                           partial=args.partial)
    try:
        split = load_split(source, options)
        planned = {label: _allocated(item.counts, families, args, f"{source} ({args.by} = "
                                                                  f"{label})")
                   for label, item in split.items()}
    except ReportError as error:
        print(f"kpass next: error: {error}", file=sys.stderr)
        return 1
    column = "model" if args.by == BY_FILE else args.by
    for label, (rows, k, (a0, b0), outlook) in planned.items():
        if args.explain:
            given = sum(1 for _, extra in rows if extra > 0)
            print(f"kpass next: {column} = {label}: {sum(extra for _, extra in rows)} extra "
                  f"samples over {given} of {len(rows)} questions at k={k}, Beta({a0:.3g}, "
                  f"{b0:.3g}) prior", file=sys.stderr)
        for line in outlook:
            print(f"kpass next: {column} = {label}: {line}", file=sys.stderr)
    rows_by = [(label, question, extra) for label, (plan, _, _, _) in planned.items()
               for question, extra in plan]
    return _output(_render_by(rows_by, column, args.out), args)


def _render_by(rows: list[tuple[str, Any, int]], column: str, out: str | None) -> str:
    """``--by``'s rows: the model's label, then ``id`` and ``extra_samples``."""
    suffix = "" if out is None else Path(out).suffix.lower()
    records = [{column: label, "id": _plain(q), "extra_samples": m} for label, q, m in rows]
    if suffix == ".jsonl":
        return "".join(json.dumps(record) + "\n" for record in records)
    if suffix == ".json":
        return json.dumps(records) + "\n"
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([column, "id", "extra_samples"])
    writer.writerows(rows)
    return buffer.getvalue()


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
