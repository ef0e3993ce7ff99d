"""Validation of scalar arguments, with one message shape for every bad value.

Also the located errors of bad outcomes (:class:`OutcomeValueError`,
:class:`CategoryValueError`), raised by :mod:`kpass._core.counting.inputs`.

::

    `k` must be an int in [1, n]; got k=7 (n=5)

Bad types raise :class:`ArgumentTypeError`, which is both a ``TypeError`` (what it
is) and a ``ValueError`` (what the reference library raises for the same input),
so code written against either keeps working.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

SHORT_POLICIES = ("error", "skip")


class InputError(ValueError):
    """Base class of every error kpass raises for bad input, in every layer.

    A ``ValueError``: a harness catches all of kpass's input errors with one
    ``except kpass.InputError`` (the functions, the readers and the CLI's
    ``ReportError`` alike) and lets other failures through.
    """


class ArgumentTypeError(TypeError, InputError):
    """An argument of the wrong type (also a ``ValueError``, as in the reference library)."""


def _show(value: Any) -> str:
    """``repr(value)`` cut to 60 characters; an int too long for ``repr`` named by its size.

    Python refuses to convert an int of more than ``sys.get_int_max_str_digits()`` (4300)
    digits to text; such a value is shown as ``<an int of about 5000 digits>`` rather than
    letting that ValueError replace kpass's own message.
    """
    if isinstance(value, int) and value.bit_length() > 1000:
        digits = math.floor(value.bit_length() * math.log10(2)) + 1
        return f"<an int of about {digits} digits>"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# ----------------------------------------------------------------------------- scalars


def check_int(value: Any, name: str) -> int:
    """Return ``value`` as an int, refusing bools, floats and strings.

    Args:
        value: the argument received.
        name: its name, for the message.

    Returns:
        The value as a Python int.

    Raises:
        ArgumentTypeError: ``value`` is not an integer.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ArgumentTypeError(
            f"`{name}` must be an int; got {name}={_show(value)} ({type(value).__name__})"
        )
    return int(value)


def check_count(value: Any, name: str) -> int | None:
    """Return ``value`` as an int >= 1 (a count; None stays None), refusing bools and 0."""
    if value is None:
        return None
    integer = check_int(value, name)
    if integer < 1:
        raise InputError(f"`{name}` must be an int >= 1; got {name}={integer}")
    return integer


def check_real(value: Any, name: str, *, low: float | None = None, high: float | None = None,
               low_open: bool = False, high_open: bool = False) -> float:
    """Return ``value`` as a finite float inside the given range.

    Args:
        value: the argument received.
        name: its name, for the message.
        low: smallest allowed value (None: unbounded).
        high: largest allowed value (None: unbounded).
        low_open: exclude ``low`` itself.
        high_open: exclude ``high`` itself.

    Returns:
        The value as a Python float.

    Raises:
        ArgumentTypeError: not a real number.
        ValueError: not finite, or outside the range.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ArgumentTypeError(
            f"`{name}` must be a real number; got {name}={_show(value)} ({type(value).__name__})"
        )
    result = float(value)
    left = "(" if low_open else "["
    right = ")" if high_open else "]"
    low_text = "-inf" if low is None else f"{low:g}"
    high_text = "inf" if high is None else f"{high:g}"
    span = f"{left}{low_text}, {high_text}{right}"
    bad = not math.isfinite(result)
    if low is not None and (result < low or (low_open and result == low)):
        bad = True
    if high is not None and (result > high or (high_open and result == high)):
        bad = True
    if bad:
        raise InputError(f"`{name}` must be a finite number in {span}; got {name}={_show(value)}")
    return result


def check_flag(value: Any, name: str) -> bool:
    """Validate a True/False option."""
    if not isinstance(value, (bool, np.bool_)):
        raise ArgumentTypeError(
            f"`{name}` must be a bool (True or False); got {name}={_show(value)}")
    return bool(value)


def check_confidence(confidence: Any) -> float:
    """Validate a credibility level in the open interval (0, 1)."""
    return check_real(confidence, "confidence", low=0.0, high=1.0, low_open=True, high_open=True)


def check_shared(shared: Any) -> bool:
    """Validate ``shared`` (compare / rank on the questions every run has): True or False."""
    if not isinstance(shared, (bool, np.bool_)):
        raise ArgumentTypeError(f"`shared` must be True or False; got shared={_show(shared)}")
    return bool(shared)


#: The reference distributions of a paired comparison.
REFERENCES = ("t", "normal")


def check_choice(value: Any, name: str, choices: Iterable[str]) -> str:
    """Validate a keyword that takes one of a few strings (the one message of them all).

    Args:
        value: the argument received.
        name: its keyword, for the message.
        choices: the strings it may be.

    Returns:
        ``value``.

    Raises:
        ArgumentTypeError: ``value`` is not a string (also a ``ValueError``).
        ValueError: it is none of ``choices``.

    Example:
        >>> check_choice("t", "reference", ("t", "normal"))
        't'
    """
    options = tuple(choices)
    expected = f"`{name}` must be one of {', '.join(repr(option) for option in options)}"
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{expected}; got {name}={_show(value)} "
                                f"({type(value).__name__})")
    if value not in options:
        raise InputError(f"{expected}; got {name}={_show(value)}")
    return value


def check_reference(reference: Any) -> str:
    """Validate the reference distribution of a test: ``"t"`` or ``"normal"``."""
    return check_choice(reference, "reference", REFERENCES)


def check_labels(labels: Any, name: str = "clusters") -> Any:
    """Refuse per-question labels that are not an ordered sequence (length checked by the user).

    A str, a set, a dict or a scalar has no question order; None is allowed (no labels).
    Returns ``labels`` as given.
    """
    if labels is None:
        return None
    if isinstance(labels, (str, bytes, set, frozenset, dict)) or not (
            isinstance(labels, (Sequence, np.ndarray)) or hasattr(labels, "__array__")):
        raise ArgumentTypeError(
            f"`{name}` must be a sequence of labels (list, tuple or array), one per question "
            f"in question order; got {name}={_show(labels)} ({type(labels).__name__})")
    return labels


#: Range of a prior parameter: normal (not subnormal) floats, so every ratio
#: and log of the posterior kernels keeps full relative precision.
PRIOR_RANGE = (1e-300, 1e300)


def check_prior(alpha0: Any, beta0: Any) -> tuple[float, float]:
    """Validate Beta prior parameters, both in [1e-300, 1e300]."""
    low, high = PRIOR_RANGE
    return (
        check_real(alpha0, "alpha0", low=low, high=high),
        check_real(beta0, "beta0", low=low, high=high),
    )


def check_bounds(bounds: Any) -> tuple[float, float] | None:
    """Validate optional ``(lo, hi)`` clipping bounds with lo <= hi."""
    if bounds is None:
        return None
    if isinstance(bounds, (str, bytes)) or not isinstance(bounds, (Sequence, np.ndarray)):
        raise ArgumentTypeError(
            f"`bounds` must be None or a pair (lo, hi); got bounds={_show(bounds)}"
        )
    if len(bounds) != 2:
        raise InputError(f"`bounds` must be a pair (lo, hi); got bounds={_show(bounds)}")
    lo = check_real(bounds[0], "bounds[0]")
    hi = check_real(bounds[1], "bounds[1]")
    if lo > hi:
        raise InputError(f"`bounds` must satisfy lo <= hi; got bounds={_show(tuple(bounds))}")
    return lo, hi


def check_tau(tau: Any) -> float:
    """Validate a G-Pass threshold in [0, 1]."""
    return check_real(tau, "tau", low=0.0, high=1.0)


def check_short(short: Any) -> str:
    """Validate the short-question policy: ``"error"`` or ``"skip"``."""
    return check_choice(short, "short", SHORT_POLICIES)


MAX_K = 2**63 - 1
"""The largest k taken: a count of samples fits in 64 bits."""


def normalize_ks(k: Any) -> tuple[list[int], bool]:
    """Turn ``k`` (an int or a sequence of ints) into a list.

    Args:
        k: an int, or a non-empty sequence of ints.

    Returns:
        ``(ks, many)``: the list of k values and whether a sequence was given.

    Raises:
        ArgumentTypeError: an entry is not an int.
        ValueError: the sequence is empty, or an entry is < 1.
    """
    if isinstance(k, np.ndarray) and k.ndim == 0:
        k = k[()]  # a 0-d array is one k, as numpy treats it elsewhere
    many = isinstance(k, (Sequence, np.ndarray)) and not isinstance(k, (str, bytes))
    values = list(k) if many else [k]
    if many and not values:
        raise InputError("`k` must be an int or a non-empty sequence of ints; got k=[]")
    ks = []
    for value in values:
        integer = check_int(value, "k")
        if integer < 1:
            raise InputError(f"`k` must be an int >= 1; got k={integer}")
        if integer > MAX_K:  # no run has that many samples; and past 4300 digits Python
            # cannot even print the value in a message
            raise InputError(f"`k` must be an int in [1, {MAX_K}] (no question has more "
                             f"samples); got k={_show(integer)}")
        ks.append(integer)
    return ks, many


def check_taus(tau: Any, name: str = "tau") -> list[float]:
    """Validate one G-Pass threshold or a non-empty sequence of them, each in [0, 1].

    ``-0.0`` becomes ``0.0`` (a label never reads ``_-0``).

    Raises:
        ArgumentTypeError: a string, or an entry that is not a real number.
        ValueError: an empty sequence, or an entry outside [0, 1].
    """
    if isinstance(tau, np.ndarray) and tau.ndim == 0:
        tau = tau[()]
    many = isinstance(tau, (Sequence, np.ndarray)) and not isinstance(tau, (str, bytes))
    if isinstance(tau, (str, bytes)):
        raise ArgumentTypeError(f"`{name}` must be a real number in [0, 1] or a sequence of "
                                f"them; got {name}={_show(tau)} ({type(tau).__name__})")
    values = list(tau) if many else [tau]
    if many and not values:
        raise InputError(f"`{name}` must be a number in [0, 1] or a non-empty sequence of "
                         f"them; got {name}=[]")
    return [check_real(value, name, low=0.0, high=1.0) + 0.0 for value in values]


def check_names(value: Any, name: str = "metrics") -> str | None:
    """Validate comma-separated names given as one string or a sequence of strings.

    Returns:
        None (the defaults), or the names joined by commas.

    Raises:
        ArgumentTypeError: not None, a string or a sequence of strings.
        ValueError: no name at all.
    """
    if value is None:
        return None
    if isinstance(value, str):
        names = [part for part in value.split(",") if part.strip()]
    elif isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, bytes):
        names = list(value)
        bad = next((item for item in names if not isinstance(item, str)), None)
        if bad is not None:
            raise ArgumentTypeError(f"`{name}` must be a string or a sequence of strings; got "
                                    f"{name}={_show(value)} (the entry {_show(bad)} is a "
                                    f"{type(bad).__name__})")
    else:
        raise ArgumentTypeError(f"`{name}` must be None, a string such as \"pass@k,pass^k\" "
                                f"or a sequence of strings; got {name}={_show(value)} "
                                f"({type(value).__name__})")
    if not [item for item in names if item.strip()]:
        raise InputError(f"`{name}` must be at least one metric name; got {name}={_show(value)}")
    return ",".join(names)


#: Most decimals a rendered table shows (a float64 holds about 17 significant digits).
MAX_DIGITS = 17


def check_digits(digits: Any, name: str = "digits") -> int:
    """Validate a number of decimals, an int in [0, :data:`MAX_DIGITS`].

    Raises:
        ArgumentTypeError: not an int.
        ValueError: outside [0, MAX_DIGITS].
    """
    value = check_int(digits, name)
    if not 0 <= value <= MAX_DIGITS:
        raise InputError(f"`{name}` must be an int in [0, {MAX_DIGITS}]; got {name}={value}")
    return value


# ----------------------------------------------------------------------------- outcome errors


class OutcomeValueError(InputError):
    """An outcome that is not 0 or 1, with where it is: ``question``, ``sample``, ``value``.

    Constructible from a message alone, like any ValueError (callers re-raise it with
    added context).
    """

    def __init__(self, message: str, question: int = -1, sample: int = -1,
                 value: Any = None) -> None:
        super().__init__(message)
        self.question = question
        self.sample = sample
        self.value = value


class CategoryValueError(InputError):
    """A category outside the allowed range, with where it is (``name``, ``where``, ``value``)."""

    def __init__(self, message: str, name: str = "R", question: int = -1, sample: int = -1,
                 value: Any = None) -> None:
        super().__init__(message)
        self.name = name
        self.question = question
        self.sample = sample
        self.value = value

    @property
    def where(self) -> str:
        """``[question][sample]``."""
        return f"[{self.question}][{self.sample}]"
