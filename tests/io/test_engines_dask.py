"""from_long on a Dask distributed LocalCluster with worker processes: counts equal numpy's
and only per-question rows reach the client."""

import numpy as np
import pytest

import kpass

pd = pytest.importorskip("pandas")
pytest.importorskip("narwhals")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

pytestmark = [pytest.mark.slow, pytest.mark.cluster,
              pytest.mark.filterwarnings("ignore:Dask support is moving:FutureWarning")]

@pytest.fixture(scope="module")
def client():
    try:
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None, memory_limit="1GiB")
    except Exception as error:  # noqa: BLE001 - any failure to start is a skip reason
        pytest.skip(f"a Dask LocalCluster could not start: {type(error).__name__}: {error}")
    with cluster, distributed.Client(cluster) as session:
        yield session


@pytest.fixture(scope="module")
def parquet(log, tmp_path_factory):
    """The log as 4 part files that the workers read themselves."""
    folder = tmp_path_factory.mktemp("dask")
    for part, chunk in enumerate(np.array_split(np.arange(len(log)), 4)):
        log.iloc[chunk].to_parquet(folder / f"part-{part}.parquet", index=False)
    return str(folder)


@pytest.fixture
def client_rows(client, monkeypatch):
    """Rows of each result the client gathers from the workers, and the workers that ran."""
    gathered = []
    gather = type(client).gather

    def spy(self, futures, *args, **kwargs):
        result = gather(self, futures, *args, **kwargs)
        for value in result if isinstance(result, (list, tuple)) else [result]:
            gathered.append(len(value) if hasattr(value, "__len__") else 1)
        return result

    monkeypatch.setattr(type(client), "gather", spy)
    return gathered


def test_binary_counts_on_a_distributed_cluster_equal_numpy(client, parquet, log, client_rows,
                                                            numpy_counts):
    frame = dd.read_parquet(parquet)
    assert frame.npartitions == 4
    with distributed.get_task_stream(client) as stream:
        counts = kpass.BinaryCounts.from_long(frame, id="qid", outcome="correct",
                                              sample="sample")
    assert (counts.ids, counts.n_samples.tolist(), counts.n_correct.tolist()) == \
        numpy_counts(log, "correct")
    workers = {task["worker"] for task in stream.data}
    assert workers <= set(client.scheduler_info()["workers"]) and len(workers) == 2, workers
    # The group-by ran on the workers; the client got one row per question, once.
    assert client_rows == [log["qid"].nunique()], client_rows
    own = frame.groupby("qid").correct.agg(["count", "sum"]).compute().sort_index()
    assert (tuple(own.index), own["count"].tolist(), own["sum"].tolist()) == \
        numpy_counts(log, "correct")


def test_threshold_categories_and_repeats_on_a_distributed_cluster(client, parquet, log,
                                                                   client_rows, numpy_counts):
    frame = dd.read_parquet(parquet)
    scored = log.assign(hit=(log["score"] > 0.3).astype(np.int64))
    counts = kpass.BinaryCounts.from_long(frame, id="qid", outcome="score", threshold=0.3)
    assert (counts.ids, counts.n_samples.tolist(), counts.n_correct.tolist()) == \
        numpy_counts(scored, "hit")
    categorical = kpass.CategoricalCounts.from_long(frame, id="qid", outcome="answer",
                                                    sample="sample")
    ids = sorted(set(log["qid"]))
    table = np.zeros((len(ids), 4), dtype=np.int64)
    np.add.at(table, (np.searchsorted(ids, log["qid"]), log["answer"].to_numpy()), 1)
    assert categorical.ids == tuple(ids) and categorical.counts.tolist() == table.tolist()
    assert len(client_rows) == 3 and max(client_rows) <= log["qid"].nunique() * 4, client_rows
    # A pair repeated across two part files (two partitions) is found.
    first = log.iloc[0]
    repeated = dd.concat([frame, dd.from_pandas(log.iloc[[0]], npartitions=1)])
    with pytest.raises(ValueError, match=rf"^\(id, sample\) = \('{first.qid}', "
                                         rf"{first['sample']}\) is repeated \(2 rows\)"):
        kpass.BinaryCounts.from_long(repeated, id="qid", outcome="correct", sample="sample")


def test_by_model_on_a_distributed_cluster_equals_each_models_rows(client, log, client_rows):
    """by=: one group-by by (model, id) on the workers; each model's counts are those of
    its rows alone (pandas' group-by), one row per (model, question) reaching the client."""
    runs = log.assign(model=[f"m{i % 3}" for i in range(len(log))])
    frame = dd.from_pandas(runs, npartitions=4)
    split = kpass.BinaryCounts.from_long(frame, id="qid", outcome="correct", by="model",
                                         sample="sample")
    assert list(split) == ["m0", "m1", "m2"]
    for model, counts in split.items():
        own = runs[runs["model"] == model].groupby("qid")["correct"].agg(["size", "sum"])
        assert (counts.ids, counts.n_samples.tolist(), counts.n_correct.tolist()) == (
            tuple(own.index), own["size"].tolist(), own["sum"].tolist())
    assert sum(client_rows) == runs.groupby(["model", "qid"]).ngroups, client_rows
