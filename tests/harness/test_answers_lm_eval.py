"""lm-eval `repeats` scored per repeat with ``--answers``, on files written by lm-eval itself.

The fixtures (tests/fixtures/lm-eval/, README there) come from lm-eval 0.4.13's ``dummy``
model. Expected values are counted by hand from the rows (``resps`` against ``target``) and
taken from lm-eval's own ``results_*.json`` (its mean and ``exact_match_stderr``).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from kpass.io.answers import load_answers
from kpass.io.errors import ReportError
from kpass.report.cli import main

FIXTURES = Path(__file__).parents[1] / "fixtures" / "lm-eval"
REPEATS = next(FIXTURES.glob("samples_kp_repeats_*.jsonl"))
RESULTS = json.loads((FIXTURES / "results_kp_repeats.json").read_text())["results"]["kp_repeats"]


def _hand(path: Path, fold: bool = False) -> dict:
    """doc_id -> (repeats, repeats equal to target), from the first row of each document."""
    found: dict = {}
    for line in path.read_text().splitlines():
        row = json.loads(line)
        if row["doc_id"] in found:
            continue
        answers, gold = row["resps"][0], row["target"]
        same = [(a.lower() == gold.lower()) if fold else a == gold for a in answers]
        found[row["doc_id"]] = (len(answers), sum(same))
    return found


def _report(args, capsys) -> dict:
    assert main(["report", *args, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    return {row["label"]: row for row in report["results"]}


def test_repeats_are_the_samples_and_target_the_reference():
    loaded, codes = load_answers(str(REPEATS))
    want = _hand(REPEATS)
    got = {i: (int(n), int(c)) for i, n, c in zip(loaded.counts.ids, loaded.counts.n_samples,
                                                   loaded.counts.n_correct, strict=True)}
    assert got == want
    assert len(want) == 6 and all(n == 4 for n, _ in want.values())  # 3 filter rows -> 1 question
    assert loaded.column == "resps"


def test_numbers_match_lm_evals_own_mean_and_stderr(capsys):
    rows = _report([str(REPEATS), "--answers", "--k", "1,4", "--metrics", "pass,maj"], capsys)
    # every repeat of a document agrees (the dummy model), so Pass@1 over repeats is the
    # take_first score, and Maj@4 the maj@4 filter's score
    assert rows["Pass@1"]["estimate"] == pytest.approx(RESULTS["exact_match,first"], abs=1e-12)
    assert rows["Maj@4"]["estimate"] == pytest.approx(RESULTS["exact_match,maj@4"], abs=1e-12)
    # kpass's se over questions is lm-eval's stderr (sample SD / sqrt(M)) here
    assert rows["Pass@1"]["se"] == pytest.approx(RESULTS["exact_match_stderr,first"], abs=1e-12)
    hand = _hand(REPEATS)
    assert rows["Pass@4"]["estimate"] == pytest.approx(
        float(Fraction(sum(c > 0 for _, c in hand.values()), len(hand))), abs=1e-12)


def test_normalize_applies_to_answers_and_references(tmp_path, monkeypatch, capsys):
    (tmp_path / "fold.py").write_text("def lower(text):\n    return text.lower()\n")
    monkeypatch.chdir(tmp_path)
    rows = _report([str(REPEATS), "--answers", "--normalize", "fold:lower", "--k", "1",
                    "--metrics", "pass"], capsys)
    hand = _hand(REPEATS, fold=True)
    want = Fraction(sum(Fraction(c, n) for n, c in hand.values()), len(hand))
    assert want == Fraction(4, 6)  # LOL and Lol now match; lm-eval's `lower` filter did not
    assert rows["Pass@1"]["estimate"] == pytest.approx(float(want), abs=1e-12)
    assert RESULTS["exact_match,lower"] == pytest.approx(2 / 6)


def test_older_fixture_with_repeats_reads_too():
    path = next(FIXTURES.glob("samples_kp_gen_*.jsonl"))
    loaded, _ = load_answers(str(path))
    got = {i: (int(n), int(c)) for i, n, c in zip(loaded.counts.ids, loaded.counts.n_samples,
                                                   loaded.counts.n_correct, strict=True)}
    assert got == _hand(path)


def test_multiple_choice_rows_are_refused_naming_the_field(capsys):
    path = next(FIXTURES.glob("samples_kp_mc_*.jsonl"))
    with pytest.raises(ReportError, match=r"line 1: `resps` is .* not generated text"):
        load_answers(str(path))
    assert main(["report", str(path), "--answers"]) == 1
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_filter_rows_that_disagree_are_an_error(tmp_path):
    lines = REPEATS.read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    second = next(i for i, row in enumerate(rows) if i > 0 and row["doc_id"] == rows[0]["doc_id"])
    rows[second]["resps"] = [["other", "lol", "lol", "lol"]]
    bad = tmp_path / "samples_bad.jsonl"
    bad.write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    with pytest.raises(ReportError, match=rf"line {second + 1}: doc_id 0 has other `resps`.*"
                                          r"at line 1"):
        load_answers(str(bad))
