"""`kpass compare A B --subset FILE [FILE_B] --reference-runs RUNS...`: the numbers against the
Python API (kpass.subset_compare) on the same subsets, a full run as `all`, bad input."""

import csv
import json

import pytest

import kpass
from kpass.report.cli import main

N = 300


@pytest.fixture
def runs(reference_runs):
    folder, paths = reference_runs.folder, reference_runs.paths
    reference = {f"r{j}": kpass.BinaryCounts(
        [4] * N, [sum(json.loads(line)["outcomes"]) for line in open(path)],
        ids=[json.loads(line)["id"] for line in open(path)]) for j, path in enumerate(paths)}
    return folder, paths, reference, reference_runs.outcomes(0.9), reference_runs.outcomes(0.1)


def _chosen(folder, paths, seed):
    out = folder / f"chosen{seed}.csv"
    assert main(["subset", *paths, "--id", "id", "--questions", "60", "--seed", str(seed),
                 "--out", str(out)]) == 0
    return out, [row["id"] for row in csv.DictReader(out.open())]


def _counts(outcomes, ids):
    rows = [int(q[1:]) for q in ids]
    return kpass.BinaryCounts([4] * len(ids), outcomes[rows].sum(axis=1), ids=list(ids))


def test_paired_independent_and_full(reference_runs, runs, capsys):
    folder, paths, reference, A, B = runs
    one, ids_one = _chosen(folder, paths, 1)
    two, ids_two = _chosen(folder, paths, 2)
    s1 = kpass.choose_questions(reference, 60, seed=1)
    s2 = kpass.choose_questions(reference, 60, seed=2)
    assert list(s1.ids) == ids_one and list(s2.ids) == ids_two
    reference_runs.write(folder / "a1.jsonl", A, [int(q[1:]) for q in ids_one])
    reference_runs.write(folder / "b1.jsonl", B, [int(q[1:]) for q in ids_one])
    reference_runs.write(folder / "b2.jsonl", B, [int(q[1:]) for q in ids_two])
    reference_runs.write(folder / "bfull.jsonl", B, range(N))
    full_b = kpass.BinaryCounts([4] * N, B.sum(axis=1), ids=[f"q{i}" for i in range(N)])
    cases = [(["b1.jsonl"], [str(one)], s1, s1, _counts(B, ids_one)),
             (["b2.jsonl"], [str(one), str(two)], s1, s2, _counts(B, ids_two)),
             (["bfull.jsonl"], [str(one), "all"], s1, None, full_b)]
    for b_file, subsets, sub_a, sub_b, counts_b in cases:
        capsys.readouterr()
        assert main(["compare", str(folder / "a1.jsonl"), str(folder / b_file[0]), "--id", "id",
                     "--subset", *subsets, "--reference-runs", *paths, "--k", "2",
                     "--format", "json"]) == 0
        record = json.loads(capsys.readouterr().out)["results"][0]
        direct = kpass.subset_compare(kpass.pass_at_k, _counts(A, ids_one), counts_b, 2,
                                      subset_a=sub_a, subset_b=sub_b, reference=reference)
        for field in ("difference", "se", "lo", "hi", "p_value", "df"):
            assert record[field] == pytest.approx(getattr(direct, field), abs=1e-12), field
        assert record["same_subset"] == (sub_a is sub_b)
    # the table
    assert main(["compare", str(folder / "a1.jsonl"), str(folder / "b1.jsonl"), "--id", "id",
                 "--subset", str(one), "--reference-runs", *paths]) == 0
    out = capsys.readouterr().out
    assert "95% interval" in out and "A - B" in out and "paired per question" in out


def test_errors(reference_runs, runs, capsys):
    folder, paths, _, A, B = runs
    one, ids = _chosen(folder, paths, 1)
    reference_runs.write(folder / "a.jsonl", A, [int(q[1:]) for q in ids])
    reference_runs.write(folder / "short.jsonl", B, [int(q[1:]) for q in ids[:10]])
    capsys.readouterr()
    base = ["compare", str(folder / "a.jsonl"), str(folder / "short.jsonl"), "--id", "id"]
    assert main([*base, "--subset", str(one), "--reference-runs", *paths]) == 1
    assert "lacks 50 of the subset's questions" in capsys.readouterr().err
    assert main([*base, "--subset", str(one)]) == 2
    assert "needs --reference-runs" in capsys.readouterr().err
    assert main([*base, "--reference-runs", *paths]) == 2
    assert "give two files and --subset FILE" in capsys.readouterr().err
    assert main([*base, "--subset", "all", "all", "--reference-runs", *paths]) == 2
    assert "both runs are full" in capsys.readouterr().err
    assert main([*base, "--subset", str(one), "--reference-runs", *paths,
                 "--format", "csv"]) == 2
    assert "table or json" in capsys.readouterr().err
