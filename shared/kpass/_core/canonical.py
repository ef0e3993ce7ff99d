"""Canonical answers: what "an answer equals the reference" means for Vote@k and --answers.

Final answers arrive as numbers from JSON (``170``), as text from CSV (``"170"``),
as floats from a dataframe (``170.0``). Compared by Python equality, ``170`` and
``"170"`` differ and every answer of a file can score wrong without a word. The
canonical form compares numbers as numbers and text stripped of surrounding space.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import numpy as np

_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def canonical_answer(value: Any) -> Any:
    """The canonical form of one final answer.

    Rules: None stays None ("no answer"); numbers, and text spelling a decimal
    number, become the number (an int when whole: ``170``, ``"170"``, ``170.0``
    and ``" 170.0 "`` are all ``170``); other text is stripped; booleans become
    ``"True"``/``"False"`` (an answer, not the number 1); NaN and infinities
    become their text; anything else is returned unchanged.

    Args:
        value: an answer or reference.

    Returns:
        A hashable canonical value (unhashable input is returned as is).

    Example:
        >>> [canonical_answer(v) for v in (170, "170", 170.0, " 170.0 ", "-0", " B ")]
        [170, 170, 170, 170, 0, 'B']
    """
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        number = float(value)
        if not math.isfinite(number):
            return str(number)
        return int(number) if number.is_integer() else number
    if isinstance(value, str):
        text = value.strip()
        if _NUMBER.fullmatch(text):
            number = Decimal(text)
            return int(number) if number == number.to_integral_value() else float(number)
        return text
    return value


def answer_key(normalize: Callable[[Any], Any] | None) -> Callable[[Any], Any]:
    """The function mapping an answer to its comparison key: ``normalize`` then canonical.

    Args:
        normalize: a user function applied first (e.g. a math answer extractor), or None.

    Returns:
        A function of one answer; None ("no answer") is passed through untouched.

    Raises:
        TypeError: ``normalize`` is not callable.
    """
    if normalize is None:
        return _remembered_canonical()
    if not callable(normalize):
        raise TypeError(f"`normalize` must be a callable answer -> answer; got {normalize!r}")

    def key(value: Any) -> Any:
        if value is None:
            return None
        try:
            out = normalize(value)
        except Exception as error:  # noqa: BLE001 - a user function may raise anything
            raise ValueError(f"`normalize` failed on the answer {value!r}: "
                             f"{type(error).__name__}: {error}") from None
        return canonical_answer(out)

    return key



def _remembered_canonical() -> Callable[[Any], Any]:
    """:func:`canonical_answer` remembering each distinct (type, value) it has seen.

    Answers repeat within and across questions, and the canonical form (type tests, a
    regular expression, a Decimal) costs ~20x a dictionary lookup. The type is part of
    the key because equal values of different types can differ canonically (``True``
    is ``"True"``, ``1`` is ``1``); a value that is not equal to itself (NaN) simply
    misses every time. Unhashable values go through uncached (and fail where they are
    counted, as before).
    """
    seen: dict[tuple[type, Any], Any] = {}

    def key(value: Any) -> Any:
        try:
            return seen[value.__class__, value]
        except KeyError:
            out = seen[value.__class__, value] = canonical_answer(value)
            return out
        except TypeError:  # unhashable
            return canonical_answer(value)

    return key
