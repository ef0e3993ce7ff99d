"""The one-line note at 10-15 questions near 0 or 1 (kpass.stats.small_sample.DISCRETE_*).

The coverage range it prints is measured in benchmarks/bench_coverage_generated.py (slow
tests in tests/stats/test_beta_binomial.py); here: when it is printed and when not.
"""

from __future__ import annotations

import json

import pytest

from kpass.report.cli import main

LINE = "near 0 or 1 the 95% intervals covered 0.87-1.00 in simulation (--explain)"


def _write(tmp_path, questions, correct_of_eight):
    path = tmp_path / "run.jsonl"
    with path.open("w") as out:
        for q in range(questions):
            for s in range(8):
                out.write(json.dumps({"id": q, "correct": int(s < correct_of_eight[q])}) + "\n")
    return path


@pytest.mark.parametrize("questions, extra, printed", [
    (12, [], True),                           # rare Pass^4 at 12 questions
    (15, [], True),
    (9, [], False),                           # below the measured sizes: the older note
    (16, [], False),
    (12, ["--confidence", "0.9"], False),     # measured at 95% only
])
def test_the_note_is_printed_where_it_was_measured(tmp_path, capsys, questions, extra,
                                                   printed):
    counts = [0] * (questions - 3) + [2, 5, 8]
    path = _write(tmp_path, questions, counts)
    assert main(["report", str(path), "--id", "id", "--metrics", "pass^k", "--k", "4",
                 *extra]) == 0
    out = capsys.readouterr().out
    assert (LINE in out) is printed, out
    assert f"only {questions} questions" in out or questions >= 16
    assert sum("only" in line for line in out.splitlines()) <= 1  # one line, not a wall


def test_mid_range_gets_the_older_note(tmp_path, capsys):
    path = _write(tmp_path, 12, [4] * 6 + [5] * 6)  # Pass^1 near 0.56
    assert main(["report", str(path), "--id", "id", "--metrics", "pass^k", "--k", "1"]) == 0
    out = capsys.readouterr().out
    assert LINE not in out and "the intervals are rough" in out


def test_explain_names_the_rows(tmp_path, capsys):
    path = _write(tmp_path, 12, [0] * 9 + [2, 5, 8])
    assert main(["report", str(path), "--id", "id", "--metrics", "pass^k", "--k", "1,4",
                 "--explain"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "only 12 questions, Pass^1, Pass^4 near 0 or 1" in out
    assert "covered 0.87-1.00 in seeded simulations" in out
