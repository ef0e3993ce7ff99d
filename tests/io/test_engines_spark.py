"""from_long on a real Spark session (local[2]): counts equal numpy's, only per-question rows
reach the driver, and a PySpark too old for narwhals is named.

Needs a JVM (``make test`` installs Debian's OpenJDK 17 when ``java`` is missing); skipped
with the reason when the session cannot start.
"""

import shutil

import numpy as np
import pytest

import kpass

pd = pytest.importorskip("pandas")
pytest.importorskip("narwhals")
pyspark = pytest.importorskip("pyspark")

pytestmark = [pytest.mark.slow, pytest.mark.cluster,
              pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")]

@pytest.fixture(scope="module")
def spark():
    if shutil.which("java") is None:
        pytest.skip("no JVM: `java` is not on PATH (make test installs openjdk-17-jre-headless)")
    from pyspark.sql import SparkSession

    try:
        session = (SparkSession.builder.master("local[2]").appName("kpass-test")
                   .config("spark.ui.enabled", "false")
                   .config("spark.sql.shuffle.partitions", "4")
                   .config("spark.driver.memory", "1g")
                   .config("spark.sql.execution.arrow.pyspark.enabled", "true")
                   .getOrCreate())
    except Exception as error:  # noqa: BLE001 - any failure to start is a skip reason
        pytest.skip(f"Spark could not start: {type(error).__name__}: {error}"[:300])
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def parquet(spark, log, tmp_path_factory):
    """The log as Spark part files, read back by Spark (the driver never holds it)."""
    folder = tmp_path_factory.mktemp("spark") / "log"
    spark.createDataFrame(log).repartition(4).write.parquet(str(folder))
    return spark.read.parquet(str(folder))


@pytest.fixture
def driver_rows(monkeypatch, parquet):
    """The number of rows of each result Spark hands to this process (its DataFrame class's
    every way of collecting, spied on)."""
    DataFrame = type(parquet)  # pyspark.sql.classic.dataframe.DataFrame on Spark 4
    seen, depth = [], []
    for name in ("collect", "toPandas", "toArrow", "_collect_as_arrow", "toLocalIterator"):
        method = getattr(DataFrame, name, None)
        if method is None:
            continue

        def spy(self, *args, _method=method, _name=name, **kwargs):
            depth.append(_name)  # one collection may call another: count the outer one
            try:
                result = _method(self, *args, **kwargs)
            finally:
                depth.pop()
            if not depth:
                seen.append(result.num_rows if hasattr(result, "num_rows") else (
                    sum(batch.num_rows for batch in result) if _name == "_collect_as_arrow"
                    else len(result)))
            return result

        monkeypatch.setattr(DataFrame, name, spy)
    return seen


def test_binary_counts_from_spark_equal_numpy_and_sparks_own_group_by(parquet, log,
                                                                      driver_rows, numpy_counts):
    from pyspark.sql import functions as sf

    expected = numpy_counts(log, "correct")
    counts = kpass.BinaryCounts.from_long(parquet, id="qid", outcome="correct", sample="sample")
    assert (counts.ids, counts.n_samples.tolist(), counts.n_correct.tolist()) == expected
    # One result came back, one row per question: the rows stayed in Spark.
    assert driver_rows == [log["qid"].nunique()], driver_rows
    own = parquet.groupBy("qid").agg(sf.count("*").alias("n"), sf.sum("correct").alias("c"))
    rows = sorted((row["qid"], row["n"], row["c"]) for row in own.collect())
    assert ([q for q, _, _ in rows], [n for _, n, _ in rows], [c for _, _, c in rows]) == \
        (list(expected[0]), expected[1], expected[2])


def test_threshold_and_categories_from_spark_equal_numpy(parquet, log, driver_rows,
                                                         numpy_counts):
    scored = log.assign(hit=(log["score"] > 0.3).astype(np.int64))
    counts = kpass.BinaryCounts.from_long(parquet, id="qid", outcome="score", threshold=0.3)
    assert (counts.ids, counts.n_samples.tolist(), counts.n_correct.tolist()) == \
        numpy_counts(scored, "hit")
    categorical = kpass.CategoricalCounts.from_long(parquet, id="qid", outcome="answer",
                                                    sample="sample")
    ids = sorted(set(log["qid"]))
    table = np.zeros((len(ids), 4), dtype=np.int64)
    np.add.at(table, (np.searchsorted(ids, log["qid"]), log["answer"].to_numpy()), 1)
    assert categorical.ids == tuple(ids) and categorical.counts.tolist() == table.tolist()
    # Per question (threshold), per question and category, per question (samples).
    assert max(driver_rows) <= log["qid"].nunique() * 4 and len(driver_rows) == 3, driver_rows


def test_spark_errors_are_kpass_messages(spark, parquet, log):
    repeated = spark.createDataFrame(pd.concat([log, log.iloc[[5]]]))
    row = log.iloc[5]
    with pytest.raises(ValueError, match=rf"^\(id, sample\) = \('{row.qid}', {row['sample']}\) "
                                         r"is repeated \(2 rows\)"):
        kpass.BinaryCounts.from_long(repeated, id="qid", outcome="correct", sample="sample")
    with pytest.raises(ValueError, match=r"`score` must be 0 or 1 \(soft scores need "
                                         r"threshold=T\); got score=0\.\d+ for question id "
                                         r"'q000' \(\d+ such rows\)$"):
        kpass.BinaryCounts.from_long(parquet, id="qid", outcome="score")


def test_pyspark_older_than_narwhals_supports_is_named(spark, parquet, monkeypatch):
    import narwhals
    import narwhals._utils

    monkeypatch.setattr(pyspark, "__version__", "3.4.1")
    narwhals._utils.backend_version.cache_clear()
    try:
        with pytest.raises(ValueError) as error:
            kpass.BinaryCounts.from_long(parquet, id="qid", outcome="correct")
    finally:
        monkeypatch.undo()
        narwhals._utils.backend_version.cache_clear()
    assert str(error.value) == (
        f"`frame` is a pyspark 3.4.1 dataframe, but narwhals {narwhals.__version__} (which "
        "from_long reads frames through) supports pyspark 3.5 or later; upgrade pyspark to "
        "3.5 or later, or group the frame in pyspark yourself and build the counts from its "
        "per-question rows (BinaryCounts(n, c, ids=...))")


def test_by_model_from_spark_equals_each_models_rows(spark, log, driver_rows):
    """by=: one group-by by (model, id) in Spark; each model's counts are those of its
    rows alone (pandas' group-by), one row per (model, question) reaching the driver."""
    runs = log.assign(model=[f"m{i % 3}" for i in range(len(log))])
    frame = spark.createDataFrame(runs).repartition(4)
    split = kpass.BinaryCounts.from_long(frame, id="qid", outcome="correct", by="model",
                                         sample="sample")
    assert list(split) == ["m0", "m1", "m2"]
    for model, counts in split.items():
        own = runs[runs["model"] == model].groupby("qid")["correct"].agg(["size", "sum"])
        assert (counts.ids, counts.n_samples.tolist(), counts.n_correct.tolist()) == (
            tuple(own.index), own["size"].tolist(), own["sum"].tolist())
    assert driver_rows == [runs.groupby(["model", "qid"]).ngroups], driver_rows


def test_costs_by_model_from_spark_equal_pandas_groupby(spark, log, driver_rows):
    """from_long_with_costs on Spark: each (model, question)'s mean cost of the same
    group-by, equal to pandas' group-by mean; still one row per (model, question) at the
    driver."""
    runs = log.assign(model=[f"m{i % 3}" for i in range(len(log))],
                      cost=np.random.default_rng(39).gamma(2.0, 0.01, len(log)))
    frame = spark.createDataFrame(runs).repartition(4)
    counts, costs = kpass.from_long_with_costs(frame, id="qid", outcome="correct", cost="cost",
                                               by="model", sample="sample")
    assert list(counts) == list(costs) == ["m0", "m1", "m2"]
    for model, run in counts.items():
        own = runs[runs["model"] == model].groupby("qid").agg(
            n=("correct", "size"), c=("correct", "sum"), x=("cost", "mean"))
        assert (run.ids, run.n_samples.tolist(), run.n_correct.tolist()) == (
            tuple(own.index), own["n"].tolist(), own["c"].tolist())
        np.testing.assert_allclose(costs[model], own["x"].to_numpy(), rtol=1e-12)
    assert driver_rows == [runs.groupby(["model", "qid"]).ngroups], driver_rows
    bad = spark.createDataFrame(runs.assign(cost=np.where(runs["qid"] == "q001", -1.0,
                                                          runs["cost"])))
    with pytest.raises(ValueError, match=r"^`cost` column `cost` must hold finite numbers >= 0 "
                                         r"\(each sample's cost\); got cost=-1\.0 for question "
                                         r"id 'q001' \(\d+ such rows\)$"):
        kpass.from_long_with_costs(bad, id="qid", outcome="correct", cost="cost", by="model")
