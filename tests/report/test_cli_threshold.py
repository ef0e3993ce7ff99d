"""`--threshold T` outside the scores read is refused in every command that takes it (issue 38
item 10): `--threshold 50` on scores in [0, 1] made every sample wrong (Pass@1 = 0, exit 0)."""

import json

import numpy as np
import pytest

from kpass.report.cli import main

RNG = np.random.default_rng(3811)
SCORES_A = RNG.uniform(0.1, 0.9, (12, 4)).round(3)
SCORES_B = RNG.uniform(0.0, 0.6, (12, 4)).round(3)


def write(path, scores):
    with open(path, "w") as handle:
        handle.write("id,correct\n")
        for question, row in enumerate(scores):
            handle.writelines(f"q{question},{value}\n" for value in row)
    return str(path)


def commands(tmp_path):
    a, b = write(tmp_path / "a.csv", SCORES_A), write(tmp_path / "b.csv", SCORES_B)
    return {"report": [a], "compare": [a, b], "leaderboard": [a, b]}


@pytest.mark.parametrize("command", ["report", "compare", "leaderboard"])
@pytest.mark.parametrize("threshold, what", [("50", "wrong"), ("0.9", "wrong"),
                                             ("-0.5", "correct")])
def test_a_threshold_outside_the_scores_is_refused(tmp_path, capsys, command, threshold, what):
    files = commands(tmp_path)[command]
    scores = np.concatenate([SCORES_A.ravel()] + ([SCORES_B.ravel()] if len(files) > 1 else []))
    low, high = scores.min(), scores.max()
    assert high < 0.9  # 0.9 is above every score read: every sample would be wrong
    code = main([command, *files, "--id", "id", "--threshold", threshold, "--k", "1"])
    out, err = capsys.readouterr()
    assert code == 1 and out == "", out
    assert len(err.splitlines()) == 1, err
    assert f"--threshold {float(threshold):g} is outside the scores read, [{low:g}, {high:g}]" \
        in err and f"every sample would be {what}" in err, err


@pytest.mark.parametrize("command", ["report", "compare", "leaderboard"])
def test_a_threshold_inside_the_scores_counts_score_above_t(tmp_path, capsys, command):
    files = commands(tmp_path)[command]
    code = main([command, *files, "--id", "id", "--threshold", "0.5", "--k", "1",
                 "--metrics", "pass@k", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    document = json.loads(out)
    expected = float((SCORES_A > 0.5).mean())
    if command == "report":
        assert document["results"][0]["estimate"] == pytest.approx(expected, rel=1e-12)
    elif command == "compare":
        assert document["results"][0]["a"] == pytest.approx(expected, rel=1e-12)
    else:
        rows = {row["name"]: row for row in document["results"][0]["rows"]}
        assert rows["a"]["estimate"] == pytest.approx(expected, rel=1e-12)
        assert rows["b"]["estimate"] == pytest.approx(float((SCORES_B > 0.5).mean()), rel=1e-12)
