"""Fixtures the io tests share, each defined once: the fast routes at every size, and the long
log the Dask and Spark engine tests read with its reference counts by numpy."""

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
