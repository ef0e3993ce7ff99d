"""`kpass report --answers`: answers and references compared as numbers where they are numbers,
stripped text otherwise; a user normaliser; a warning when nothing ever matches; no -0.000."""

import json

import pytest

from kpass.cli import main
from kpass.io.answers import canonical
from kpass.report.table import fixed


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("answer, reference, same", [
    ("170", 170, True), (170.0, "170", True), (" 170.0 ", 170, True), ("1e2", 100, True),
    ("x ", "x", True), ("0.5", "1/2", False), (True, 1, False), ("171", 170, False),
])
def test_canonical_forms(answer, reference, same):
    assert (canonical(answer) == canonical(reference)) is same


def pass_at_1(out):
    return next(r for r in json.loads(out)["results"] if r["label"] == "Pass@1")["estimate"]


def test_numeric_reference_and_string_answers_match(tmp_path, capsys):
    path = tmp_path / "runs.jsonl"
    path.write_text('{"answers": ["170", "170.0", "3", " 170 "], "answer": 170}\n'
                    '{"answers": ["x", "y "], "answer": "y"}\n')
    code, out, err = run(capsys, "report", "--answers", path, "--k", "1", "--metrics", "pass@k",
                         "--format", "json")
    assert code == 0, err
    assert pass_at_1(out) == pytest.approx((3 / 4 + 1 / 2) / 2)
    assert "warning" not in err


def test_no_match_anywhere_is_a_warning_on_stderr_and_in_json(tmp_path, capsys):
    path = tmp_path / "runs.jsonl"
    path.write_text('{"answers": ["The answer is 170"], "answer": 170}\n'
                    '{"answers": ["The answer is 3"], "answer": 4}\n')
    code, out, err = run(capsys, "report", "--answers", path, "--k", "1", "--metrics", "pass@k",
                         "--format", "json")
    assert code == 0
    assert "no answer matches its question's reference" in err
    assert any("no answer matches" in note for note in json.loads(out)["notes"])
    code, out, _ = run(capsys, "report", "--answers", path, "--k", "1", "--metrics", "pass@k")
    assert "-0.000" not in out


def test_user_normaliser_extracts_the_final_answer(tmp_path, capsys, monkeypatch):
    (tmp_path / "my_extract.py").write_text(
        "def last_word(text):\n    return str(text).split()[-1]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    path = tmp_path / "runs.jsonl"
    path.write_text('{"answers": ["The answer is 170", "It is 3"], "answer": 170}\n')
    code, out, err = run(capsys, "report", "--answers", path, "--k", "1", "--metrics", "pass@k",
                         "--format", "json", "--normalize", "my_extract:last_word")
    assert code == 0, err
    assert pass_at_1(out) == pytest.approx(0.5)
    code, _, err = run(capsys, "report", "--answers", path, "--normalize", "my_extract:nope")
    assert code == 1 and err.count("\n") == 1 and "cannot load" in err


def test_fixed_never_prints_negative_zero():
    assert fixed(-1e-17, 3) == "0.000" and fixed(-0.0, 2) == "0.00"
    assert fixed(-0.0006, 3) == "-0.001"
