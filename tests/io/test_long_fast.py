"""The pyarrow fast path of long CSV/TSV/Parquet files gives exactly what the line-by-line
reader gives (counts, ids and their types, the column), and hands every doubtful file to it
(the same errors, with their lines)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kpass.io.errors import ReportError
from kpass.io.long import load as long_module
from kpass.io.long.load import load_long

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

pytestmark = pytest.mark.usefixtures("fast_path_at_every_size")  # tiny files, fast routes


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
    assert a.shortest == b.shortest  # the question the k-cap message names, by its id


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
    ([("7", " 0", 1), ("7", "-0", 0)], "is repeated"),     # samples " 0" and "-0" are 0
    ([("a", 0, 1), ("a", 0, 0)], "is repeated"),           # duplicated sample
    ([("a", 0, 1), ("a", 1, 2)], "not binary"),            # a 2
    ([("a", 0, 1), ("", 1, 0)], "empty"),                  # blank id
])
def test_doubtful_files_go_to_the_line_by_line_reader(tmp_path, monkeypatch, rows, problem):
    """Ids the id rule merges stay on the fast path (issue 31: a padded id no longer sends
    the whole file to the line-by-line reader), with the line reader's counts; a problem
    goes to the line reader, which names the line."""
    path = write_csv(tmp_path / "d.csv", ["q", "s", "ok"], rows)
    calls = fast_used(monkeypatch)
    if problem is None:
        loaded = load_long(str(path), id="q", sample="s", column="ok")
        assert calls == [True] and loaded.counts.n_questions == 1
        same(loaded, slow(None, str(path), id="q", sample="s", column="ok"))
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


# ----------------------------------------------------------------------------- JSON Lines

JSON_IDS = [1, 2, 7, 0, -3, "q1", "07", "7", " 7", "", "é", "\u00e9x", 1.0, True, None,
            [1], {"a": 1}, 10**30, "-0"]
JSON_OUTCOMES = [0, 1, True, False, 1.0, 0.0, 2, "1", None, 0.5]


def write_jsonl(path, records, gz=False):
    import gzip
    import json

    text = "".join(json.dumps(r) + "\n" for r in records)
    if gz:
        with gzip.open(path, "wt") as handle:
            handle.write(text)
    else:
        path.write_text(text)
    return path


@settings(max_examples=120)
@given(cells=st.lists(st.tuples(st.sampled_from(JSON_IDS), st.integers(0, 4),
                                st.sampled_from(JSON_OUTCOMES)), min_size=1, max_size=30),
       with_sample=st.booleans(), gz=st.booleans(), clean=st.booleans())
def test_jsonl_fast_path_equals_the_line_by_line_reader(tmp_path_factory, cells, with_sample,
                                                        gz, clean):
    """Nasty ids and outcomes (padded, "07" against 7, floats, booleans, nulls, objects,
    2**100, "-0"): the JSONL fast path gives what the line-by-line reader gives, or its error."""
    if clean:  # mostly well-formed files, so the fast path itself is exercised often
        cells = [(q if isinstance(q, int) and not isinstance(q, bool) and abs(q) < 100 else 5,
                  s, 1 if ok in (1, True, 1.0) else 0) for q, s, ok in cells]
    records = [{"q": q, "s": s, "ok": ok, "extra": [1, {"x": q}]} for q, s, ok in cells]
    path = write_jsonl(tmp_path_factory.mktemp("j") / ("long.jsonl" + (".gz" if gz else "")),
                       records, gz)
    sample = "s" if with_sample else None
    try:
        expected = slow(None, str(path), id="q", sample=sample, column="ok")
    except ReportError as error:
        with pytest.raises(ReportError) as found:
            load_long(str(path), id="q", sample=sample, column="ok")
        assert str(found.value) == str(error)
        return
    same(load_long(str(path), id="q", sample=sample, column="ok"), expected)


def test_jsonl_takes_the_fast_path_with_its_ids_and_counts(tmp_path, monkeypatch):
    rng = np.random.default_rng(3)
    q = rng.integers(0, 40, 3000)
    s = np.zeros(3000, dtype=int)
    for question in range(40):  # sample numbers 0, 1, ... within each question
        s[q == question] = np.arange(int((q == question).sum()))
    ok = rng.integers(0, 2, 3000)
    records = [{"question": f"q{a}" if a % 2 else int(a), "sample": int(b), "correct": bool(c)}
               for a, b, c in zip(q, s, ok, strict=True)]
    # mixed id types would make pyarrow fail: keep one type per file
    for name, recs in (("text.jsonl", [dict(r, question=f"id{r['question']}") for r in records]),
                       ("ints.jsonl.gz", [dict(r, question=int(str(r["question"]).lstrip("q")))
                                          for r in records])):
        path = write_jsonl(tmp_path / name, recs, gz=name.endswith(".gz"))
        for sample in (None, "sample"):
            calls = fast_used(monkeypatch)
            loaded = load_long(str(path), id="question", sample=sample)
            assert calls == [True] and loaded.column == "correct"
            expected = {}
            for r in recs:  # an independent tally
                n, c = expected.get(r["question"], (0, 0))
                expected[r["question"]] = (n + 1, c + int(r["correct"]))
            found = {k: (int(n), int(c)) for k, n, c in zip(
                loaded.counts.ids, loaded.counts.n_samples, loaded.counts.n_correct,
                strict=True)}
            assert found == expected
            monkeypatch.undo()


def test_jsonl_too_deep_and_repeated_keys_go_to_the_line_by_line_reader(tmp_path, monkeypatch):
    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"q": 1, "ok": 1}\n{"q": 2, "ok": 1, "x": ' + "[" * 150 + "]" * 150 + "}\n")
    calls = fast_used(monkeypatch)
    with pytest.raises(ReportError, match="line 2"):
        load_long(str(deep), id="q", column="ok")
    assert calls == [False]
    monkeypatch.undo()
    twice = tmp_path / "twice.jsonl"  # json keeps the last of two equal keys
    twice.write_text('{"q": 1, "ok": 1, "ok": 0}\n{"q": 2, "ok": 1}\n')
    calls = fast_used(monkeypatch)
    loaded = load_long(str(twice), id="q", column="ok")
    assert calls == [False]
    assert loaded.counts.n_correct.tolist() == [0, 1]


@pytest.mark.slow  # over 2 s of CPU in the fast run (make check)
def test_a_pair_repeated_blocks_apart_is_found(tmp_path, monkeypatch):
    """The (id, sample) check spans pyarrow's blocks: a repeat far apart is still refused
    with both lines, as the line-by-line reader names them."""
    rows = [(f"q{i % 500}", i // 500, i % 2) for i in range(200_000)]
    path = write_csv(tmp_path / "fine.csv", ["q", "s", "ok"], rows)
    monkeypatch.setattr("kpass.io.long.long_fast.READ_BLOCK", 1 << 16)  # about 40 blocks
    assert path.stat().st_size > 30 * (1 << 16)
    calls = fast_used(monkeypatch)
    loaded = load_long(str(path), id="q", sample="s", column="ok")
    assert calls == [True] and loaded.counts.n_questions == 500
    assert loaded.counts.n_samples.tolist() == [400] * 500
    rows.append(("q3", 7, 1))  # q3 sample 7 was row 3503
    path = write_csv(tmp_path / "far.csv", ["q", "s", "ok"], rows)
    monkeypatch.setattr("kpass.io.long.long_fast.READ_BLOCK", 1 << 16)
    calls = fast_used(monkeypatch)
    with pytest.raises(ReportError, match="repeated") as error:
        load_long(str(path), id="q", sample="s", column="ok", chunk_size=1000)
    assert calls == [False] and "200002" in str(error.value)
    monkeypatch.undo()
    monkeypatch.setattr("kpass.io.long.long_fast.READ_BLOCK", 1 << 16)
    calls = fast_used(monkeypatch)
    loaded = load_long(str(path), id="q", column="ok")  # no --sample
    assert calls == [True] and int(loaded.counts.n_samples.sum()) == 200_001


def test_parts_with_samples_are_pooled_on_the_fast_path(tmp_path, monkeypatch):
    """Part files by --id and --sample: one pyarrow pass over all parts; a pair repeated in
    another part sends the input to the line-by-line reader, which names the part and line."""
    folder = tmp_path / "out"
    folder.mkdir()
    for part in range(3):
        write_jsonl(folder / f"part-{part}.jsonl", [
            {"q": q, "s": part, "ok": (q + part) % 2} for q in range(20)])
    (folder / "_SUCCESS").write_text("")
    calls = fast_used(monkeypatch)
    loaded = load_long(str(folder), id="q", sample="s", column="ok")
    assert calls == [True]
    assert loaded.counts.n_samples.tolist() == [3] * 20
    assert loaded.counts.n_correct.tolist() == [sum((q + p) % 2 for p in range(3))
                                                for q in range(20)]
    write_jsonl(folder / "part-3.jsonl", [{"q": 5, "s": 1, "ok": 1}])
    with pytest.raises(ReportError, match="repeated") as error:
        load_long(str(folder), id="q", sample="s", column="ok")
    assert "part-1.jsonl" in str(error.value) and "part-3.jsonl" in str(error.value)


BAD_BYTES = [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80abc"]  # invalid start, cut, surrogate


@settings(max_examples=80)
@given(cells=st.lists(st.tuples(st.sampled_from(["q1", "q2", "7"]), st.integers(0, 3),
                                st.booleans()), min_size=1, max_size=20),
       bad=st.lists(st.tuples(st.integers(0, 19), st.sampled_from(["q", "s", "ok", "note"]),
                              st.sampled_from(BAD_BYTES)), max_size=3),
       fmt=st.sampled_from(["csv", "jsonl"]), with_sample=st.booleans())
def test_bad_bytes_fast_path_equals_the_line_by_line_reader(tmp_path_factory, cells, bad, fmt,
                                                            with_sample):
    """Bytes that are not UTF-8 in any cell: both readers give the same counts (bytes in the
    unread `note` column ignored) or the same located error (bytes in a cell read)."""
    rows = [{"q": q.encode(), "s": str(s).encode(), "ok": b"1" if ok else b"0",
             "note": b"n"} for q, s, ok in cells]
    for index, column, data in bad:
        if index < len(rows):
            rows[index][column] += data
    if fmt == "csv":
        text = b"q,s,ok,note\n" + b"".join(b",".join(r.values()) + b"\n" for r in rows)
    else:
        text = b"".join(b'{"q": "%s", "s": "%s", "ok": %s, "note": "%s"}\n'
                        % (r["q"], r["s"], r["ok"] if r["ok"] in (b"0", b"1")
                           else b'"' + r["ok"] + b'"', r["note"]) for r in rows)
    path = tmp_path_factory.mktemp("b") / f"long.{fmt}"
    path.write_bytes(text)
    sample = "s" if with_sample else None
    read_cells = {"q", "ok"} | ({"s"} if with_sample else set())
    damaged = [(index, column) for index, column, _ in bad
               if index < len(rows) and column in read_cells]
    try:
        expected = slow(None, str(path), id="q", sample=sample, column="ok")
    except ReportError as error:
        with pytest.raises(ReportError) as found:
            load_long(str(path), id="q", sample=sample, column="ok")
        assert str(found.value) == str(error)
        if damaged and "not UTF-8" in str(error):
            first = min(index for index, _ in damaged)
            assert f"line {first + (2 if fmt == 'csv' else 1)}:" in str(error)
        assert damaged or "not UTF-8" not in str(error)
        return
    assert not damaged  # a bad byte in a cell read is never silently accepted
    same(load_long(str(path), id="q", sample=sample, column="ok"), expected)
