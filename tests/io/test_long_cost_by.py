"""``--cost COLUMN`` with ``--by MODEL``: each model's cost from its own rows, in one scan.

Every route a long table is read by (the row tally, pyarrow's grouping, parts, Hive
partitions) must give each model's per-question mean cost of one sample exactly as pandas'
group-by of the raw rows does; the commands (report, leaderboard) must then give the cost per
question of each model as the mean of those group-by means, and refuse bad cost cells with
one line naming the column, file and line.
"""

import json

import numpy as np
import pytest

from kpass.io.errors import ReportError
from kpass.io.long.load import load_long, load_long_by
from kpass.report.cli import main

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

MODELS = ["m1", "m2", "m3"]


@pytest.fixture(scope="module")
def runs():
    """3 models x 10 questions x 3 samples, shuffled; m3 lacks 3 questions; costs differ."""
    rng = np.random.default_rng(393)
    rows = []
    for index, model in enumerate(MODELS):
        for q in range(10):
            if model == "m3" and q < 3:
                continue
            p = rng.random()
            for sample in range(3):
                cost = round(float(rng.gamma(2.0, 0.01 * (1 + index))), 6)
                rows.append((model, f"q{q}", sample, int(rng.random() < p), cost,
                             int(rng.integers(100, 900))))
    frame = pd.DataFrame(rows, columns=["model", "question", "sample", "correct", "usd",
                                        "tokens"])
    return frame.sample(frac=1, random_state=5).reset_index(drop=True)


def reference(frame, column="usd"):
    """label -> {question: mean cost} by pandas' group-by of the raw rows."""
    means = frame.groupby(["model", "question"])[column].mean()
    out: dict[str, dict[str, float]] = {}
    for (model, question), value in means.items():
        out.setdefault(str(model), {})[question] = float(value)
    return out


def as_costs(split):
    return {label: dict(zip(item.counts.ids, item.costs.tolist(), strict=True))
            for label, item in split.items()}


def close(found, expected):
    assert found.keys() == expected.keys()
    for label in expected:
        assert found[label].keys() == expected[label].keys()
        for question, value in expected[label].items():
            assert found[label][question] == pytest.approx(value, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
@pytest.mark.parametrize("column", ["usd", "tokens"])
def test_each_models_costs_are_pandas_group_by(runs, tmp_path, long_route, suffix, column,
                                                write_frame):
    path = write_frame(runs, tmp_path / f"runs{suffix}")
    split = load_long_by(str(path), by="model", id="question", column="correct",
                         chunk_size=13, cost=column)
    close(as_costs(split), reference(runs, column))
    # the counts are those of the same scan (unchanged by reading a cost)
    plain = load_long_by(str(path), by="model", id="question", column="correct")
    for label in MODELS:
        assert split[label].counts.ids == plain[label].counts.ids
        assert split[label].counts.n_correct.tolist() == plain[label].counts.n_correct.tolist()


def test_one_model_without_by_and_parts_and_hive(runs, tmp_path, long_route, write_frame):
    alone = runs[runs["model"] == "m2"].drop(columns="model")
    single = load_long(str(write_frame(alone, tmp_path / "m2.parquet")), id="question",
                       cost="usd")
    close({"m2": dict(zip(single.counts.ids, single.costs.tolist(), strict=True))},
          {"m2": reference(runs)["m2"]})
    folder = tmp_path / "parts"
    folder.mkdir()
    for part, rows in enumerate(np.array_split(np.arange(len(runs)), 3)):
        write_frame(runs.iloc[rows], folder / f"part-{part}.csv")
    close(as_costs(load_long_by(str(folder), by="model", id="question", cost="usd")),
          reference(runs))
    hive = tmp_path / "hive"
    for model, rows in runs.groupby("model"):
        (hive / f"model={model}").mkdir(parents=True)
        write_frame(rows.drop(columns="model"), hive / f"model={model}" / "part-0.parquet")
    close(as_costs(load_long_by(str(hive), by="model", id="question", cost="usd")),
          reference(runs))


@pytest.mark.parametrize("by", ["model", None])
def test_duckdb_sums_a_parquet_cost_in_its_group_by(runs, tmp_path, monkeypatch, by,
                                                     write_frame):
    """A large Parquet input: DuckDB's one group-by counts and sums the cost column."""
    pytest.importorskip("duckdb")
    from kpass.io.long import long_duckdb, long_fast

    monkeypatch.setattr(long_duckdb, "DUCKDB_ROWS", 0)
    real = long_fast.duckdb_long_counts
    taken = []

    def spy(*args):
        found = real(*args)
        taken.append(found is not None)
        return found

    monkeypatch.setattr(long_fast, "duckdb_long_counts", spy)
    if by is None:
        alone = runs[runs["model"] == "m1"].drop(columns="model")
        loaded = load_long(str(write_frame(alone, tmp_path / "m1.parquet")), id="question",
                           cost="usd")
        close({"m1": dict(zip(loaded.counts.ids, loaded.costs.tolist(), strict=True))},
              {"m1": reference(runs)["m1"]})
    else:
        path = write_frame(runs, tmp_path / "runs.parquet")
        close(as_costs(load_long_by(str(path), by="model", id="question", cost="usd")),
              reference(runs))
    assert taken == [True]
    bad = runs.copy()
    bad.loc[7, "usd"] = -1.0  # a negative cost: DuckDB doubts, the line reader names it
    path = write_frame(bad, tmp_path / "bad.parquet")
    with pytest.raises(ReportError, match=r"row 8: --cost usd: -1.0 is not a cost"):
        load_long_by(str(path), by="model", id="question", cost="usd")
    assert taken[-1] is False


def _json(capsys, *argv):
    assert main([*argv, "--format", "json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_report_and_leaderboard_cost_each_model_from_its_rows(runs, tmp_path, capsys,
                                                              write_frame):
    path = write_frame(runs, tmp_path / "runs.csv")
    expected = {label: float(np.mean(list(means.values())))
                for label, means in reference(runs).items()}
    document = _json(capsys, "report", str(path), "--by", "model", "--id", "question",
                     "--column", "correct", "--k", "1", "--metrics", "pass@k", "--cost", "usd")
    found = {entry["model"]: entry["cost"][0]["cost"] for entry in document["inputs"]}
    assert found.keys() == expected.keys()
    for label, value in expected.items():
        assert found[label] == pytest.approx(value, rel=1e-12)
    assert main(["report", str(path), "--by", "model", "--id", "question", "--column",
                 "correct", "--k", "1", "--metrics", "pass@k", "--cost", "usd"]) == 0
    sections = capsys.readouterr().out.split("model = ")[1:]
    for label, section in zip(MODELS, sections, strict=True):  # each section its own cost
        lines = [line for line in section.splitlines() if "per question" in line]
        assert len(lines) == 1 and lines[0].startswith(f"  {label}: "), section
    board = _json(capsys, "leaderboard", str(path), "--by", "model", "--id", "question",
                  "--column", "correct", "--cost", "usd", "--shared")["results"][0]
    shared = sorted(set(runs.loc[runs["model"] == "m3", "question"]))
    for label in MODELS:  # --shared: the 7 questions every model has
        rows = runs[(runs["model"] == label) & runs["question"].isin(shared)]
        assert board["cost"][label]["cost"] == pytest.approx(
            float(rows.groupby("question")["usd"].mean().mean()), rel=1e-12)
    assert set(board["front"]) <= set(MODELS)


@pytest.mark.parametrize("cell, needle", [
    ("-0.5", "-0.5"), ("abc", "'abc'"), ("", "empty"), ("nan", "nan"), ("true", "true")])
def test_a_bad_cost_cell_is_one_line_naming_column_file_and_line(tmp_path, capsys, cell,
                                                                  needle):
    path = tmp_path / "runs.csv"
    path.write_text("model,question,correct,usd\na,q1,1,0.1\nb,q1,0,0.2\n"
                    f"a,q2,1,{cell}\nb,q2,1,0.3\n")
    assert main(["leaderboard", str(path), "--by", "model", "--id", "question", "--column",
                 "correct", "--cost", "usd"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--cost usd" in err[0] and "line 4" in err[0], err
    assert str(path) in err[0] and needle in err[0]


def test_cost_missing_for_one_model_and_a_missing_column(tmp_path, capsys):
    path = tmp_path / "runs.jsonl"
    path.write_text('{"model": "a", "question": "q1", "correct": 1, "usd": 0.1}\n'
                    '{"model": "b", "question": "q1", "correct": 0, "usd": null}\n')
    with pytest.raises(ReportError, match=r"line 2: --cost usd: the cell is empty"):
        load_long_by(str(path), by="model", id="question", cost="usd")
    assert main(["report", str(path), "--by", "model", "--id", "question", "--cost",
                 "price"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no column `price` (--cost)" in err[0]
    assert main(["report", str(path), "--by", "model", "--id", "question", "--cost",
                 "model"]) == 1
    assert "already read" in capsys.readouterr().err
