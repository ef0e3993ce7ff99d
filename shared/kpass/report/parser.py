"""The ``kpass`` command line's parser: its subcommands, options and argument checks.

``build_parser`` describes ``kpass report``, ``kpass compare`` and ``kpass leaderboard``;
each argument is checked as it is parsed (a bad value is a one-line usage error naming
the option). The commands themselves run in :mod:`kpass.report.cli`.
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from ..io.formats.base import FORMATS
from ..io.harness.load import HARNESSES
from ..io.rows import OUTCOME_COLUMNS
from ..stats.beta_binomial import INTERVAL_CHOICES
from .render import RENDERERS
from .table import DEFAULT_K_MAX, FAMILIES, parse_metrics


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


MAX_DIGITS = 30
"""An integer option longer than this many digits is refused by its length (no k, budget or
count is that large, and Python cannot even print an int of more than 4300 digits)."""


def _int(token: str, expected: str) -> int:
    """``int(token)``, refusing a number of more than :data:`MAX_DIGITS` digits by its size."""
    digits = token.strip().lstrip("+-")
    if len(digits) > MAX_DIGITS and digits.isdigit():
        raise argparse.ArgumentTypeError(f"expected {expected}; got a {len(digits)}-digit "
                                         f"number ({digits[:12]}...)")
    return int(token)


def _positive_ints(text: str) -> list[int]:
    values = []
    for token in text.split(","):
        token = token.strip()
        if not token:
            continue
        try:
            value = _int(token, "integers >= 1")
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


def _margin(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1); got {text!r}") from None
    if not 0.0 < value < 1.0:  # NaN fails too
        raise argparse.ArgumentTypeError("the margin must be in (0, 1) on the metric's 0-1 "
                                         f"scale, e.g. 0.02 for two points; got {text}")
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
        span = f"[{low}, {high}]" if high is not None else f">= {low}"
        try:
            value = _int(text, f"an integer {span}")
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer; got {text!r}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"expected an integer {span}; got {value}")
        return value
    return parse


def _harness_options(command: argparse.ArgumentParser) -> None:
    """``--from``, ``--filter``, ``--pool`` and ``--partial``, shared by the commands that read."""
    command.add_argument("--pool", action="store_true",
                         help="read several models' rows as one run on purpose: a folder "
                              "of files named like separate runs, a long file whose "
                              "`model`/`run` column holds several values (refused by "
                              "default)")
    command.add_argument("--from", dest="from_", choices=HARNESSES, metavar="TOOL",
                         help="read every input as this harness's per-sample output: "
                              f"{'|'.join(HARNESSES)} (default: detected per file, so "
                              "files of different harnesses go together)")
    command.add_argument("--filter", metavar="NAME",
                         help="with lm-eval files scored under several filters, the filter "
                              "whose scores count (other harnesses' files are read without "
                              "it)")
    command.add_argument("--partial", action="store_true",
                         help="read an Inspect log that has not finished (status started: a "
                              "run in progress; or cancelled, error) as far as it goes: the "
                              "samples scored so far (refused by default)")


BY_HELP = ("one model per value of this column of a long table (with --id), read in one "
           "scan; `file`: one model per file of a folder or pattern, labelled by its stem")


def _by_option(command: argparse.ArgumentParser, extra: str = "") -> None:
    """``--by COLUMN``: one input split into its models (report, compare, leaderboard, next)."""
    command.add_argument("--by", metavar="COLUMN", help=BY_HELP + extra)


def _threshold_option(command: argparse.ArgumentParser, extra: str = "") -> None:
    """``--threshold``, shared by report, compare and leaderboard."""
    command.add_argument("--threshold", type=_finite, metavar="T",
                         help="soft scores in [0, 1]: a sample is correct iff its score > T"
                              f"{extra}; not with --answers")


def _file_name(text: str) -> str:
    """An input file, folder or pattern: not empty (an unset ``$A`` would name the folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"an empty file name ({text!r}); give a file, a "
                                         "folder of parts or a pattern")
    return text


def _model_file(text: str) -> str:
    """``[NAME=]FILE`` of the leaderboard: the file part is not empty."""
    _file_name(text)
    name, separator, path = text.partition("=")
    if separator and not Path(text).exists() and not path.strip():
        raise argparse.ArgumentTypeError(f"an empty file name after {name}= ({text!r}); write "
                                         "NAME=FILE")
    return text


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
                           for f in FAMILIES) + ".",
    )
    report.add_argument("files", nargs="*", metavar="FILE", type=_model_file,
                        help="outcome files, shown side by side (default: the bundled "
                             "sample); NAME=FILE names a column")
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
    _prior_option(report)
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
    report.add_argument("--clusters", metavar="COLUMN",
                        help="cluster label column of each file (questions about one passage, "
                             "say): CR2 standard errors over clusters with Bell-McCaffrey "
                             "degrees of freedom")
    _by_option(report, "; one section per model")
    _group_options(report)
    _threshold_option(report, "; the report adds the mean soft score, accuracy (n runs "
                              "average)")
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
    report.add_argument("--interval-method", choices=INTERVAL_CHOICES, default="auto",
                        metavar="METHOD",
                        help="the interval over questions of Pass@k and Pass^k: auto (for "
                             "Pass^k with k >= 2 near 0 or 1, within 20%% and 25 questions' "
                             "worth of the bound, from 20 questions, at most 70%% never "
                             "solved and not zero-inflated: a beta-binomial "
                             "profile-likelihood interval; default), se-based (from the "
                             "estimate and se: t, score or exact) or beta-binomial (wherever "
                             "se > 0, without --clusters)")
    report.add_argument("--posterior", action="store_true",
                        help="show the posterior columns (mean, sd, credible interval) also "
                             "with one sample per question, where they are hidden: they "
                             "describe these questions with unlimited samples, not the score")
    report.add_argument("--subset", metavar="FILE",
                        help="FILE (from kpass subset) lists the questions FILE's model was run "
                             "on: estimate its score on all the benchmark's questions "
                             "(docs/how-to/subset.md); needs --reference-runs")
    report.add_argument("--reference-runs", nargs="+", metavar="RUN",
                        help="with --subset, the past models' runs ([NAME=]RUN) on every "
                             "question that the subset was drawn from")
    _explain_option(report)
    from .cost import add_cost_options

    add_cost_options(report)
    report.set_defaults(command_parser=report)
    _add_compare(commands)
    _add_leaderboard(commands)
    from .next import add_next_parser

    add_next_parser(commands, _count, _harness_options, _metrics, _taus)
    from .plan import add_plan_parser

    add_plan_parser(commands, _count, _harness_options, _finite, _taus)
    from .subset import add_subset_parser

    add_subset_parser(commands, _count, _harness_options)
    return parser


EXPLAIN_HELP = ("also print the legend and the method notes under the table (what each column "
                "means, how the intervals and tests are made, every caveat in full)")


def _explain_option(command: argparse.ArgumentParser) -> None:
    """Add ``--explain``: the legend and method notes, which the default output leaves out."""
    command.add_argument("--explain", action="store_true", help=EXPLAIN_HELP)


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
    compare.add_argument("files", nargs="*", metavar="FILE", type=_model_file,
                         help="model A's file, model B's file (NAME=FILE names one)")
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
    _group_options(compare)
    _by_option(compare, "; --a and --b name the two models")
    compare.add_argument("--a", metavar="MODEL", help="with --by, model A: a value of the "
                                                      "--by column (or a file's stem)")
    compare.add_argument("--b", metavar="MODEL", help="with --by, model B")
    _selection_options(compare, k_help="the k to compare (default: as kpass report)",
                       metrics_help="comma-separated metrics, or all (default: as kpass "
                                    "report)",
                       confidence_help="level of the intervals (default: 0.95); the MDE uses "
                                       "alpha = 1 - C and 80%% power",
                       short_help="questions with fewer than k samples in either file: refuse "
                                  "(error, default) or leave them out of both at that k (skip)")
    compare.add_argument("--primary", metavar="ROW",
                         help="the primary comparison, tested alone at alpha and stated first: a "
                              "row as the table names it (Pass@1, Pass^2, G-Pass@4_0.5) or "
                              "METRIC:K (pass@k:1); default: the table's first row (Pass@1); "
                              "none: no primary, every row adjusted jointly (the whole table "
                              "then holds alpha)")
    compare.add_argument("--adjust", choices=("max-t", "holm"), default=None,
                         help="joint adjustment of the other (secondary) rows: max-t, the "
                              "studentised max-T stepdown over the same sign flips of the "
                              "per-question differences (default), or holm")
    compare.add_argument("--percent", action="store_true", help=PERCENT_HELP)
    from .cost import add_cost_options

    add_cost_options(compare)
    _answers_options(compare)
    _threshold_option(compare)
    compare.add_argument("--plot", metavar="FILE.png", type=_plot_path,
                         help="also draw the difference A - B against k with its interval band "
                              "(unadjusted; the verdicts use p adj)")
    compare.add_argument("--skip-bad", action="store_true",
                         help="refused: a row left out of one file would pair the questions "
                              "wrongly; fix the rows kpass report --skip-bad lists")
    compare.add_argument("--chunk-size", type=_count(1), default=65536, metavar="ROWS",
                         help="rows read and counted at a time (default: 65536)")
    compare.add_argument("--margin", type=_margin, metavar="M",
                         help="non-inferiority: show that B (the second file, the new model) is "
                              "not worse than A (the reference) by more than M on each row "
                              "(one-sided test of mean(B - A) <= -M at alpha = 1 - C; with "
                              "--sequential, at the first question the sequence shows it)")
    compare.add_argument("--equivalence", action="store_true",
                         help="with --margin: show |A - B| < M instead (two one-sided tests)")
    from .sequential import SEQUENTIAL_HELP, SEQUENTIAL_NULL_HELP

    compare.add_argument("--sequential", action="store_true", help=SEQUENTIAL_HELP)
    compare.add_argument("--sequential-null", choices=("exchangeable", "bounded"),
                         default=None, metavar="NULL", help=SEQUENTIAL_NULL_HELP)
    compare.add_argument("--subset", nargs="+", metavar="FILE",
                         help="FILE (from kpass subset): both models ran on its questions "
                              "(paired); FILE_A FILE_B: one each, `all` for a full run. "
                              "Compares the scores on all the benchmark's questions "
                              "(docs/how-to/subset.md); needs --reference-runs")
    compare.add_argument("--reference-runs", nargs="+", metavar="RUN",
                         help="with --subset, the past models' runs ([NAME=]RUN) on every "
                              "question that the subset was drawn from")
    _explain_option(compare)
    compare.set_defaults(command_parser=compare)


PERCENT_HELP = ("table and markdown in percent: estimates, SEs, intervals and differences x 100, "
                "as lm-evaluation-harness and OpenCompass print them (CSV and JSON keep "
                "fractions)")


def _answers_options(command: argparse.ArgumentParser) -> None:
    """``--answers``, ``--reference``, ``--ties`` and ``--normalize``: every command."""
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
    """``--sample``, ``--shared`` and ``--any-task``, shared by compare and leaderboard."""
    command.add_argument("--sample", metavar="COLUMN",
                         help="with --id, the sample-id column; a repeated (id, sample) pair is "
                              "an error")
    command.add_argument("--shared", action="store_true", help=shared_help)
    command.add_argument("--any-task", action="store_true",
                         help="pair Inspect logs of different tasks by sample id anyway "
                              "(refused by default: their ids, often 1..N, match without "
                              "being the same questions)")


def _prior_option(command: argparse.ArgumentParser) -> None:
    """``--prior``, shared by report, compare and leaderboard."""
    command.add_argument("--prior", choices=("uniform", "empirical"), default="uniform",
                         help="each question's Beta prior behind the posterior columns "
                              "(mean/sd/cred_lo/cred_hi, P(A>B), P(best)): uniform (Beta(1,1), the "
                              "published definition; default) or empirical (a Beta fitted to "
                              "each run's questions)")


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
    _prior_option(command)
    command.add_argument("--format", choices=("table", "markdown", "csv", "json"),
                         default="table", metavar="FORMAT",
                         help="output format: table (default), markdown, csv or json")
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
    board.add_argument("files", nargs="*", metavar="[NAME=]FILE", type=_model_file,
                       help="one file per model")
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
    board.add_argument("--group", metavar="COLUMN",
                       help="a group (subtask) label column, or task on harness logs: under "
                            "the boards, one line per group and board with each model's "
                            "estimate and rank set, the sets joint over every group and board; "
                            "the boards above are the aggregate, its SE stratified by group")
    _weights_option(board)
    _by_option(board, "; every model of the input ranked")
    _selection_options(board, k_help="the k to rank at (default: 1)",
                       metrics_help="comma-separated metrics (default: pass@k)",
                       confidence_help="level of the intervals and of the joint rank sets "
                                       "(default: 0.95)",
                       short_help="questions with fewer than k samples: refuse (error, "
                                  "default) or leave them out at that k (skip)")
    _answers_options(board)
    _threshold_option(board)
    board.add_argument("--subset", nargs="+", metavar="NAME=FILE",
                       help="the model NAME ran only on the questions of FILE (from kpass "
                            "subset): its row estimates its score on all the questions, and the "
                            "joint rank sets are of every model's score on all of them "
                            "(docs/how-to/subset.md); needs --reference-runs")
    board.add_argument("--reference-runs", nargs="+", metavar="RUN",
                       help="with --subset, the past models' runs ([NAME=]RUN) on every "
                            "question that the subsets were drawn from")
    board.add_argument("--plot", metavar="FILE.png", type=_plot_path,
                       help="also draw a forest plot: estimates, intervals and rank sets")
    board.add_argument("--chunk-size", type=_count(1), default=65536, metavar="ROWS",
                       help="rows read and counted at a time (default: 65536)")
    _explain_option(board)
    from .cost import add_cost_options

    add_cost_options(board)
    board.set_defaults(command_parser=board)


def _group_options(parser: argparse.ArgumentParser) -> None:
    """``--group COLUMN`` and ``--weights``: a breakdown by group (subtask) and its aggregate."""
    parser.add_argument("--group", metavar="COLUMN",
                        help="a group (subtask) label column, one group per question: one row "
                             "per group and the aggregate, its SE stratified by group")
    _weights_option(parser)


def _weights_option(parser: argparse.ArgumentParser) -> None:
    """``--weights questions|groups``: the weighting of an aggregate over groups."""
    parser.add_argument("--weights", choices=("questions", "groups"), default="questions",
                        help="with --group, the aggregate's weighting: each question counts "
                             "once (questions, micro: the metric over all questions, the "
                             "default) or each group once (groups, macro)")
