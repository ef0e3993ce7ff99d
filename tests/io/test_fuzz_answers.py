"""Fuzz of the answers surface (issue 18): canonical comparison and ``kpass report --answers``.

Random answer strings -- numbers of every shape (signs, leading and trailing zeros,
decimal points, exponents up to 10^15 and beyond what can be read, padding), NaN and
infinity spellings, underscores, unicode digits, empty and blank text -- are compared
canonically and must give a relation that is reflexive on answers, symmetric, and
never equates two values that differ as exact decimals. The oracle here is written
independently: a strict ASCII number pattern, the short mantissa normalised exactly by
``decimal.Decimal`` and the written exponent added as an integer (nothing is expanded);
exponents of more than 100 digits are text, as documented. Pairs of equal values spelt
differently (padding, point and exponent moved) must match; Fractions are a second
oracle where expanding is cheap.

Small answer files built from the same strings go through ``main(["report",
"--answers", ...])`` in-process: each run exits 0 with Pass@1 and Vote@k equal to a
brute-force recomputation with the oracle (a reference that is no answer must give
one error line naming it instead). Hypothesis is derandomised with a bounded number
of examples (the suite profile in conftest.py); pytest-timeout guards against hangs.
"""

from __future__ import annotations

import csv
import decimal
import io
import json
import math
import re
from collections import Counter
from fractions import Fraction
from itertools import combinations
from math import comb

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kpass._core.counting.canonical import canonical_answer
from kpass.report.cli import main

ORACLE_NUMBER = re.compile(r"([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:[eE]([+-]?[0-9]+))?")
#: Exponents written with more digits than this are text (the documented limit).
LONGEST_EXPONENT = 100


def oracle_number(mantissa: str, exponent: str | None):
    """(sign, significant digits, exponent) of a number text, exactly, or 0 for zero.

    The mantissa is short, so ``Decimal`` holds it exactly; normalising it strips the
    trailing zeros, and the written exponent is added as a Python int: no expansion.
    """
    value = decimal.Decimal(mantissa)
    if value == 0:
        return 0
    sign, digits, shift = value.normalize(decimal.Context(prec=200)).as_tuple()
    return (sign, digits, shift + int(exponent or 0))


def oracle_key(value):
    """What an answer is, independently of kpass: None (no answer), a number or text."""
    if value is None:
        return None
    if isinstance(value, bool):
        return ("text", str(value))
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if math.isinf(value):
            return ("text", str(value))
        value = repr(value)
    if isinstance(value, int):
        return ("number", oracle_number(str(value), None))
    text = value.strip()
    if not text:
        return None
    match = ORACLE_NUMBER.fullmatch(text)
    if match and len((match.group(2) or "").lstrip("+-").lstrip("0")) <= LONGEST_EXPONENT:
        return ("number", oracle_number(*match.groups()))
    return ("text", text)


def oracle_match(a, b) -> bool:
    key_a, key_b = oracle_key(a), oracle_key(b)
    return key_a is not None and key_a == key_b


def kpass_match(a, b) -> bool:
    key_a, key_b = canonical_answer(a), canonical_answer(b)
    return key_a is not None and key_a == key_b


# ----------------------------------------------------------------------------- strategies

digits = st.text(alphabet="0123456789", max_size=6)
zeros = st.text(alphabet="0", max_size=3)


@st.composite
def number_texts(draw, max_exponent_digits: int = 15):
    """Decimal number text: sign, zero padding, digits, point, exponent, surrounding space."""
    whole = draw(zeros) + draw(digits)
    fraction = draw(st.one_of(st.none(), digits.map(lambda d: d + "0" * (len(d) % 3))))
    if not whole and not fraction:
        whole = draw(st.sampled_from(["0", "1", "7"]))
    text = draw(st.sampled_from(["", "+", "-"])) + whole
    if fraction is not None:
        text += "." + fraction
    if draw(st.booleans()):
        exponent = draw(st.one_of(st.integers(-30, 30),
                                  st.integers(-10**max_exponent_digits + 1,
                                              10**max_exponent_digits - 1)))
        text += draw(st.sampled_from("eE")) + draw(st.sampled_from(["", "+"])) * (exponent >= 0) \
            + str(exponent)
    return draw(st.sampled_from(["", " ", "\t"])) + text + draw(st.sampled_from(["", " ", "\n"]))


SPECIAL = ["nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1_0", "1_000", "١٠", "１０",
           "0x10", "1/2", "", " ", "\t", "e5", ".", "+", "-", "1e", "1.2.3", "½", "²", "0",
           "1e99999999999999999999", "10e99999999999999999998", "0e99999999999999999999",
           "1e" + "9" * 101, "10e" + "9" * 101, "0e-" + "9" * 101]
texts = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=6)
answers = st.one_of(number_texts(), number_texts(), st.sampled_from(SPECIAL), texts)


# ----------------------------------------------------------------------------- the relation


@pytest.mark.slow  # over 2 s of CPU in the fast run (make check)
@pytest.mark.timeout(300)
@settings(max_examples=400)
@given(a=answers, b=answers)
def test_canonical_relation_is_exact_reflexive_and_symmetric(a, b):
    assert kpass_match(a, b) == kpass_match(b, a)
    assert kpass_match(a, a) == (oracle_key(a) is not None)
    assert kpass_match(a, b) == oracle_match(a, b), (a, b)


@st.composite
def equal_spellings(draw):
    """Two spellings of one value sign * n * 10^x: zero padding, point and exponent moved."""
    n = draw(st.integers(0, 10**12))
    x = draw(st.one_of(st.integers(-40, 40), st.integers(-10**30, 10**30)))
    sign = draw(st.sampled_from(["", "-"])) if n else draw(st.sampled_from(["", "-", "+"]))

    def spell():
        trailing = draw(st.integers(0, 4))
        body = "0" * draw(st.integers(0, 3)) + str(n) + "0" * trailing
        point = draw(st.integers(0, len(body)))
        exponent = x - trailing + (len(body) - point)
        mantissa = body[:point] + ("." + body[point:] if point < len(body) else "")
        mantissa = mantissa or "0"
        if exponent == 0 and draw(st.booleans()):
            return sign + mantissa
        return f"{sign}{mantissa}{draw(st.sampled_from('eE'))}{exponent:+d}"

    return spell(), spell()


@pytest.mark.timeout(300)
@settings(max_examples=400)
@given(pair=equal_spellings())
def test_equal_values_spelt_differently_match(pair):
    a, b = pair
    assert oracle_match(a, b), pair  # the oracle agrees they are one value
    assert kpass_match(a, b), pair


@pytest.mark.timeout(300)
@settings(max_examples=300)
@given(a=number_texts(max_exponent_digits=3), b=number_texts(max_exponent_digits=3))
def test_small_numbers_against_fractions(a, b):
    # exact rationals as a second oracle, where expanding them is cheap
    assert kpass_match(a, b) == (Fraction(a.strip()) == Fraction(b.strip())), (a, b)


@pytest.mark.timeout(300)
@settings(max_examples=300)
@given(x=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**40, 10**40)),
       b=answers)
def test_numbers_from_json_and_dataframes(x, b):
    assert kpass_match(x, b) == oracle_match(x, b), (x, b)
    if oracle_key(x) is not None:
        assert kpass_match(x, x)
        if not (isinstance(x, float) and math.isinf(x)):  # json.dumps(inf) is "Infinity",
            assert kpass_match(x, json.dumps(x))       # no JSON number: text, as the oracle
        else:                                          # says ("inf" is not "Infinity")
            assert oracle_match(x, json.dumps(x)) == kpass_match(x, json.dumps(x))


# ----------------------------------------------------------------------------- the CLI


def brute(question, reference, k) -> Fraction:
    keys = [oracle_key(a) for a in question]
    gold = oracle_key(reference)
    total = Fraction(0)
    for subset in combinations(keys, k):
        tally = Counter(key for key in subset if key is not None)
        top = max(tally.values(), default=0)
        if top and tally.get(gold, 0) == top:
            total += Fraction(1, sum(1 for c in tally.values() if c == top))
    return total / comb(len(keys), k)


plain_answers = st.one_of(number_texts(max_exponent_digits=12), st.sampled_from(SPECIAL[:-3]),
                          texts)
questions = st.lists(st.tuples(st.lists(plain_answers, min_size=1, max_size=5),
                               st.one_of(plain_answers, plain_answers.map(str.strip))),
                     min_size=1, max_size=4)


def check_run(capsys, path, rows, extra=()):
    code = main(["report", str(path), "--answers", "--k", "1", "--format", "json",
                 "--metrics", "pass@k,vote@k", *extra])
    out, err = capsys.readouterr()
    bad = next((i for i, (_, ref) in enumerate(rows) if oracle_key(ref) is None), None)
    if bad is not None:
        assert code == 1 and out == "" and err.count("\n") == 1, err
        assert err.startswith("kpass report: error: ") and "Traceback" not in err
        assert "reference" in err
        return
    assert code == 0, err
    results = {r["metric"]: r["estimate"] for r in json.loads(out)["results"]}
    pass1 = sum(Fraction(sum(oracle_match(a, ref) for a in q), len(q)) for q, ref in rows)
    assert results["pass@k"] == pytest.approx(float(pass1 / len(rows)), abs=1e-12)
    vote = sum(brute(q, ref, 1) for q, ref in rows) / len(rows)
    assert results["vote@k"] == pytest.approx(float(vote), abs=1e-12)
    n = min(len(q) for q, _ in rows)
    code = main(["report", str(path), "--answers", "--k", str(n), "--format", "json",
                 "--metrics", "vote@k", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    vote = sum(brute(q, ref, n) for q, ref in rows) / len(rows)
    assert json.loads(out)["results"][0]["estimate"] == pytest.approx(float(vote), abs=1e-12)


@pytest.mark.timeout(600)
@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=questions)
def test_cli_answers_jsonl_right_number_or_one_line(tmp_path, capsys, rows):
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps({"answers": q, "reference": r}) + "\n" for q, r in rows),
                    encoding="utf-8")
    check_run(capsys, path, rows)


@pytest.mark.timeout(600)
@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=questions)
def test_cli_answers_long_csv_right_number_or_one_line(tmp_path, capsys, rows):
    # one row per sample, grouped by --id; the reference is repeated on every row
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["qid", "sample", "answer", "gold"])
    for index, (q, ref) in enumerate(rows):
        for sample, answer in enumerate(q):
            writer.writerow([f"q{index}", sample, answer, ref])
    path = tmp_path / "answers.csv"
    path.write_text(buffer.getvalue(), encoding="utf-8")
    # blank lines are skipped by the reader: a row whose every cell is blank is no row
    check_run(capsys, path, rows, ("--id", "qid", "--sample", "sample", "--column", "answer"))
