"""`kpass leaderboard RUNS... --subset NAME=FILE... --reference-runs RUNS...`: the numbers
against the Python API (kpass.subset_leaderboard) on the same files, the table's marks, bad
input in one line."""

import csv
import json

import numpy as np
import pytest

import kpass
from kpass.report.cli import main
from kpass.stats.subset_leaderboard import SUBSET_NOTE

N = 300


def _write(path, outcomes, rows):
    with open(path, "w", encoding="utf-8") as f:
        for q in rows:
            f.write(json.dumps({"id": f"q{q}", "outcomes": outcomes[q].tolist()}) + "\n")


def _counts(outcomes, rows):
    rows = list(rows)
    return kpass.BinaryCounts([4] * len(rows), outcomes[rows].sum(axis=1),
                              ids=[f"q{q}" for q in rows])


@pytest.fixture
def board(tmp_path):
    rng = np.random.default_rng(0)
    a, b = np.exp(rng.normal(0, 0.3, N)), rng.normal(0, 1.2, N)

    def outcomes(theta):
        return rng.binomial(1, 1 / (1 + np.exp(-a * (theta - b))), (4, N)).T

    paths, reference = [], {}
    for j, theta in enumerate(rng.normal(0, 1, 8)):
        paths.append(str(tmp_path / f"ref{j}.jsonl"))
        values = outcomes(theta)
        _write(paths[-1], values, range(N))
        reference[f"ref{j}"] = _counts(values, range(N))
    chosen = tmp_path / "chosen.csv"
    assert main(["subset", *paths, "--id", "id", "--questions", "60", "--seed", "1",
                 "--out", str(chosen)]) == 0
    rows = [int(row["id"][1:]) for row in csv.DictReader(chosen.open())]
    models = {"big": outcomes(1.2), "mid": outcomes(0.2), "new": outcomes(0.9),
              "newer": outcomes(-0.5)}
    for name in ("big", "mid"):
        _write(tmp_path / f"{name}.jsonl", models[name], range(N))
    for name in ("new", "newer"):
        _write(tmp_path / f"{name}.jsonl", models[name], rows)
    runs = {"big": _counts(models["big"], range(N)), "mid": _counts(models["mid"], range(N)),
            "new": _counts(models["new"], rows), "newer": _counts(models["newer"], rows)}
    files = [str(tmp_path / f"{name}.jsonl") for name in ("big", "mid", "new", "newer")]
    return tmp_path, files, paths, chosen, runs, reference


def test_the_numbers_are_subset_leaderboards(board, capsys):
    folder, files, paths, chosen, runs, reference = board
    subset = kpass.choose_questions(reference, 60, seed=1)
    direct = kpass.subset_leaderboard(kpass.pass_at_k, runs, 2,
                                      subsets={"new": subset, "newer": subset},
                                      reference=reference)
    assert main(["leaderboard", *files, "--id", "id", "--subset", f"new={chosen}",
                 f"newer={chosen}", "--reference-runs", *paths, "--k", "2",
                 "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)["results"][0]
    assert (record["metric"], record["k"], record["population"]) == ("pass@k", 2, N)
    assert [row["name"] for row in record["rows"]] == [row.name for row in direct.rows]
    for mine, theirs in zip(record["rows"], direct.rows, strict=True):
        for field in ("estimate", "se", "lo", "hi", "rank_lo", "rank_hi", "questions"):
            assert mine[field] == pytest.approx(getattr(theirs, field), abs=1e-12), field
    for mine, theirs in zip(record["pairs"], direct.pairs, strict=True):
        assert (mine["a"], mine["b"], mine["better"]) == (theirs.a, theirs.b, theirs.better)
        assert mine["p_adjusted"] == pytest.approx(theirs.p_adjusted, abs=1e-12)
    # the table: the subset models marked, the note once under every board
    assert main(["leaderboard", *files, "--id", "id", "--subset", f"new={chosen}",
                 f"newer={chosen}", "--reference-runs", *paths, "--k", "1,2"]) == 0
    out = capsys.readouterr().out
    assert out.count("on 60 of 300 questions") == 4 and out.count(SUBSET_NOTE) == 1
    assert "pass@k at k=1 on 300 questions" in out and "pass@k at k=2" in out
    lines = out.splitlines()
    for name in ("new", "newer"):
        line = next(line for line in lines if f"  {name} " in line)
        assert line.endswith("on 60 of 300 questions")
    assert not next(line for line in lines if "  big " in line).endswith("questions")


@pytest.mark.parametrize("change, words, status", [
    (lambda a: a.__setitem__(a.index("--subset") + 1, "nobody=x.csv"),
     "--subset names 'nobody', not a model of the leaderboard (its models: big, mid, new, "
     "newer)", 2),
    (lambda a: a.__setitem__(a.index("--subset") + 1, "new"), "--subset takes NAME=FILE", 2),
    (lambda a: a.__setitem__(a.index("--subset") + 2, a[a.index("--subset") + 1]),
     "--subset names 'new' twice", 2),
    (lambda a: a.__delitem__(slice(a.index("--reference-runs"), None)),
     "--subset needs --reference-runs", 2),
    (lambda a: a.extend(["--format", "csv"]), "--subset prints --format table or json", 2),
    (lambda a: a.extend(["--clusters", "id", "--shared"]),
     "--subset does not go with --clusters, --shared", 2),
])
def test_bad_arguments_are_refused_in_one_line(board, capsys, change, words, status):
    folder, files, paths, chosen, runs, reference = board
    argv = ["leaderboard", *files, "--id", "id", "--subset", f"new={chosen}", f"newer={chosen}",
            "--reference-runs", *paths]
    change(argv)
    assert main(argv) == status
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("kpass leaderboard: error: ")
    assert words in err


def test_bad_files_are_refused_in_one_line(board, capsys):
    folder, files, paths, chosen, runs, reference = board
    # a subset file with ids the reference runs do not have
    text = chosen.read_text().replace("\nq", "\nx", 1)
    (folder / "odd.csv").write_text(text)
    assert main(["leaderboard", *files, "--id", "id", "--subset", f"new={folder / 'odd.csv'}",
                 f"newer={chosen}", "--reference-runs", *paths]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "1 ids are not questions of the reference runs" in err
    # a model on the subset that lacks some of its questions
    lines = (folder / "new.jsonl").read_text().splitlines()
    (folder / "new.jsonl").write_text("\n".join(lines[:-3]) + "\n")
    assert main(["leaderboard", *files, "--id", "id", "--subset", f"new={chosen}",
                 f"newer={chosen}", "--reference-runs", *paths]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "lacks 3 of the subset's questions" in err
    # a full run that lacks questions
    lines = (folder / "mid.jsonl").read_text().splitlines()
    (folder / "mid.jsonl").write_text("\n".join(lines[:-5]) + "\n")
    assert main(["leaderboard", *files, "--id", "id", "--subset", f"newer={chosen}",
                 "--reference-runs", *paths]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "mid.jsonl: pass@k at k=1: mid is a full run (no subset given) but lacks 5" in err
