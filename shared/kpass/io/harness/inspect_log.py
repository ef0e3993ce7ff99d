r"""Inspect AI evaluation logs (``.eval`` and ``.json``) -> per-question counts.

`Inspect AI <https://inspect.aisi.org.uk>`_ writes one log per (task, model) run. Each
sample is scored once per epoch, so a log holds exactly what kpass needs: the question is
the sample id, the samples of a question are its epochs. The log is read by Inspect's own
reader (``pip install 'kpass[inspect]'``): the header by
``inspect_ai.log.read_eval_log(header_only=True)`` and the scores by
``inspect_ai.log.read_eval_log_sample_summaries``, which for an ``.eval`` log reads the
per-sample summaries (id, epoch, scores, error) and never the messages, so memory is
bounded by questions x epochs, not by the log's text. (A ``.json`` log is one JSON
document: Inspect parses it whole; convert big logs with ``inspect log convert --to eval``.)

Scores:
    A score value is mapped to a number as Inspect's own ``value_to_float()`` maps it:
    ``C`` (CORRECT) -> 1, ``I`` (INCORRECT) -> 0, ``P`` (PARTIAL) -> 0.5, ``N`` (NOANSWER)
    -> 0, yes/true -> 1, no/false -> 0, numbers as they are. An outcome must then be 0 or
    1; other numbers (0.5 of a partial, a graded 0.7) are soft scores: give ``threshold``
    (``--threshold T``: correct iff score > T). A value ``value_to_float`` cannot read
    (Inspect would warn and count it 0) is an error naming the sample and epoch.

Scorer:
    ``column`` (``--column``) names the scorer (``match``), or ``SCORER.KEY`` for a scorer
    whose value is a dict (``model_graded.accuracy``); by default the log's only scorer,
    and an error listing them when there are several.

Status and errors:
    A log whose status is not ``success`` (``started``, ``error``, ``cancelled``) or that
    is invalidated is refused, naming its status: its samples are incomplete. With
    ``partial`` (``--partial``) a log of a run still going (``started``: Inspect writes each
    sample as it is scored), stopped (``cancelled``) or failed (``error``) is read as far as
    it goes: the samples already scored, with a note naming the status (a run to watch:
    docs/how-to/adaptive.md). An invalidated log is refused even then. Samples that
    errored (Inspect's ``fail_on_error`` let the run finish) or have no score are left
    out: their question has fewer samples, handled by the ``--short`` policy, and each is
    listed in ``LoadedFile.bad_rows`` (``kpass report`` prints them as warnings).

Example:
    >>> inspect_install_hint()
    "reading Inspect AI logs needs inspect-ai: pip install 'kpass[inspect]'"
"""

from __future__ import annotations

import importlib
import math
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..._core.counting.checks import InputError
from ..._core.counting.counts import BinaryCounts
from ..errors import ReportError, show
from ..formats.readers import LoadedFile, SoftScores
from ..rows import canonical_id
from .inspect_files import check_members, is_inspect_log


@dataclass
class InspectFile(LoadedFile):
    """A :class:`LoadedFile` of an Inspect log.

    Attributes:
        soft: the mean soft score, set when a threshold was given.
        usage: per question (in the order of ``counts``), its counted epochs' tokens
            summed over the models of each epoch's ``model_usage``: columns input, output,
            total (shape questions x 3); None when no epoch recorded usage.
    """

    soft: SoftScores | None = None
    usage: np.ndarray | None = None


__all__ = ["InspectFile", "check_same_task", "inspect_install_hint",
           "inspect_labels", "load_inspect", "read_inspect"]

def inspect_install_hint() -> str:
    """The one line said when inspect-ai is missing."""
    return "reading Inspect AI logs needs inspect-ai: pip install 'kpass[inspect]'"


def _need_inspect(source: str) -> Any:
    """``inspect_ai.log``, or a ReportError naming the extra."""
    try:
        import inspect_ai.log as log
    except ImportError:
        raise ReportError(source, inspect_install_hint()) from None
    return log


def _header(source: str) -> Any:
    log = _need_inspect(source)
    check_members(source)
    try:
        return log.read_eval_log(source, header_only=True)
    except Exception as error:  # noqa: BLE001 - a broken zip, bad JSON, a schema error
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        whole = _whole_json(source, log)
        if whole is None:
            raise ReportError(source, f"not a readable Inspect log ({first})") from None
        return whole


def _whole_json(source: str, log: Any) -> Any:
    """A ``.json`` log Inspect's streaming reader refuses, parsed whole (else None).

    Re-saved with its keys sorted or a byte-order mark first, a ``.json`` log is still a
    log; Inspect's own model (``EvalLog``) reads it once its text is decoded. A ``.json``
    log is parsed whole by Inspect too, so memory is what Inspect would take.
    """
    if Path(source).suffix.lower() != ".json":
        return None
    try:
        text = Path(source).read_bytes().decode("utf-8-sig")
        return log.EvalLog.model_validate_json(text)
    except Exception:  # noqa: BLE001 - not a log after all: the caller says why
        return None


def _summaries(source: str, header: Any) -> list[Any]:
    """Each epoch's id, epoch, scores and error (the samples of a log read whole)."""
    if getattr(header, "samples", None) is not None:
        return list(header.samples)
    log = _need_inspect(source)
    try:
        return list(log.read_eval_log_sample_summaries(source))
    except Exception as error:  # noqa: BLE001 - a broken zip, bad JSON, a schema error
        raise ReportError(source, f"not a readable Inspect log ({error})") from None


def inspect_labels(sources: list[str]) -> list[str | None]:
    """A name per input: the model of each Inspect log (None for other files).

    The model name (``openai/gpt-4o``) from the log header; where two logs have the same
    model, ``model (task)``; where that clashes too, None (the caller's file names).
    """
    found: list[tuple[str, str] | None] = []
    for source in sources:
        if not is_inspect_log(source):
            found.append(None)
            continue
        try:
            header = _header(source)
        except ReportError:
            found.append(None)
            continue
        found.append((str(header.eval.model), str(header.eval.task)))
    models = [item[0] if item else None for item in found]
    tasks = [f"{item[0]} ({item[1]})" if item else None for item in found]
    labels: list[str | None] = []
    for model, task in zip(models, tasks, strict=True):
        if model is None:
            labels.append(None)
        elif models.count(model) == 1:
            labels.append(model)
        elif tasks.count(task) == 1:
            labels.append(task)
        else:
            labels.append(None)
    return labels


def check_same_task(sources: list[str]) -> None:
    """Refuse to pair Inspect logs of different tasks (``eval.task``) by sample id.

    Inspect's sample ids are often 1..N, so the logs of any two tasks "match" by id
    without holding the same questions. Files that are not Inspect logs are not checked.

    Raises:
        ReportError: two logs of different tasks (naming both and the option that pairs
            them anyway, ``--any-task``).
    """
    seen: tuple[str, str] | None = None
    for source in sources:
        if not is_inspect_log(source):
            continue
        task = str(_header(source).eval.task)
        if seen is None:
            seen = (source, task)
        elif task != seen[1]:
            raise ReportError(source, f"an Inspect log of task {task!r}, but {seen[0]} is of "
                                      f"task {seen[1]!r}: their sample ids (often 1..N) would "
                                      "pair questions that are not the same; give logs of one "
                                      "task, or pass --any-task to pair them by id anyway")


def _scorer(source: str, names: list[str], column: str | None) -> tuple[str, str | None]:
    """(scorer, key) chosen by ``--column SCORER`` / ``SCORER.KEY`` or the only scorer."""
    listed = ", ".join(f"`{name}`" for name in names) or "none"
    if column is None:
        if len(names) == 1:
            return names[0], None
        raise ReportError(source, f"the log has {len(names)} scorers ({listed}); choose one "
                                  "with --column SCORER (or SCORER.KEY for a dict score)")
    if column in names:
        return column, None
    scorer, dot, key = column.rpartition(".")
    if dot and scorer in names:
        return scorer, key
    raise ReportError(source, f"no scorer `{column}`; the log's scorers are {listed} "
                              "(--column SCORER, or SCORER.KEY for a dict score)")


def _number(value: Any, to_float: Any, constants: tuple[Any, ...]) -> float | None:
    """The value as Inspect's ``value_to_float`` maps it; None where it cannot (it would say 0)."""
    if isinstance(value, bool) or value in constants:
        return float(to_float(value))
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):  # exactly as value_to_float reads text: " yes" it cannot
        if value.lower() in ("yes", "no", "true", "false"):
            return float(to_float(value))
        try:
            number = float(value)
        except ValueError:
            return None
        return float(to_float(value)) if math.isfinite(number) else None
    return None


def _first_line(error: Any) -> str:
    """The first line of an epoch's error (a summary's text or a sample's ``EvalError``)."""
    lines = str(getattr(error, "message", error)).strip().splitlines()
    return lines[0] if lines else "no message"


def _check_status(source: str, header: Any, partial: bool) -> str | None:
    """Refuse a log that did not succeed (unless ``partial``); the note said when partial.

    Returns:
        None for a finished log, else the note of a partial read (its status named).
    """
    invalidated = bool(getattr(header, "invalidated", False))
    if header.status == "success" and not invalidated:
        return None
    status = "invalidated" if header.status == "success" else header.status
    message = getattr(header.error, "message", None) if header.error else None
    detail = f" ({str(message).strip().splitlines()[0]})" if message else ""
    if partial and not invalidated:
        return (f"{source}: the log's status is {status!r}{detail}: read with --partial, "
                "the samples scored so far")
    if status == "started":
        raise ReportError(source, "the log's status is 'started' (a run in progress, or one "
                                  "killed before it finished): add --partial to read the "
                                  "samples scored so far")
    hint = ("" if invalidated else
            "; or add --partial to read the samples scored before it stopped")
    raise ReportError(source, f"the log's status is {status!r}, not 'success'{detail}: its "
                              "samples are incomplete; finish the run (inspect eval-retry) "
                              f"and read the finished log{hint}")


def _complete(source: str, header: Any, summaries: list[Any], notes: list[str] | None
              ) -> list[Any]:
    """The epochs of the questions whose every epoch is done, in the order they got done.

    A log read with ``--partial`` holds each epoch as it finished (scored or errored); a
    question counts once all its epochs (``eval.config.epochs``) are there, and the
    questions are ordered by when their last epoch finished. So a question's outcomes never
    change between two looks at a growing log, and the questions of an earlier look come
    first in a later one (what a confidence sequence over questions needs).

    Raises:
        ReportError: no question has all its epochs yet.
    """
    expected = int(getattr(header.eval.config, "epochs", None) or 1)
    done: dict[Any, int] = {}
    finished: dict[Any, int] = {}
    for position, summary in enumerate(summaries):
        done[summary.id] = done.get(summary.id, 0) + 1
        if done[summary.id] == expected:
            finished[summary.id] = position
    if not finished:
        raise ReportError(source, f"the log's status is {header.status!r} and no question has "
                                  f"all its {expected} epoch{'s' * (expected != 1)} done yet: "
                                  "read it again once some have")
    waiting = len(done) - len(finished)
    if waiting and notes is not None:
        notes.append(f"{source}: {waiting} question{'s' * (waiting != 1)} with epochs still "
                     f"running left out (each question counts once all its {expected} "
                     "epochs are done)")
    kept = [summary for summary in summaries if summary.id in finished]
    return sorted(kept, key=lambda summary: finished[summary.id])  # stable: epochs in order


def _usage(summary: Any) -> tuple[int, int, int] | None:
    """An epoch's (input, output, total) tokens over its models, or None if not recorded.

    A total the log does not give is input + output.
    """
    usage = getattr(summary, "model_usage", None) or {}
    if not usage:
        return None
    sums = [0, 0, 0]
    for item in usage.values():
        given = int(getattr(item, "input_tokens", 0) or 0), int(getattr(item, "output_tokens",
                                                                        0) or 0)
        total = getattr(item, "total_tokens", None)
        sums[0] += given[0]
        sums[1] += given[1]
        sums[2] += int(total) if total is not None else given[0] + given[1]
    return sums[0], sums[1], sums[2]


def _read(source: str, column: str | None, bad: list[tuple[str, str]], raws: list[Any],
          partial: bool = False, notes: list[str] | None = None,
          usages: list[tuple[int, int, int] | None] | None = None
          ) -> tuple[str, list[str], list[Any], list[int], list[float]]:
    """The scorer and (where, sample id, epoch, value) of each scored epoch, as columns.

    ``raws`` receives each value as the log holds it (messages quote it exactly);
    ``notes`` the note of a partial read; ``usages`` each scored epoch's tokens.

    Epochs that errored or have no score are listed in ``bad`` and left out.
    """
    _need_inspect(source)
    from inspect_ai.scorer import CORRECT, INCORRECT, NOANSWER, PARTIAL, value_to_float

    header = _header(source)
    note = _check_status(source, header, partial)
    if note is not None and notes is not None:
        notes.append(note)
    summaries = _summaries(source, header)
    if note is not None:
        summaries = _complete(source, header, summaries, notes)
    names: list[str] = []
    if header.results is not None:
        names.extend(str(score.scorer) for score in header.results.scores)
    for summary in summaries:
        for name in summary.scores or {}:
            if name not in names:
                names.append(name)
    errored = [summary for summary in summaries if summary.error is not None]
    if not names and errored and len(errored) == len(summaries):
        raise ReportError(source, f"every epoch errored ({len(errored)} of {len(errored)}; "
                                  f"first: sample {errored[0].id!r} epoch {errored[0].epoch}: "
                                  f"{_first_line(errored[0].error)}): no score to read; fix "
                                  "the failure and re-run (inspect eval-retry)")
    scorer, key = _scorer(source, list(dict.fromkeys(names)), column)
    to_float = value_to_float()
    constants = (CORRECT, INCORRECT, PARTIAL, NOANSWER)
    where: list[str] = []
    ids: list[Any] = []
    epochs: list[int] = []
    values: list[float] = []
    for summary in summaries:
        place = f"sample {summary.id!r} epoch {summary.epoch}"
        if summary.error is not None:
            bad.append((place, f"the sample errored ({_first_line(summary.error)})"))
            continue
        score = (summary.scores or {}).get(scorer)
        if score is None:
            bad.append((place, f"no `{scorer}` score"))
            continue
        value = score.value
        if key is not None:
            if not isinstance(value, dict) or key not in value:
                raise ReportError(source, f"the `{scorer}` score has no key `{key}`: "
                                          f"{show(value)}", place)
            value = value[key]
        elif isinstance(value, (dict, list)):
            keys = (", ".join(f"`{scorer}.{k}`" for k in value) if isinstance(value, dict)
                    else "")
            hint = f"; choose a key with --column ({keys})" if keys else ""
            raise ReportError(source, f"the `{scorer}` score is a {type(value).__name__} "
                                      f"{show(value)}, not one value{hint}", place)
        number = _number(value, to_float, constants)
        if number is None:
            raise ReportError(source, f"cannot read the `{scorer}` score {show(value)} as an "
                                      "outcome (expected C/I/P/N, yes/no, true/false or a "
                                      "number)", place)
        where.append(place)
        ids.append(summary.id)
        epochs.append(summary.epoch)
        values.append(number)
        raws.append(value)
        if usages is not None:
            usages.append(_usage(summary))
    label = scorer if key is None else f"{scorer}.{key}"
    return label, where, ids, epochs, values


def load_inspect(source: str, *, column: str | None = None, threshold: float | None = None,
                 partial: bool = False) -> InspectFile:
    """An Inspect log as per-question counts (questions are sample ids, samples epochs).

    Args:
        source: an ``.eval`` or Inspect ``.json`` log.
        column: the scorer (``SCORER`` or ``SCORER.KEY``); default the only one.
        threshold: soft scores: an epoch is correct iff its score > threshold (the mean
            soft score is kept in ``soft``).
        partial: read a log that did not finish (``started``, ``cancelled``, ``error``):
            the samples scored so far, with a note in ``notes``.

    Returns:
        The counts keyed by sample id (first-seen order), the scorer as the column, and the
        epochs left out (errored, unscored) in ``bad_rows``.

    Raises:
        ReportError: inspect-ai missing, an unreadable log, a status other than success
            (without ``partial``; an invalidated log even with it),
            an unknown or ambiguous scorer, a value that is not an outcome (a partial or
            graded score without ``threshold``).
    """
    if not Path(source).exists():
        raise ReportError(source, "no such file or directory")
    bad: list[tuple[str, str]] = []
    raws: list[Any] = []
    notes: list[str] = []
    usages: list[tuple[int, int, int] | None] = []
    label, where, ids, epochs, values = _read(source, column, bad, raws, partial, notes,
                                              usages)
    if not where:
        first = f" (first: {bad[0][0]}: {bad[0][1]})" if bad else ""
        so_far = " yet" if notes else ""
        raise ReportError(source, f"the log holds no scored sample{so_far}{first}")
    loaded = _count(source, label, where, ids, epochs, values, threshold, bad, raws)
    loaded.notes.extend(notes)
    loaded.usage = _question_usage(loaded, ids, usages)
    return loaded


def _question_usage(loaded: InspectFile, ids: list[Any],
                    usages: list[tuple[int, int, int] | None]) -> np.ndarray | None:
    """Per question of ``loaded.counts`` its counted epochs' tokens (input, output, total).

    None when no epoch recorded usage; an epoch without usage among others that have it
    counts 0 tokens (Inspect records usage only for model calls).
    """
    if all(usage is None for usage in usages):
        return None
    assert loaded.counts.ids is not None
    slot = {qid: index for index, qid in enumerate(loaded.counts.ids)}
    sums = np.zeros((len(slot), 3), dtype=np.int64)
    for raw, usage in zip(ids, usages, strict=True):
        if usage is not None:
            sums[slot[canonical_id(raw, loaded.source, "")]] += usage
    return sums


def _quoted(score: Any, value: float) -> str:
    """The score as the log holds it (``'1_0'``, ``1.0000000000000002``), with its reading.

    Example:
        >>> _quoted("1_0", 10.0), _quoted(1.0000000000000002, 1.0000000000000002)
        ("'1_0' (read as 10.0)", '1.0000000000000002')
    """
    text = repr(score)
    return text if text == repr(value) else f"{text} (read as {value!r})"


def _count(source: str, label: str, where: list[str], ids: list[Any], epochs: list[int],
           values: list[float], threshold: float | None, bad: list[tuple[str, str]],
           raws: list[Any]) -> InspectFile:
    """Per-question counts (first-seen order of sample ids); checks each value and pair."""
    slot: dict[Any, int] = {}
    seen: dict[tuple[Any, int], str] = {}
    n: list[int] = []
    c: list[int] = []
    total: list[float] = []
    first: list[str] = []
    for place, raw, epoch, value, score in zip(where, ids, epochs, values, raws, strict=True):
        qid = canonical_id(raw, source, place)
        if (qid, epoch) in seen:
            raise ReportError(source, f"sample {qid!r} epoch {epoch} appears twice: at "
                                      f"{seen[qid, epoch]} and at {place}")
        seen[qid, epoch] = place
        if threshold is None:
            if value not in (0.0, 1.0):
                raise ReportError(source, f"score {_quoted(score, value)} is not binary (0 or "
                                          "1); for soft scores pass --threshold T (correct "
                                          "iff score > T)", place)
            hard = int(value)
        else:
            if not 0.0 <= value <= 1.0:
                raise ReportError(source, f"soft score {_quoted(score, value)} is outside "
                                          "[0, 1]; scores read with --threshold must lie in "
                                          "[0, 1]", place)
            hard = int(value > threshold)
        index = slot.get(qid)
        if index is None:
            index = slot[qid] = len(n)
            n.append(0)
            c.append(0)
            total.append(0.0)
            first.append(place)
        n[index] += 1
        c[index] += hard
        total[index] += value
    ids_array = np.empty(len(slot), dtype=object)
    ids_array[:] = list(slot)
    sizes = np.array(n, dtype=np.int64)
    counts = BinaryCounts(sizes, np.array(c, dtype=np.int64), ids=ids_array)
    soft = None
    if threshold is not None:
        means = np.array(total) / sizes
        se = float(means.std(ddof=1) / math.sqrt(means.size)) if means.size > 1 else 0.0
        read = [value for value in values if 0.0 <= value <= 1.0]
        soft = SoftScores(float(means.mean()), se, float(threshold), min(read), max(read))
    return InspectFile(source, Path(source), label, counts, first[int(np.argmin(sizes))], bad,
                       soft)


def read_inspect(path: str | Path, *, scorer: str | None = None,
                 threshold: float | None = None) -> BinaryCounts:
    """Per-question counts of an Inspect AI log, keyed by sample id (``kpass[inspect]``).

    Each sample is a question and each of its epochs one sample; scores map to 0/1 by
    Inspect's own ``value_to_float`` (C -> 1, I -> 0, N -> 0; P -> 0.5 needs
    ``threshold``). Errored epochs are left out (that question has fewer samples), with
    one ``UserWarning`` giving their count.

    Args:
        path: an ``.eval`` or ``.json`` log written by Inspect.
        scorer: the scorer name (``SCORER.KEY`` for a dict-valued score); default the
            log's only scorer.
        threshold: for soft scores: an epoch is correct iff its score > threshold.

    Returns:
        :class:`~kpass.BinaryCounts` with ``ids`` the sample ids, ready for every kpass
        metric, ``kpass.compare`` (matched by id) and ``kpass.leaderboard``.

    Raises:
        ValueError: the log cannot be read as outcomes (the message names the file, the
            sample and epoch); ImportError when inspect-ai is missing.

    Example (a log written by ``inspect eval ... --epochs 8``)::

        counts = kpass.read_inspect("logs/2026-01-01T00-00-00+00-00_gsm8k_x.eval")
        kpass.pass_at_k(counts, [1, 4])
    """
    try:
        importlib.import_module("inspect_ai")  # only to fail early with a clear message
    except ImportError:
        raise ImportError(inspect_install_hint()) from None
    try:
        loaded = load_inspect(str(path), column=scorer, threshold=threshold)
    except ReportError as error:
        raise InputError(str(error)) from None
    if loaded.bad_rows:
        count = len(loaded.bad_rows)
        where, problem = loaded.bad_rows[0]
        warnings.warn(f"{path}: {count} errored or unscored epoch{'s' * (count != 1)} left "
                      f"out, fewer samples for their questions (first: {where}: {problem})",
                      UserWarning, stacklevel=2)
    return loaded.counts
