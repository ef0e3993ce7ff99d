r"""Canonical answers: what "an answer equals the reference" means for Vote@k and --answers.

Final answers arrive as numbers from JSON (``170``), as text from CSV (``"170"``),
as floats from a dataframe (``170.0``). Compared by Python equality, ``170`` and
``"170"`` differ and every answer of a file can score wrong without a word. The
canonical form compares numbers as numbers and text stripped of surrounding space.

Rules, in the words of the README:

* **No answer.** None, a NaN (any value unequal to itself: ``float("nan")``,
  ``numpy.nan``, ``Decimal("NaN")``) and text that is empty or only space are "no
  answer": the canonical form is None, which never matches anything, not even
  another None (a failed ``\boxed{}`` extractor is a wrong answer, not a match).
  A reference that is no answer is an error where it is read.
* **Numbers** are compared by their exact decimal value: ``170``, ``"170"``,
  ``170.0``, ``" 170.0 "``, ``"1.7e2"`` and ``"+170"`` are one answer, ``"0.1"``
  and ``"0.1000000000000000000001"`` are two, ``"1e-400"`` is not ``0``. A float
  stands for its shortest round-trip decimal (what ``repr`` and JSON print:
  ``0.1`` is ``"0.1"``). Number text is ASCII: an optional sign, digits with at
  most one decimal point, an optional exponent; ``"1_0"``, ``"١٠"``, ``"0x10"``,
  ``"1/2"`` and ``"nan"`` are text, not numbers.
* **Bounded cost.** A number with at most :data:`MAX_DIGITS` significant digits
  and a decimal exponent within +-:data:`MAX_EXPONENT` (after trailing zeros are
  dropped) becomes an ``int``, or an exact ``Decimal`` (normalised: no trailing
  zero; Python compares it exactly with ints and Fractions). A larger one is kept as
  its normalised scientific form (sign, significant digits, exponent), compared
  as text: still exact (``"1e100000000"`` equals ``"10e99999999"``), and its cost
  is linear in the length of the text. An exponent written with more than
  :data:`MAX_EXPONENT_TEXT` digits is not even read as a number: the stripped
  text is compared as it is (``"1e"`` followed by 101 nines equals only itself;
  ``"1e99999999999999999999"`` is still read, and equals ``"10e99999999999999999998"``).
  Canonical comparison never equates two different values; beyond these limits
  it may fail to equate two spellings of one value (an ``int`` of more than 4300
  digits and its text, say).
* **Other values**: text is stripped of surrounding space; booleans become
  ``"True"``/``"False"`` (an answer, not the number 1); infinities become
  ``"inf"``/``"-inf"``; anything else is returned unchanged.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from .checks import ArgumentTypeError, InputError

#: Most significant digits of a number compared as an ``int``/``Decimal``.
MAX_DIGITS = 1000
#: Largest |decimal exponent| (of the last significant digit) compared as an ``int``/``Decimal``.
MAX_EXPONENT = 1000
#: Longest exponent text read as a number (longer exponents are compared as text).
MAX_EXPONENT_TEXT = 100

_NUMBER = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?", re.ASCII)


@dataclass(frozen=True)
class LargeNumber:
    """A number beyond the exact limits, in normalised scientific form (compared as text).

    Its value is ``sign * int(digits) * 10**exponent``; ``digits`` has no leading or
    trailing zero, so two LargeNumbers are equal exactly when their values are. It
    never equals an ``int`` or a ``Decimal``: numbers within the limits never become
    a LargeNumber, so no value has both forms.

    Attributes:
        sign: ``"-"`` or ``""``.
        digits: the significant digits.
        exponent: the decimal exponent of the last significant digit.
    """

    sign: str
    digits: str
    exponent: int

    def __str__(self) -> str:
        return f"{self.sign}{self.digits}e{self.exponent}"


@dataclass(frozen=True)
class NumberText:
    """Number text whose exponent is too long to read (:data:`MAX_EXPONENT_TEXT`).

    Compared as the stripped text itself: equal only to the same spelling.

    Attributes:
        text: the stripped text.
    """

    text: str

    def __str__(self) -> str:
        return self.text


def no_answer(value: Any) -> bool:
    """Whether ``value`` is "no answer": None, a NaN (unequal to itself) or blank text.

    Args:
        value: an answer or reference, as given or as a normaliser returned it.

    Returns:
        True for None, NaN values and text that is empty or only space.

    Example:
        >>> [no_answer(v) for v in (None, float("nan"), "  ", "", "nan", 0, "0")]
        [True, True, True, True, False, False, False]
    """
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, (int, Fraction, bool, np.integer, np.bool_)):
        return False
    try:
        return bool(value != value)
    except Exception:  # noqa: BLE001 - arrays and odd objects: not a NaN scalar
        return False


def _number(text: str) -> Any:
    """The canonical number spelt by ``text`` (stripped), or None if it is not number text."""
    match = _NUMBER.fullmatch(text)
    if match is None:
        return None
    sign, whole, fraction, exponent_text = match.groups()
    fraction = fraction or ""
    if not whole and not fraction:
        return None  # "", "+", ".", "e5"
    if exponent_text is not None and len(exponent_text.lstrip("+-").lstrip("0")) > \
            MAX_EXPONENT_TEXT:
        return NumberText(text)
    digits = (whole + fraction).lstrip("0")
    if not digits:
        return 0  # every zero, "-0.0e7" included
    significant = digits.rstrip("0")
    exponent = (int(exponent_text) if exponent_text is not None else 0) - len(fraction) + (
        len(digits) - len(significant))
    negative = sign == "-"
    if len(significant) > MAX_DIGITS or abs(exponent) > MAX_EXPONENT:
        return LargeNumber("-" if negative else "", significant, exponent)
    if exponent >= 0:
        mantissa = int(significant)
        return (-mantissa if negative else mantissa) * 10**exponent
    # exact: a Decimal built from text keeps every digit, whatever the context precision
    return Decimal(f"{'-' if negative else ''}{significant}E{exponent}")


def canonical_answer(value: Any) -> Any:
    """The canonical form of one final answer (see the module docstring for the rules).

    None, NaN and blank text become None ("no answer"); numbers, and text spelling
    a decimal number, become an ``int`` when whole (``170``, ``"170"``, ``170.0``
    and ``" 170.0 "`` are all ``170``), else an exact ``Decimal`` (a float is read
    as its shortest round-trip decimal), or beyond :data:`MAX_DIGITS` digits or an
    exponent of :data:`MAX_EXPONENT` a :class:`LargeNumber` compared as normalised
    text; other text is stripped; booleans become ``"True"``/``"False"`` (an
    answer, not the number 1); infinities become ``"inf"``/``"-inf"``; anything
    else is returned unchanged. The cost is linear in the length of the text.

    Args:
        value: an answer or reference.

    Returns:
        A hashable canonical value (unhashable input is returned as is), or None.

    Example:
        >>> [canonical_answer(v) for v in (170, "170", 170.0, " 170.0 ", "-0", " B ")]
        [170, 170, 170, 170, 0, 'B']
        >>> canonical_answer("0.5") == canonical_answer(0.5) != canonical_answer("1/2")
        True
        >>> canonical_answer("1e-400") == 0, canonical_answer(float("nan")), canonical_answer("")
        (False, None, None)
    """
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        number = int(value)
        if number.bit_length() <= 3 * MAX_DIGITS:  # under 10^MAX_DIGITS: exact as is
            return number
        try:
            return _number(str(number))
        except ValueError:  # over Python's 4300-digit str limit: kept as the int
            return number
    if isinstance(value, (float, np.floating)):
        real = float(value)
        if math.isnan(real):
            return None
        if math.isinf(real):
            return str(real)
        if isinstance(value, float) and real.is_integer() and abs(real) < 2.0**53:
            return int(real)  # a double below 2^53 that is whole prints as that integer
        # str: the shortest round-trip decimal of the value's own precision (float32 too)
        return _number(str(value) if isinstance(value, np.floating) else repr(real))
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        number = _number(text)
        return text if number is None else number
    if isinstance(value, (Decimal, Fraction)):
        if isinstance(value, Decimal):
            if value.is_nan():
                return None
            if value.is_infinite():
                return "-inf" if value.is_signed() else "inf"
            return _number(format(value, "e") if value else "0")
        if value.denominator == 1:
            return canonical_answer(value.numerator)
        return value  # exact already; never equal to a different value
    if no_answer(value):
        return None
    return value


def function_name(function: Callable[..., Any]) -> str:
    """``module:qualname`` of a user function (how ``--normalize`` names it)."""
    module = getattr(function, "__module__", None)
    name = getattr(function, "__qualname__", None) or getattr(function, "__name__", None)
    if name is None:
        return repr(function)
    return f"{module}:{name}" if module else str(name)


def answer_key(normalize: Callable[[Any], Any] | None) -> Callable[[Any], Any]:
    """The function mapping an answer to its comparison key: ``normalize`` then canonical.

    The key of "no answer" is None: None in, and (after ``normalize``) None, NaN or
    blank text out. Callers count None keys as answers that never match: not the
    reference, and not each other.

    Args:
        normalize: a user function applied first (e.g. a math answer extractor), or None.

    Returns:
        A function of one answer; None ("no answer") is passed through untouched.

    Raises:
        TypeError: ``normalize`` is not callable.

    The returned function raises ValueError naming the function and the answer when
    ``normalize`` raises, calls ``sys.exit``, or returns a list, dict, set or other
    unhashable value (one answer is text, a number or None). KeyboardInterrupt passes.
    """
    if normalize is None:
        return _remembered_canonical()
    if not callable(normalize):
        raise ArgumentTypeError(f"`normalize` must be a callable answer -> answer; got "
                                f"{normalize!r}")
    canonical = _remembered_canonical()

    def key(value: Any) -> Any:
        if value is None:
            return None
        try:
            out = normalize(value)
        except (Exception, SystemExit) as error:  # noqa: BLE001 - user code may raise anything
            what = "called sys.exit" if isinstance(error, SystemExit) else "failed"
            raise InputError(f"`normalize` ({function_name(normalize)}) {what} on the answer "
                             f"{value!r}: {type(error).__name__}: {error}") from None
        if not _hashable(out):  # a list, dict or set: not one answer
            shown = repr(out) if len(repr(out)) <= 60 else repr(out)[:57] + "..."
            raise InputError(f"`normalize` ({function_name(normalize)}) returned a "
                             f"{type(out).__name__} ({shown}) for the answer {value!r}; it "
                             "must return one answer: text, a number or None")
        return canonical(out)

    return key


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _remembered_canonical() -> Callable[[Any], Any]:
    """:func:`canonical_answer` remembering each distinct (type, value) it has seen.

    Answers repeat within and across questions, and the canonical form (type tests, a
    regular expression, an int or Decimal) costs ~20x a dictionary lookup. The type is
    part of the key because equal values of different types can differ canonically
    (``True`` is ``"True"``, ``1`` is ``1``); a value that is not equal to itself (NaN)
    simply misses every time. Unhashable values go through uncached (and fail where they
    are counted, as before).
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
