"""BinaryCounts/CategoricalCounts.from_long on every dataframe engine: identical counts and ids."""

import random
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
    nan = pl.DataFrame({"qid": ["a", "b"], "value": [0.6, float("nan")]})
    with pytest.raises(ValueError, match="finite score.*'b'"):
        kpass.BinaryCounts.from_long(nan, id="qid", outcome="value", threshold=0.5)
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
