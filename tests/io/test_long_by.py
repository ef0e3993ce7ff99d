"""``--by COLUMN`` / ``by=``: one long table of several models read as one model per value.

Every route kpass reads a long table by -- the row tally, pyarrow's grouping, parts given
as a glob or a folder, Hive partitions, a saved ``datasets`` folder, pandas and polars
frames -- must give, for every model, exactly the counts of that model's rows alone: held
to pandas' own group-by of the raw rows, and (for the order of the questions) to the
single-model reader on the model's rows filtered into a file of their own.
"""

import numpy as np
import pytest

import kpass
from kpass.io.errors import ReportError
from kpass.io.inputs import InputOptions, load_split
from kpass.io.long.load import load_long, load_long_by

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

MODELS = ["m1", "m2", "m3"]


@pytest.fixture(scope="module")
def runs():
    """3 models x 2 tasks x 12 questions x 4 samples, shuffled; m3 lacks 5 questions."""
    rng = np.random.default_rng(39)
    rows = []
    for index, model in enumerate(MODELS):
        for task in ("t0", "t1"):
            for q in range(12):
                if model == "m3" and task == "t1" and q < 5:
                    continue
                p = rng.random() * (0.4 + 0.3 * index)
                for sample in range(4):
                    rows.append((model, task, f"{task}-q{q}", sample, int(rng.random() < p)))
    frame = pd.DataFrame(rows, columns=["model", "task", "question", "sample", "correct"])
    return frame.sample(frac=1, random_state=3).reset_index(drop=True)


def reference(frame):
    """label -> {question: (n, c)} by pandas' group-by of the raw rows."""
    grouped = frame.groupby(["model", "question"])["correct"].agg(["size", "sum"])
    out = {}
    for (model, question), row in grouped.iterrows():
        out.setdefault(str(model), {})[question] = (int(row["size"]), int(row["sum"]))
    return out


def as_dicts(split):
    def of(counts):
        return {q: (int(n), int(c)) for q, n, c in zip(counts.ids, counts.n_samples,
                                                        counts.n_correct, strict=True)}

    return {label: of(getattr(item, "counts", item)) for label, item in split.items()}


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".jsonl", ".parquet"])
@pytest.mark.parametrize("sample", [None, "sample"])
def test_each_format_and_route_equals_each_models_rows_alone(runs, tmp_path, long_route,
                                                              suffix, sample, write_frame):
    path = write_frame(runs, tmp_path / f"runs{suffix}")
    split = load_long_by(str(path), by="model", id="question", sample=sample, chunk_size=17)
    assert list(split) == MODELS  # sorted labels
    assert as_dicts(split) == reference(runs)
    for model in MODELS:  # the order of the questions: as the model's rows read alone
        alone = write_frame(runs[runs["model"] == model], tmp_path / f"{model}{suffix}")
        single = load_long(str(alone), id="question", sample=sample)
        assert split[model].counts.ids == single.counts.ids
        assert split[model].column == "correct"


def test_parts_as_a_glob_and_a_folder(runs, tmp_path, long_route, write_frame):
    folder = tmp_path / "parts"
    folder.mkdir()
    for part, rows in enumerate(np.array_split(np.arange(len(runs)), 3)):
        write_frame(runs.iloc[rows], folder / f"part-{part}.parquet")
    for source in (str(folder), str(folder / "part-*.parquet")):
        split = load_long_by(source, by="model", id="question", sample="sample")
        assert as_dicts(split) == reference(runs)


def test_hive_partitions_by_model_and_by_task(runs, tmp_path, write_frame):
    by_model = tmp_path / "by_model"
    for model, rows in runs.groupby("model"):
        (by_model / f"model={model}").mkdir(parents=True)
        for part, chunk in enumerate(np.array_split(np.arange(len(rows)), 2)):
            write_frame(rows.iloc[chunk].drop(columns="model"),
                        by_model / f"model={model}" / f"part-{part}.csv")
    assert as_dicts(load_long_by(str(by_model), by="model", id="question")) == reference(runs)
    by_task = tmp_path / "by_task"
    for task, rows in runs.groupby("task"):
        (by_task / f"task={task}").mkdir(parents=True)
        write_frame(rows.drop(columns="task"), by_task / f"task={task}" / "part-0.parquet")
    assert as_dicts(load_long_by(str(by_task), by="model", id="question")) == reference(runs)


@pytest.mark.slow  # importing datasets: about 4 s
def test_a_saved_datasets_folder(runs, tmp_path):
    datasets = pytest.importorskip("datasets")
    folder = tmp_path / "hub"
    datasets.Dataset.from_pandas(runs, preserve_index=False).save_to_disk(str(folder))
    split = load_long_by(str(folder), by="model", id="question", chunk_size=50)
    assert as_dicts(split) == reference(runs)


@pytest.mark.parametrize("engine", ["pandas", "polars", "polars-lazy", "duckdb"])
@pytest.mark.parametrize("sample", [None, "sample"])
def test_frames_group_by_model_and_id_in_their_engine(runs, engine, sample):
    frame = runs
    if engine.startswith("polars"):
        pl = pytest.importorskip("polars")
        frame = pl.from_pandas(runs)
        frame = frame.lazy() if engine == "polars-lazy" else frame
    elif engine == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        frame = duckdb.from_df(runs)
    split = kpass.BinaryCounts.from_long(frame, id="question", outcome="correct", by="model",
                                         sample=sample)
    assert list(split) == MODELS
    assert as_dicts(split) == reference(runs)
    for counts in split.values():  # frames sort the questions by id
        assert list(counts.ids) == sorted(counts.ids)


def test_integer_model_names_and_padded_ids_are_one_model_and_one_question(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text("model,question,correct\n7,q1,1\n 7,q1 ,0\n8,q1,1\n8, q2,1\n")
    split = load_long_by(str(path), by="model", id="question")
    assert as_dicts(split) == {"7": {"q1": (2, 1)}, "8": {"q1": (1, 1), "q2": (1, 1)}}


def test_by_file_labels_each_file_by_its_stem_or_a_labeller(runs, tmp_path, write_frame):
    folder = tmp_path / "models"
    folder.mkdir()
    for model, rows in runs.groupby("model"):
        write_frame(rows.drop(columns="model"), folder / f"{model}.jsonl")
    options = InputOptions(id="question", by="file")
    assert as_dicts(load_split(str(folder), options)) == reference(runs)
    renamed = load_split(str(folder), options, labeller=lambda path: path[-8:-6].upper())
    assert list(renamed) == ["M1", "M2", "M3"]
    with pytest.raises(ReportError, match="are both labelled 'same'"):
        load_split(str(folder), options, labeller=lambda path: "same")


@pytest.mark.parametrize("text, needle", [
    ("model,question,correct\nm1,q1,1\n,q1,0\n", "line 3: the `model` value (--by) is empty"),
    ("model,question,correct\nm1,q1,1\nm1,q2,0\n", "one value of `model` ('m1')"),
    ("run,question,correct\nm1,q1,1\nm2,q2,0\n", "no column `model` (--by)"),
])
def test_bad_input_names_the_column_and_row(tmp_path, text, needle):
    path = tmp_path / "runs.csv"
    path.write_text(text)
    with pytest.raises(ReportError) as error:
        load_split(str(path), InputOptions(id="question", by="model"))
    assert needle in str(error.value)


def test_bad_input_of_frames_and_options(runs, tmp_path, write_frame):
    missing = runs.copy()
    missing.loc[missing.index[:2], "model"] = None
    with pytest.raises(ValueError, match="`model` is missing in 2 rows"):
        kpass.BinaryCounts.from_long(missing, id="question", outcome="correct", by="model")
    with pytest.raises(ValueError, match="`task` holds one value"):
        kpass.BinaryCounts.from_long(runs[runs["task"] == "t0"], id="question",
                                     outcome="correct", by="task")
    mixed = runs.astype({"model": object})
    mixed.loc[mixed["model"] == "m1", "model"] = 1
    mixed.loc[mixed["model"] == "m2", "model"] = "1"
    with pytest.raises(ValueError, match="one label '1'"):
        kpass.BinaryCounts.from_long(mixed, id="question", outcome="correct", by="model")
    with pytest.raises(ValueError, match="already read as the question id"):
        kpass.BinaryCounts.from_long(runs, id="question", outcome="correct", by="question")
    repeated = pd.concat([runs, runs.head(1)])
    with pytest.raises(ValueError, match=r"of model '\w+' is repeated"):
        kpass.BinaryCounts.from_long(repeated, id="question", outcome="correct", by="model",
                                     sample="sample")
    path = write_frame(runs, tmp_path / "runs.csv")
    with pytest.raises(ReportError, match="needs --id"):
        load_split(str(path), InputOptions(by="model"))
    with pytest.raises(ReportError, match="one file"):
        load_split(str(path), InputOptions(id="question", by="file"))


def test_duckdb_groups_parquet_by_model_and_id(runs, tmp_path, monkeypatch, write_frame):
    """DuckDB's route (large Parquet inputs) groups by (model, id) in one query."""
    pytest.importorskip("duckdb")
    from kpass.io.long import long_duckdb, long_fast

    monkeypatch.setattr(long_duckdb, "DUCKDB_ROWS", 0)
    taken = []

    def spy(*args, **kwargs):
        found = long_duckdb.duckdb_long_counts(*args, **kwargs)
        taken.append(found is not None)
        return found

    monkeypatch.setattr(long_fast, "duckdb_long_counts", spy)
    path = write_frame(runs, tmp_path / "runs.parquet")
    folder = tmp_path / "parts"
    folder.mkdir()
    for part, rows in enumerate(np.array_split(np.arange(len(runs)), 3)):
        write_frame(runs.iloc[rows], folder / f"part-{part}.parquet")
    for source in (path, folder):
        split = load_long_by(str(source), by="model", id="question")
        assert as_dicts(split) == reference(runs)
        for model in MODELS:  # first-seen order, as the model's rows alone
            alone = write_frame(runs[runs["model"] == model], tmp_path / f"{model}.parquet")
            assert split[model].counts.ids == load_long(str(alone), id="question").counts.ids
    assert len(taken) == 8 and all(taken)  # 2 inputs by model, 6 models read alone
    missing = runs.copy()
    missing.loc[missing.index[3], "model"] = None
    write_frame(missing, path)
    with pytest.raises(ReportError, match=r"row 4: the `model` cell \(--by\) is empty"):
        load_long_by(str(path), by="model", id="question")


@pytest.mark.parametrize("engine", ["pandas", "polars"])
def test_categorical_counts_by_model_equal_each_models_rows(runs, engine):
    answers = runs.assign(answer=(runs["sample"] + runs["correct"] * 2) % 4)
    answers.loc[answers["model"] == "m1", "answer"] %= 2  # m1 answers 0 or 1 only
    frame = answers
    if engine == "polars":
        frame = pytest.importorskip("polars").from_pandas(answers)
    split = kpass.CategoricalCounts.from_long(frame, id="question", outcome="answer",
                                              by="model", sample="sample")
    assert list(split) == MODELS
    for model, counts in split.items():
        mine = answers[answers["model"] == model]
        table = pd.crosstab(mine["question"], mine["answer"]).reindex(columns=range(4),
                                                                      fill_value=0)
        assert counts.ids == tuple(table.index)
        assert counts.counts.tolist() == table.to_numpy().tolist()  # 4 categories each
