"""Numbers in answers (issue 18): exact, bounded in cost, never equating different values.

The reference here is exact decimal arithmetic that never expands a number: two
number texts are equal when their ``decimal.Decimal`` values compare equal in a
context wide enough for any exponent (Decimal comparison works on (digits, exponent)
and is exact), or when written as ``Fraction``s for small exponents.
"""

from __future__ import annotations

import decimal
from fractions import Fraction

import pytest

import kpass
from kpass._core.counting import canonical
from kpass._core.counting.canonical import canonical_answer

WIDE = decimal.Context(prec=10, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)


def same_value(a: str, b: str) -> bool:
    """Exact: the Decimal values of two number texts are equal (no expansion)."""
    with decimal.localcontext(WIDE):
        return decimal.Decimal(a).compare_total(decimal.Decimal(b)) == 0 or \
            decimal.Decimal(a) == decimal.Decimal(b)


def matches(a, b) -> bool:
    """Answer a matches answer b under the canonical comparison (no answer never matches)."""
    key_a, key_b = canonical_answer(a), canonical_answer(b)
    return key_a is not None and key_a == key_b


@pytest.mark.timeout(60)
def test_huge_exponent_is_bounded_and_exact():
    # int(Decimal("1e100000000")) took minutes; the normalised form is compared instead.
    assert matches("1e100000000", "10e99999999")
    assert matches("1e100000000", "0.1e100000001")
    assert not matches("1e100000000", "1e99999999")
    assert not matches("1e100000000", "2e100000000")
    assert not matches("-1e100000000", "1e100000000")
    assert isinstance(canonical_answer("1e100000000"), canonical.LargeNumber)
    assert same_value("1e100000000", "10e99999999")


@pytest.mark.timeout(60)
def test_exponent_beyond_decimal_and_too_long_to_read():
    # Decimal raised InvalidOperation on a 20-digit exponent; it is read exactly now.
    text = "1e99999999999999999999"
    assert matches(text, text) and matches(text, " " + text + " ")
    assert matches(text, "10e99999999999999999998") and matches(text, "0.1e100000000000000000000")
    assert not matches(text, "1e99999999999999999998")
    assert not matches(text, "1") and not matches("-" + text, text)
    # past MAX_EXPONENT_TEXT digits the exponent is not read: the text is the answer
    huge = "1e" + "9" * (canonical.MAX_EXPONENT_TEXT + 1)
    assert matches(huge, huge + " ") and not matches(huge, "10e" + "9" * 100 + "8")
    long_exponent = "1e" + "9" * (canonical.MAX_EXPONENT_TEXT + 1)
    assert isinstance(canonical_answer(long_exponent), canonical.NumberText)
    assert kpass.vote_at_k([[text, "2", text]], [text], 1) == pytest.approx(2 / 3, abs=1e-12)


@pytest.mark.timeout(60)
def test_many_digits_are_bounded_and_exact():
    digits = "7" * 200_000
    assert matches(digits, digits + ".000")
    assert not matches(digits, digits[:-1] + "8")
    assert matches("0." + digits + "e200000", digits)
    with decimal.localcontext(WIDE):
        assert decimal.Decimal("0." + digits + "e200000") == decimal.Decimal(digits)


@pytest.mark.parametrize("small, zero", [("1e-400", "0"), ("1e-400", 0), ("-1e-400", "0"),
                                         ("1e-330", 0.0), ("5e-324", "0")])
def test_tiny_numbers_are_not_zero(small, zero):
    # float("1e-400") is 0.0: the old form equated them.
    assert Fraction(small.replace("e", "E")) != 0
    assert not matches(small, zero)
    assert matches("0e-400", zero) and matches("-0.0e99999999", zero)


@pytest.mark.parametrize("a, b", [
    ("0.1000000000000000000001", "0.1"),
    ("0.1000000000000000055511151231257827021181583404541015625", "0.1"),  # float 0.1 exactly
    ("0.1000000000000000055511151231257827021181583404541015625", 0.1),
    ("9007199254740993", "9007199254740992"),  # 2^53 + 1 and 2^53: one float, two integers
    ("9007199254740993", 9007199254740992.0),
    ("1." + "0" * 30 + "1", 1),
])
def test_distinct_decimals_never_match(a, b):
    assert Fraction(str(a)) != Fraction(repr(b) if isinstance(b, float) else str(b))
    assert not matches(a, b) and not matches(b, a)


@pytest.mark.parametrize("a, b", [
    ("170", 170), ("170.0", 170), (" 1.7e2 ", 170.0), ("+170", "170.000"), ("0.5", 0.5),
    (".5", "5e-1"), ("5.", 5), ("-0", 0), ("-0.0", "0e7"), (0.1, "0.1"), ("1E3", 1000),
    ("1e1000", "10e999"), ("123456789012345678901234567890", 123456789012345678901234567890),
])
def test_equal_values_match(a, b):
    assert matches(a, b) and matches(b, a)


@pytest.mark.parametrize("text", ["1_0", "1_000", "1__0", "_10", "10_"])
def test_underscores_are_not_digits(text):
    # int("1_0") and Decimal("1_0") are 10; an answer "1_0" is text.
    assert not matches(text, 10) and not matches(text, "10") and not matches(text, 1000)
    assert canonical_answer(text) == text


@pytest.mark.parametrize("text", ["١٠", "１０", "0x10", "1/2", "nan", "NaN", "inf", "Infinity",
                                  "1e", "e5", ".", "+", "1.2.3", "--1", "1e+", "0b1"])
def test_other_spellings_are_text(text):
    assert canonical_answer(text) == text


def test_nan_never_matches_anything():
    import numpy as np

    for nan in (float("nan"), np.float64("nan"), np.float32("nan"), decimal.Decimal("NaN")):
        assert canonical_answer(nan) is None
        for other in (nan, float("nan"), "nan", "NaN", None, ""):
            assert not matches(nan, other) and not matches(other, nan)
    # a NaN answer used to equal the reference text "nan"
    assert kpass.vote_at_k([[float("nan"), "nan", float("nan")]], ["nan"], 1) == pytest.approx(
        1 / 3, abs=1e-12)


def test_floats_are_their_shortest_decimal_and_infinities_text():
    import numpy as np

    # each float is read at its own precision: float32(0.1) prints, and is, "0.1"
    assert matches(np.float32(0.1), "0.1") and matches(np.float32(0.1), 0.1)
    assert not matches(0.1, 0.1 + 2**-56) and matches(0.1 + 2**-56, repr(0.1 + 2**-56))
    assert matches(float("inf"), "inf") and matches(float("-inf"), "-inf")
    assert not matches(float("inf"), float("-inf"))
    assert matches(decimal.Decimal("1.50"), "1.5") and matches(Fraction(3, 2), "1.5")
    assert matches(Fraction(4, 2), 2)


def test_limits_are_value_determined():
    # At the limits a number is an int/Fraction on one side and a LargeNumber on the other;
    # equal values always land on the same side, so the limit never splits a value.
    from kpass._core.counting.canonical import MAX_DIGITS, MAX_EXPONENT, LargeNumber

    edge = "1" * MAX_DIGITS
    assert isinstance(canonical_answer(edge), int)
    assert isinstance(canonical_answer(edge + "1"), LargeNumber)
    assert matches(edge + "0" * 5, edge + "e5")
    assert isinstance(canonical_answer(f"1e{MAX_EXPONENT}"), int)
    assert isinstance(canonical_answer(f"1e{MAX_EXPONENT + 1}"), LargeNumber)
    assert matches(f"1e{MAX_EXPONENT + 1}", f"10e{MAX_EXPONENT}")
    assert matches(f"1e-{MAX_EXPONENT}", Fraction(1, 10**MAX_EXPONENT))
    assert isinstance(canonical_answer(f"1e-{MAX_EXPONENT + 1}"), LargeNumber)
    assert matches(10**MAX_DIGITS, f"1e{MAX_DIGITS}")
