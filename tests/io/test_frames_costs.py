"""from_long_with_costs on every dataframe engine: counts and per-question mean costs of one
group-by, equal to pandas' own group-by of the same rows; bad costs named on every engine."""

import random

import numpy as np
import pytest

import kpass

pd = pytest.importorskip("pandas")
pytest.importorskip("narwhals")

pytestmark = pytest.mark.filterwarnings("ignore:Dask support is moving:FutureWarning")


def warehouse(seed=0, models=3, questions=7):
    """A long table ``model, question, sample, correct, cost`` in shuffled row order, each
    (model, question) with its own number of samples."""
    rng = random.Random(seed)
    rows = []
    for m in range(models):
        for q in range(questions):
            for s in range(rng.randint(1, 5)):
                rows.append((f"m{m}", f"q{q:02d}", s, int(rng.random() < 0.3 + 0.2 * m),
                             round(rng.uniform(0.0, 3.0), 6)))
    rng.shuffle(rows)
    return pd.DataFrame(rows, columns=["model", "question", "sample", "correct", "cost"])


def engines(df):
    """The same long table in every engine the test environment has (Spark: its own file)."""
    import dask.dataframe as dd
    import duckdb
    import polars as pl
    import pyarrow as pa

    out = {"pandas": df, "polars": pl.from_pandas(df), "polars-lazy": pl.from_pandas(df).lazy(),
           "pyarrow": pa.Table.from_pandas(df, preserve_index=False),
           "duckdb": duckdb.from_df(df), "dask": dd.from_pandas(df, npartitions=3)}
    datasets = pytest.importorskip("datasets")
    out["datasets"] = datasets.Dataset.from_pandas(df, preserve_index=False)
    return out


def reference(df):
    """pandas' group-by: per (model, question) the rows, the correct ones, the mean cost."""
    return df.groupby(["model", "question"]).agg(n=("correct", "size"), c=("correct", "sum"),
                                                  x=("cost", "mean"))


def test_by_model_costs_equal_pandas_groupby_on_every_engine():
    df = warehouse()
    expected = reference(df)
    for name, native in engines(df).items():
        counts, costs = kpass.from_long_with_costs(native, id="question", outcome="correct",
                                                   cost="cost", sample="sample", by="model")
        assert list(counts) == list(costs) == ["m0", "m1", "m2"], name
        for model, run in counts.items():
            own = expected.loc[model]
            assert run.ids == tuple(own.index), name
            assert run.n_samples.tolist() == own["n"].tolist(), name
            assert run.n_correct.tolist() == own["c"].tolist(), name
            assert costs[model].dtype == np.float64
            np.testing.assert_allclose(costs[model], own["x"].to_numpy(), rtol=1e-12,
                                       err_msg=name)
            # the counts are from_long's own
            plain = kpass.BinaryCounts.from_long(native, id="question", outcome="correct",
                                                 by="model")[model]
            assert (plain.ids, plain.n_samples.tolist(), plain.n_correct.tolist()) == (
                run.ids, run.n_samples.tolist(), run.n_correct.tolist()), name


def test_one_model_costs_and_integer_token_costs_on_every_engine():
    """Without by: one run; an integer column (tokens) is summed as integers, exactly."""
    df = warehouse(seed=1)
    one = df[df["model"] == "m1"].drop(columns="model").reset_index(drop=True)
    one = one.assign(tokens=[2**40 + i for i in range(len(one))])  # beyond float32, exact sums
    expected = one.groupby("question").agg(n=("correct", "size"), x=("cost", "mean"),
                                           t=("tokens", "sum"))
    for name, native in engines(one).items():
        counts, costs = kpass.from_long_with_costs(native, id="question", outcome="correct",
                                                   cost="cost")
        assert counts.ids == tuple(expected.index), name
        assert counts.n_samples.tolist() == expected["n"].tolist(), name
        np.testing.assert_allclose(costs, expected["x"].to_numpy(), rtol=1e-12, err_msg=name)
        _, tokens = kpass.from_long_with_costs(native, id="question", outcome="correct",
                                               cost="tokens")
        assert tokens.tolist() == [t / n for t, n in zip(expected["t"], expected["n"],
                                                         strict=True)], name


def test_costs_feed_cost_summary_as_the_cli_route_does():
    """The costs in the counts' order give kpass.cost_summary's numbers, as a per-question
    table built by hand gives them."""
    df = warehouse(seed=2)
    counts, costs = kpass.from_long_with_costs(df, id="question", outcome="correct",
                                               cost="cost", by="model")
    own = reference(df).loc["m2"]
    by_hand = kpass.cost_summary(own["n"].to_numpy(), own["c"].to_numpy(), own["x"].to_numpy())
    found = kpass.cost_summary(counts["m2"].n_samples, counts["m2"].n_correct, costs["m2"])
    assert found.cost == pytest.approx(by_hand.cost, rel=1e-12)
    assert found.per_solved == pytest.approx(by_hand.per_solved, rel=1e-12)


BAD_COSTS = [
    ([0.5, -1.0, 2.0, 1.0], ValueError,
     "`cost` column `cost` must hold finite numbers >= 0 (each sample's cost); got cost=-1.0 "
     "for question id 'a' (1 such rows)"),
    ([0.5, float("inf"), 2.0, -3.0], ValueError,
     "`cost` column `cost` must hold finite numbers >= 0 (each sample's cost); got cost=-3.0 "
     "for question id 'a' (2 such rows)"),
    ([0.5, float("nan"), 2.0, None], ValueError,
     "`cost` column `cost` is missing (null or NaN) for question id 'a' (2 missing costs in "
     "all); every sample needs its cost"),
]


@pytest.mark.parametrize(("values", "kind", "message"), BAD_COSTS)
def test_bad_costs_are_named_with_one_row_on_every_engine(values, kind, message):
    df = pd.DataFrame({"question": ["b", "a", "b", "a"], "correct": [1, 0, 1, 1],
                       "cost": pd.Series(values, dtype="float64")})
    for name, native in engines(df).items():
        with pytest.raises(kind) as error:
            kpass.from_long_with_costs(native, id="question", outcome="correct", cost="cost")
        assert str(error.value) == message, name


def test_bad_cost_arguments_name_the_argument():
    df = warehouse(seed=3).assign(label=lambda f: f["model"])
    with pytest.raises(TypeError, match=r"`cost` must name a numeric column .*`label` has "
                                        r"dtype"):
        kpass.from_long_with_costs(df, id="question", outcome="correct", cost="label")
    with pytest.raises(ValueError, match=r"the frame has no column `usd`"):
        kpass.from_long_with_costs(df, id="question", outcome="correct", cost="usd")
    with pytest.raises(ValueError, match=r"`cost`='model' is already read as"):
        kpass.from_long_with_costs(df, id="question", outcome="correct", cost="model",
                                   by="model")
    with pytest.raises(TypeError, match=r"`cost` must name the frame's cost column \(a str\); "
                                        r"got None"):
        kpass.from_long_with_costs(df, id="question", outcome="correct", cost=None)


def test_a_lazy_source_is_scanned_once_with_costs():
    """The costs ride on the counting group-by: each row of a polars LazyFrame is read once."""
    pl = pytest.importorskip("polars")
    df = warehouse(seed=4)
    base = pl.from_pandas(df)
    reads = []

    def read(batch):
        reads.append(len(batch))
        return batch

    lazy = base.lazy().map_batches(read, schema=base.schema)
    counts, costs = kpass.from_long_with_costs(lazy, id="question", outcome="correct",
                                               cost="cost", sample="sample", by="model")
    assert sum(reads) == len(df), reads
    np.testing.assert_allclose(costs["m0"], reference(df).loc["m0"]["x"].to_numpy(), rtol=1e-12)
