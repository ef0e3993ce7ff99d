"""``kpass leaderboard FILE...``: many models on the same questions, ranked with joint rank sets.

Every file is one model's outcomes, read as ``kpass report`` reads them; questions are
matched by id (``--id COLUMN``) or, without ids, by row order. For every metric and k the
:func:`kpass.leaderboard` table is printed: rank, estimate, SE over questions, interval,
the joint rank set and P(best) on these very questions. Model names are the file names, or
``NAME=PATH``.
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .._core.counting.checks import InputError
from .._core.counting.counts import BinaryCounts
from ..io.errors import ReportError
from ..io.harness.inspect_files import expand_inspect_logs
from ..io.harness.inspect_log import check_same_task, inspect_labels
from ..io.harness.metadata import RunInfo, run_info, runs_line
from ..io.inputs import file_stem
from ..registry import PRIMARY
from ..stats.ranking import best_line, strata_title, winner_line
from .cost import board_costs, question_costs, wants_cost
from .inputs import harness_tools, load_models, load_outcomes, load_task_models
from .output import (
    _check_answers_options,
    _write,
    brief_notes,
    cli_words,
    collect_notes,
    family_options,
)
from .rows import LEGEND_WIDTH, markdown_cell
from .table import PRIOR_NOTE, Family, input_labels, named_sources, parse_metrics


@dataclass
class Board:
    """One metric at one k (and tau): the leaderboard of the models.

    ``costs`` (with ``--cost`` / ``--cost-per-1k-tokens``): each model's cost summary and
    the cost front (:func:`kpass.report.cost.board_costs`).
    """

    metric: str
    label: str
    k: int | None
    tau: float | None
    result: Any  # kpass.Leaderboard
    costs: dict[str, Any] | None = None


def split_names(items: list[str]) -> tuple[list[str], list[str]]:
    """Model names and paths from ``NAME=PATH`` or ``PATH`` arguments.

    A ``NAME=PATH`` argument names the model; a bare path is named by its file name (the
    path where file names clash). An argument that exists as a file is always a path, even
    when it contains ``=``.

    Raises:
        ReportError: an empty name, or two models with one name.
    """
    names, paths = named_sources(items)
    models = inspect_labels(paths)  # an Inspect log is named by its model (and task)
    stems = [model or file_stem(path) for model, path in zip(models, paths, strict=True)]
    defaults = (stems if len(set(stems)) == len(stems) else input_labels(paths))
    chosen = [name if name is not None else default for name, default in zip(names, defaults,
                                                                              strict=True)]
    for index, name in enumerate(chosen):
        if chosen.index(name) != index:
            raise ReportError(items[index], f"two models are named {name!r}; give each a name "
                                            "with NAME=PATH")
    return chosen, paths


def _load(args: argparse.Namespace, paths: list[str]
          ) -> tuple[list[BinaryCounts], Any, list[RunInfo | None], list[Any] | None,
                     list[Any]]:
    """Each model's counts (with ids under --id), the clusters of the first file, the runs.

    Read by the loader every command shares (:func:`kpass.report.inputs.load_outcomes`);
    the runs are what each file's harness recorded (:func:`run_info`), and the last item
    each model's per-question cost of one sample (with ``--cost...``; else None), then the
    loaded inputs (their ``--group`` labels).
    """
    if args.sample is not None and args.id is None:
        raise ReportError(paths[0], "--sample needs --id: the sample ids count within a "
                                    "question")
    if not getattr(args, "any_task", False):
        check_same_task(paths)
    loaded, _ = load_outcomes(paths, args, "leaderboard", clusters="first")
    costs = [question_costs(item, args) for item in loaded] if wants_cost(args) else None
    return ([item.counts for item in loaded], loaded[0].clusters,
            [run_info(item.source, item) for item in loaded], costs, loaded)


def _task_logs(args: argparse.Namespace) -> list[str] | None:
    """With ``--group task`` and no ``--id``: each file's harness when all are harness logs.

    Then the files are every model's task logs (an ``inspect eval-set`` folder, lm-eval
    samples files of several runs), read one input per model
    (:func:`kpass.report.inputs.load_task_models`); otherwise None.
    """
    if getattr(args, "group", None) != "task" or args.id is not None:
        return None
    names, paths = named_sources(list(args.files))
    tools = harness_tools(paths, args)
    if tools is not None and any(name is not None for name in names):
        raise ReportError(next(item for item, name in zip(args.files, names, strict=True)
                               if name is not None),
                          "--group task: NAME=PATH does not apply to harness logs; each "
                          "model is named by its logs (Inspect's eval.model, lm-eval's "
                          "model_name)")
    if tools is not None:
        args.files = paths
    return tools


def _function_of(families: list[Family], key: str) -> str:
    """The function name of the family whose key is ``key``."""
    return next(str(fam.function) for fam in families if fam.key == key)


def leaderboard_boards(runs: dict[str, BinaryCounts], families: list[Family], ks: list[int],
                       taus: list[float], confidence: float, short: str, clusters: Any,
                       shared: bool, prior: str = "uniform", group: Any = None,
                       weights: str = "questions") -> list[Board]:
    """Every selected metric at every k (and tau): ``kpass.leaderboard`` of the runs.

    With ``group`` (the first run's label per question) the boards are the aggregate over
    the groups as strata, weighted by ``weights``.

    Raises:
        ValueError: kpass refused the inputs (the message names the metric).
    """
    from ..families import function
    from ..stats.ranking import leaderboard as rank

    boards = []
    for fam in families:
        point = function(fam.function)
        options = family_options(fam.function, clusters, confidence, shared, prior)
        if group is not None:
            options.update(group=group, weights=weights)
        try:
            if not fam.per_k:
                result = rank(point, runs, **options)
                boards.append(Board(fam.key, fam.label(None, None, "n"), None, None, result))
                continue
            if short != "error":
                options["short"] = short
            for tau in taus if fam.uses_tau else [None]:
                head = () if tau is None else (tau,)
                results = rank(point, runs, ks, *head, **options)
                assert isinstance(results, list)  # a list of k gives a list
                boards.extend(Board(fam.key, fam.label(k, tau, "n"), k, tau, result)
                              for k, result in zip(ks, results, strict=True))
        except (TypeError, ValueError) as error:
            raise InputError(f"{fam.key}: {error}") from None
    return boards


def _rank_set(row: Any) -> str:
    return str(row.rank_lo) if row.rank_lo == row.rank_hi else f"{row.rank_lo}-{row.rank_hi}"


def _cells(row: Any, digits: int, tokens: dict[str, str] | None = None,
           costs: dict[str, Any] | None = None) -> list[str]:
    cost = []
    if costs is not None:
        summary = costs["cost"][row.name]
        cost = [f"{summary.cost:.4g}", "yes" if row.name in costs["front"].front else "no"]
    return [str(row.rank), row.name, f"{row.estimate:.{digits}f}", f"{row.se:.{digits}f}",
            f"[{row.lo:.{digits}f}, {row.hi:.{digits}f}]", _rank_set(row),
            f"{row.prob_best:.3f}"] + ([tokens.get(row.name, "-")] if tokens else []) + cost


def _header(confidence: float, tokens: bool = False, costs: bool = False) -> list[str]:
    level = f"{confidence * 100:g}%"
    return (["rank", "model", "estimate", "se", f"{level} interval", "rank set", "P(best)"]
            + (["tokens"] if tokens else []) + (["cost", "front"] if costs else []))


def _front_line(board: Board) -> list[str]:
    """``cost front: a, c; off it: b (a better and cheaper)``, wrapped; [] without costs."""
    if board.costs is None:
        return []
    front = board.costs["front"]
    ranked = [row.name for row in board.result.rows]
    off = [f"{name} ({', '.join(front.dominated_by[name])} better and cheaper)"
           for name in ranked if name in front.dominated_by]
    text = "cost front: " + ", ".join(name for name in ranked if name in front.front) + (
        "; off it: " + ", ".join(off) if off else "; no model off it")
    return textwrap.wrap(text, LEGEND_WIDTH, subsequent_indent="  ")


def _degrees(boards: list[Board]) -> str:
    """Each table's own degrees of freedom: one number when they agree, else per table."""
    found = {board.result.df for board in boards}
    if len(found) == 1:
        return f"t with {found.pop():.3g} degrees of freedom"
    return "t with degrees of freedom " + ", ".join(f"{board.result.df:.3g} ({board.label})"
                                                    for board in boards)


def _method(boards: list[Board], clustered: bool) -> str:
    """How the pairs were told apart, as the boards did it."""
    units = "clusters" if clustered else "questions"
    maxt = (f"a studentised max-|t| stepdown over all pairs whose reference flips the sign of "
            f"whole {units} (a randomisation test, Westfall and Young 1993)")
    holm = f"Holm's stepdown over all pairs (too few {units} for sign flips)"
    methods = {board.result.adjustment for board in boards}
    if methods == {"max-t"}:
        return maxt
    if methods == {"holm"}:
        return holm
    return maxt + "; " + holm + " where the table has too few " + units


def _legend(confidence: float, clustered: bool, boards: list[Board]) -> list[str]:
    level = f"{confidence * 100:g}%"
    paragraphs = [
        f"best: the models not shown worse than the best; together they hold the true best "
        f"with probability >= {level} (one-sided max-T stepdown, Mogstad, Romano, Shaikh and "
        "Wilhelm 2024). "
        "winner: the model ranked first; its estimate is the largest of several and biased "
        "upward, \"corrected for winning\" and its interval condition on it having won (hybrid "
        "inference on winners, Andrews, Kitagawa and McCloskey 2024).",
        f"se: standard error over questions{' (clustered)' if clustered else ''}; {level} "
        f"interval: estimate -/+ t se ({_degrees(boards)}); near 0 or 1 a score interval, "
        "and an exact bound when se = 0 (kpass.stats.intervals).",
        f"rank set: the ranks each model can hold; the sets of all models hold the true ranks "
        f"together with probability >= {level} (Mogstad, Romano, Shaikh and Wilhelm 2024). "
        f"\"told apart\" lists the pairs separated by {_method(boards, clustered)}; the rank "
        "sets are read from these pairs. A set 1-3 means the data cannot place the model more "
        "precisely, not that it is probably second.",
        "P(best), not a verdict: posterior probability that the model is the best on these "
        "very questions if each were sampled without limit (uniform Beta(1,1) prior per "
        "question), not on questions like these; it can favour a model the estimate ranks "
        "lower, because the prior pulls each question's rate toward 1/2 (most where samples "
        "are few) and the draw of the questions is not counted.",
    ]
    return [line for paragraph in paragraphs for line in textwrap.wrap(paragraph, LEGEND_WIDTH)]


@dataclass(frozen=True)
class LeaderboardRequest:
    """What the outputs of ``kpass leaderboard`` say about how it was asked: built once.

    Built from the command line (:meth:`from_args`) once the files are read and every
    renderer takes it explicitly (nothing is written into the argparse namespace).

    Attributes:
        names: the models' names, in the order of the files.
        paths: their files.
        confidence: ``--confidence``.
        digits: decimals of the table and Markdown.
        matched_by: the question-id column (None: row order).
        clusters: the cluster column (None: none).
        shared: ``--shared``.
        short: ``--short``.
        notes: the notes printed under the tables.
        explain: print the notes in full and the legend (``--explain``); without, one
            short line per note.
        runs: each model's run as its harness recorded it (None where none is): one line
            of what they share above the tables, a ``tokens`` column, ``run`` in JSON.
        groups: the first board ranked within each group (``--group``,
            :class:`kpass.report.leaderboard_groups.GroupBoards`), or None.
    """

    names: tuple[str, ...]
    paths: tuple[str, ...]
    confidence: float
    digits: int = 3
    matched_by: str | None = None
    clusters: str | None = None
    shared: bool = False
    short: str = "error"
    notes: tuple[str, ...] = ()
    explain: bool = False
    runs: tuple[RunInfo | None, ...] = ()
    groups: Any = None

    @classmethod
    def from_args(cls, args: argparse.Namespace, names: list[str], paths: list[str],
                  notes: list[str], runs: list[RunInfo | None] | None = None
                  ) -> LeaderboardRequest:
        """The request of the parsed command line (read, never written)."""
        return cls(names=tuple(names), paths=tuple(paths), confidence=args.confidence,
                   digits=args.digits, matched_by=args.id, clusters=args.clusters,
                   shared=bool(args.shared), short=args.short, notes=tuple(notes),
                   explain=bool(getattr(args, "explain", False)), runs=tuple(runs or ()))

    def tokens(self) -> dict[str, str] | None:
        """Each model's total tokens as the ``tokens`` column shows it; None if none known."""
        from ..io.harness.metadata import short_count

        shown = {name: "-" if run is None or run.total_tokens is None
                 else short_count(run.total_tokens)
                 for name, run in zip(self.names, self.runs, strict=False)}
        return shown if any(text != "-" for text in shown.values()) else None


def _winner_lines(result: Any, digits: int) -> list[str]:
    """The confidence set for the best model, then the winner corrected for winning."""
    lines = [best_line(result.best, result.confidence)]
    if result.winner is not None:
        lines.append(winner_line(result.winner, result.confidence, digits))
    return lines


def _note_lines(request: LeaderboardRequest) -> list[str]:
    if not request.explain:
        return [f"note: {line}" for line in brief_notes(request.notes)]
    notes = [f"note: {note}" for note in request.notes]
    lines = [wrapped for note in notes
             for wrapped in textwrap.wrap(note, LEGEND_WIDTH, subsequent_indent="  ")]
    return lines + [""] if lines else []


def render_table(boards: list[Board], request: LeaderboardRequest) -> str:
    """One ranked table per metric and k, with a legend."""
    tokens = request.tokens()
    shared = runs_line(list(request.runs))
    out = [shared, ""] if shared else []
    for board in boards:
        result = board.result
        header = _header(request.confidence, tokens is not None, board.costs is not None)
        body = [_cells(row, request.digits, tokens, board.costs) for row in result.rows]
        widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
        out.append(f"{board.label} on {result.questions} questions"
                   f"{strata_title(result.weights)}")
        out.extend(_winner_lines(result, request.digits))
        for line in [header, *body]:
            out.append("  ".join(cell.ljust(widths[i]) if i in (1, 4) else cell.rjust(widths[i])
                                 for i, cell in enumerate(line)).rstrip())
        better = [f"{p.a} > {p.b}" for p in result.pairs if p.better]
        out.extend(textwrap.wrap("told apart: " + (", ".join(better) if better else "no pair"),
                                 LEGEND_WIDTH, subsequent_indent="  "))
        out.extend(_front_line(board))
        out.append("")
    if request.groups is not None:
        from .leaderboard_groups import group_board_lines

        out.extend(group_board_lines(request.groups, list(request.names), request.digits))
        out.append("")
    out.extend(_note_lines(request))
    if request.explain:
        out.extend(_legend(request.confidence, bool(request.clusters), boards))
    return "\n".join(out).rstrip("\n") + "\n"


def render_markdown(boards: list[Board], request: LeaderboardRequest) -> str:
    """One Markdown table per metric and k, with the legend."""
    tokens = request.tokens()
    shared = runs_line(list(request.runs))
    out = [f"{shared}\n"] if shared else []
    for board in boards:
        out.append(f"**{board.label}** on {board.result.questions} questions"
                   f"{strata_title(board.result.weights)}\n")
        out.extend(f"{line}\n" for line in _winner_lines(board.result, request.digits))
        out.append("| " + " | ".join(_header(request.confidence, tokens is not None,
                                             board.costs is not None)) + " |")
        out.append("| ---: | :--- | ---: | ---: | :--- | :---: | ---: |"
                   + (" ---: |" if tokens else "") + (" ---: | :---: |" if board.costs else ""))
        out.extend("| " + " | ".join(markdown_cell(cell) for cell in _cells(
            row, request.digits, tokens, board.costs)) + " |" for row in board.result.rows)
        better = [f"{p.a} > {p.b}" for p in board.result.pairs if p.better]
        out.append("\ntold apart: " + (", ".join(better) if better else "no pair") + "\n")
        front = _front_line(board)
        if front:
            out.append(" ".join(line.strip() for line in front) + "\n")
    if request.groups is not None:
        from .leaderboard_groups import group_board_lines

        out.append("\n".join(group_board_lines(request.groups, list(request.names),
                                                request.digits, markdown=True)) + "\n")
    if not request.explain:
        out.extend(f"> note: {line}\n" for line in brief_notes(request.notes))
        return "\n".join(out).rstrip("\n") + "\n"
    out.extend(f"> note: {note}\n" for note in request.notes)
    out.append(" ".join(_legend(request.confidence, bool(request.clusters), boards)))
    return "\n".join(out) + "\n"


CSV_FIELDS = ("metric", "label", "k", "tau", "questions", "rank", "name", "estimate", "se", "lo",
              "hi", "rank_lo", "rank_hi", "mean", "sd", "prob_best", "confidence")


def render_csv(boards: list[Board], request: LeaderboardRequest) -> str:
    """One CSV line per metric, k, tau and model, at full precision."""
    import csv
    import io

    buffer = io.StringIO()
    fields = CSV_FIELDS if request.groups is None else ("group", *CSV_FIELDS)
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n",
                            extrasaction="ignore")
    writer.writeheader()
    for board in boards:
        for row in board.result.rows:
            record = {"metric": board.metric, "label": board.label, "k": board.k,
                      "tau": board.tau, "questions": board.result.questions,
                      "confidence": board.result.confidence, **row.as_dict()}
            writer.writerow({key: "" if value is None else value for key, value in
                             record.items()})
    for record in request.groups.records() if request.groups is not None else []:
        writer.writerow({key: "" if value is None else value for key, value in
                         record.items()})
    return buffer.getvalue()


def render_json(boards: list[Board], request: LeaderboardRequest) -> str:
    """The leaderboards as JSON: inputs, how they were matched, one object per metric and k."""
    import json

    document = {"models": dict(zip(request.names, request.paths, strict=True)),
                "matched_by": request.matched_by or "row order", "clusters": request.clusters,
                "shared": request.shared, "confidence": request.confidence,
                "short": request.short,
                "notes": list(request.notes),
                "run": ({name: None if run is None else run.as_dict()
                          for name, run in zip(request.names, request.runs, strict=True)}
                         if any(request.runs) else None),
                "results": [{**board.result.as_dict(), "metric": board.metric,
                             "function": board.result.metric, "label": board.label,
                             "tau": board.tau, **_cost_fields(board)} for board in boards]}
    if request.groups is not None:  # the rows of every group; the boards' rows are all questions
        document.update(group=request.groups.column, weights=request.groups.weights,
                        groups=request.groups.records())
    return json.dumps(document, indent=2, default=lambda value: float(np.asarray(value))) + "\n"


def _cost_fields(board: Board) -> dict[str, Any]:
    """A board's cost view in JSON: each model's costs, the front and who is off it."""
    if board.costs is None:
        return {}
    front = board.costs["front"]
    return {"cost": {name: summary.as_dict() for name, summary in board.costs["cost"].items()},
            "front": list(front.front),
            "dominated_by": {name: list(by) for name, by in front.dominated_by.items()}}


RENDERERS = {"table": render_table, "markdown": render_markdown, "csv": render_csv,
             "json": render_json}


def _strata(loaded: list[Any], names: list[str], args: argparse.Namespace
            ) -> tuple[Any, str]:
    """(group labels of the first model, weights) for ``--group``; (None, ...) without.

    Raises:
        ReportError: what :func:`kpass.report.leaderboard_groups.group_masks` refuses.
    """
    from .leaderboard_groups import group_masks

    column = getattr(args, "group", None)
    weights = getattr(args, "weights", "questions")
    if column is None:
        return None, weights
    group_masks(loaded, names, str(column))  # every model labelled, in every group
    return list(loaded[0].groups), weights


def run_leaderboard(args: argparse.Namespace) -> int:
    """Run ``kpass leaderboard`` with parsed arguments.

    Returns:
        The exit status: 0 on success, 1 when an input cannot be used, 2 for a bad argument.
    """
    by = getattr(args, "by", None)
    if by is None:
        args.files = expand_inspect_logs(args.files)  # a folder of Inspect logs: one per model
    if by is None and len(args.files) < 2:
        print("kpass leaderboard: error: give at least two files, one per model (see kpass "
              "leaderboard --help)", file=sys.stderr)
        return 2
    if args.confidence < 0.5:
        print(f"kpass leaderboard: error: --confidence must be at least 0.5 for joint rank "
              f"sets (two-sided tests at level 1 - confidence); got {args.confidence:g}",
              file=sys.stderr)
        return 2
    try:
        families = parse_metrics(args.metrics or str(PRIMARY.report), answers=True)
        _check_answers_options(args)  # --threshold or --from with --answers, --normalize alone
    except ValueError as error:
        print(f"kpass leaderboard: error: {cli_words(str(error))}", file=sys.stderr)
        return 2
    voted = [fam.key for fam in families if fam.answers]
    if voted:
        print(f"kpass leaderboard: error: --metrics {','.join(voted)}: the leaderboard does not "
              "rank vote metrics; with --answers it ranks the metrics of answers scored "
              "against their reference (pass@k, pass^k, ...)", file=sys.stderr)
        return 2
    try:
        if by is not None:  # one input, every model in it (kpass.io.inputs.load_split)
            names, loaded = load_models(list(args.files), args, "leaderboard")
            counts, clusters = [item.counts for item in loaded], None
            run_records = [run_info(item.source, item) for item in loaded]
            costs = ([question_costs(item, args) for item in loaded] if wants_cost(args)
                     else None)
            paths = [f"{args.files[0]} ({by} = {name})" for name in names]
        elif (tasks := _task_logs(args)) is not None:  # --group task on harness logs
            names, loaded = load_task_models(list(args.files), tasks, args, "leaderboard")
            counts, clusters = [item.counts for item in loaded], None
            run_records = [None] * len(loaded)
            costs = ([question_costs(item, args) for item in loaded] if wants_cost(args)
                     else None)
            paths = list(names)
        else:
            names, paths = split_names(list(args.files))
            counts, clusters, run_records, costs, loaded = _load(args, paths)
        if counts[0].ids is None:
            sizes = [f"{path}: {c.n_questions}" for path, c in zip(paths, counts, strict=True)]
            if len({c.n_questions for c in counts}) != 1:
                raise ReportError(paths[0], "the files hold different numbers of questions "
                                            f"({', '.join(sizes)}); without --id rows are "
                                            "matched by order: pass --id COLUMN to match "
                                            "them by question id")
        notes: list[str] = []
        if counts[0].ids is None:
            notes.append("rows were matched by order (no --id): row q of every file must "
                         "be the same question; pass --id COLUMN to match them by id")
        ks = sorted({k for group in args.k for k in group}) if args.k else [1]
        runs = dict(zip(names, counts, strict=True))
        if getattr(args, "group", None) is not None and clusters is not None:
            raise ReportError(paths[0], "--group and --clusters do not go together: the "
                                        "groups are strata, ranked each alone")
        try:
            with collect_notes(notes):
                boards = leaderboard_boards(runs, families, ks, args.tau, args.confidence,
                                            args.short, clusters, args.shared,
                                            getattr(args, "prior", "uniform"),
                                            *_strata(loaded, names, args))
            if costs is not None:
                for board in boards:
                    board.costs = board_costs(names, counts, costs,
                                              _function_of(families, board.metric), board.k,
                                              args.confidence, bool(args.shared))
                if getattr(args, "group", None) is not None and args.weights == "groups":
                    notes.append("--cost: the cost column and front weigh each question once")
        except (TypeError, ValueError) as error:
            # The core names its keyword; the error is printed in the CLI's words (cli_words).
            raise ReportError(" vs ".join(paths), str(error)) from None
        # The notes speak the CLI: no Python call names.
        notes = [re.sub(r"^kpass\.leaderboard\(\w+\): ", "", note) for note in notes]
        group = getattr(args, "group", None)
        grouped = None
        if group is not None:
            from .leaderboard_groups import group_boards

            small: list[str] = []
            with collect_notes(small):
                grouped = group_boards(loaded, names, boards, families, str(group),
                                       args.confidence, args.short, bool(args.shared),
                                       getattr(args, "prior", "uniform"),
                                       getattr(args, "weights", "questions"))
            few = sum(1 for boards_of in grouped.boards if boards_of[0].result.questions < 30)
            if few:
                notes.append(f"--group {group}: {few} of {len(grouped.groups)} groups have "
                             "fewer than 30 questions: their intervals use Student's t")
        request = replace(LeaderboardRequest.from_args(args, names, paths, notes, run_records),
                          groups=grouped)
        text = RENDERERS[args.format](boards, request)
        if getattr(args, "prior", "uniform") == "empirical" and args.format in ("table",
                                                                              "markdown"):
            text += "\n".join(textwrap.wrap(PRIOR_NOTE, LEGEND_WIDTH)) + "\n"
        if args.plot:
            from .plot import plot_leaderboard

            plot_leaderboard(args.plot, boards, args.confidence)
            print(f"kpass leaderboard: wrote {args.plot}", file=sys.stderr)
    except ReportError as error:
        print(f"kpass leaderboard: error: {cli_words(str(error))}", file=sys.stderr)
        return 1
    return _write(text)


__all__ = ["RENDERERS", "leaderboard_boards", "run_leaderboard", "split_names"]
