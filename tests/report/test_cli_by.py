"""``--by COLUMN`` on the commands: report, leaderboard, compare and next on one table of
several models print what they print on each model's rows in a file of its own."""

import json

import numpy as np
import pytest

from kpass.report.cli import main

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

MODELS = ["m1", "m2", "m3"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """runs.parquet (3 models x 2 tasks x 15 questions x 4 samples, shuffled), each model's
    rows in <model>.parquet, and the same as a folder of one file per model."""
    folder = tmp_path_factory.mktemp("by")
    rng = np.random.default_rng(7)
    rows = []
    for index, model in enumerate(MODELS):
        for task in ("t0", "t1"):
            for q in range(15):
                p = rng.random() * (0.3 + 0.3 * index)
                rows += [(model, task, f"{task}-{q}", s, int(rng.random() < p)) for s in range(4)]
    frame = pd.DataFrame(rows, columns=["model", "task", "question", "sample", "correct"])
    frame = frame.sample(frac=1, random_state=1).reset_index(drop=True)
    frame.to_parquet(folder / "runs.parquet", index=False)
    (folder / "each").mkdir()
    for model, part in frame.groupby("model"):
        part.to_parquet(folder / f"{model}.parquet", index=False)
        part.drop(columns="model").to_csv(folder / "each" / f"{model}.csv", index=False)
    return folder


def run(capsys, *args):
    status = main([str(arg) for arg in args])
    out, err = capsys.readouterr()
    return status, out, err


def test_report_json_per_model_equals_each_models_file(files, capsys):
    status, out, _ = run(capsys, "report", files / "runs.parquet", "--id", "question", "--by",
                         "model", "--k", "1,4", "--format", "json")
    assert status == 0
    document = json.loads(out)
    assert document["by"] == "model"
    assert [item["model"] for item in document["inputs"]] == MODELS
    for model in MODELS:
        status, alone, _ = run(capsys, "report", files / f"{model}.parquet", "--id", "question",
                               "--k", "1,4", "--format", "json")
        expected = [{key: value for key, value in row.items() if key != "file"}
                    for row in json.loads(alone)["results"]]
        got = [{key: value for key, value in row.items() if key != "model"}
               for row in document["results"] if row["model"] == model]
        assert got == expected


def test_report_table_has_a_section_per_model(files, capsys):
    status, out, _ = run(capsys, "report", files / "runs.parquet", "--id", "question", "--by",
                         "model", "--k", "1", "--metrics", "pass@k")
    assert status == 0
    sections = out.split("model = ")[1:]
    assert [section.split("\n", 1)[0] for section in sections] == MODELS
    for model, section in zip(MODELS, sections, strict=True):
        _, alone, _ = run(capsys, "report", f"{model}={files / f'{model}.parquet'}", "--id",
                          "question", "--k", "1", "--metrics", "pass@k")
        table = [line for line in alone.splitlines() if line.startswith("Pass@1")]
        assert table and table[0] in section


@pytest.mark.parametrize("by, source", [("model", "runs.parquet"), ("file", "each")])
def test_leaderboard_ranks_every_model_as_on_their_files(files, capsys, by, source):
    status, out, _ = run(capsys, "leaderboard", files / source, "--id", "question", "--by", by,
                         "--format", "json")
    assert status == 0
    _, alone, _ = run(capsys, "leaderboard",
                      *[f"{model}={files / f'{model}.parquet'}" for model in MODELS],
                      "--id", "question", "--format", "json")
    by_models, on_files = json.loads(out), json.loads(alone)
    assert by_models["results"] == on_files["results"]
    assert list(by_models["models"]) == MODELS


def test_compare_pairs_two_models_as_their_files(files, capsys):
    status, out, _ = run(capsys, "compare", files / "runs.parquet", "--id", "question", "--by",
                         "model", "--a", "m1", "--b", "m3", "--metrics", "pass@k,pass^k",
                         "--k", "1,4", "--format", "json")
    assert status == 0
    _, alone, _ = run(capsys, "compare", f"m1={files / 'm1.parquet'}",
                      f"m3={files / 'm3.parquet'}", "--id", "question", "--metrics",
                      "pass@k,pass^k", "--k", "1,4", "--format", "json")
    assert json.loads(out)["results"] == json.loads(alone)["results"]


def test_next_plans_each_model_as_on_its_file(files, capsys):
    status, out, _ = run(capsys, "next", files / "runs.parquet", "--id", "question", "--by",
                         "model", "--budget", "6", "--k", "2")
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "model,id,extra_samples"
    for model in MODELS:
        _, alone, _ = run(capsys, "next", files / f"{model}.parquet", "--id", "question",
                          "--budget", "6", "--k", "2")
        assert [line.split(",", 1)[1] for line in lines[1:] if line.startswith(f"{model},")] \
            == alone.splitlines()[1:]


def test_next_by_says_new_questions_or_more_samples_per_model(files, capsys):
    """--cost-question with --by: one line per model, each the line of its own file."""
    status, _, err = run(capsys, "next", files / "runs.parquet", "--id", "question", "--by",
                         "model", "--budget", "60", "--k", "2", "--cost-question", "3")
    assert status == 0
    lines = [line for line in err.splitlines() if "SE" in line]
    assert len(lines) == len(MODELS)
    for model, line in zip(MODELS, lines, strict=True):
        _, _, alone = run(capsys, "next", files / f"{model}.parquet", "--id", "question",
                          "--budget", "60", "--k", "2", "--cost-question", "3")
        assert line == alone.strip().replace("kpass next: ", f"kpass next: model = {model}: ")


@pytest.mark.parametrize("args, needle", [
    (["compare", "runs.parquet", "--id", "question", "--by", "model", "--a", "m1", "--b", "m9"],
     "--b m9: no such value of `model`; the values are m1, m2, m3"),
    (["compare", "runs.parquet", "--id", "question", "--by", "model", "--a", "m1"],
     "two different models with --a MODEL --b MODEL"),
    (["compare", "m1.parquet", "m2.parquet", "--id", "question", "--a", "m1", "--b", "m2"],
     "--a and --b name models of one input split by --by"),
    (["leaderboard", "runs.parquet", "--id", "question", "--by", "nope"],
     "no column `nope` (--by)"),
    (["leaderboard", "runs.parquet", "--id", "question", "--by", "task", "--answers"],
     "--by task is not available with --answers"),
    (["report", "m1.parquet", "--id", "question", "--by", "model"],
     "one value of `model` ('m1'), so one model"),
    (["report", "runs.parquet", "--by", "model"], "--by model needs --id COLUMN"),
    (["report", "runs.parquet", "m1.parquet", "--id", "question", "--by", "model"],
     "give one file, folder or pattern (got 2)"),
    (["next", "runs.parquet", "--id", "question", "--by", "file", "--budget", "2", "--k", "1"],
     "--by file reads a folder or a pattern of files"),
])
def test_errors_are_one_line(files, capsys, args, needle):
    args = [str(files / arg) if arg.endswith(".parquet") else arg for arg in args]
    status, out, err = run(capsys, *args)
    assert status != 0 and out == ""
    assert err.count("\n") == 1 and needle in err, err


def test_report_table_by_renders_as_the_cli(files, capsys):
    import kpass

    frame = pd.read_parquet(files / "runs.parquet")
    split = kpass.BinaryCounts.from_long(frame, id="question", outcome="correct", by="model")
    table = kpass.report_table(split, k=[1, 4], by="model")
    _, out, _ = run(capsys, "report", files / "runs.parquet", "--id", "question", "--by",
                    "model", "--k", "1,4", "--format", "json")
    cli, python = json.loads(out), json.loads(table.render("json"))
    assert python["by"] == "model"
    assert len(python["results"]) == len(cli["results"]) > 0
    for mine, theirs in zip(python["results"], cli["results"], strict=True):
        assert mine.keys() == theirs.keys() and mine["model"] == theirs["model"]
        for key, value in theirs.items():
            assert mine[key] == (pytest.approx(value, abs=1e-12)
                                 if isinstance(value, float) else value), key
    _, text, _ = run(capsys, "report", files / "runs.parquet", "--id", "question", "--by",
                     "model", "--k", "1,4")
    sections = table.render("table")
    assert [line for line in sections.splitlines() if line.startswith(("model = ", "Pass@"))] \
        == [line for line in text.splitlines() if line.startswith(("model = ", "Pass@"))]
    with pytest.raises(ValueError, match="`by` needs `counts` as a mapping of at least 2"):
        kpass.report_table(split["m1"], by="model")
