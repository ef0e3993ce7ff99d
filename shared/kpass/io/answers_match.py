"""Answers -> integer codes: each question's answers matched against its reference.

Answers are compared by canonical form (:func:`~kpass._core.counting.canonical.canonical_answer`:
170, "170" and 170.0 match), or by the key built around a ``--normalize`` function,
which :func:`import_normalizer` imports. One question's answers are coded 0 (equal to
the reference), 1, 2, ... (each distinct wrong answer) or None (no answer) by
:func:`_encode`; a reference that is no answer is refused (:func:`_reference_codes`).
:class:`_ByRow` (one question per record) and :class:`_ById` (records grouped by
question id, :func:`_question_id`, one reference per question) gather a file's coded
questions record by record. Reading the answer files is :mod:`kpass.io.answers`'s.

Example:
    >>> _encode(["170", 170.0, "17", None, " ", "x"], 170, "answers")
    [0, 0, 1, None, None, 2]
    >>> _encode([1], None, "answers")
    'the reference must be one answer (not null or a list); got None'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from .._core.counting.canonical import canonical_answer
from .errors import ReportError, show
from .rows import Unreadable


def _encode(answers: Any, reference: Any, label: str,
            key: Callable[[Any], Any] = canonical_answer,
            normalizer: str | None = None) -> list[int | None] | str:
    """Integer codes of one question's answers, or the reason they cannot be read.

    Answers are compared by ``key`` (canonical form: 170, "170" and 170.0 match);
    answers whose key is None (no answer) are coded None.
    """
    if isinstance(answers, Unreadable):
        return answers.problem
    if not isinstance(answers, list):
        return f"`{label}` must be a list of answers; got {show(answers)}"
    if not answers:
        return f"`{label}` is an empty list; a question needs at least one answer"
    codes = _reference_codes(reference, key, normalizer)
    if isinstance(codes, str):
        return codes
    return _code_answers(answers, label, key, codes)


def _reference_codes(reference: Any, key: Callable[[Any], Any],
                     normalizer: str | None) -> dict[Any, int] | str:
    """The code table of one question, ``{reference key: 0}``, or why the reference is unusable."""
    if isinstance(reference, Unreadable):
        return reference.problem
    if reference is None or isinstance(reference, (list, dict)):
        return f"the reference must be one answer (not null or a list); got {show(reference)}"
    try:
        gold = key(reference)
    except ValueError as error:  # the user's normaliser failed: say on which answer
        return str(error)
    except TypeError:
        return _UNHASHABLE
    if gold is None:
        after = f" after --normalize {normalizer}" if normalizer else ""
        return (f"the reference {show(reference)} is no answer{after} (None, NaN or blank text), "
                "so no answer could match it; give every question a reference")
    return {gold: 0}


_UNHASHABLE = "the normaliser returned an unhashable value (e.g. a list); return text or a number"


def _code_answers(answers: list[Any], label: str, key: Callable[[Any], Any],
                  codes: dict[Any, int]) -> list[int | None] | str:
    """Codes of ``answers`` in the table ``codes`` (extended with new wrong answers)."""
    encoded: list[int | None] = []
    try:
        for position, answer in enumerate(answers):
            if isinstance(answer, (list, dict)):
                return f"`{label}` must hold final answers; got {label}[{position}]={show(answer)}"
            value = key(answer)
            encoded.append(None if value is None else codes.setdefault(value, len(codes)))
    except ValueError as error:  # the user's normaliser failed: say on which answer
        return str(error)
    except TypeError:
        return _UNHASHABLE
    return encoded


def import_normalizer(spec: str) -> Callable[[Any], Any]:
    """The function named ``module:function`` (``--normalize``), imported.

    Args:
        spec: e.g. ``my_project.grading:extract_boxed``; the current directory is on
            the import path, so a local ``norm.py`` works as ``norm:function``.

    Returns:
        The callable.

    Raises:
        ReportError: a malformed spec, a module that cannot be imported, a missing or
            non-callable attribute.
    """
    import importlib
    import sys

    module_name, _, name = spec.partition(":")
    if not module_name or not name:
        raise ReportError("--normalize", f"expected MODULE:FUNCTION; got {spec!r}")
    if "" not in sys.path:
        sys.path.insert(0, "")
    try:
        module = importlib.import_module(module_name)
    except SystemExit as stop:  # a script's `sys.exit()` at import would end kpass silently
        raise ReportError("--normalize", f"cannot import {module_name!r}: importing it called "
                                         f"sys.exit({stop.code!r})") from None
    except Exception as error:  # noqa: BLE001 - importing user code may raise anything
        raise ReportError("--normalize", f"cannot import {module_name!r} "
                                         f"({type(error).__name__}: {error})") from None
    function = getattr(module, name, None)
    if not callable(function):
        raise ReportError("--normalize", f"{module_name!r} has no function {name!r}")
    return function


class _Questions:
    """Coded questions accumulated record by record."""

    def __init__(self, source: str, key: Callable[[Any], Any], normalizer: str | None,
                 state: dict[str, str]) -> None:
        self.source = source
        self.key = key
        self.normalizer = normalizer
        self.state = state
        self.coded: list[list[int | None]] = []
        self.first: list[str] = []
        self.ids: list[Any] | None = None
        self.bad_rows: list[tuple[str, str]] = []

    def add(self, where: str, answers: Any, gold: Any, qid: Any, sample: Any) -> None:
        raise NotImplementedError


class _ByRow(_Questions):
    """One question per record (the wide format)."""

    def __init__(self, source: str, key: Callable[[Any], Any], normalizer: str | None,
                 state: dict[str, str], skip_bad: bool) -> None:
        super().__init__(source, key, normalizer, state)
        self.skip_bad = skip_bad

    def add(self, where: str, answers: Any, gold: Any, qid: Any, sample: Any) -> None:
        encoded = _encode(answers, gold, self.state.get("answers", "answers"), self.key,
                          self.normalizer)
        if isinstance(encoded, str):
            if not self.skip_bad:
                raise ReportError(self.source, encoded, where)
            self.bad_rows.append((where, encoded))
            return
        self.coded.append(encoded)
        self.first.append(where)


class _ById(_Questions):
    """Records grouped by question id: one answer per row (long), or a whole question (wide)."""

    def __init__(self, source: str, key: Callable[[Any], Any], normalizer: str | None,
                 state: dict[str, str]) -> None:
        super().__init__(source, key, normalizer, state)
        self.ids = []
        self.slot: dict[Any, int] = {}
        self.tables: list[dict[Any, int]] = []
        self.golds: list[Any] = []
        self.pairs: dict[tuple[Any, Any], str] = {}
        self.shape: str | None = None

    def add(self, where: str, answers: Any, gold: Any, qid: Any, sample: Any) -> None:
        label = self.state.get("answers", "answers")
        if isinstance(answers, Unreadable):
            raise ReportError(self.source, answers.problem, where)
        qid = _question_id(qid, "question id", self.source, where)
        shape = "wide" if isinstance(answers, list) else "long"
        if self.shape is None:
            self.shape = shape
        elif shape != self.shape:
            raise ReportError(self.source, f"a {shape} row (`{label}` = {show(answers)}) in a "
                                           f"file whose first row is {self.shape}", where)
        slot = self.slot.get(qid)
        if shape == "wide":
            if "sample" in self.state:
                raise ReportError(self.source, "--sample applies to long files (one answer per "
                                               "row); this row holds a list of answers", where)
            if slot is not None:
                raise ReportError(self.source, f"question id {qid!r} is repeated: "
                                               f"{self.first[slot]} and {where}")
            encoded = _encode(answers, gold, label, self.key, self.normalizer)
            if isinstance(encoded, str):
                raise ReportError(self.source, encoded, where)
            self._new(qid, where, {}, None)
            self.coded[-1] = encoded
            return
        if "sample" in self.state:
            pair = (qid, _question_id(sample, "sample id", self.source, where))
            if pair in self.pairs:
                raise ReportError(self.source, f"(id, sample) = ({pair[0]!r}, {pair[1]!r}) is "
                                               f"repeated: {self.pairs[pair]} and {where}")
            self.pairs[pair] = where
        if slot is None:
            codes = _reference_codes(gold, self.key, self.normalizer)
            if isinstance(codes, str):
                raise ReportError(self.source, codes, where)
            slot = self._new(qid, where, codes, gold)
        else:
            self._same_reference(slot, gold, where)
        encoded = _code_answers([answers], label, self.key, self.tables[slot])
        if isinstance(encoded, str):
            raise ReportError(self.source, encoded.replace(f"{label}[0]", label), where)
        self.coded[slot].extend(encoded)

    def _new(self, qid: Any, where: str, codes: dict[Any, int], gold: Any) -> int:
        assert self.ids is not None
        slot = self.slot[qid] = len(self.coded)
        self.ids.append(qid)
        self.coded.append([])
        self.first.append(where)
        self.tables.append(codes)
        self.golds.append(gold)
        return slot

    def _same_reference(self, slot: int, gold: Any, where: str) -> None:
        """Refuse a row whose reference differs from the first row's of its question."""
        first = self.golds[slot]
        if gold is first or gold == first:
            return
        codes = _reference_codes(gold, self.key, self.normalizer)
        if isinstance(codes, str):
            raise ReportError(self.source, codes, where)
        if codes.keys() != {next(iter(self.tables[slot]))}:
            assert self.ids is not None
            raise ReportError(self.source, f"question id {self.ids[slot]!r} has two references: "
                                           f"{show(first)} ({self.first[slot]}) and {show(gold)}",
                              where)


def _question_id(value: Any, what: str, source: str, where: str) -> Any:
    """A question or sample id as str or int; integer text (CSV) becomes an int, so files match."""
    if isinstance(value, Unreadable):
        raise ReportError(source, value.problem, where)
    if isinstance(value, str):
        text = value.strip()
        if not text:
            raise ReportError(source, f"the {what} is empty", where)
        return int(text) if _INT_TEXT.fullmatch(text) else text
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    raise ReportError(source, f"{what} {show(value)} must be a string or an integer", where)


_INT_TEXT = re.compile(r"-?(0|[1-9][0-9]{0,17})", re.ASCII)
