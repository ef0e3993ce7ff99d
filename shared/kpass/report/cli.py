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
import contextlib
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .._core.counting.counts import BinaryCounts
from ..io.errors import ReportError
from ..io.formats.readers import LoadedFile
from ..io.harness.inspect_files import expand_inspect_logs
from .cost import cost_lines, cost_summaries, cost_unit, question_costs, wants_cost
from .inputs import load_models, load_outcomes
from .output import _check_answers_options, _write, capped_k_note, cli_words, collect_notes
from .parser import (
    build_parser,
)
from .render import RENDERERS, render_markdown, render_sections, render_table
from .rows import Report
from .table import (
    DEFAULT_K_MAX,
    PLOTTED,
    PRIOR_NOTE,
    check_ks,
    clusters_summary,
    compute_rows,
    default_ks,
    family,
    input_labels,
    named_sources,
    parse_metrics,
    soft_rows,
)

SAMPLE_NOTE = (
    "Sample data: tau-bench airline, GPT-4o, 50 tasks x 4 trials (Yao et al. 2024, "
    "arXiv:2406.12045); MIT licence, (c) 2024 Sierra. Published: Pass^1..Pass^4 = 0.420, "
    "0.273, 0.220, 0.200."
)
SAMPLE_METRICS = "pass@k,pass^k"
"""What ``kpass report`` shows of the tau-bench sample without ``--metrics``: its published
metric (Pass^k) beside Pass@k; a file of the user's gets every default family."""
SAMPLE_METRICS_NOTE = ("Pass@k and Pass^k, as tau-bench publishes them (a file of yours gets "
                       "every default metric).")
AIME_SAMPLE = "aime25_q06_gpt_oss_20b.json"
AIME_NOTE = (
    "Sample data: AIME 2025 q06, 80 answers of gpt-oss-20b (from the scorio repository; MIT, "
    "(c) 2025 Hariri, Samandar, Hinczewski, Chaudhary). The most frequent answer (271, 34 "
    "votes) is wrong, the reference (821) has 32: Vote@80 is 0 while Pass@80 is 1."
)
MAX_WARNINGS = 20


def _run_leaderboard(args: argparse.Namespace) -> int:
    if getattr(args, "subset", None) or getattr(args, "reference_runs", None):
        from .subset import run_subset_leaderboard  # some models on subsets: report/subset.py

        return run_subset_leaderboard(args)
    from .leaderboard import run_leaderboard

    return run_leaderboard(args)


def _run_next(args: argparse.Namespace) -> int:
    from .next import run_next

    return run_next(args)


def _run_plan(args: argparse.Namespace) -> int:
    from .plan import run_plan

    return run_plan(args)


def _run_subset(args: argparse.Namespace) -> int:
    from .subset import run_subset

    return run_subset(args)


def _run_subset_report(args: argparse.Namespace) -> int:
    from .subset import run_subset_report

    if not args.subset:
        print("kpass report: error: --reference-runs needs --subset FILE", file=sys.stderr)
        return 2
    try:
        from ..registry import PRIMARY

        families = parse_metrics(args.metrics or str(PRIMARY.report))
    except ValueError as error:
        print(f"kpass report: error: {cli_words(str(error))}", file=sys.stderr)
        return 2
    ks = sorted({k for group in args.k for k in group}) if args.k else [1]
    return run_subset_report(args, families, ks)


def _run_compare(args: argparse.Namespace) -> int:
    from .compare import run_compare

    if getattr(args, "subset", None) or getattr(args, "reference_runs", None):
        from .subset import run_subset_compare

        return run_subset_compare(args)

    return run_compare(args)


def _load(sources: list[str], args: argparse.Namespace, warnings: list[str]
          ) -> tuple[list[LoadedFile], list[list[Any] | None]]:
    loaded, answers = load_outcomes(sources, args, "report")
    for source, item in zip(sources, loaded, strict=True):
        if args.answers and not item.counts.n_correct.any():
            warning = (f"{source}: no answer matches its reference in any of the "
                       f"{item.counts.n_questions} questions; are the answers and "
                       "references spelt alike (extract the final answer with --normalize "
                       "MODULE:FUNCTION)?")
            print(f"kpass report: warning: {warning}", file=sys.stderr)
            warnings.append(warning)
        for where, problem in item.bad_rows[:MAX_WARNINGS]:
            print(f"kpass report: warning: {source}: {where}: {problem} (row left out)",
                  file=sys.stderr)
        if len(item.bad_rows) > MAX_WARNINGS:
            print(f"kpass report: warning: {source}: {len(item.bad_rows) - MAX_WARNINGS} more "
                  "unreadable rows left out", file=sys.stderr)
    return loaded, answers


def _report_clusters(loaded: list[Any], args: argparse.Namespace) -> list[Any]:
    """Cluster codes of each input from ``--clusters COLUMN`` (None each without it).

    The labels are those the one loader read (:func:`kpass.io.inputs.load_input`), as for
    ``kpass compare --clusters``: beside the rows of a wide file, per question id of a long
    file (``--id``), or from a Hive partition key (``topic=...`` folders).
    """
    if args.clusters is None:
        return [None] * len(loaded)
    from ..stats._common import _labels

    codes = []
    for item in loaded:
        code = _labels(item.clusters, item.counts.n_questions)
        if code is None or int(code.max()) < 1:
            raise ReportError(item.source, f"--clusters {args.clusters}: the column names one "
                                           "cluster; a clustered standard error needs at "
                                           "least 2")
        codes.append(code)
    return codes


def _harness_grouping(sources: list[str], args: argparse.Namespace) -> list[str] | None:
    """With ``--group``: each source's harness when every source is a harness file, else None.

    Harness files are grouped by their task (``--group task``): an Inspect log's
    ``eval.task``, an lm-eval or lighteval file's task
    (:func:`kpass.io.harness.harness_tasks.harness_task`).
    """
    if getattr(args, "group", None) is None or args.id is not None:
        return None
    from ..io.harness.inspect_files import is_inspect_log
    from ..io.harness.load import detect_harness

    tools = [args.from_ or ("inspect" if is_inspect_log(source) else detect_harness(source))
             for source in sources]
    if any(tool is None for tool in tools):
        return None
    if args.group != "task":
        raise ReportError(sources[0], f"--group {args.group}: harness files are grouped by "
                                      "their task (--group task); a column of your own "
                                      "needs a table (--id)")
    return [str(tool) for tool in tools]


def _merge_tasks(sources: list[str], loaded: list[LoadedFile], tools: list[str]
                 ) -> tuple[list[LoadedFile], list[str | None]]:
    """Harness files, one task each, merged into one input per model with a group per task.

    Files of one model (an Inspect log's ``eval.model``; lm-eval's ``model_name`` from the
    run's results) become one input whose questions are every file's, each labelled by its
    file's task; the input is named by the model, or by the lm-eval group the tasks belong
    to. Two files of one model and task are an error naming both.
    """
    from ..io.harness.harness_tasks import harness_task

    found = [harness_task(source, tool) for source, tool in zip(sources, tools, strict=True)]
    buckets: dict[str | None, list[int]] = {}
    for index, about in enumerate(found):
        buckets.setdefault(about.model, []).append(index)
    merged, names = [], []
    for model, members in sorted(buckets.items(), key=lambda item: str(item[0])):
        seen: dict[str, str] = {}
        for index in members:
            task = found[index].task
            if task in seen:
                raise ReportError(sources[index], f"--group task: task {task!r} of model "
                                                  f"{model or '(unnamed)'} is also in "
                                                  f"{seen[task]}; give one file per task "
                                                  "and model")
            seen[task] = sources[index]
        parents = {found[index].parent for index in members}
        name = (model if model is not None and len(buckets) > 1 or not parents - {None}
                else next(iter(parents)) if len(parents) == 1 else model)
        counts = BinaryCounts.concat([BinaryCounts(loaded[index].counts.n_samples,
                                                   loaded[index].counts.n_correct)
                                      for index in members])
        first = loaded[members[0]]
        item = LoadedFile(str(name or first.source), first.path, first.column, counts,
                          first.shortest, [row for index in members
                                           for row in loaded[index].bad_rows],
                          notes=[note for index in members for note in loaded[index].notes],
                          groups=[found[index].task for index in members
                                  for _ in range(loaded[index].counts.n_questions)])
        merged.append(item)
        names.append(name)
    return merged, names


def run_report(args: argparse.Namespace) -> int:
    """Run ``kpass report`` with parsed arguments.

    Args:
        args: the parsed command line.

    Returns:
        The exit status: 0 on success, 1 when an input cannot be used.
    """
    if args.subset or args.reference_runs:  # a score from a subset: report/subset.py
        return _run_subset_report(args)
    try:
        from ..data import sample_path

        given: list[str | None] = []
        if args.files:
            named, paths = named_sources(list(args.files))
            sources, notes = [], []
            for name, path in zip(named, paths, strict=True):  # NAME=PATH: one input, named
                expanded = ([path] if name is not None or getattr(args, "by", None) is not None
                            else expand_inspect_logs([path]))
                sources.extend(expanded)
                given.extend([name] * len(expanded))
        elif args.answers:
            sources, notes = [str(sample_path(AIME_SAMPLE))], [AIME_NOTE]
        else:
            sources, notes = [str(sample_path())], [SAMPLE_NOTE]
        metrics = args.metrics
        if not args.files and not args.answers and metrics is None:
            metrics = SAMPLE_METRICS  # the published ones; the others by --metrics
            notes.append(SAMPLE_METRICS_NOTE)
        try:
            families = parse_metrics(metrics, answers=args.answers)
            _check_answers_options(args)
        except ValueError as error:
            print(f"kpass report: error: {cli_words(str(error))}", file=sys.stderr)
            return 2
        warnings: list[str] = []
        tools = None if args.by is not None else _harness_grouping(sources, args)
        if args.by is not None:  # one input, one model per value (or per file)
            if not args.files:
                raise ReportError("--by", "--by splits an input into its models; give the "
                                          "file, folder or pattern")
            by_labels, loaded = load_models(sources, args, "report")
            answers: list[list[Any] | None] = [None] * len(loaded)
        elif tools is not None:  # --group task on harness files: the files are the groups
            loaded, answers = _load(sources, argparse.Namespace(**{**vars(args),
                                                                    "group": None}), warnings)
            loaded, given = _merge_tasks(sources, loaded, tools)
            sources = [item.source for item in loaded]
        else:
            loaded, answers = _load(sources, args, warnings)
        n_min = min(item.n_min for item in loaded)
        ks = sorted({k for group in args.k for k in group}) if args.k else default_ks(n_min)
        if not args.k:
            notes.extend(capped_k_note(loaded, ks, n_min))
        if not args.k and n_min > DEFAULT_K_MAX:
            notes.append(f"k stops at {DEFAULT_K_MAX} by default (questions have n={n_min} "
                         "samples or more); ask for larger k with --k, e.g. --k "
                         f"{n_min}: the Maj@k, mG-Pass@k, G-Pass@k and AUC@k intervals take "
                         "O(k^2) time, seconds for k in the thousands.")
        for item in loaded:
            check_ks(item, ks, args.short)
        labels = by_labels if args.by is not None else input_labels(sources, given or None)
        prior = getattr(args, "prior", "uniform")
        if prior == "empirical":
            notes.append(PRIOR_NOTE)
        codes = _report_clusters(loaded, args)
        breakdowns = None
        with collect_notes(notes) if prior == "empirical" else contextlib.nullcontext():
            # a degenerate empirical fit warns once, as a note
            if getattr(args, "group", None) is not None:
                from .groups import grouped_rows

                if args.clusters is not None:
                    raise ReportError(loaded[0].source, "--group and --clusters do not go "
                                                        "together: the groups are strata of "
                                                        "the aggregate's SE")
                rows, breakdowns = grouped_rows(loaded, families, ks, args.tau,
                                                args.confidence, args.short, args.weights,
                                                str(args.group), args.ties, prior,
                                                args.interval_method)
            else:
                rows = [compute_rows(item, families, ks, args.tau, args.confidence, args.short,
                                     coded, args.ties, code, prior, args.interval_method)
                        + soft_rows(item, args.confidence)
                        for item, coded, code in zip(loaded, answers, codes, strict=True)]
        if args.percent and args.format in ("table", "markdown"):
            rows = [[row.in_percent() for row in per_input] for per_input in rows]
            for breakdown in breakdowns or []:
                breakdown.rows = [[row.in_percent() for row in group] for group in breakdown.rows]
            notes.append("values in percent (x 100): estimates, se, intervals, mean and sd.")
        from ..io.harness.metadata import run_info

        runs = [run_info(item.source, item) for item in loaded]
        costs = cost_lines_of = None
        if wants_cost(args):
            costs = [cost_summaries(item, question_costs(item, args), ks, args.confidence)
                     for item in loaded]
            cost_lines_of = cost_lines(labels, costs, cost_unit(args))
        report = Report(loaded, labels, rows, args.confidence, args.short, notes, warnings,
                        clusters=None if args.clusters is None else [
                            clusters_summary(item.counts, code)
                            for item, code in zip(loaded, codes, strict=True)],
                        explain=args.explain, posterior=True if args.posterior else None,
                        by=args.by, runs=runs if any(runs) else None, costs=costs,
                        cost_lines=cost_lines_of or [], breakdowns=breakdowns)
        if args.format in ("table", "markdown") and args.by is not None:
            text = render_sections(report, args.format, args.digits)
        elif args.format in ("table", "markdown"):
            text = (render_table if args.format == "table" else render_markdown)(report,
                                                                                 args.digits)
        else:
            text = RENDERERS[args.format](report)
        if args.plot:
            from .plot import plot_curves

            plotted = [family(key) for key in PLOTTED]
            curves = [compute_rows(item, plotted, ks, args.tau[:1], args.confidence, args.short,
                                   clusters=code, interval_method=args.interval_method)
                      for item, code in zip(loaded, codes, strict=True)]
            plot_curves(args.plot, labels, curves, args.confidence, band=args.band)
            print(f"kpass report: wrote {args.plot}", file=sys.stderr)
    except ReportError as error:
        print(f"kpass report: error: {cli_words(str(error))}", file=sys.stderr)
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
        file,metric,label,k,tau,questions,estimate,se,lo,hi,se_method,mean,sd,cred_lo,cred_hi,confidence
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
    if getattr(args, "weights", None) == "groups" and getattr(args, "group", None) is None:
        print(f"kpass {args.command}: error: --weights groups weighs the groups of --group "
              "COLUMN; give --group (or drop --weights)", file=sys.stderr)
        return 2
    if getattr(args, "digits", 0) is None:  # 3 decimals of a fraction, 1 of a percent
        args.digits = 1 if getattr(args, "percent", False) else 3
    try:
        return HANDLERS[args.command](args)
    except KeyboardInterrupt:  # Ctrl-C (in a --normalize function, a long read): no trace
        print(f"kpass {args.command}: interrupted", file=sys.stderr)
        return 130  # 128 + SIGINT, as shells report it


#: The function behind each subcommand.
HANDLERS: dict[str, Callable[[argparse.Namespace], int]] = {
    "report": run_report, "compare": _run_compare, "leaderboard": _run_leaderboard,
    "next": _run_next, "plan": _run_plan, "subset": _run_subset}


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
