"""The ``kpass`` command.

``kpass report [FILE ...]`` reads per-question outcome files and prints every
pass-family metric with its standard error over questions and its posterior mean,
standard deviation and credible interval; with no file it runs on the bundled
tau-bench sample. ``kpass compare A B`` compares two models on the same questions::

    $ kpass report
    $ kpass report model_a.jsonl model_b.parquet --k 1,4,16 --format markdown
    $ kpass report runs.csv --column correct --plot curves.png
    $ kpass compare model_a.jsonl model_b.jsonl --id question_id --k 1,8

Exit status: 0 on success, 1 for an unusable file or row, 2 for a bad argument;
every error is one line on stderr naming the file, the line and the problem.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ..io.harness import load_file
from ..io.inspect_log import expand_inspect_logs
from ..io.progress import Progress
from ..io.readers import LoadedFile, ReportError
from .output import _check_answers_options, _write
from .parser import (  # noqa: F401 - the parser's names, as this module always offered them
    PERCENT_HELP,
    PLOT_FORMATS,
    _add_compare,
    _add_leaderboard,
    _answers_options,
    _confidence,
    _count,
    _finite,
    _harness_options,
    _metrics,
    _pairing_options,
    _Parser,
    _plot_path,
    _positive_ints,
    _selection_options,
    _taus,
    build_parser,
)
from .table import (
    DEFAULT_K_MAX,
    PLOTTED,
    RENDERERS,
    Report,
    check_ks,
    compute_rows,
    default_ks,
    family,
    input_labels,
    parse_metrics,
    render_markdown,
    render_table,
    soft_rows,
)

SAMPLE_NOTE = (
    "Sample data: tau-bench airline, GPT-4o, 50 tasks x 4 trials (Yao et al. 2024, "
    "arXiv:2406.12045); MIT licence, (c) 2024 Sierra. Published: Pass^1..Pass^4 = 0.420, "
    "0.273, 0.220, 0.200."
)
AIME_SAMPLE = "aime25_q06_gpt_oss_20b.json"
AIME_NOTE = (
    "Sample data: AIME 2025 q06, 80 answers of gpt-oss-20b (from the scorio repository; MIT, "
    "(c) 2025 Hariri, Samandar, Hinczewski, Chaudhary). The most frequent answer (271, 34 "
    "votes) is wrong, the reference (821) has 32: Vote@80 is 0 while Pass@80 is 1."
)
MAX_WARNINGS = 20


def _run_leaderboard(args: argparse.Namespace) -> int:
    from .leaderboard import run_leaderboard

    return run_leaderboard(args)


def _run_compare(args: argparse.Namespace) -> int:
    from .compare import run_compare

    return run_compare(args)


def _load(sources: list[str], args: argparse.Namespace, warnings: list[str]
          ) -> tuple[list[LoadedFile], list[list[Any] | None]]:
    loaded, answers = [], []
    normalize = None
    if args.answers and args.normalize:
        from ..io.answers import import_normalizer

        normalize = import_normalizer(args.normalize)
    for source in sources:
        if args.answers:
            from ..io.answers import load_answers

            item, coded = load_answers(source, column=args.column, reference=args.reference,
                                       skip_bad=args.skip_bad, chunk_size=args.chunk_size,
                                       normalize=normalize, id=args.id, sample=args.sample)
            if not item.counts.n_correct.any():
                warning = (f"{source}: no answer matches its reference in any of the "
                           f"{item.counts.n_questions} questions; are the answers and "
                           "references spelt alike (extract the final answer with --normalize "
                           "MODULE:FUNCTION)?")
                print(f"kpass report: warning: {warning}", file=sys.stderr)
                warnings.append(warning)
        elif args.id is not None or args.threshold is not None or args.sample is not None:
            from ..io.long import load_long

            if args.skip_bad:
                raise ReportError(source, "--skip-bad is not available with --id, --sample or "
                                          "--threshold: every row of a question counts, so a "
                                          "bad row stops the run with its line")

            item = load_long(source, id=args.id, sample=args.sample, column=args.column,
                             threshold=args.threshold, chunk_size=args.chunk_size,
                             tool=args.from_, filter=args.filter)
            coded = None
        else:
            item = load_file(source, tool=args.from_, filter=args.filter, column=args.column,
                             chunk_size=args.chunk_size, skip_bad=args.skip_bad,
                             progress=Progress(f"reading {source}"))
            coded = None
        for where, problem in item.bad_rows[:MAX_WARNINGS]:
            print(f"kpass report: warning: {source}: {where}: {problem} (row left out)",
                  file=sys.stderr)
        if len(item.bad_rows) > MAX_WARNINGS:
            print(f"kpass report: warning: {source}: {len(item.bad_rows) - MAX_WARNINGS} more "
                  "unreadable rows left out", file=sys.stderr)
        loaded.append(item)
        answers.append(coded)
    return loaded, answers


def run_report(args: argparse.Namespace) -> int:
    """Run ``kpass report`` with parsed arguments.

    Args:
        args: the parsed command line.

    Returns:
        The exit status: 0 on success, 1 when an input cannot be used.
    """
    try:
        from kpass.data import sample_path

        if args.files:
            sources, notes = expand_inspect_logs(args.files), []
        elif args.answers:
            sources, notes = [str(sample_path(AIME_SAMPLE))], [AIME_NOTE]
        else:
            sources, notes = [str(sample_path())], [SAMPLE_NOTE]
        try:
            families = parse_metrics(args.metrics, answers=args.answers)
            _check_answers_options(args)
        except ValueError as error:
            print(f"kpass report: error: {error}", file=sys.stderr)
            return 2
        warnings: list[str] = []
        loaded, answers = _load(sources, args, warnings)
        n_min = min(item.n_min for item in loaded)
        ks = sorted({k for group in args.k for k in group}) if args.k else default_ks(n_min)
        if not args.k and n_min > DEFAULT_K_MAX:
            notes.append(f"k stops at {DEFAULT_K_MAX} by default (questions have n={n_min} "
                         "samples or more); ask for larger k with --k, e.g. --k "
                         f"{n_min}: the Maj@k, mG-Pass@k, G-Pass@k and AUC@k intervals take "
                         "O(k^2) time, seconds for k in the thousands.")
        for item in loaded:
            check_ks(item, ks, args.short)
        labels = input_labels(sources)
        rows = [compute_rows(item, families, ks, args.tau, args.confidence, args.short, coded,
                             args.ties) + soft_rows(item, args.confidence)
                for item, coded in zip(loaded, answers, strict=True)]
        if args.percent and args.format in ("table", "markdown"):
            rows = [[row.in_percent() for row in per_input] for per_input in rows]
            notes.append("values in percent (x 100): estimates, se, intervals, mean and sd.")
        report = Report(loaded, labels, rows, args.confidence, args.short, notes, warnings)
        if args.format in ("table", "markdown"):
            text = (render_table if args.format == "table" else render_markdown)(report,
                                                                                 args.digits)
        else:
            text = RENDERERS[args.format](report)
        if args.plot:
            from .plot import plot_curves

            plotted = [family(key) for key in PLOTTED]
            curves = [compute_rows(item, plotted, ks, args.tau[:1], args.confidence, args.short)
                      for item in loaded]
            plot_curves(args.plot, labels, curves, args.confidence, band=args.band)
    except ReportError as error:
        print(f"kpass report: error: {error}", file=sys.stderr)
        return 1
    return _write(text)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``kpass`` console script.

    Args:
        argv: the arguments after the program name (default: ``sys.argv[1:]``).

    Returns:
        The exit status.

    Example:
        >>> main(["report", "--k", "1", "--metrics", "pass^k", "--format", "csv"])
        ... # doctest: +ELLIPSIS
        file,metric,label,k,tau,questions,estimate,se,se_lo,se_hi,mean,sd,lo,hi,confidence
        tau_bench_airline_gpt4o.jsonl,pass^k,Pass^1,1,,50,0.42,...
        0
    """
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # reported by the subcommand, so the message says `kpass report`
            getattr(args, "command_parser", parser).error(
                f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 2
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    if getattr(args, "digits", 0) is None:  # 3 decimals of a fraction, 1 of a percent
        args.digits = 1 if getattr(args, "percent", False) else 3
    return HANDLERS[args.command](args)


#: The function behind each subcommand.
HANDLERS: dict[str, Callable[[argparse.Namespace], int]] = {
    "report": run_report, "compare": _run_compare, "leaderboard": _run_leaderboard}


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
