"""`kpass subset` -> run the new model on the chosen ids -> `kpass report --subset`: the round
trip on files, the estimate against the full run and against the Python API, bad input."""

import csv
import json

import pytest

import kpass
from kpass.report.cli import main

N = 300


@pytest.fixture
def runs(reference_runs):
    return reference_runs.folder, reference_runs.paths, reference_runs.outcomes(0.4)


@pytest.mark.parametrize("form", ["csv", "jsonl"])
def test_round_trip(reference_runs, runs, capsys, form):
    folder, paths, new = runs
    chosen = folder / f"chosen.{form}"
    assert main(["subset", *paths, "--id", "id", "--questions", "60", "--seed", "4",
                 "--format", form, "--out", str(chosen)]) == 0
    assert "wrote" in capsys.readouterr().err
    if form == "csv":
        rows = list(csv.DictReader(chosen.open()))
    else:
        rows = [json.loads(line) for line in chosen.open()]
    assert len(rows) == 60 and {row["population"] for row in rows} in ({"300"}, {300})
    ids = [row["id"] for row in rows]
    reference_runs.write(folder / "new.jsonl", new, [int(q[1:]) for q in ids])
    assert main(["report", str(folder / "new.jsonl"), "--id", "id", "--subset", str(chosen),
                 "--reference-runs", *paths, "--k", "2", "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)["results"][0]
    assert record["questions"] == 60 and record["population"] == N
    # the same numbers as the Python API on the same subset
    reference = {f"r{j}": kpass.BinaryCounts(
        [4] * N, [sum(json.loads(line)["outcomes"]) for line in open(path)],
        ids=[json.loads(line)["id"] for line in open(path)]) for j, path in enumerate(paths)}
    subset = kpass.choose_questions(reference, 60, seed=4)
    assert list(subset.ids) == ids
    rows_new = [int(q[1:]) for q in ids]
    counts = kpass.BinaryCounts([4] * 60, new[rows_new].sum(axis=1), ids=ids)
    direct = kpass.subset_estimate(kpass.pass_at_k, counts, 2, subset=subset,
                                   reference=reference)
    assert record["estimate"] == pytest.approx(direct.estimate, abs=1e-12)
    assert record["lo"] == pytest.approx(direct.lo) and record["hi"] == pytest.approx(direct.hi)
    full = kpass.pass_at_k(kpass.BinaryCounts([4] * N, new.sum(axis=1)), 2)
    assert abs(record["estimate"] - full) < 4 * record["se"]


def test_table_and_errors(reference_runs, runs, capsys):
    folder, paths, new = runs
    assert main(["subset", *paths, "--id", "id", "--questions", "40", "--seed", "1",
                 "--out", str(folder / "c.csv")]) == 0
    ids = [row["id"] for row in csv.DictReader((folder / "c.csv").open())]
    reference_runs.write(folder / "new.jsonl", new, [int(q[1:]) for q in ids])
    capsys.readouterr()
    assert main(["report", str(folder / "new.jsonl"), "--id", "id", "--subset",
                 str(folder / "c.csv"), "--reference-runs", *paths]) == 0
    out = capsys.readouterr().out
    assert "95% interval" in out and "40 of 300" in out
    # a run that lacks chosen questions, a missing --subset, a single reference run
    reference_runs.write(folder / "short.jsonl", new, [int(q[1:]) for q in ids[:10]])
    assert main(["report", str(folder / "short.jsonl"), "--id", "id", "--subset",
                 str(folder / "c.csv"), "--reference-runs", *paths]) == 1
    assert "lacks 30 of the subset's questions" in capsys.readouterr().err
    assert main(["report", str(folder / "new.jsonl"), "--reference-runs", *paths]) == 2
    assert "--reference-runs needs --subset" in capsys.readouterr().err
    assert main(["subset", paths[0], "--id", "id", "--questions", "40", "--seed", "1"]) == 1
    assert "at least 2 models" in capsys.readouterr().err
    (folder / "bad.csv").write_text("id,inclusion\nq1,0.5\n")
    assert main(["report", str(folder / "new.jsonl"), "--id", "id", "--subset",
                 str(folder / "bad.csv"), "--reference-runs", *paths]) == 1
    assert "missing stratum" in capsys.readouterr().err


def test_round_trip_on_inspect_logs(tmp_path, capsys):
    """Inspect logs (the eval-set fixture, two models on 6 samples): ids are Inspect's."""
    pytest.importorskip("inspect_ai")
    from pathlib import Path

    logs = sorted(str(p) for p in (Path(__file__).resolve().parents[1] / "fixtures" / "inspect"
                                   / "eval-set").glob("*.eval"))
    chosen = tmp_path / "chosen.csv"
    assert main(["subset", *logs, "--questions", "4", "--seed", "1", "--design", "simple",
                 "--out", str(chosen)]) == 0
    assert main(["report", logs[0], "--subset", str(chosen), "--reference-runs", *logs,
                 "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)["results"][0]
    assert record["questions"] == 4 and record["population"] == 6
    assert record["lo"] <= record["estimate"] <= record["hi"]
