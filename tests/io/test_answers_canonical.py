"""Answers compared by canonical form: numbers as numbers, text stripped, user normalisers."""

import json
import sys
import textwrap
from itertools import combinations

import pytest

import kpass
from kpass._core.counting.canonical import canonical_answer
from kpass.report.cli import main


def run(capsys, *args):
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def brute_vote(answers, reference, k):
    # Plurality vote over every k-subset; a tie with the reference scores 1/(t+1).
    total, count = 0.0, 0
    for subset in combinations(answers, k):
        tally = {}
        for a in subset:
            if a is not None:
                tally[a] = tally.get(a, 0) + 1
        top = max(tally.values(), default=0)
        winners = [a for a, c in tally.items() if c == top]
        total += 1 / len(winners) if reference in winners else 0.0
        count += 1
    return total / count


@pytest.mark.parametrize("value", [170, "170", 170.0, "170.0", " 170 ", "+170", "1.7e2"])
def test_numbers_are_numbers(value):
    assert canonical_answer(value) == 170 and isinstance(canonical_answer(value), int)


def test_text_is_stripped_and_others_differ():
    assert canonical_answer("  B ") == "B"
    assert canonical_answer("0.5") == canonical_answer(0.5) != canonical_answer("1/2")
    assert canonical_answer(True) == "True" != canonical_answer(1)
    assert canonical_answer(None) is None
    assert canonical_answer(float("nan")) is None  # NaN is no answer (issue 18)
    assert canonical_answer(-0.0) == 0


def test_vote_matches_numeric_and_string_references():
    answers = [[170, "170", " 171 ", 170.0, "abc"]]
    # canonical: 170 x3, 171, "abc" -> compare with a brute force on the canonical lists
    canon = [canonical_answer(a) for a in answers[0]]
    for reference in (170, "170", "170.0"):
        for k in (1, 2, 3, 5):
            assert kpass.vote_at_k(answers, [reference], k) == pytest.approx(
                brute_vote(canon, 170, k), abs=1e-12)


def test_vote_normalize_callable():
    answers = [["The answer is 4", "4", "answer: 5"]]
    last = lambda text: str(text).split()[-1]  # noqa: E731 - a tiny extractor
    assert kpass.vote_at_k(answers, [4], 1, normalize=last) == pytest.approx(2 / 3)
    assert kpass.vote_at_k(answers, [4], 1) == pytest.approx(1 / 3)
    mu, *_ = kpass.vote_at_k_ci(answers, [4], 1, normalize=last)
    mu_plain, *_ = kpass.vote_at_k_ci([["4", "4", "5"]], [4], 1)
    assert mu == pytest.approx(mu_plain, abs=1e-12)
    with pytest.raises(TypeError, match="normalize"):
        kpass.vote_at_k(answers, [4], 1, normalize="lower")
    with pytest.raises(ValueError, match="normalize"):
        kpass.vote_at_k(answers, [4], 1, normalize=lambda a: 1 / 0)


def _answers_file(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_cli_numeric_reference_string_answers(tmp_path, capsys):
    path = _answers_file(tmp_path / "a.jsonl", [
        {"answers": ["170", "170.0", "12"], "reference": 170},
        {"answers": [3, 3.0, "4"], "reference": "3"},
    ])
    code, out, err = run(capsys, "report", path, "--answers", "--k", "1", "--format", "json",
                         "--metrics", "pass@k")
    assert code == 0, err
    document = json.loads(out)
    row = next(r for r in document["results"] if r["metric"] == "pass@k")
    assert row["estimate"] == pytest.approx(2 / 3, abs=1e-12)
    assert document["warnings"] == [] and "warning" not in err


def test_cli_csv_answers_numeric(tmp_path, capsys):
    path = tmp_path / "a.csv"
    path.write_text('answers,reference\n"[170, 12, 170]",170.0\n"[""x"", "" x ""]",x\n')
    code, out, err = run(capsys, "report", path, "--answers", "--k", "1", "--format", "json",
                         "--metrics", "pass@k")
    assert code == 0, err
    row = next(r for r in json.loads(out)["results"] if r["metric"] == "pass@k")
    assert row["estimate"] == pytest.approx((2 / 3 + 1) / 2, abs=1e-12)


def test_cli_zero_match_warning_and_no_negative_zero(tmp_path, capsys):
    path = _answers_file(tmp_path / "a.jsonl", [
        {"answers": ["x = 170", "x = 171"], "reference": 170},
        {"answers": ["x = 3"], "reference": 4},
    ])
    code, out, err = run(capsys, "report", path, "--answers", "--k", "1")
    assert code == 0
    assert "warning" in err and "no answer matches its reference" in err
    assert "-0.000" not in out
    code, out, _ = run(capsys, "report", path, "--answers", "--k", "1", "--format", "json")
    assert "no answer matches its reference" in json.loads(out)["warnings"][0]


def test_cli_normalize_module_function(tmp_path, capsys, monkeypatch):
    (tmp_path / "mynorm.py").write_text(textwrap.dedent("""
        def last(text):
            return str(text).split("=")[-1]
    """))
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    path = _answers_file(tmp_path / "a.jsonl", [
        {"answers": ["x = 170", "x = 171"], "reference": 170},
    ])
    code, out, err = run(capsys, "report", path, "--answers", "--k", "1", "--format", "json",
                         "--normalize", "mynorm:last", "--metrics", "pass@k")
    assert code == 0, err
    row = next(r for r in json.loads(out)["results"] if r["metric"] == "pass@k")
    assert row["estimate"] == pytest.approx(0.5)
    code, _, err = run(capsys, "report", path, "--answers", "--normalize", "mynorm:nope")
    assert code == 1 and "nope" in err
    code, _, err = run(capsys, "report", path, "--answers", "--normalize", "nomodule_xyz:f")
    assert code == 1 and "nomodule_xyz" in err
    sys.modules.pop("mynorm", None)


def test_fixed_never_prints_negative_zero():
    from kpass.report.render import fixed

    assert fixed(-0.0, 3) == "0.000"
    assert fixed(-0.0001, 3) == "0.000"
    assert fixed(-0.002, 3) == "-0.002"
    assert fixed(0.5, 1) == "0.5"


def test_remembered_key_equals_canonical_on_mixed_types():
    # The per-call memo of answer_key(None) is keyed by (type, value): equal values of
    # different types (True and 1, 1 and 1.0 and np.int64(1)) keep their own canonical
    # forms, NaN (unequal to itself) is recomputed, and repeated calls agree.
    import math

    import numpy as np

    from kpass._core.counting.canonical import answer_key, canonical_answer

    values = [True, 1, 1.0, np.int64(1), np.float64(1.0), np.bool_(True), "1", " 1.0 ",
              False, 0, -0.0, "0", float("nan"), np.float64("nan"), float("inf"), "B",
              " B", None, (1, 2), 2.5, "2.5", 10**30, "1e3"]
    key = answer_key(None)
    for _ in range(2):
        for value in values:
            got, want = key(value), canonical_answer(value)
            assert type(got) is type(want), value
            assert got == want or (isinstance(want, float) and math.isnan(want)), value
    assert key(True) == "True" and key(1) == 1 and key(np.bool_(True)) == "True"
    # unhashable answers pass through (and are refused where they are counted)
    assert key([1]) == [1]
