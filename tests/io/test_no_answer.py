""""No answer" never matches (issue 18): None, NaN and blank text, given or normalised.

A ``--normalize`` extractor that finds nothing returns None (or NaN, or ""). Such an
answer is wrong, whatever the reference; a reference that is no answer is an error
naming its line (``references[i]`` in Python), since no answer could match it. The
expected values come from a brute-force vote over every k-subset that leaves no
answers out of the tally.
"""

from __future__ import annotations

import json
import math
import re
import sys
import textwrap
from fractions import Fraction
from itertools import combinations
from math import comb

import pytest

import kpass
from kpass.report.cli import main


def boxed(text):
    """A math extractor: the content of \\boxed{...}, None when there is none."""
    found = re.search(r"\\boxed\{([^}]*)\}", str(text))
    return found.group(1) if found else None


def boxed_nan(text):
    found = boxed(text)
    return float("nan") if found is None else found


def boxed_blank(text):
    found = boxed(text)
    return "  " if found is None else found


def is_no_answer(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or (
        isinstance(value, str) and not value.strip())


def brute_vote(answers, reference, k, normalize=lambda a: a):
    """Plurality vote over every k-subset, no answers left out; ties score 1/(t+1)."""
    keys = [normalize(a) for a in answers]
    gold = normalize(reference)
    total = Fraction(0)
    for subset in combinations(keys, k):
        tally: dict = {}
        for key in subset:
            if not is_no_answer(key):
                tally[key] = tally.get(key, 0) + 1
        top = max(tally.values(), default=0)
        if top and tally.get(gold, 0) == top:
            total += Fraction(1, sum(1 for c in tally.values() if c == top))
    return total / comb(len(keys), k)


ANSWERS = [r"\boxed{7}", "I give up", r"\boxed{7}", "no idea", "unsure", r"\boxed{8}"]


@pytest.mark.parametrize("normalize", [boxed, boxed_nan, boxed_blank])
def test_normalised_no_answers_never_win_nor_match(normalize):
    for k in range(1, len(ANSWERS) + 1):
        want = brute_vote(ANSWERS, r"\boxed{7}", k, normalize)
        got = kpass.vote_at_k([ANSWERS], [r"\boxed{7}"], k, normalize=normalize)
        assert got == pytest.approx(float(want), abs=1e-12), k
    # three "no answer"s out of six: they must not outvote the two 7s at k = 6
    assert kpass.vote_at_k([ANSWERS], [r"\boxed{7}"], 6, normalize=normalize) == 1.0
    mu, *_ = kpass.vote_at_k_ci([ANSWERS], [r"\boxed{7}"], 1, normalize=normalize)
    plain, *_ = kpass.vote_at_k_ci([["7", None, "7", None, None, "8"]], ["7"], 1)
    assert mu == pytest.approx(plain, abs=1e-12)


@pytest.mark.parametrize("normalize", [boxed, boxed_nan, boxed_blank])
def test_reference_normalised_to_no_answer_is_an_error(normalize):
    # It used to match every answer the extractor failed on: 3 of 6 "correct".
    with pytest.raises(ValueError, match=r"`references\[1\]` must be an answer; got '7'.*"
                                         r"no answer after `normalize`"):
        kpass.vote_at_k([ANSWERS, ANSWERS], [r"\boxed{7}", "7"], 1, normalize=normalize)
    with pytest.raises(ValueError, match=r"references\[1\]"):
        kpass.vote_at_k_ci([ANSWERS, ANSWERS], [r"\boxed{7}", "7"], 1, normalize=normalize)


@pytest.mark.parametrize("reference", [float("nan"), "", "   ", "\t\n"])
def test_reference_that_is_no_answer_is_an_error(reference):
    with pytest.raises(ValueError, match=r"`references\[0\]` must be an answer"):
        kpass.vote_at_k([["", "a", float("nan")]], [reference], 1)


def test_given_no_answers_never_match_each_other():
    # "" and NaN answers used to form a cluster that could win the vote.
    row = ["", "", " ", float("nan"), "a", "b"]
    for k in range(1, 7):
        want = brute_vote(row, "a", k)
        assert kpass.vote_at_k([row], ["a"], k) == pytest.approx(float(want), abs=1e-12)
    assert kpass.vote_at_k([row], ["a"], 6) == 0.5  # a ties b; the four no answers don't vote


def test_normalize_calling_sys_exit_is_a_value_error_naming_it():
    def quits(answer):
        sys.exit(3)

    with pytest.raises(ValueError, match=r"`normalize` \(.*quits\) called sys.exit on the "
                                         r"answer 'a'"):
        kpass.vote_at_k([["a"]], ["a"], 1, normalize=quits)


# ----------------------------------------------------------------------------- CLI


def run(capsys, *args):
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def pass_at_1(out: str) -> float:
    return next(r["estimate"] for r in json.loads(out)["results"] if r["metric"] == "pass@k")


@pytest.fixture
def norm_module(tmp_path, monkeypatch):
    (tmp_path / "issue18norm.py").write_text(textwrap.dedent(r'''
        import re
        import sys

        def boxed(text):
            found = re.search(r"\\boxed\{([^}]*)\}", str(text))
            return found.group(1) if found else None

        def boxed_nan(text):
            found = boxed(text)
            return float("nan") if found is None else found

        def quits(text):
            sys.exit("bye")
    '''))
    (tmp_path / "issue18exits.py").write_text("import sys\nsys.exit(4)\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("issue18norm", None)
    sys.modules.pop("issue18exits", None)


@pytest.mark.parametrize("function", ["boxed", "boxed_nan"])
def test_cli_normalised_no_answers_are_wrong(norm_module, capsys, function):
    path = norm_module / "a.jsonl"
    rows = [{"answers": [r"\boxed{1}", "garbled", r"\boxed{2}"], "reference": r"\boxed{1}"},
            {"answers": ["garbled", r"\boxed{5}"], "reference": r"\boxed{5}"}]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    code, out, err = run(capsys, "report", path, "--answers", "--k", "1", "--format", "json",
                         "--metrics", "pass@k", "--normalize", f"issue18norm:{function}")
    assert code == 0, err
    assert pass_at_1(out) == pytest.approx((1 / 3 + 1 / 2) / 2, abs=1e-12)


@pytest.mark.parametrize("function", ["boxed", "boxed_nan"])
def test_cli_reference_normalised_to_no_answer_names_the_line(norm_module, capsys, function):
    # The issue: references the extractor failed on matched the failed answers
    # (Pass@1 0.833 -> 1.0). Now the reference is refused with its line.
    path = norm_module / "a.jsonl"
    rows = [{"answers": [r"\boxed{1}", r"\boxed{1}", "x"], "reference": r"\boxed{1}"},
            {"answers": [r"\boxed{1}", "garbled", "garbled"], "reference": "1"}]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    code, out, err = run(capsys, "report", path, "--answers", "--k", "1",
                         "--normalize", f"issue18norm:{function}")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"{path}: line 2: the reference '1' is no answer after --normalize " \
           f"issue18norm:{function}" in err


def test_cli_normalize_calling_sys_exit_is_one_line_naming_the_function(norm_module, capsys):
    path = norm_module / "a.jsonl"
    path.write_text(json.dumps({"answers": ["a"], "reference": "a"}) + "\n")
    code, out, err = run(capsys, "report", path, "--answers", "--normalize", "issue18norm:quits")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "issue18norm:quits" in err and "sys.exit" in err and "line 1" in err


def test_cli_normalize_module_calling_sys_exit_at_import(norm_module, capsys):
    path = norm_module / "a.jsonl"
    path.write_text(json.dumps({"answers": ["a"], "reference": "a"}) + "\n")
    code, out, err = run(capsys, "report", path, "--answers", "--normalize", "issue18exits:f")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "issue18exits" in err and "sys.exit(4)" in err


def test_cli_empty_answers_are_wrong_and_empty_reference_is_refused(tmp_path, capsys):
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps({"answers": ["", " ", "x"], "reference": "x"}) + "\n")
    code, out, err = run(capsys, "report", path, "--answers", "--k", "1,3", "--format", "json",
                         "--metrics", "pass@k,vote@k")
    assert code == 0, err
    results = json.loads(out)["results"]
    vote3 = next(r for r in results if r["metric"] == "vote@k" and r["k"] == 3)
    assert pass_at_1(out) == pytest.approx(1 / 3) and vote3["estimate"] == 1.0
    path.write_text(json.dumps({"answers": ["", " ", "x"], "reference": " "}) + "\n")
    code, _, err = run(capsys, "report", path, "--answers")
    assert code == 1 and "line 1: the reference ' ' is no answer" in err
