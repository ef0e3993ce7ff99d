"""The Leaderboard tab of the metric Spaces: several models ranked on the same questions.

Shipped beside ``app.py`` (``spaces/build.py`` copies it) and loaded by it as one of its
modules. The parsing and the messages are the page's own (:func:`space_input.parse_questions`,
:func:`space_input.locate`), so a model's box reads and fails exactly as the Compute tab's box
does; what ``app.py`` itself defines (the deadline, ``app.within_deadline``; the k box,
``app.parse_ks``) comes through the ``app`` argument, the page's module that loaded this one.
The ranking itself is ``kpass.leaderboard`` on the parsed input; nothing here computes a
statistic.

Input: up to :data:`MAX_MODELS` models, each a pasted box with a name, or an uploaded file
read by kpass's own readers where it is a log or a table they read
(:func:`space_input.read_upload`; an Inspect log named by its model, another file by its
file name). Uploaded files replace the example boxes (:func:`collect`). Questions are
matched by id when every model names its questions (an ``id`` field or column), else by
line order. The metric is one of the module's point
functions (those the Compare tab pairs), at one k.
"""

from __future__ import annotations

import random
import re
from math import exp
from pathlib import Path
from types import ModuleType
from typing import Any

import gradio as gr
import pandas as pd
from matplotlib.figure import Figure

from .space_controls import (
    BINARIZED,
    COMPARED,
    POINT_OPTIONS,
    binarized,
    control_value,
    input_names,
    match_ids,
    module_family,
    module_kind,
    number,
    parse_control,
    same_golds,
    uses_k,
    with_ids,
)
from .space_failures import failure_message, readable, unquoted
from .space_input import (
    MAX_CHARS,
    MAX_OUTCOMES,
    MAX_QUESTIONS,
    columns_of,
    first_keys,
    locate,
    parse_questions,
    read_upload,
    split_questions,
)
from .space_output import scroll_js

#: At most this many models on one leaderboard (one box or one file each).
MAX_MODELS = 12
#: Model boxes shown when the page opens (more with "Add a model box").
OPEN_BOXES = 6
# The decisive columns first (a phone shows them before the table scrolls sideways).
BOARD_COLUMNS = ["rank", "model", "rank set", "P(best)", "estimate", "se", "interval"]
MESSAGE_ID = "kpass-board-message"
#: The forest plot's width in inches, as the other plots' (``space_output.PLOT_WIDTH``).
PLOT_WIDTH = 5.6
#: The longest model name the forest plot shows whole.
PLOT_NAME = 26
TABLE_ID = "kpass-board-table"
#: What the upload box takes: the page's own CSV / JSONL / text, and what kpass's readers
#: read (Inspect ``.eval`` / ``.json`` logs, lm-eval samples ``.jsonl``, Parquet tables).
UPLOAD_TYPES = (".csv", ".jsonl", ".json", ".txt", ".eval", ".parquet")
# The example: five checkpoints simulated on questions of shared difficulty (seeded; the
# same draws as the example of docs/how-to/leaderboard.md).
EXAMPLE_SEED = 7
EXAMPLE_QUESTIONS = 150
EXAMPLE_SAMPLES = 4
EXAMPLE_MODELS = (("base", -0.4), ("sft", 0.0), ("sft-dpo", 0.1), ("rl-1k", 0.6),
                  ("rl-2k", 0.7))
HELP = (
    "One box per model, each with its name: the same questions in every box, one a line in "
    "the same order (or an `id` on every line: then questions are matched by id). "
    "**Uploads**, one model per file, read as `kpass leaderboard` reads them: Inspect logs "
    "(`.eval`, `.json`; named by the model they record), lm-eval `samples_*.jsonl`, "
    "lighteval details, long tables (CSV, JSONL, Parquet; one row per sample with a "
    "question `id`; a table of many models with **split by column**, e.g. `model`: one "
    "model per value, as `kpass leaderboard --by model`); other files by their file name. "
    "Uploaded files replace the example boxes (a box you edit ranks with them). It opens "
    "on a **simulated** example (seeded: five checkpoints, 150 questions of shared "
    "difficulty, 4 samples each). "
    "**se**: standard error over questions; **interval**: estimate -/+ t se. **rank set**: "
    "the ranks each model can hold; the sets of all models hold the true ranks *together* "
    "with probability >= the confidence (stepwise joint procedure of Mogstad, Romano, "
    "Shaikh and Wilhelm 2024 over all paired differences). A set 1-3 means the data cannot "
    "place the model more precisely, not that it is probably second. **P(best)**: posterior "
    "probability that the model is the best on these very questions. The Compute tab's "
    "options (short, w, ties, ...) apply.")


def limits(app: ModuleType) -> str:
    """The tab's limits, in words."""
    return (f"Limits: at most {MAX_MODELS} models, one k at a time, {MAX_OUTCOMES:,} "
            f"outcomes in all; each box or file within the page's limits ("
            f"{MAX_CHARS // 1000:,} kB, {MAX_QUESTIONS:,} questions); "
            f"{app.MAX_SECONDS:g} s of computing. For more, use `kpass leaderboard` locally.")


def example_models(kind: str = "binary") -> list[tuple[str, str]]:
    """The simulated example: ``(name, box text)`` per model, one question a line.

    Question q has difficulty d_q ~ N(0, 1.5) shared by every model; a model of skill s
    solves it with probability 1 / (1 + exp(-(s + d_q))), independently per sample. For
    answer-string modules each sample is the answer "1" (solved) or "0", gold "1".
    """
    draw = random.Random(EXAMPLE_SEED)
    difficulty = [draw.gauss(0, 1.5) for _ in range(EXAMPLE_QUESTIONS)]
    models = []
    for name, skill in EXAMPLE_MODELS:
        lines = []
        for d in difficulty:
            p = 1 / (1 + exp(-(skill + d)))
            line = " ".join(str(int(draw.random() < p)) for _ in range(EXAMPLE_SAMPLES))
            lines.append(f"{line} | 1" if kind == "answers" else line)
        models.append((name, "\n".join(lines)))
    return models


# ----------------------------------------------------------------------------- input


def upload_names(uploads: list[str]) -> list[str]:
    """A name per uploaded file, as ``kpass leaderboard`` names its inputs: an Inspect log by
    the model it records (``model (task)`` where two logs share a model,
    :func:`kpass.io.harness.inspect_log.inspect_labels`), any other file by its file name
    without the suffix."""
    from kpass.io.harness.inspect_log import inspect_labels

    try:
        models = inspect_labels(uploads)
    except Exception:  # noqa: BLE001 - an unreadable log: its reading says why, by file name
        models = [None] * len(uploads)
    return [model or Path(path).stem for model, path in zip(models, uploads, strict=True)]


def check_one_task(uploads: list[str]) -> None:
    """Refuse Inspect logs of different tasks, as ``kpass leaderboard`` does
    (:func:`kpass.io.harness.inspect_log.check_same_task`): their sample ids (often 1..N)
    would pair questions that are not the same.

    Raises:
        ValueError: two logs of different tasks, naming both files.
    """
    from kpass.io.errors import ReportError
    from kpass.io.harness.inspect_log import check_same_task

    try:
        check_same_task(uploads)
    except Exception as error:  # noqa: BLE001 - an unreadable log: its reading says why
        if not isinstance(error, ReportError) or "of task" not in error.problem:
            return
        problem = error.problem
        for path in uploads:
            problem = problem.replace(path, f"the file {Path(path).name}")
        problem = problem.replace(", or pass --any-task to pair them by id anyway", "")
        raise ValueError(f"the file {Path(error.source).name} is {problem}") from None


def split_uploads(uploads: list[str], by: str, kind: str
                  ) -> dict[str, dict[str, list[Any]]]:
    """The uploaded tables holding a column ``by`` (the box split by column), each read as
    one model per value of it (:func:`space_input.split_questions`); other files (an
    Inspect log, a one-model table) stay one model each.

    Returns:
        ``{path: {model: questions}}`` for each table split.

    Raises:
        ValueError: ``by`` given and no uploaded file has the column, or a split file
            refused (naming it).
    """
    if not by:
        return {}
    split = {}
    for path in uploads:
        if by not in first_keys(path):
            continue
        try:
            split[path] = split_questions(path, kind, by)
        except ValueError as error:
            raise ValueError(f"the file {Path(path).name}: {error}") from None
    if not split:
        raise ValueError(f"split by column: no uploaded table has a column `{by}`"
                         + ("" if uploads else " (no file is uploaded)"))
    return split


def collect(boxes: list[tuple[str, str]], uploads: list[str] | None,
            example: list[tuple[str, str]] | None = None,
            split: dict[str, dict[str, list[Any]]] | None = None, by: str = ""
            ) -> tuple[list[tuple[str, str, str | None, str]], int]:
    """The models given: ``(name, where, upload path or None, text)``, boxes then files, and
    how many example boxes were left out.

    A box counts when it holds text (its name defaults to ``model N``); a file is named by
    :func:`upload_names`. Uploaded files win over the example: with files, a box still
    holding the page's example (its name and text as the page opened, ``example``) is left
    out, while a box the visitor filled or edited ranks beside the files.

    Raises:
        ValueError: fewer than 2 or more than MAX_MODELS models, or a name used twice.
    """
    models: list[tuple[str, str, str | None, str]] = []
    left_out = 0
    for place, (name, text) in enumerate(boxes, start=1):
        if not str(text or "").strip():
            continue
        if uploads and example and place <= len(example) and (
                str(name or "").strip(), str(text).strip()) == (
                example[place - 1][0], example[place - 1][1].strip()):
            left_out += 1
            continue
        name = " ".join(str(name or "").split()) or f"model {place}"
        models.append((name, f"box {place} (model {name!r})", None, str(text)))
    for name, path in zip(upload_names(list(uploads or [])), uploads or [], strict=True):
        for label in (split or {}).get(path, [name]):
            where = f"the file {Path(path).name}" + (
                f" ({by} {label!r})" if path in (split or {}) else "")
            models.append((label, where, path, ""))
    if len(models) > MAX_MODELS:
        raise ValueError(f"{len(models)} models; this tab ranks at most {MAX_MODELS} at once "
                         "(use kpass leaderboard locally for more)")
    if len(models) < 2:
        raise ValueError(f"a leaderboard needs at least 2 models; got {len(models)}: fill "
                         "two boxes (or upload two files, one per model)")
    seen: dict[str, str] = {}
    for name, where, _, _ in models:
        if name in seen:
            raise ValueError(f"two models are named {name!r}: {seen[name]} and {where}; give "
                             "each model its own name")
        seen[name] = where
    return models, left_out


def check_total(parsed: dict[str, list[Any]]) -> None:
    """All models together within the page's outcome limit."""
    total = sum(len(q.values) for questions in parsed.values() for q in questions)
    if total > MAX_OUTCOMES:
        raise ValueError(f"the models hold {total:,} outcomes in all; this tab takes at most "
                         f"{MAX_OUTCOMES:,}")


def align(parsed: dict[str, list[Any]], where: dict[str, str],
          kind: str = "binary") -> tuple[dict[str, list[Any]], dict[str, list[Any]] | None]:
    """How the models' questions pair: by id when every line of every model has one, else by
    line order (the page's rule, ``space_controls.match_ids``, as on the Compare tab).

    Returns:
        The questions per model (answer strings put in the first model's order) and each
        model's ids for ``kpass.leaderboard`` to match (None: matched by line order).

    Raises:
        ValueError: ids on some lines or models only, or models holding different
            questions (naming the model, the id and the box or file and line).
    """
    found, ids = match_ids(parsed, where, reorder=kind == "answers")
    if ids is None:
        names = list(parsed)
        counts = {name: len(questions) for name, questions in parsed.items()}
        other = next((name for name in names if counts[name] != counts[names[0]]), None)
        if other is not None:
            raise ValueError(f"{where[names[0]]} has {counts[names[0]]} questions and "
                             f"{where[other]} {counts[other]}: give every model the same "
                             "questions, one a line in the same order (or a question id on "
                             "every line)")
    return found, ids


def gold_answers(aligned: dict[str, list[Any]], where: dict[str, str]
                 ) -> list[Any]:
    """The gold answers: the first model's, which any other model that gives them must match
    (by kpass's canonical rule: ``170`` is ``"170.0"``).

    Raises:
        ValueError: the first model gives none, or another model gives a different one.
    """
    names = list(aligned)
    first = aligned[names[0]]
    if not all("references" in q.extras for q in first):
        raise ValueError(f"give each question's gold answer after '|' on the lines of "
                         f"{where[names[0]]} (the first model)")
    same_golds(aligned, where)
    return [q.extras["references"] for q in first]


# ----------------------------------------------------------------------------- compute


class ModelError(ValueError):
    """A model's own input is refused: ``index`` is its place among the models."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(f"model #{index}: {message}")


def compute_board(function_name: str, label: str, runs: dict[str, Any],
                  references: list[Any] | None, k: int | None, confidence: float,
                  options: dict[str, Any], ids: dict[str, list[Any]] | None = None,
                  kind: str = "binary") -> Any:
    """``kpass.leaderboard`` on the runs, each model's input first checked alone.

    With ``ids`` (each model's question ids, in its own order) the runs become counts
    carrying them and ``kpass.leaderboard`` matches the questions by id.

    Runs in the page's child process (:func:`app.within_deadline`).

    Raises:
        ValueError / TypeError: ``model #i: ...`` for a model's own bad input (so the page
            can point at its box and line), else kpass.leaderboard's own message.
    """
    import inspect

    import kpass

    function = getattr(kpass, function_name)
    accepted = inspect.signature(function).parameters
    kwargs = {key: value for key, value in options.items()
              if key in POINT_OPTIONS and key in accepted}
    extra = ((references,) if references is not None else ()) + ((k,) if k is not None else ())
    checked = {}
    for index, (name, data) in enumerate(runs.items()):
        try:
            if label in BINARIZED:
                data = binarized(data, options.get("w"), BINARIZED[label])
            function(data, *extra, **kwargs)
        except (ValueError, TypeError) as error:
            raise ModelError(index, str(error)) from None
        checked[name] = data
    checked = with_ids(checked, ids, "binary" if label in BINARIZED else kind)
    return kpass.leaderboard(function, checked, *extra, confidence=confidence, **kwargs)


def board_table(board: Any, digits: int = 4) -> pd.DataFrame:
    """The leaderboard's rows as the tab shows them, best first."""
    level = f"{board.confidence * 100:g}%"
    rows = []
    for row in board.rows:
        rows.append({"rank": row.rank, "model": row.name,
                     "estimate": round(row.estimate, digits), "se": round(row.se, digits),
                     "interval": f"[{row.lo:.{digits}f}, {row.hi:.{digits}f}]",
                     "rank set": (str(row.rank_lo) if row.rank_lo == row.rank_hi
                                  else f"{row.rank_lo}-{row.rank_hi}"),
                     "P(best)": round(row.prob_best, digits)})
    table = pd.DataFrame(rows, columns=BOARD_COLUMNS)
    return table.rename(columns={"interval": f"{level} interval"})


def shortened(name: str, at_most: int = PLOT_NAME) -> str:
    """A model's name as the plot shows it: a long one (a log's file name) keeps its start
    and end around an ellipsis, so the axes keep their width (the table shows it whole)."""
    if len(name) <= at_most:
        return name
    head = (at_most - 1) // 2
    return f"{name[:head]}\u2026{name[len(name) - (at_most - 1 - head):]}"


def board_plot(board: Any, label: str) -> Figure:
    """A forest plot: each model's estimate and interval, best on top, its rank set at right."""
    rows = board.rows
    figure = Figure(figsize=(PLOT_WIDTH, max(2.0, 0.75 + 0.3 * len(rows))))
    axes = figure.subplots()
    y = list(range(len(rows)))[::-1]
    axes.errorbar([row.estimate for row in rows], y,
                  xerr=[[max(row.estimate - row.lo, 0.0) for row in rows],
                        [max(row.hi - row.estimate, 0.0) for row in rows]],
                  fmt="o", color="tab:blue", ecolor="tab:blue", elinewidth=2, capsize=3,
                  markersize=5)
    axes.set_yticks(y, [f"{row.rank}. {shortened(row.name)}" for row in rows])
    axes.set_ylim(-0.7, len(rows) - 0.3)
    for position, row in zip(y, rows, strict=True):
        rank_set = (f"rank {row.rank_lo}" if row.rank_lo == row.rank_hi
                    else f"ranks {row.rank_lo}-{row.rank_hi}")
        axes.annotate(rank_set, xy=(1.0, position), xycoords=("axes fraction", "data"),
                      xytext=(8, 0), textcoords="offset points", va="center", fontsize=9)
    level = f"{board.confidence * 100:g}%"
    budget = "" if board.k is None else f" at k={board.k}"
    axes.set_xlabel(f"{label}{budget}: estimate with {level} interval over "
                    f"{board.questions} questions\nright: joint rank sets")
    axes.grid(True, axis="x", alpha=0.3)
    figure.tight_layout(pad=0.6)
    return figure


def told_apart(board: Any, at_most: int = 8) -> str:
    """The pairs the joint procedure separates, in words (the first ``at_most``)."""
    pairs = [f"{pair.a} > {pair.b}" for pair in board.pairs if pair.better]
    if not pairs:
        return "No pair is told apart at this confidence."
    more = f" and {len(pairs) - at_most} more" if len(pairs) > at_most else ""
    return f"Told apart: {', '.join(pairs[:at_most])}{more}."


def empty_board() -> pd.DataFrame:
    return pd.DataFrame(columns=BOARD_COLUMNS)


def run_board(app: ModuleType, module: Any, controls: list[Any], boxes: list[tuple[str, str]],
              uploads: list[str] | None, metric: str, ks_text: str, confidence: Any,
              *values: Any, filter: str | None = None,  # noqa: A002 - lm-eval's word
              by: str | None = None) -> tuple[str, pd.DataFrame, Figure | None]:
    """The tab's computation: (message, table, forest plot); bad input becomes a message.

    Args:
        app: the page's module (``spaces/app.py``).
        module: the loaded metric module.
        controls: the Compute tab's controls, whose ``values`` follow.
        boxes: ``(name, text)`` of each model box.
        uploads: paths of uploaded files, one per model.
        metric: a label of ``COMPARED[family]`` (e.g. ``pass@k``).
        ks_text: the k box (one k).
        confidence: level of the intervals and of the joint rank sets.
        *values: the Compute tab's control values.
        filter: the lm-eval filter that counts in uploaded lm-eval samples files (the
            command line's ``--filter``).
        by: the box split by column: uploaded tables holding this column give one model
            per value of it (the command line's ``--by COLUMN``).
    """
    names, kind, family = input_names(module), module_kind(module), \
        module_family(module)
    parsed: dict[str, list[Any]] = {}
    where: dict[str, str] = {}
    current = ""
    try:
        functions = dict(COMPARED[family])
        if metric not in functions:
            raise ValueError(f"`metric` must be one of {', '.join(functions)}; got {metric!r}")
        by_column = " ".join(str(by or "").split())
        split = split_uploads(list(uploads or []), by_column, kind)
        models, left_out = collect(boxes, uploads, example_models(kind), split, by_column)
        check_one_task([path for path in uploads or [] if path not in split])
        for name, source, path, text in models:
            current, where[name] = name, source
            if path in split:
                parsed[name] = split[path][name]
                continue
            uploaded = read_upload(path, names, kind, filter=str(filter or "").strip() or None) \
                if path else None
            parsed[name] = uploaded if uploaded is not None else \
                parse_questions(text, names, kind)
        current = ""
        check_total(parsed)
        aligned, ids = align(parsed, where, kind)
        columns = {}
        for name, questions in aligned.items():
            current = name  # a gold answer given on some lines only names its model
            columns[name] = columns_of(questions, names)
        current = ""
        if any("R0" in found for found in columns.values()):
            raise ValueError("the leaderboard takes no prior outcomes (R0): remove the "
                             "'| ...' part of the lines")
        references = gold_answers(aligned, where) if kind == "answers" else None
        options = {c.name: parse_control(c, v) for c, v in zip(controls, values,
                                                                     strict=True)}
        options = {name: value for name, value in options.items() if value is not None}
        k = None
        if uses_k(module):
            ks = app.parse_ks(ks_text)
            if len(ks) != 1:
                raise ValueError(f"`k`: the leaderboard ranks at one k at a time; got "
                                 f"{len(ks)} values ({', '.join(map(str, ks))})")
            k = ks[0]
        if confidence is None or confidence == "":
            raise ValueError("`confidence` is empty: give a level in (0, 1), e.g. 0.95")
        level = number(confidence, "confidence")
        runs = {name: found["predictions"] for name, found in columns.items()}
        board = app.within_deadline(compute_board, functions[metric], metric, runs,
                                    references, k, level, options, ids, kind)
    except RecursionError:
        return ("**Input error:** the input is nested too deeply; give one flat list of "
                "outcomes per question", empty_board(), None)
    except Exception as error:  # noqa: BLE001 (every failure: one located line, no traceback)
        message = failure(error, current, where, parsed).replace(
            "with --filter", "in the box lm-eval filter")
        return f"**Input error:** {message}", empty_board(), None
    note = (f"Ranked at {app.stamp()}: {len(board.rows)} models on {board.questions} "
            f"question(s) (matched by {'line order' if ids is None else 'id'}), {metric}"
            f"{'' if k is None else f' at k={k}'}; {level * 100:g}% intervals and joint rank "
            f"sets. {told_apart(board)}")
    if left_out:
        note += (f" The {left_out} example box{'es' if left_out > 1 else ''} "
                 "were left out: uploaded files replace the example (boxes you edit rank "
                 "with them).")
    return note, board_table(board), board_plot(board, metric)


def failure(error: BaseException, current: str, where: dict[str, str],
            parsed: dict[str, list[Any]]) -> str:
    """One line for a failed leaderboard, located in the model's box (or file) and line."""
    if isinstance(error, (ValueError, TypeError, TimeoutError)):
        message = unquoted(readable(error))
    else:
        message = failure_message(error)
    named = re.match(r"model #(\d+): ", message)
    if named and int(named[1]) < len(parsed):
        current, message = list(parsed)[int(named[1])], message[named.end():]
    if not current:
        return message
    located = locate(message, parsed.get(current, []), where[current])
    return located if located != message else f"{where[current]}: {message}"


# ----------------------------------------------------------------------------- the tab


def build_tab(app: ModuleType, demo: gr.Blocks, module: Any, controls: list[Any],
              widgets: list[Any]) -> None:
    """The Leaderboard tab, inside the page's ``gr.Tabs`` (computed when the page opens)."""
    kind, family = module_kind(module), module_family(module)
    labels = [label for label, _ in COMPARED[family]]
    example = example_models(kind)
    confidence_default = next((control_value(c) for c in controls
                               if c.name == "confidence"), 0.95)
    with gr.Tab("Leaderboard", elem_id="kpass-tab-board"):
        with gr.Row(equal_height=False, elem_id="kpass-board-main"):
            with gr.Column(scale=4, min_width=300):
                # What to rank and the button first: the model boxes are long.
                with gr.Row():
                    metric = gr.Dropdown(labels, value=labels[0], label="metric",
                                         min_width=110, elem_id="kpass-board-metric")
                    ks = gr.Textbox(value="1", label="k", visible=uses_k(module),
                                    min_width=70, elem_id="kpass-board-k")
                    confidence = gr.Number(value=confidence_default, min_width=110,
                                           label=f"confidence (default {confidence_default:g})",
                                           elem_id="kpass-board-confidence")
                button = gr.Button("Rank", variant="primary", elem_id="kpass-board-run")
                message = gr.Markdown(elem_id=MESSAGE_ID)
                # Logs first: a team's runs are files; the boxes hold the example.
                uploads = gr.File(label="Upload logs or tables, one model a file",
                                  file_count="multiple",
                                  file_types=list(UPLOAD_TYPES), elem_id="kpass-board-upload")
                with gr.Row(equal_height=True, elem_id="kpass-board-read"):
                    split_by = gr.Textbox(label="split by column (a table of many models)",
                                          placeholder="e.g. model", max_lines=1,
                                          min_width=150, elem_id="kpass-board-by")
                    lm_filter = gr.Textbox(label="lm-eval filter (files scored under "
                                           "several)", placeholder="e.g. strict-match",
                                           max_lines=1, min_width=150,
                                           elem_id="kpass-board-filter")
                gr.Markdown("...or paste each model's outcomes in a box:",
                            elem_id="kpass-board-or")
                groups, names, texts = [], [], []
                for index in range(MAX_MODELS):
                    name, text = example[index] if index < len(example) else ("", "")
                    with gr.Row(visible=index < OPEN_BOXES, equal_height=False,
                                elem_id=f"kpass-board-model-{index + 1}") as group:
                        names.append(gr.Textbox(value=name, label=f"model {index + 1}",
                                                max_lines=1, placeholder=f"model {index + 1}",
                                                min_width=90, scale=1,
                                                elem_id=f"kpass-board-name-{index + 1}"))
                        texts.append(gr.Textbox(value=text, lines=2, max_lines=2, scale=3,
                                                label="outcomes, one question a line",
                                                min_width=160,
                                                elem_id=f"kpass-board-text-{index + 1}"))
                    groups.append(group)
                shown = gr.State(OPEN_BOXES)
                add = gr.Button(f"Add a model box (up to {MAX_MODELS})", size="sm",
                                elem_id="kpass-board-add")
                gr.Markdown(f"{HELP}\n\n{limits(app)}", elem_id="kpass-board-help")
            with gr.Column(scale=7, min_width=300):
                table = gr.Dataframe(value=empty_board(), label="Leaderboard, best first",
                                     interactive=False, elem_id=TABLE_ID, max_height=420,
                                     wrap=True)
                plot = gr.Plot(label="Estimate and interval per model, best on top; right: "
                               "joint rank sets", elem_id="kpass-board-plot")

    def more(count: int):
        count = min(int(count) + 1, MAX_MODELS)
        return count, *[gr.update(visible=index < count) for index in range(MAX_MODELS)]

    def rank(*args: Any):
        given = list(args)
        boxes = list(zip(given[:MAX_MODELS], given[MAX_MODELS:2 * MAX_MODELS], strict=True))
        files, by_text, filter_text, metric_value, k_text, level, *values = \
            given[2 * MAX_MODELS:]
        return app.run_leaderboard(module, controls, boxes, files, metric_value, k_text, level,
                                   *values, filter=filter_text, by=by_text)

    add.click(more, shown, [shown, *groups])
    inputs = [*names, *texts, uploads, split_by, lm_filter, metric, ks, confidence, *widgets]
    outputs = [message, table, plot]
    button.click(rank, inputs, outputs).then(None, js=scroll_js(MESSAGE_ID, TABLE_ID))
    uploads.upload(rank, inputs, outputs).then(None, js=scroll_js(MESSAGE_ID, TABLE_ID))
    uploads.clear(rank, inputs, outputs)
    demo.load(rank, inputs, outputs)
