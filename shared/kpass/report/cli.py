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
import functools
import math
import os
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from ..io.harness import HARNESSES, load_file
from ..io.progress import Progress
from ..io.readers import FORMATS, OUTCOME_COLUMNS, LoadedFile, ReportError
from .output import _check_answers_options, _write
from .table import (
    DEFAULT_K_MAX,
    PLOTTED,
    RENDERERS,
    Family,
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


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, like every other kpass error.

    Its help formatter reads the terminal's width once per parser: argparse builds a
    formatter at every ``add_argument`` to check the metavar, and asking the terminal
    each time took a third of building kpass's parser (1.3 ms -> 0.85 ms).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        width = shutil.get_terminal_size().columns - 2  # what HelpFormatter would compute
        kwargs.setdefault("formatter_class", functools.partial(argparse.HelpFormatter,
                                                               width=width))
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _positive_ints(text: str) -> list[int]:
    values = []
    for token in text.split(","):
        token = token.strip()
        if not token:
            continue
        try:
            value = int(token)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected integers >= 1 separated by commas; got "
                                             f"{token!r}") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"k must be >= 1; got k={value}")
        values.append(value)
    if not values:
        raise argparse.ArgumentTypeError(f"expected integers >= 1; got {text!r}")
    return values


def _taus(text: str) -> list[float]:
    values = []
    for token in text.split(","):
        if not token.strip():
            continue
        try:
            value = float(token)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected numbers in [0, 1]; got {token!r}") from None
        if not 0.0 <= value <= 1.0:
            raise argparse.ArgumentTypeError(f"tau must be in [0, 1]; got tau={token.strip()}")
        values.append(value)
    if not values:
        raise argparse.ArgumentTypeError(f"expected numbers in [0, 1]; got {text!r}")
    return values


def _confidence(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1); got {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"confidence must be in (0, 1), e.g. 0.95; got {text}")
    return value


def _metrics(text: str) -> str:
    try:
        parse_metrics(text, answers=True)  # names only; vote@k is checked against --answers later
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


PLOT_FORMATS = ("png", "pdf", "svg")
"""What ``--plot`` writes, chosen by the file's extension."""


def _plot_path(text: str) -> str:
    """A file name ending in .png, .pdf or .svg that is not a directory (written at the end)."""
    path = Path(text)
    suffix = path.suffix.lower().lstrip(".")
    expected = ", ".join(f".{name}" for name in PLOT_FORMATS)
    if path.is_dir() or text.endswith(("/", os.sep)):
        raise argparse.ArgumentTypeError(f"{text!r} is a directory; give a file name ending in "
                                         f"{expected}, e.g. {path / 'curves.png'}")
    if suffix not in PLOT_FORMATS:
        got = f"extension .{suffix}" if suffix else "no extension"
        raise argparse.ArgumentTypeError(f"the plot file must end in {expected} (the extension "
                                         f"picks the format); got {text!r} ({got})")
    return text


def _count(low: int, high: int | None = None) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer; got {text!r}") from None
        if value < low or (high is not None and value > high):
            span = f"[{low}, {high}]" if high is not None else f">= {low}"
            raise argparse.ArgumentTypeError(f"expected an integer {span}; got {value}")
        return value
    return parse


def _harness_options(command: argparse.ArgumentParser) -> None:
    """``--from`` and ``--filter``, shared by report and compare."""
    command.add_argument("--from", dest="from_", choices=HARNESSES, metavar="TOOL",
                         help="read a harness's per-sample output: "
                              f"{'|'.join(HARNESSES)} (detected when recognisable)")
    command.add_argument("--filter", metavar="NAME",
                         help="with lm-eval files scored under several filters, the filter "
                              "whose scores count")


def build_parser() -> argparse.ArgumentParser:
    """The ``kpass`` argument parser with its ``report`` subcommand.

    Returns:
        The parser; ``parse_args`` sets ``handler`` to the subcommand's function.
    """
    import kpass

    parser = _Parser(prog="kpass", description="Pass-family metrics with Bayesian credible "
                                               "intervals.")
    parser.add_argument("--version", action="version", version=f"kpass {kpass.__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    report = commands.add_parser(
        "report", help="print every metric of the family for outcome files",
        description="Read per-question outcome lists and print, for each metric and k, the "
                    "estimate, posterior mean, sd and credible interval. With no FILE, runs on "
                    "the bundled tau-bench sample.",
        epilog=f"File types: {', '.join(sorted(FORMATS))} (.gz for text formats) and saved "
               "datasets directories. Metrics: "
               + ", ".join(f"{f.key}{'' if f.default else ' (not default)'}"
                           for f in _families()) + ".",
    )
    report.add_argument("files", nargs="*", metavar="FILE",
                        help="outcome files, shown side by side (default: the bundled sample)")
    report.add_argument("--column", metavar="NAME",
                        help="the outcome column (default: the first of "
                             f"{', '.join(OUTCOME_COLUMNS)}); a path reaches nested fields: "
                             "metrics.correct, details[].correct")
    _harness_options(report)
    report.add_argument("--k", action="append", type=_positive_ints, metavar="K[,K...]",
                        help="the k to report (repeatable; default: 1..n for n <= 8, else "
                             "1, 2, 4, ... below the smallest n, and n, up to "
                             f"{DEFAULT_K_MAX})")
    report.add_argument("--metrics", type=_metrics, metavar="LIST",
                        help="comma-separated metrics, or all (default: pass@k, pass^k, "
                             "g-pass@k, mg-pass@k, maj@k, auc@k, avg@n)")
    report.add_argument("--tau", type=_taus, default=[0.5], metavar="TAU[,TAU...]",
                        help="G-Pass@k thresholds in [0, 1] (default: 0.5)")
    report.add_argument("--confidence", type=_confidence, default=0.95, metavar="C",
                        help="credibility of the intervals (default: 0.95)")
    report.add_argument("--short", choices=("error", "skip"), default="error",
                        help="questions with fewer than k samples: refuse (error, default) or "
                             "leave them out at that k (skip)")
    report.add_argument("--format", choices=tuple(RENDERERS), default="table",
                        help="output format (default: table)")
    report.add_argument("--digits", type=_count(0, 15), default=None, metavar="D",
                        help="decimals in table and markdown output (default: 3; 1 with "
                             "--percent)")
    report.add_argument("--percent", action="store_true", help=PERCENT_HELP)
    _answers_options(report)
    report.add_argument("--id", metavar="COLUMN",
                        help="the question-id column: rows are grouped by question wherever they "
                             "lie (long format, one row per sample; with --answers, one answer "
                             "and the question's reference per row); wide files get their ids")
    report.add_argument("--sample", metavar="COLUMN",
                        help="with --id, the sample-id column; a repeated (id, sample) pair is "
                             "an error")
    report.add_argument("--threshold", type=_finite, metavar="T",
                        help="soft scores in [0, 1]: a sample is correct iff its score > T; "
                             "the report adds the mean soft score, accuracy (n runs average); "
                             "not with --answers")
    report.add_argument("--plot", metavar="FILE.png", type=_plot_path,
                        help="also draw Pass@k, Pass^k, G-Pass@k_tau and Maj@k against k; the "
                             "extension picks the format: .png, .pdf or .svg")
    report.add_argument("--band", choices=("se", "posterior"), default="se",
                        help="with --plot, the band around each line: the interval over "
                             "questions (se, default) or the posterior credible interval with "
                             "the questions held fixed (posterior)")
    report.add_argument("--skip-bad", action="store_true",
                        help="leave unreadable rows out (each is listed on stderr) instead of "
                             "stopping at the first")
    report.add_argument("--chunk-size", type=_count(1), default=65536, metavar="ROWS",
                        help="rows read and counted at a time (default: 65536)")
    report.set_defaults(handler=run_report, command_parser=report)
    _add_compare(commands)
    _add_leaderboard(commands)
    return parser


def _finite(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number; got {text!r}")
    return value


def _add_compare(commands: Any) -> None:
    """The ``compare`` subcommand: two runs on the same questions, paired."""
    compare = commands.add_parser(
        "compare", help="is model A better than model B? paired comparison of two outcome files",
        description="Read two outcome files (model A and model B on the same questions) and "
                    "print, for each metric and k, both estimates, the paired difference, its "
                    "standard error over questions, interval, p-value, P(A better | these "
                    "questions) and the minimum detectable effect.",
        epilog="Questions are matched by --id, or by row order (equal counts required).")
    compare.add_argument("files", nargs="*", metavar="FILE", help="model A's file, model B's file")
    compare.add_argument("--column", metavar="NAME", help="the outcome column (default: the "
                         f"first of {', '.join(OUTCOME_COLUMNS)})")
    _harness_options(compare)
    compare.add_argument("--id", metavar="COLUMN",
                         help="match questions by this id column (default: by row order)")
    _pairing_options(compare, "with --id, compare on the questions both files have, saying "
                              "how many each side left out (default: refuse files that score "
                              "different questions)")
    compare.add_argument("--clusters", metavar="COLUMN",
                         help="cluster label column of A's file (questions about one passage, "
                              "say): clustered standard errors")
    _selection_options(compare, k_help="the k to compare (default: as kpass report)",
                       metrics_help="comma-separated metrics, or all (default: as kpass "
                                    "report)",
                       confidence_help="level of the intervals (default: 0.95); the MDE uses "
                                       "alpha = 1 - C and 80%% power",
                       short_help="questions with fewer than k samples in either file: refuse "
                                  "(error, default) or leave them out of both at that k (skip)")
    compare.add_argument("--percent", action="store_true", help=PERCENT_HELP)
    _answers_options(compare)
    compare.add_argument("--plot", metavar="FILE.png", type=_plot_path,
                         help="also draw the difference A - B against k with its interval band")
    compare.add_argument("--skip-bad", action="store_true",
                         help="refused: a row left out of one file would pair the questions "
                              "wrongly; fix the rows kpass report --skip-bad lists")
    compare.add_argument("--chunk-size", type=_count(1), default=65536, metavar="ROWS",
                         help="rows read and counted at a time (default: 65536)")
    compare.set_defaults(handler=_run_compare, command_parser=compare)


PERCENT_HELP = ("table and markdown in percent: estimates, SEs, intervals and differences x 100, "
                "as lm-evaluation-harness and OpenCompass print them (CSV and JSON keep "
                "fractions)")


def _answers_options(command: argparse.ArgumentParser) -> None:
    """``--answers``, ``--reference``, ``--ties`` and ``--normalize``: report and compare."""
    command.add_argument("--answers", action="store_true",
                         help="read sampled final answers and a reference per question: adds "
                              "Vote@k (plurality vote over k answers, exact over k-subsets) and "
                              "scores answers equal to the reference as correct for the rest")
    command.add_argument("--reference", metavar="NAME",
                         help="with --answers, the reference column (default: the first of "
                              "ground_truth, reference, gold, target, answer)")
    command.add_argument("--ties", choices=("fractional", "wrong"), default="fractional",
                         help="with --answers, a tie including the reference scores 1/(t+1) "
                              "(fractional, default) or 0 (wrong)")
    command.add_argument("--normalize", metavar="MODULE:FUNCTION",
                         help="with --answers, a Python function str -> str applied to answers "
                              "and references before comparing (e.g. a math answer extractor); "
                              "an answer it maps to None, NaN or blank text is wrong, a "
                              "reference it maps to one is an error")


def _pairing_options(command: argparse.ArgumentParser, shared_help: str) -> None:
    """``--sample`` and ``--shared``, shared by compare and leaderboard."""
    command.add_argument("--sample", metavar="COLUMN",
                         help="with --id, the sample-id column; a repeated (id, sample) pair is "
                              "an error")
    command.add_argument("--shared", action="store_true", help=shared_help)


def _selection_options(command: argparse.ArgumentParser, *, k_help: str, metrics_help: str,
                       confidence_help: str, short_help: str) -> None:
    """Add the options that select and format the numbers, shared by compare and leaderboard.

    ``--k``, ``--metrics``, ``--tau``, ``--confidence``, ``--short``, ``--format`` and
    ``--digits``, with each command's own help texts where they differ.
    """
    command.add_argument("--k", action="append", type=_positive_ints, metavar="K[,K...]",
                         help=k_help)
    command.add_argument("--metrics", type=_metrics, metavar="LIST", help=metrics_help)
    command.add_argument("--tau", type=_taus, default=[0.5], metavar="TAU[,TAU...]",
                         help="G-Pass@k thresholds in [0, 1] (default: 0.5)")
    command.add_argument("--confidence", type=_confidence, default=0.95, metavar="C",
                         help=confidence_help)
    command.add_argument("--short", choices=("error", "skip"), default="error",
                         help=short_help)
    command.add_argument("--format", choices=("table", "markdown", "csv", "json"),
                         default="table", help="output format (default: table)")
    command.add_argument("--digits", type=_count(0, 15), default=None, metavar="D",
                         help="decimals in table and markdown output (default: 3; 1 with "
                              "--percent)")


def _add_leaderboard(commands: Any) -> None:
    """The ``leaderboard`` subcommand: many runs on the same questions, ranked jointly."""
    board = commands.add_parser(
        "leaderboard", help="rank several models on the same questions, with joint rank sets",
        description="Read one outcome file per model and print, for each metric and k, the "
                    "models ranked by their estimate, with SEs over questions, intervals, "
                    "rank sets that hold for all models together, and P(best).",
        epilog="Name a model with NAME=PATH; a bare path is named by its file name.")
    board.add_argument("files", nargs="*", metavar="[NAME=]FILE", help="one file per model")
    board.add_argument("--column", metavar="NAME", help="the outcome column (default: the "
                       f"first of {', '.join(OUTCOME_COLUMNS)})")
    _harness_options(board)
    board.add_argument("--id", metavar="COLUMN",
                       help="the question-id column: questions matched by id (long files "
                            "grouped by it); without it, by row order")
    _pairing_options(board, "with --id, rank on the questions every file has (default: "
                            "refuse files that score different questions)")
    board.add_argument("--clusters", metavar="COLUMN",
                       help="a column of the first file labelling question clusters (clustered "
                            "standard errors)")
    _selection_options(board, k_help="the k to rank at (default: 1)",
                       metrics_help="comma-separated metrics (default: pass@k)",
                       confidence_help="level of the intervals and of the joint rank sets "
                                       "(default: 0.95)",
                       short_help="questions with fewer than k samples: refuse (error, "
                                  "default) or leave them out at that k (skip)")
    board.add_argument("--plot", metavar="FILE.png", type=_plot_path,
                       help="also draw a forest plot: estimates, intervals and rank sets")
    board.add_argument("--chunk-size", type=_count(1), default=65536, metavar="ROWS",
                       help="rows read and counted at a time (default: 65536)")
    board.set_defaults(handler=_run_leaderboard, command_parser=board)


def _run_leaderboard(args: argparse.Namespace) -> int:
    from .leaderboard import run_leaderboard

    return run_leaderboard(args)


def _run_compare(args: argparse.Namespace) -> int:
    from .compare import run_compare

    return run_compare(args)


def _families() -> tuple[Family, ...]:
    from .table import FAMILIES

    return FAMILIES


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
            sources, notes = list(args.files), []
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
    return args.handler(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
