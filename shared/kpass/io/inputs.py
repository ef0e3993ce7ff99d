"""One loader for the inputs of ``kpass report``, ``compare`` and ``leaderboard``.

Every command reads its files the same way, with the same options:

* with ``--id``, ``--sample`` or ``--threshold`` by :func:`kpass.io.long.load.load_long` (long
  files grouped by question id, wide files keyed by their id column, soft scores
  thresholded), which also reads ``--clusters`` labels per question id;
* otherwise by :func:`load_file` (wide outcome files, shards, Inspect logs, harness files), with
  ``--clusters`` read beside the rows, one label per question;
* with ``--answers`` by :func:`kpass.io.answers.load_answers`.

The harness that wrote a file is detected per file, so an lm-eval file ranks beside a
lighteval or OpenCompass file: ``--filter`` applies to the lm-eval files among the inputs
and the others are read without it (a note says so).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._core.counting.counts import BinaryCounts
from .errors import ReportError
from .formats.nested import is_path
from .formats.readers import LoadedFile, load_counts
from .harness.answers_lm_eval import check_not_lm_eval_results
from .harness.inspect_files import is_inspect_log
from .harness.inspect_log import load_inspect
from .harness.load import detect_harness, load_harness
from .progress import Progress
from .shards import shard_parts

__all__ = ["BY_FILE", "RUN_COLUMNS", "InputOptions", "check_name", "check_one_folder_run",
           "check_one_run", "check_threshold", "file_stem", "load_file", "load_input",
           "load_inputs", "load_split"]

#: Columns that name the model or run of a row: a long file holding several is several runs.
RUN_COLUMNS = ("model", "model_name", "model_id", "run", "run_id", "checkpoint")


@dataclass
class InputOptions:
    """How to read the inputs: the command line's input options.

    Attributes:
        id: ``--id``, the question-id column.
        sample: ``--sample``, the sample-id column (with ``id``).
        column: ``--column``, the outcome (or answers) column.
        threshold: ``--threshold``: soft scores, correct iff score > T.
        clusters: ``--clusters``, a cluster-label column.
        group: ``--group``, a group (subtask) label column: one label per question.
        tool: ``--from``, the harness that wrote every input.
        filter: ``--filter``, the lm-eval filter that counts.
        chunk_size: ``--chunk-size``, rows read at a time.
        skip_bad: ``--skip-bad``, leave unreadable rows out.
        answers: ``--answers``: sampled answers and a reference per question.
        reference: ``--reference``, the reference column (with ``answers``).
        normalize: the ``--normalize`` function (with ``answers``), or None.
        pool: ``--pool``: read several models' rows as one run on purpose (refused by
            default: :func:`check_one_run`).
        by: ``--by``: one model per value of this column, or per file (:data:`BY_FILE`);
            read by :func:`load_split`.
        partial: ``--partial``: read an Inspect log that did not finish (a run in
            progress) as far as it goes.
        cost: ``--cost``, a long table's cost column (with ``id``): each question's mean
            cost of one sample, read in the scan that counts (``costs`` of the loaded file;
            per model with ``by``).
    """

    id: str | None = None
    sample: str | None = None
    column: str | None = None
    threshold: float | None = None
    clusters: str | None = None
    group: str | None = None
    tool: str | None = None
    filter: str | None = None
    chunk_size: int = 65536
    skip_bad: bool = False
    answers: bool = False
    reference: str | None = None
    normalize: Callable[[Any], Any] | None = None
    pool: bool = False
    by: str | None = None
    partial: bool = False
    cost: str | None = None


#: ``--by file``: one model per file of a folder or pattern (not a column named ``file``).
BY_FILE = "file"


def file_stem(path: str) -> str:
    """The file name without its format suffixes: ``runs/phi-4.jsonl.gz`` -> ``phi-4``.

    The default label of ``--by file`` and of a leaderboard's model.

    Example:
        >>> file_stem("runs/phi-4.jsonl.gz"), file_stem("logs/a.parquet")
        ('phi-4', 'a')
    """
    name = Path(path).name or path
    for suffix in (".gz", ".jsonl", ".json", ".csv", ".tsv", ".parquet", ".npy", ".eval"):
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
    return name


def harness_logs(source: str) -> list[str] | None:
    """The harness logs of a folder or pattern that holds nothing else, or None.

    Inspect logs (``inspect eval-set``'s bookkeeping passed over), and lm-eval samples or
    lighteval details files whose run records its model
    (:func:`kpass.io.harness.metadata.run_model`; their ``results_*.json`` passed over).
    """
    from .harness.inspect_files import BOOKKEEPING, is_inspect_log
    from .harness.metadata import run_model

    if not Path(source).is_dir() and shard_parts(source, formats=False) is None:
        return None
    parts = shard_parts(source, formats=False)
    if parts is None:
        return None
    files = [path for path in parts.paths
             if Path(path).name not in BOOKKEEPING and Path(path).suffix.lower() not in _NOTES
             and not (Path(path).name.startswith("results_") and path.endswith(".json"))]
    if files and (all(is_inspect_log(path) for path in files)
                  or all(run_model(path) is not None for path in files)):
        return files
    return None


_NOTES = frozenset({".txt", ".md", ".yaml", ".yml", ".py", ".sh", ".log"})
"""Files beside harness logs that are not data (a task's source, a README, its config)."""


def _split_logs(source: str, logs: list[str], options: InputOptions
                ) -> dict[str, LoadedFile]:
    """``--by model`` on a folder of harness logs: one model per log, named as it records.

    Raises:
        ReportError: two logs of one model, or logs of two tasks (naming both).
    """
    from .harness.metadata import run_info

    split: dict[str, LoadedFile] = {}
    where: dict[str, tuple[str, str | None]] = {}
    for log in logs:
        item, _ = load_input(log, options, clusters=False)
        run = run_info(log, item)
        assert run is not None and run.model is not None
        if run.model in split:
            other, task = where[run.model]
            raise ReportError(source, f"--by model: {other} (task {task}) and {log} (task "
                                      f"{run.task}) are both runs of {run.model!r}; give the "
                                      "logs of one task (a pattern such as 'logs/*_gsm8k_*')")
        tasks = {task for _, task in where.values()}
        if tasks and run.task not in tasks:
            other, task = next(iter(where.values()))
            raise ReportError(source, f"--by model: {other} is of task {task!r} and {log} of "
                                      f"task {run.task!r}: their sample ids would pair "
                                      "questions that are not the same; give the logs of one "
                                      "task")
        split[run.model] = item
        where[run.model] = (log, run.task)
    return split


def load_split(source: str, options: InputOptions, *,
               labeller: Callable[[str], str] = file_stem) -> dict[str, LoadedFile]:
    """One input holding several models, read as one model per label (``--by``).

    ``options.by`` names a column of a long table (one model per value, in one scan:
    :func:`kpass.io.long.load.load_long_by`), or is :data:`BY_FILE`: a folder or pattern
    whose files are one model each, every file read as :func:`load_input` reads a file and
    labelled by ``labeller(path)`` (by default :func:`file_stem`). ``--by model`` on a
    folder of harness logs (:func:`harness_logs`) labels each log by the model it records.

    Returns:
        Each model's loaded input, keyed by label: labels sorted for a column, in the
        files' (sorted) order for ``--by file``.

    Raises:
        ReportError: a missing column or a missing value (naming it and the row), one
            model only, two files with one label (naming both), ``--by`` with options that
            do not go with it.
    """
    from dataclasses import replace

    by = options.by
    assert by is not None
    check_name(source)
    if options.answers or options.clusters is not None:
        raise ReportError(source, f"--by {by} is not available with "
                                  f"{'--answers' if options.answers else '--clusters'}")
    logs = harness_logs(source) if by == "model" and options.id is None else None
    if logs is not None:  # a folder of harness logs: each names its model
        models = _split_logs(source, logs, replace(options, by=None))
    elif by == BY_FILE:
        parts = shard_parts(source, formats=False)
        if parts is None:
            raise ReportError(source, "--by file reads a folder or a pattern of files, one "
                                      "model per file; this is one file (give --by COLUMN "
                                      "for a column naming each row's model)")
        own = replace(options, by=None)  # each file still one run (check_one_run)
        split: dict[str, LoadedFile] = {}
        where: dict[str, str] = {}
        for part, shown in zip(parts.paths, parts.labels, strict=True):
            label = labeller(part)
            if label in split:
                raise ReportError(source, f"--by file: {where[label]} and {shown} are both "
                                          f"labelled {label!r}; rename one")
            split[label], _ = load_input(part, own, clusters=False)
            where[label] = shown
        models = split
    else:
        if options.id is None:
            raise ReportError(source, f"--by {by} needs --id COLUMN (each model's questions "
                                      "are matched by id)")
        from .long.load import load_long_by

        models = dict(load_long_by(source, by=by, id=options.id, sample=options.sample,
                                   column=options.column, threshold=options.threshold,
                                   chunk_size=options.chunk_size, cost=options.cost))
        if options.group is not None:  # one more scan: every question's group, all models
            from .long.long_labels import question_labels

            every = list(dict.fromkeys(question for item in models.values()
                                       for question in item.counts.ids or ()))
            first = next(iter(models.values()))
            label_of = dict(zip(every, question_labels(source, options.id, options.group,
                                                       every, options.chunk_size,
                                                       first.column, option="--group"),
                                strict=True))
            for item in models.values():
                item.groups = [label_of[question] for question in item.counts.ids or ()]
    if len(models) < 2:
        (label,) = models
        what = "file" if by == BY_FILE else f"value of `{by}`"
        raise ReportError(source, f"--by {by}: one {what} ({label!r}), so one model; drop "
                                  "--by to read it as one run")
    return models


def check_name(source: str) -> None:
    """Refuse an empty file name (``""``, an unset ``$A``), which would name the current folder.

    Raises:
        ReportError: ``source`` is empty or blank.
    """
    if not source.strip():
        raise ReportError(repr(source), "an empty file name; give a file, a folder of parts or "
                                        "a pattern")


def load_input(source: str, options: InputOptions, *, clusters: bool = True,
               progress: Progress | None = None) -> tuple[LoadedFile, list[Any] | None]:
    """One input read with ``options``: its counts, and its coded answers with ``answers``.

    Args:
        source: a file, a folder of parts or a glob pattern.
        options: the input options.
        clusters: read ``options.clusters`` for this input (compare and leaderboard read
            the first file's labels only).
        progress: a progress bar for the plain reader, or None.

    Returns:
        The loaded file (``clusters`` set when asked for) and, with ``answers``, each
        question's answers coded 0 (the reference), 1, 2, ... (else None).

    Raises:
        ReportError: an empty name, an unreadable input or row (naming the file and line),
            options that do not go together (naming them).
    """
    check_name(source)
    check_not_lm_eval_results(source)
    if not options.pool:
        check_one_folder_run(source)
    column = options.clusters if clusters else None
    if options.cost is not None and (options.answers or options.id is None):
        raise ReportError(source, f"--cost {options.cost} " + (
            "is not available with --answers" if options.answers else
            "needs --id COLUMN (the costs are averaged over each question's rows)"))
    if options.group is not None and options.answers:
        raise ReportError(source, "--group is not available with --answers")
    plain = not options.answers and options.id is None and options.threshold is None and (
        options.sample is None)
    if progress is not None and not plain:
        progress.close()  # only the plain reader draws one
        progress = None
    if options.answers:
        from .answers import load_answers

        if column is not None:
            raise ReportError(source, "--clusters is not available with --answers")
        item, coded = load_answers(source, column=options.column, reference=options.reference,
                                   skip_bad=options.skip_bad, chunk_size=options.chunk_size,
                                   normalize=options.normalize, id=options.id,
                                   sample=options.sample)
        return item, coded
    if options.id is not None or options.threshold is not None or options.sample is not None:
        from .long.load import load_long

        if options.skip_bad:
            raise ReportError(source, "--skip-bad is not available with --id, --sample or "
                                      "--threshold: every row of a question counts, so a "
                                      "bad row stops the run with its line")
        if column is not None and options.id is None:
            raise ReportError(source, "--clusters with --threshold or --sample needs --id "
                                      "COLUMN (the labels are grouped by question id)")
        item = load_long(source, id=options.id, sample=options.sample, column=options.column,
                         threshold=options.threshold, chunk_size=options.chunk_size,
                         tool=options.tool, filter=options.filter, clusters=column,
                         partial=options.partial, cost=options.cost)
        if options.id is not None and not options.pool:
            check_one_run(item, options)
        if options.group is not None:
            item.groups = _group_labels(item, options)
        return item, None
    item = load_file(source, tool=options.tool, filter=options.filter, column=options.column,
                     chunk_size=options.chunk_size, skip_bad=options.skip_bad,
                     progress=progress, partial=options.partial)
    if column is not None:
        from .labels import read_labels

        labels = read_labels(source, column)
        if len(labels) != item.counts.n_questions:
            raise ReportError(source, f"`{column}` has {len(labels)} values for "
                                      f"{item.counts.n_questions} questions (--clusters)")
        item.clusters = labels
    if options.group is not None:
        item.groups = _group_labels(item, options)
    return item, None


def _group_labels(item: LoadedFile, options: InputOptions) -> list[Any]:
    """The ``--group`` label of each question of ``item``, by the one per-question reader.

    A long file (``--id``) is read by :func:`kpass.io.long.long_labels.question_labels`
    (every row of a question must carry the same label; two are an error naming the
    question and both lines); a wide file by :func:`kpass.io.labels.read_labels`, one
    label per row.
    """
    assert options.group is not None
    if options.id is not None:
        from .long.long_labels import question_labels

        assert item.counts.ids is not None
        return question_labels(item.source, options.id, options.group, item.counts.ids,
                               options.chunk_size, item.column, option="--group")
    if options.threshold is not None or options.sample is not None:
        raise ReportError(item.source, "--group with --threshold or --sample needs --id "
                                       "COLUMN (the labels are grouped by question id)")
    from .labels import read_labels

    labels = read_labels(item.source, options.group)
    if len(labels) != item.counts.n_questions:
        raise ReportError(item.source, f"`{options.group}` has {len(labels)} values for "
                                       f"{item.counts.n_questions} questions (--group)")
    return labels


def load_inputs(sources: list[str], options: InputOptions, *, clusters: str = "all",
                progress: Callable[[str], Progress | None] | None = None,
                ) -> tuple[list[LoadedFile], list[list[Any] | None]]:
    """Every input of a command, read with the same options (:func:`load_input`).

    The harness of each file is detected on its own: with ``--filter`` and no ``--from``,
    the filter applies to the lm-eval files among several inputs and the others are read
    without it (a note on each says so); with no lm-eval file among them it is refused as
    for one file.

    Args:
        sources: the inputs, in order.
        options: the input options.
        clusters: ``"all"`` (report: each file's own labels) or ``"first"`` (compare and
            leaderboard: the first file's labels apply to the paired questions).
        progress: makes a progress bar for a source, or None.

    Returns:
        The loaded inputs and, per input, its coded answers (None without ``answers``).
    """
    for source in sources:
        check_name(source)
    filters = [options.filter] * len(sources)
    notes: list[list[str]] = [[] for _ in sources]
    if options.filter is not None and options.tool is None and len(sources) > 1:
        tools = [_harness_of(source) for source in sources]
        if "lm-eval" in tools:
            for index, tool in enumerate(tools):
                if tool != "lm-eval":
                    filters[index] = None
                    what = f"a {tool} file" if tool else "not an lm-eval file"
                    notes[index].append(f"{sources[index]}: --filter {options.filter} applies "
                                        f"to lm-eval files; this is {what}, read without it")
    # the progress bar drives the plain reader only (the others read without one)
    plain = not options.answers and options.id is None and options.threshold is None and (
        options.sample is None)
    loaded, answers = [], []
    for index, source in enumerate(sources):
        own = options if filters[index] == options.filter else _replace_filter(options, None)
        item, coded = load_input(source, own, clusters=clusters == "all" or index == 0,
                                 progress=progress(source) if progress and plain else None)
        item.notes[:0] = notes[index]
        loaded.append(item)
        answers.append(coded)
    if options.threshold is not None:
        check_threshold(options.threshold, loaded)
    return loaded, answers


def check_threshold(threshold: float, loaded: list[LoadedFile]) -> None:
    """Refuse a ``--threshold`` that leaves every sample of every input right or every wrong.

    A sample is correct iff its score > T, so a T below the smallest score read makes every
    sample correct and a T at or above the largest every sample wrong (``--threshold 50`` on
    scores in [0, 1]: Pass@1 = 0). The range is pooled over the inputs, so one model wrong
    everywhere beside another is still compared.

    Raises:
        ReportError: ``threshold`` outside [smallest, largest) of the scores read, naming
            the range.
    """
    ranges = [(soft.low, soft.high) for item in loaded
              if (soft := getattr(item, "soft", None)) is not None]
    if not ranges:
        return
    low, high = min(r[0] for r in ranges), max(r[1] for r in ranges)
    if low <= threshold < high:
        return
    what = "correct" if threshold < low else "wrong"
    where = loaded[0].source if len(loaded) == 1 else ", ".join(i.source for i in loaded)
    raise ReportError(where, f"--threshold {threshold:g} is outside the scores read, "
                             f"[{low:g}, {high:g}]: a sample is correct iff its score > T, so "
                             f"every sample would be {what}; choose T with {low:g} <= T < "
                             f"{high:g}")


def _replace_filter(options: InputOptions, filter: str | None) -> InputOptions:  # noqa: A002
    from dataclasses import replace

    return replace(options, filter=filter)


def _harness_of(source: str) -> str | None:
    """The harness that wrote ``source`` when it is one file that says so, else None."""
    if not Path(source).is_file():
        return None
    return detect_harness(source)


def load_file(source: str, *, tool: str | None = None, filter: str | None = None,
              column: str | None = None, chunk_size: int = 65536, skip_bad: bool = False,
              progress: Progress | None = None, partial: bool = False) -> LoadedFile:
    """A plain outcome file (:func:`~kpass.io.formats.readers.load_counts`) or a harness file.

    The harness path is taken with ``tool`` or ``filter``, with a nested ``column``,
    or when the plain reader cannot use the file and :func:`detect_harness`
    recognises it (so a plain file costs nothing extra). The counts of a harness
    file carry its question ids, so ``kpass compare`` matches two runs by id.

    A folder of part files or a glob pattern (:func:`kpass.io.shards.shard_paths`) is
    read part by part, in sorted order, and pooled: the questions of all parts, as one
    file holding every row in that order would give. ``partial``: an Inspect log of a run
    that did not finish is read as far as it goes (:func:`load_inspect`).
    """
    if tool is None and filter is None and is_inspect_log(source):
        # Inspect AI logs: kpass.io.harness.inspect_log
        return load_inspect(source, column=column, partial=partial)
    parts = shard_parts(source)
    if parts is not None:
        if tool is not None or filter is not None or is_path(column):
            raise ReportError(source, "harness files and nested --column paths are read one "
                                      "file at a time; give each as its own input")
        pooled = _pooled(source, [load_file(part, column=column, chunk_size=chunk_size,
                                            skip_bad=skip_bad, progress=None)
                                  for part in parts.paths], parts.labels)
        pooled.notes.extend(parts.notes)
        return pooled
    if not Path(source).exists():
        raise ReportError(source, "no such file or directory")
    if tool is None and filter is None and not is_path(column):
        try:
            return load_counts(source, column=column, chunk_size=chunk_size,
                               skip_bad=skip_bad, progress=progress)
        except ReportError:
            # A pipe was read once already; only a regular file can be probed again.
            if not Path(source).is_file() or detect_harness(source) is None:
                raise
    elif progress is not None:
        progress.close()
    counts, ids, label = load_harness(source, tool, column, filter)
    shortest = int(counts.n_samples.argmin())
    return LoadedFile(source, Path(source), label, counts, f"question {ids[shortest]!r}")


def _pooled(source: str, loaded: list[LoadedFile], labels: list[str]) -> LoadedFile:
    """One input from the parts of a sharded one: counts concatenated in part order.

    ``labels`` name the parts in messages (paths relative to the input).
    """
    columns = {item.column for item in loaded}
    if len(columns) > 1:
        first, second = sorted(columns, key=str)[:2]
        raise ReportError(source, f"the parts use different outcome columns ({first}, "
                                  f"{second}); give --column")
    try:
        counts = BinaryCounts.concat([item.counts for item in loaded])
    except ValueError as error:  # some parts carry question ids, some do not
        raise ReportError(source, f"the parts cannot be pooled: {error}") from None
    shortest = min(range(len(loaded)), key=lambda index: loaded[index].n_min)
    bad_rows = [(f"{label}, {where}", problem)
                for item, label in zip(loaded, labels, strict=True)
                for where, problem in item.bad_rows]
    return LoadedFile(source, loaded[0].path, loaded[0].column, counts,
                      f"{labels[shortest]}, {loaded[shortest].shortest}", bad_rows)


def _skeleton(name: str) -> str:
    """A part's name with its numbers blanked: ``part-00003.csv`` -> ``part-#.csv``."""
    import re

    return re.sub(r"\d+", "#", name)


def check_one_folder_run(source: str) -> None:
    """Refuse a folder whose files are named like separate runs, not parts of one table.

    The parts of one table are named ``part...`` or alike but for their numbers
    (``part.3.parquet``, ``run-1.jsonl``) or sit in ``key=value`` partition folders; files
    directly in the folder with different names (``gpt-4o.jsonl``, ``llama.jsonl``) are
    one file per model, which a folder would pool into one run without a word.

    Raises:
        ReportError: such a folder (naming two of its files and what to do).
    """
    if not Path(source).is_dir():
        return
    parts = shard_parts(source)
    if parts is None or len(parts.paths) < 2 or any("/" in label or "\\" in label
                                                    for label in parts.labels):
        return
    if all(Path(label).name.lower().startswith("part") for label in parts.labels):
        return  # Spark's part-00000-<job uuid>-c000...: several jobs' parts are still parts
    names = sorted({_skeleton(Path(label).name): label for label in parts.labels}.values())
    if len(names) < 2:
        return
    raise ReportError(source, f"the folder's {len(parts.paths)} files are named like separate "
                              f"runs ({names[0]}, {names[1]}{', ...' if len(names) > 2 else ''}"
                              "), not parts of one table (part-0, part-1, ...): kpass would "
                              "pool them as one model; pass --by file to read one model per "
                              f"file, give each file as its own input ({Path(source) / names[0]}"
                              " ...), or pass --pool to read them as one run")


def check_one_run(item: LoadedFile, options: InputOptions) -> None:
    """Refuse a long file whose rows name several models or runs (:data:`RUN_COLUMNS`).

    Read with ``--id``, every row of a question counts as one of its samples, whoever
    wrote it: a ``model`` column with two values would pool two models into one run. The
    column is read per question (as ``--clusters`` labels are); one value throughout is
    one run.

    Raises:
        ReportError: a run column with several values (naming it, two values and what to
            do).
    """
    from .long.long_labels import question_labels

    assert options.id is not None
    used = {options.id, options.sample, options.column, options.clusters, options.group,
            item.column}
    for name in RUN_COLUMNS:
        if name in used or not _has_column(item.source, name, options):
            continue
        try:
            labels = question_labels(item.source, options.id, name, item.counts.ids,
                                    options.chunk_size)
            values = [repr(value) for value in dict.fromkeys(labels)]
        except ReportError as error:  # one question's rows disagree: named in the message
            found = re.search(r"labels: (.+?) at .+? and (.+?) at ", str(error))
            values = [found[1], found[2]] if found else ["?", "?"]
        if len(values) > 1:
            shown = ", ".join(values[:2])
            raise ReportError(item.source, f"column `{name}` holds several values ({shown}"
                                           f"{', ...' if len(values) > 2 else ''}): read "
                                           f"with --id, their rows would be pooled as one "
                                           f"run; pass --by {name} to read one model per "
                                           "value, or --pool to pool them on purpose")


def _has_column(source: str, name: str, options: InputOptions) -> bool:
    """Whether the long file (or its first part) has a column ``name``."""
    from .formats.base import detect_format
    from .long.long_rows import _CHUNKS

    parts = shard_parts(source)
    path = Path(source if parts is None else parts.paths[0])
    names = {"id": options.id, "sample": None, "column": name}
    try:
        next(iter(_CHUNKS[detect_format(path)](str(path), path, names, 1)), None)
    except ReportError:
        return False
    except Exception:  # noqa: BLE001 - unreadable here: the reader already read it
        return False
    return True
