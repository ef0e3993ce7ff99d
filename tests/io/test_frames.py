"""BinaryCounts/CategoricalCounts.from_long on every dataframe engine: identical counts and ids."""

import random
import re
import warnings

import numpy as np
import pytest

import kpass

pd = pytest.importorskip("pandas")
pytest.importorskip("narwhals")

# Dask support is moving to the `narwhals-dask` plugin (not on PyPI yet); still built in.
pytestmark = pytest.mark.filterwarnings("ignore:Dask support is moving:FutureWarning")

GROUPED = {"q1": [1, 0, 1, 1], "q2": [0, 0], "q3": [1, 1, 1, 1, 1, 0], "q4": [0, 1, 0]}
SCORES = {"q1": [0.6, 0.4, 0.6], "q2": [0.5, 0.51], "q3": [0.0, 1.0, 0.9]}
CATEGORIES = {"a": [0, 2, 2, 1], "b": [1], "c": [3, 0, 0]}


def frame(grouped, seed=0):
    rows = [(q, j, v) for q, values in grouped.items() for j, v in enumerate(values)]
    random.Random(seed).shuffle(rows)
    return pd.DataFrame(rows, columns=["qid", "sample", "value"])


def engines(df):
    """The same long table in every engine the test environment has."""
    import duckdb
    import polars as pl
    import pyarrow as pa

    out = {"pandas": df, "polars": pl.from_pandas(df), "polars-lazy": pl.from_pandas(df).lazy(),
           "pyarrow": pa.Table.from_pandas(df, preserve_index=False),
           "duckdb": duckdb.from_df(df)}
    import dask.dataframe as dd

    out["dask"] = dd.from_pandas(df, npartitions=3)
    assert out["dask"].npartitions == 3
    datasets = pytest.importorskip("datasets")
    out["datasets"] = datasets.Dataset.from_pandas(df, preserve_index=False)
    return out


def test_binary_from_long_is_identical_on_every_engine():
    df = frame(GROUPED)
    ids = sorted(GROUPED)
    expected = kpass.binary_counts([GROUPED[q] for q in ids])
    for name, native in engines(df).items():
        counts = kpass.BinaryCounts.from_long(native, id="qid", outcome="value", sample="sample")
        assert counts.ids == tuple(ids), name
        assert counts.n_samples.tolist() == expected.n_samples.tolist(), name
        assert counts.n_correct.tolist() == expected.n_correct.tolist(), name
        assert kpass.pass_at_k(counts, 2) == kpass.pass_at_k([GROUPED[q] for q in ids], 2)


def test_threshold_on_every_engine():
    df = frame(SCORES, seed=1)
    ids = sorted(SCORES)
    expected = kpass.binary_counts(kpass.binarize([SCORES[q] for q in ids], 0.5))
    for name, native in engines(df).items():
        counts = kpass.BinaryCounts.from_long(native, id="qid", outcome="value", threshold=0.5)
        assert counts.n_correct.tolist() == expected.n_correct.tolist() == [2, 1, 2], name
        assert counts.n_samples.tolist() == [3, 2, 3], name


def test_categorical_from_long_on_every_engine():
    df = frame(CATEGORIES, seed=2)
    ids = sorted(CATEGORIES)
    expected = kpass.categorical_counts([CATEGORIES[q] for q in ids])
    for name, native in engines(df).items():
        counts = kpass.CategoricalCounts.from_long(native, id="qid", outcome="value")
        assert counts.ids == tuple(ids), name
        assert counts.counts.tolist() == expected.counts.tolist(), name


def test_integer_ids_and_bad_values_are_refused_in_the_engine():
    import polars as pl

    df = pd.DataFrame({"qid": [3, 1, 3], "sample": [0, 0, 0], "value": [1, 0, 1]})
    with pytest.raises(ValueError, match=r"\(id, sample\) = \(3, 0\) is repeated"):
        kpass.BinaryCounts.from_long(pl.from_pandas(df), id="qid", outcome="value",
                                     sample="sample")
    counts = kpass.BinaryCounts.from_long(df, id="qid", outcome="value")
    assert counts.ids == (1, 3) and counts.n_samples.tolist() == [1, 2]
    soft = pd.DataFrame({"qid": ["a", "b"], "value": [0.6, 1.0]})
    with pytest.raises(ValueError, match="0 or 1.*threshold.*'a'"):
        kpass.BinaryCounts.from_long(soft, id="qid", outcome="value")
    # A NaN is a missing outcome on every engine (pandas cannot tell it from a null).
    nan = pl.DataFrame({"qid": ["a", "b"], "value": [0.6, float("nan")]})
    with pytest.raises(ValueError, match=r"missing \(null or NaN\) for question id 'b'"):
        kpass.BinaryCounts.from_long(nan, id="qid", outcome="value", threshold=0.5)
    inf = pl.DataFrame({"qid": ["a", "b"], "value": [0.6, float("inf")]})
    with pytest.raises(ValueError, match="finite score.*'b'"):
        kpass.BinaryCounts.from_long(inf, id="qid", outcome="value", threshold=0.5)
    with pytest.raises(ValueError, match="`qid` is missing in 1 rows"):
        kpass.BinaryCounts.from_long(pl.DataFrame({"qid": ["a", None], "value": [1, 0]}),
                                     id="qid", outcome="value")
    with pytest.raises(ValueError, match="no column `nope`"):
        kpass.BinaryCounts.from_long(df, id="nope", outcome="value")
    with pytest.raises(TypeError, match="dataframe"):
        kpass.BinaryCounts.from_long([[1, 0]], id="qid", outcome="value")


def test_shards_counted_separately_merge_by_id():
    import dask.dataframe as dd

    df = frame(GROUPED, seed=5)
    half = len(df) // 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        parts = [kpass.BinaryCounts.from_long(dd.from_pandas(part, npartitions=2), id="qid",
                                              outcome="value")
                 for part in (df.iloc[:half], df.iloc[half:])]
    merged = kpass.BinaryCounts.concat(parts)
    order = np.argsort(np.array(merged.ids, dtype=str))
    whole = kpass.BinaryCounts.from_long(df, id="qid", outcome="value")
    assert tuple(np.array(merged.ids, dtype=object)[order]) == whole.ids
    assert merged.n_samples[order].tolist() == whole.n_samples.tolist()
    assert merged.n_correct[order].tolist() == whole.n_correct.tolist()


# ----------------------------------------------------------------------------- issue 18
# Each engine refuses bad values itself, in one aggregate, before any cast or table:
# the same kpass message everywhere, never a raw engine error or a huge allocation.


def every_engine(df):
    """``df`` in every installed engine (no partition-count assertion: tiny frames)."""
    import dask.dataframe as dd
    import duckdb
    import polars as pl
    import pyarrow as pa

    datasets = pytest.importorskip("datasets")
    return {"pandas": df, "polars": pl.from_pandas(df), "polars-lazy": pl.from_pandas(df).lazy(),
            "pyarrow": pa.Table.from_pandas(df, preserve_index=False),
            "duckdb": duckdb.from_df(df), "dask": dd.from_pandas(df, npartitions=2),
            "datasets": datasets.Dataset.from_pandas(df, preserve_index=False)}


def messages(df, build):
    """The (type, message) each engine raises for ``build(native)``."""
    found = {}
    for name, native in every_engine(df).items():
        with pytest.raises((ValueError, TypeError)) as error:
            build(native)
        found[name] = (error.type, str(error.value))
    return found


CATEGORY = r"`value` must be an integer category in \[0, 65535\] \(at most 65536 categories\)"


@pytest.mark.parametrize("huge, shown", [(10**9, "1000000000"), (2**62, "4611686018427387904"),
                                         (1e300, "1e+300"), (65536, "65536"), (-1, "-1"),
                                         (2.5, "2.5"), (float("inf"), "inf")])
def test_categorical_from_long_refuses_a_category_beyond_the_cap_on_every_engine(huge, shown):
    df = pd.DataFrame({"qid": ["b", "a", "b"], "value": [0, 1, huge]})
    found = messages(df, lambda native: kpass.CategoricalCounts.from_long(
        native, id="qid", outcome="value"))
    for name, (kind, message) in found.items():
        assert kind is kpass.InputError and re.fullmatch(
            rf"{CATEGORY}; got value={re.escape(shown)} for question id 'b' \(1 such rows\)",
            message), (name, message)


@pytest.mark.slow
def test_categorical_from_long_refuses_a_table_beyond_the_cap_before_allocating():
    import polars as pl

    # 2049 questions x 65536 categories > 2**27 entries (the cap of categorical_counts).
    df = pd.DataFrame({"qid": np.arange(2049), "value": np.full(2049, 65535)})
    for native in (df, pl.from_pandas(df).lazy()):
        with pytest.raises(ValueError, match=r"`value` needs a table of 2049 questions x 65536 "
                                             r"categories, more than the 134217728 entries"):
            kpass.CategoricalCounts.from_long(native, id="qid", outcome="value")
    ok = kpass.CategoricalCounts.from_long(df.iloc[:2048], id="qid", outcome="value")
    assert ok.counts.shape == (2048, 65536) and int(ok.counts[:, 65535].sum()) == 2048


@pytest.mark.parametrize("column, dtype, expected", [
    ([1.0, None, 0.0], "float64", r"`value` is missing \(null or NaN\) for question id 'b' "
                                  r"\(1 missing outcomes in all\)"),
    ([1, None, 0], "Int64", r"`value` is missing \(null or NaN\) for question id 'b' "
                            r"\(1 missing outcomes in all\)"),
    ([True, None, False], "boolean", r"`value` is missing \(null or NaN\) for question id 'b' "
                                     r"\(1 missing outcomes in all\)"),
    ([1.0, 1e300, 0.0], "float64", r"`value` must be 0 or 1 \(soft scores need threshold=T\); "
                                   r"got value=1e\+300 for question id 'b' \(1 such rows\)"),
    ([1, 2**62, 0], "int64", r"`value` must be 0 or 1 \(soft scores need threshold=T\); got "
                             r"value=4611686018427387904 for question id 'b' \(1 such rows\)"),
])
def test_binary_from_long_gives_one_kpass_message_on_every_engine(column, dtype, expected):
    df = pd.DataFrame({"qid": ["a", "b", "c"], "value": pd.Series(column, dtype=dtype)})
    found = messages(df, lambda native: kpass.BinaryCounts.from_long(
        native, id="qid", outcome="value"))
    for name, (kind, message) in found.items():
        assert kind is kpass.InputError and re.fullmatch(expected, message), (name, message)
    if dtype != "boolean":
        found = messages(df, lambda native: kpass.CategoricalCounts.from_long(
            native, id="qid", outcome="value"))
        assert len(set(found.values())) == 1, found


def test_from_long_refuses_text_outcomes_and_float_ids_by_type_on_every_engine():
    text = pd.DataFrame({"qid": ["a", "b"], "value": ["1", "x"]})
    for build in (lambda native: kpass.BinaryCounts.from_long(native, id="qid", outcome="value"),
                  lambda native: kpass.CategoricalCounts.from_long(native, id="qid",
                                                                   outcome="value")):
        for name, (kind, message) in messages(text, build).items():
            assert issubclass(kind, TypeError) and message == (
                "`value` must be a numeric or boolean column of outcomes; got dtype String "
                "(convert the column to numbers first)"), (name, message)
    floats = pd.DataFrame({"qid": [1.0, 2.0], "value": [1, 0]})
    for name, (kind, message) in messages(floats, lambda native: kpass.BinaryCounts.from_long(
            native, id="qid", outcome="value")).items():
        assert issubclass(kind, TypeError) and message == (
            "`qid` must be a column of str or int question ids; got dtype Float64"), name


def test_from_long_integer_scores_with_a_threshold_compare_exactly():
    scores = [0, 3, 2**62, -(2**62), 2**53 + 1]
    df = pd.DataFrame({"qid": ["a", "a", "b", "b", "c"], "value": scores})
    for threshold in (0.5, 2.5, -1e300, 1e300, float(2**62), float(2**53)):
        expected = [sum(int(v > threshold) for v, q in zip(scores, df.qid, strict=True)
                        if q == question) for question in "abc"]
        for name, native in every_engine(df).items():
            counts = kpass.BinaryCounts.from_long(native, id="qid", outcome="value",
                                                  threshold=threshold)
            assert counts.n_correct.tolist() == expected, (name, threshold)


def test_from_long_pandas_object_ids_keep_1_and_the_string_1_apart():
    df = pd.DataFrame({"qid": pd.Series([1, "1", 1], dtype=object), "value": [1, 0, 0]})
    counts = kpass.BinaryCounts.from_long(df, id="qid", outcome="value")
    assert counts.ids == (1, "1") and counts.n_samples.tolist() == [2, 1]
    bad = pd.DataFrame({"qid": pd.Series([1, 2.5], dtype=object), "value": [1, 0]})
    with pytest.raises(TypeError, match=r"`qid` must hold str or int question ids; got "
                                        r"qid=2.5 \(float\)"):
        kpass.BinaryCounts.from_long(bad, id="qid", outcome="value")


def test_from_long_decimal_outcomes_are_numbers_and_shown_as_such():
    import duckdb

    rel = duckdb.sql("select * from (values ('a', 1.0::DECIMAL(4,1)), ('a', 0.0::DECIMAL(4,1)),"
                     " ('b', 2.0::DECIMAL(4,1))) t(qid, value)")
    assert kpass.CategoricalCounts.from_long(rel, id="qid", outcome="value").counts.tolist() == \
        [[1, 1, 0], [0, 0, 1]]
    assert kpass.BinaryCounts.from_long(rel, id="qid", outcome="value",
                                        threshold=0.5).n_correct.tolist() == [1, 1]
    with pytest.raises(ValueError, match=r"got value=2\.0 for question id 'b' \(1 such rows\)$"):
        kpass.BinaryCounts.from_long(rel, id="qid", outcome="value")


# ----------------------------------------------------------------------------- issue 22
# One pass: the checks are aggregates of the counting group-by, so a lazy source is read
# once (sample= too: distinct samples per question against its rows, no group per row);
# a second query runs only to name the offending row of an error.


def counted_lazy(grouped, reads):
    """A polars LazyFrame of ``grouped`` that appends to ``reads`` each time it is read."""
    import polars as pl

    base = pl.from_pandas(frame(grouped, seed=7))

    def read(batch):
        reads.append(len(batch))
        return batch

    return base.lazy().map_batches(read, schema=base.schema)


def plain_counts(grouped):
    """(ids, n, c) by a plain-Python count of ``grouped``."""
    ids = sorted(grouped)
    return (tuple(ids), [len(grouped[q]) for q in ids], [sum(grouped[q]) for q in ids])


@pytest.mark.parametrize("options, expected_reads", [
    ({}, 1), ({"sample": "sample"}, 1), ({"threshold": 0.5}, 1)])
def test_binary_from_long_reads_a_lazy_source_once(options, expected_reads):
    reads = []
    counts = kpass.BinaryCounts.from_long(counted_lazy(GROUPED, reads), id="qid",
                                          outcome="value", **options)
    assert (counts.ids, counts.n_samples.tolist(), counts.n_correct.tolist()) == \
        plain_counts(GROUPED)
    assert reads == [15] * expected_reads, reads


@pytest.mark.parametrize("options, expected_reads", [({}, 1), ({"sample": "sample"}, 2)])
def test_categorical_from_long_reads_a_lazy_source_once_twice_with_samples(options,
                                                                          expected_reads):
    reads = []
    counts = kpass.CategoricalCounts.from_long(counted_lazy(CATEGORIES, reads), id="qid",
                                               outcome="value", **options)
    expected = [[values.count(k) for k in range(4)] for _, values in sorted(CATEGORIES.items())]
    assert counts.counts.tolist() == expected
    assert reads == [8] * expected_reads, reads


def test_from_long_reads_each_row_of_a_duckdb_relation_once():
    import duckdb

    seen = []

    def tick(value):
        seen.append(value)
        return value

    connection = duckdb.connect()
    try:
        connection.create_function("tick", tick, ["BIGINT"], "BIGINT", side_effects=True)
        connection.register("log", frame(GROUPED, seed=8))
        relation = connection.sql("select qid, sample, tick(value) as value from log")
        counts = kpass.BinaryCounts.from_long(relation, id="qid", outcome="value",
                                              sample="sample")
        assert (counts.ids, counts.n_samples.tolist(), counts.n_correct.tolist()) == \
            plain_counts(GROUPED)
        assert len(seen) == 15  # every row once (the old checks read each row twice)
    finally:
        connection.remove_function("tick")
        connection.close()


def repeated_reference(rows):
    """The message for the smallest repeated (id, sample) pair, by a plain-Python count."""
    seen = {}
    for q, s, _ in rows:
        seen[(q, s)] = seen.get((q, s), 0) + 1
    q, s, n = min((q, s, n) for (q, s), n in seen.items() if n > 1)
    return (f"(id, sample) = ({q!r}, {s!r}) is repeated ({n} rows); each sample of a question "
            "must appear once")


@pytest.mark.parametrize("offending", [1, 3, 1500])
def test_from_long_repeated_pairs_are_located_among_few_or_many_questions(offending):
    import dask.dataframe as dd
    import duckdb
    import polars as pl

    # 1600 questions x 3 samples; the last `offending` questions repeat a sample (one of
    # them twice), so that the smallest repeated pair is not the first one met.
    rng = random.Random(offending)
    rows = [(f"q{q:04d}", s, rng.randint(0, 1)) for q in range(1600) for s in range(3)]
    for q in range(1600 - offending, 1600):
        s = rng.randint(0, 2)
        rows += [(f"q{q:04d}", s, 1)] * (1 + (q % 7 == 0))
    rng.shuffle(rows)
    df = pd.DataFrame(rows, columns=["qid", "sample", "value"])
    expected = repeated_reference(rows)
    for name, native in {"pandas": df, "polars-lazy": pl.from_pandas(df).lazy(),
                         "duckdb": duckdb.from_df(df),
                         "dask": dd.from_pandas(df, npartitions=3)}.items():
        for build in (kpass.BinaryCounts.from_long, kpass.CategoricalCounts.from_long):
            with pytest.raises(ValueError) as error:
                build(native, id="qid", outcome="value", sample="sample")
            assert str(error.value) == expected, (name, build)


def test_dask_repeated_pair_across_partitions_is_found():
    """narwhals 2.29 adds Dask's per-partition distinct counts: kpass must not rely on it."""
    import dask.dataframe as dd

    # q1's sample 0 is once in each of the two partitions; q2 is clean.
    df = pd.DataFrame({"qid": ["q1", "q2", "q2", "q1", "q1"], "sample": [0, 0, 1, 1, 0],
                       "value": [1, 0, 1, 1, 0]})
    native = dd.from_pandas(df, npartitions=2, sort=False)
    assert native.npartitions == 2
    assert native.partitions[0].compute().qid.tolist() == ["q1", "q2", "q2"]
    message = repeated_reference(list(df.itertuples(index=False)))
    assert message.startswith("(id, sample) = ('q1', 0) is repeated (2 rows)")
    for build in (kpass.BinaryCounts.from_long, kpass.CategoricalCounts.from_long):
        with pytest.raises(ValueError, match=re.escape(message)):
            build(native, id="qid", outcome="value", sample="sample")
    clean = dd.from_pandas(df.iloc[:4], npartitions=2, sort=False)
    counts = kpass.BinaryCounts.from_long(clean, id="qid", outcome="value", sample="sample")
    assert (counts.ids, counts.n_samples.tolist(), counts.n_correct.tolist()) == \
        (("q1", "q2"), [2, 2], [2, 1])


def fake_version(monkeypatch, module, version):
    """Make narwhals see ``module`` at ``version`` (it caches each engine's version once)."""
    monkeypatch.setattr(module, "__version__", version)
    pytest.importorskip("narwhals._utils").backend_version.cache_clear()


def test_engine_older_than_narwhals_supports_is_named_with_both_versions(monkeypatch):
    import duckdb
    import narwhals
    import narwhals._utils
    import polars as pl

    try:
        for module, version, engine, least, native in [
                (pl, "0.19.0", "polars", "0.20.4", pl.DataFrame({"q": ["a"], "v": [1]}).lazy()),
                (duckdb, "1.0.0", "duckdb", "1.1", duckdb.sql("select 'a' as q, 1 as v"))]:
            fake_version(monkeypatch, module, version)
            for build in (kpass.BinaryCounts.from_long, kpass.CategoricalCounts.from_long):
                with pytest.raises(ValueError) as error:
                    build(native, id="q", outcome="v")
                assert str(error.value) == (
                    f"`frame` is a {engine} {version} dataframe, but narwhals "
                    f"{narwhals.__version__} (which from_long reads frames through) supports "
                    f"{engine} {least} or later; upgrade {engine} to {least} or later, or "
                    f"group the frame in {engine} yourself and build the counts from its "
                    "per-question rows (BinaryCounts(n, c, ids=...))")
            monkeypatch.undo()
    finally:
        narwhals._utils.backend_version.cache_clear()
    counts = kpass.BinaryCounts.from_long(pl.DataFrame({"q": ["a"], "v": [1]}), id="q",
                                          outcome="v")
    assert counts.n_correct.tolist() == [1]
