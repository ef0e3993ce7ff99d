r"""``--answers`` on an lm-eval ``--log_samples`` file: its repeats, scored one by one.

lm-eval scores each (document, filter) once even with ``repeats: N`` in the task (its
filters reduce the N generations to one answer first), so it reports no Pass@k over the
repeats. Its ``samples_<task>_<date>.jsonl`` keeps them: each row holds ``resps`` (the raw
generations, one list per request: ``[["a", "b", "c", "d"]]`` for 4 repeats), ``target``
(the reference), ``doc_id`` and the ``filter`` the row was scored under. Read with
``--answers``, the N generations of a document are its N sampled answers and ``target`` its
reference, so every answer is scored against the reference (after ``--normalize``) and
Pass@k, Pass^k, Maj@k and Vote@k come from the repeats.

A document appears once per filter; its rows hold the same ``resps`` (raw, before any
filter) and are one question (rows that disagree are an error naming both lines).
``filtered_resps`` and the per-filter scores are not used: lm-eval's filters (a
``regex`` extraction, ``lowercase``) are reproduced only by an equivalent ``--normalize``
function; ``majority_vote`` is Maj@k at k = N; ``take_first`` is one draw, whose
unbiased mean over the repeats is Pass@1.

Example:
    >>> rows = [{"doc_id": 0, "filter": "first", "target": "4", "resps": [["4", "5"]]},
    ...         {"doc_id": 0, "filter": "maj", "target": "4", "resps": [["4", "5"]]}]
    >>> [(qid, answers, gold) for _, answers, gold, qid, _ in lm_eval_answers(rows, "x")]
    [(0, ['4', '5'], '4')]
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..errors import ReportError, show
from ..rows import Unreadable

__all__ = ["check_not_lm_eval_results", "is_lm_eval_samples", "lm_eval_answers"]

_FIELDS = ("doc_id", "resps", "target", "filter")


def check_not_lm_eval_results(source: str) -> None:
    """Refuse lm-eval's aggregated ``results_<date>.json``, pointing to its samples file.

    lm-eval writes one ``results_*.json`` per run: each task's mean and stderr, no
    per-question outcome. The outcomes are in the ``samples_<task>_<date>.jsonl`` files
    ``--log_samples`` writes beside it. A ``.json`` file whose first 4 KB open with
    ``{"results": {`` and that holds lm-eval's ``configs`` or ``lm_eval_version`` is one.

    Raises:
        ReportError: ``source`` is such a file (naming the samples files beside it, or
            ``--log_samples`` when there are none).

    Example:
        >>> check_not_lm_eval_results("README.md")
    """
    path = Path(source)
    if path.suffix.lower() != ".json" or not path.is_file():
        return
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096).removeprefix(b"\xef\xbb\xbf").lstrip()
            if not head.startswith(b"{") or not head[1:].lstrip().startswith(b'"results"'):
                return
            handle.seek(0)
            document = json.loads(handle.read().decode("utf-8-sig"))
    except (OSError, ValueError):
        return
    if not isinstance(document, dict) or not (
            isinstance(document.get("results"), dict)
            and ("configs" in document or "lm_eval_version" in document)):
        return
    samples = sorted(item.name for item in path.parent.glob("samples_*.jsonl"))
    where = (f"give the samples file beside it ({', '.join(samples[:3])}"
             f"{', ...' if len(samples) > 3 else ''})" if samples else
             "re-run lm_eval with --log_samples and give the samples_<task>_<date>.jsonl "
             "file it writes")
    raise ReportError(source, "an lm-eval aggregated results file: it holds each task's "
                              "mean, not the per-question outcomes kpass needs; " + where)


def is_lm_eval_samples(path: Path) -> bool:
    """Whether ``path`` is an lm-eval ``--log_samples`` JSONL file (its first row says)."""
    from ..formats.parsers import _open_bytes

    try:
        with _open_bytes(path) as (stream, _):
            for line in stream:
                if line.strip():
                    first = json.loads(line)
                    return isinstance(first, dict) and all(name in first for name in _FIELDS)
    except (OSError, ValueError, RecursionError, EOFError):
        return False
    return False


def _generations(resps: Any) -> list[Any] | None:
    """The repeats of a row: ``[[g1, ..., gN]]`` (one request) -> ``[g1, ..., gN]``.

    None when they are not generated text (log-likelihood pairs of a multiple-choice task).
    """
    if not isinstance(resps, list) or len(resps) != 1 or not isinstance(resps[0], list):
        return None
    answers = resps[0]
    if not answers or not all(isinstance(a, str) for a in answers):
        return None
    return list(answers)


def lm_eval_answers(rows: Iterable[tuple[str, Any]] | Iterable[Any], source: str
                    ) -> Iterator[tuple[str, Any, Any, Any, None]]:
    """(where, answers, reference, doc id, None) per document, from its first row.

    ``rows`` are records, or (where, record) pairs. The other rows of a document (one per
    filter) must carry the same ``resps`` and ``target``.

    Raises:
        ReportError: a row that is not generated text (``resps`` of log-likelihoods), a
            missing field, or two rows of one document that disagree.
    """
    seen: dict[Any, tuple[str, int]] = {}  # doc id -> (first row, hash of resps and target)
    for number, item in enumerate(rows, 1):
        where, row = item if isinstance(item, tuple) else (f"row {number}", item)
        if not isinstance(row, dict) or any(name not in row for name in ("doc_id", "resps",
                                                                         "target")):
            raise ReportError(source, "expected an lm-eval --log_samples row with `doc_id`, "
                                      f"`resps` and `target`; got {show(row)}", where)
        answers = _generations(row["resps"])
        if answers is None:
            raise ReportError(source, f"`resps` is {show(row['resps'])}, not generated text: "
                                      "--answers reads generate_until tasks (their repeats); "
                                      "for a multiple_choice task read the scores without "
                                      "--answers", where)
        qid = row["doc_id"]
        first = seen.get(qid)
        digest = hash(json.dumps([answers, row["target"]], sort_keys=True, default=str))
        if first is not None:
            if first[1] != digest:
                raise ReportError(source, f"doc_id {qid!r} has other `resps` or `target` here "
                                          f"than at {first[0]} (lm-eval writes a document's "
                                          "raw generations once per filter)", where)
            continue
        seen[qid] = (where, digest)
        gold = row["target"]
        if gold is None or isinstance(gold, str) and not gold.strip():
            gold = Unreadable("the `target` is empty; every question needs its reference")
        yield where, answers, gold, qid, None


def lm_eval_records(source: str, path: Path, state: dict[str, str]) -> Iterator[Any]:
    """The answer records of an lm-eval samples file, line by line (for ``load_answers``)."""
    from ..formats.parsers import _open_bytes

    state.update({"answers": "resps", "reference": "target", "id": "doc_id"})

    def rows() -> Iterator[tuple[str, Any]]:
        with _open_bytes(path) as (stream, _):
            for number, line in enumerate(stream, 1):
                state["at"] = f"line {number}"
                if not line.strip():
                    continue
                try:
                    yield f"line {number}", json.loads(line)
                except (ValueError, RecursionError) as error:
                    raise ReportError(source, f"not valid JSON ({error})",
                                      f"line {number}") from None

    yield from lm_eval_answers(rows(), source)
