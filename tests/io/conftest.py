"""Fixtures the io tests share, each defined once: the fast routes at every size, the long
log the Dask and Spark engine tests read with its reference counts by numpy, and for the
``--by`` tests a frame written in each format and the two routes a long table is read by."""

import numpy as np
import pytest

#: The engines' long log: this many questions, each with this many samples.
QUESTIONS, SAMPLES = 300, 12


@pytest.fixture(scope="module")
def fast_path_at_every_size():
    """Long files' fast routes at every size, for a module of tiny test files.

    Under ``LINE_READER_BYTES`` (8 KiB) a report reads a text file line by line (no pyarrow
    import); the modules that compare the fast routes with the line reader use it
    (``pytestmark = pytest.mark.usefixtures("fast_path_at_every_size")``). Module-scoped, so
    property tests may run under it.
    """
    from kpass.io.formats import readers

    patch = pytest.MonkeyPatch()
    patch.setattr(readers, "LINE_READER_BYTES", 0)
    yield
    patch.undo()


@pytest.fixture(scope="module")
def log():
    """A shuffled long log: QUESTIONS x SAMPLES rows, 0/1 outcomes, scores and categories."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(22)
    qid = np.repeat(np.arange(QUESTIONS), SAMPLES)
    sample = np.tile(np.arange(SAMPLES), QUESTIONS)
    p = rng.random(QUESTIONS)[qid]
    order = rng.permutation(qid.size)
    return pd.DataFrame({"qid": [f"q{q:03d}" for q in qid[order]], "sample": sample[order],
                         "correct": (rng.random(qid.size) < p).astype(np.int64)[order],
                         "score": rng.random(qid.size)[order],
                         "answer": rng.integers(0, 4, qid.size)[order]})


@pytest.fixture(scope="module")
def numpy_counts():
    """``numpy_counts(log, outcome)``: (ids, n, c) per question by numpy's own unique and
    bincount, the reference the engines' counts are held to."""
    def counts(log, outcome):
        ids, inverse = np.unique(log["qid"].to_numpy(dtype=str), return_inverse=True)
        n = np.bincount(inverse, minlength=ids.size)
        c = np.bincount(inverse, weights=log[outcome].to_numpy(), minlength=ids.size)
        return tuple(ids.tolist()), n.tolist(), c.astype(np.int64).tolist()

    return counts


@pytest.fixture(scope="session")
def write_frame():
    """``write_frame(frame, path)``: a pandas frame written as the file ``path`` names by its
    suffix (``.csv``, ``.tsv``, ``.jsonl``, else Parquet), without the index; returns ``path``."""
    def write(frame, path):
        if path.suffix == ".csv":
            frame.to_csv(path, index=False)
        elif path.suffix == ".tsv":
            frame.to_csv(path, index=False, sep="\t")
        elif path.suffix == ".jsonl":
            frame.to_json(path, orient="records", lines=True)
        else:
            frame.to_parquet(path, index=False)
        return path

    return write


@pytest.fixture(params=["tally", "pyarrow"])
def long_route(request, monkeypatch):
    """The route a long table is read by: the row tally (pyarrow's route switched off), or
    pyarrow's grouping at every size, which must not give up on any read of the test (it
    yields the list of its answers, True where it answered)."""
    from kpass.io.formats import readers
    from kpass.io.long import load as long_load

    if request.param == "tally":
        monkeypatch.setattr(long_load, "fast_long_counts", lambda *args, **kwargs: None)
        yield None
        return
    monkeypatch.setattr(readers, "LINE_READER_BYTES", 0)
    real = long_load.fast_long_counts
    taken = []

    def spy(*args, **kwargs):
        found = real(*args, **kwargs)
        taken.append(found is not None)
        return found

    monkeypatch.setattr(long_load, "fast_long_counts", spy)
    yield taken
    assert taken and all(taken), "pyarrow's route gave up"
