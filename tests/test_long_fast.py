"""The pyarrow fast path of long CSV/TSV/Parquet files gives exactly what the line-by-line
reader gives (counts, ids and their types, the column), and hands every doubtful file to it
(the same errors, with their lines)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kpass.io import long as long_module
from kpass.io.long import load_long
from kpass.io.readers import ReportError

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def slow(_, *args, **kwargs):
    """The line-by-line reader alone (the fast path switched off for this call)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(long_module, "fast_long_counts", lambda *a, **k: None)
        return load_long(*args, **kwargs)


def fast_used(monkeypatch):
    calls = []
    original = long_module.fast_long_counts

    def spy(*args, **kwargs):
        result = original(*args, **kwargs)
        calls.append(result is not None)
        return result

    monkeypatch.setattr(long_module, "fast_long_counts", spy)
    return calls


def same(a, b):
    assert a.column == b.column
    assert a.counts.ids is not None and b.counts.ids is not None
    found = {q: (int(n), int(c)) for q, n, c in zip(a.counts.ids, a.counts.n_samples,
                                                      a.counts.n_correct, strict=True)}
    expected = {q: (int(n), int(c)) for q, n, c in zip(b.counts.ids, b.counts.n_samples,
                                                         b.counts.n_correct, strict=True)}
    assert found == expected
    assert {type(q) for q in found} == {type(q) for q in expected}


def write_csv(path, header, rows):
    path.write_text(",".join(header) + "\n" + "".join(",".join(map(str, r)) + "\n"
                                                       for r in rows))
    return path


ID_POOL = ["q1", "q2", "7", "07", "0", "-3", "x y", "é", "10", "-0"]


STYLES = {"int": ["0", "1"], "bool": ["false", "true"], "float": ["0.0", "1.0"],
          "mixed": ["0", "1", "true", "2"]}


@settings(max_examples=80)
@given(cells=st.lists(st.tuples(st.sampled_from(ID_POOL), st.integers(0, 5), st.booleans()),
                      min_size=1, max_size=40),
       style=st.sampled_from(sorted(STYLES)), with_sample=st.booleans(),
       mixed=st.integers(0, 3))
def test_fast_path_equals_the_line_by_line_reader(tmp_path_factory, cells, style, with_sample,
                                                  mixed):
    values = STYLES[style]
    rows = [(q, s, values[int(ok) if style != "mixed" else (int(ok) + mixed) % 4])
            for q, s, ok in cells]
    path = write_csv(tmp_path_factory.mktemp("f") / "long.csv", ["q", "s", "ok"], rows)
    sample = "s" if with_sample else None
    try:
        expected = slow(None, str(path), id="q", sample=sample, column="ok")
    except ReportError as error:
        with pytest.raises(ReportError) as found:
            load_long(str(path), id="q", sample=sample, column="ok")
        assert str(found.value) == str(error)
        return
    same(load_long(str(path), id="q", sample=sample, column="ok"), expected)


def test_integer_and_text_ids_keep_their_identity(tmp_path, monkeypatch):
    rows = [("7", 0, 1), ("07", 0, 0), ("q", 0, 1), ("7", 1, 1), ("-3", 0, 0)]
    path = write_csv(tmp_path / "ids.csv", ["q", "s", "ok"], rows)
    calls = fast_used(monkeypatch)
    loaded = load_long(str(path), id="q", sample="s", column="ok")
    assert calls == [True]
    assert dict(zip(loaded.counts.ids, loaded.counts.n_samples.tolist(), strict=True)) == {
        7: 2, "07": 1, "q": 1, -3: 1}


@pytest.mark.parametrize("rows, problem", [
    ([(" 7", 0, 1), ("7", 1, 0)], None),                   # padded: the rule merges them
    ([("-0", 0, 1), ("0", 1, 0)], None),                   # "-0" is 0
    ([("a", 0, 1), ("a", 0, 0)], "is repeated"),           # duplicated sample
    ([("a", 0, 1), ("a", 1, 2)], "not binary"),            # a 2
    ([("a", 0, 1), ("", 1, 0)], "empty"),                  # blank id
])
def test_doubtful_files_go_to_the_line_by_line_reader(tmp_path, monkeypatch, rows, problem):
    path = write_csv(tmp_path / "d.csv", ["q", "s", "ok"], rows)
    calls = fast_used(monkeypatch)
    if problem is None:
        loaded = load_long(str(path), id="q", sample="s", column="ok")
        assert calls == [False] and loaded.counts.n_questions == 1
    else:
        with pytest.raises(ReportError, match=problem) as error:
            load_long(str(path), id="q", sample="s", column="ok")
        assert calls == [False] and "line" in str(error.value)


def test_parquet_and_tsv_take_the_fast_path(tmp_path, monkeypatch):
    rng = np.random.default_rng(1)
    q = rng.integers(0, 30, 500)
    ok = rng.integers(0, 2, 500)
    pq.write_table(pa.table({"question": q, "correct": ok.astype(bool)}), tmp_path / "r.parquet")
    (tmp_path / "r.tsv").write_text("question\tcorrect\n" + "".join(
        f"{a}\t{b}\n" for a, b in zip(q, ok, strict=True)))
    for name in ("r.parquet", "r.tsv"):
        calls = fast_used(monkeypatch)
        loaded = load_long(str(tmp_path / name), id="question")
        assert calls == [True] and loaded.column == "correct"
        same(loaded, slow(monkeypatch, str(tmp_path / name), id="question"))
        monkeypatch.undo()
