"""The columnar routes of long files (issue 31, item 5) against the line-by-line reader.

Padded ids, ``1.0`` among JSON integers and categorical Parquet ids stay on pyarrow's fast
path; whatever that path reads gives the line-by-line reader's counts (ids, their types, the
order), and whatever it refuses gives the line reader's error text, with the file and line.
"""

import gzip
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kpass.io.errors import ReportError
from kpass.io.long import load as long_module
from kpass.io.long import long_codes, long_fast
from kpass.io.long.load import load_long
from kpass.io.rows import canonical_id

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

pytestmark = pytest.mark.usefixtures("fast_path_at_every_size")  # tiny files, fast routes


def slow(*args, **kwargs):
    """The line-by-line reader alone (the fast path switched off for this call)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(long_module, "fast_long_counts", lambda *a, **k: None)
        return load_long(*args, **kwargs)


def spy(monkeypatch):
    """Records, per call, whether the fast path answered."""
    calls = []
    original = long_module.fast_long_counts

    def wrapped(*args, **kwargs):
        result = original(*args, **kwargs)
        calls.append(result is not None)
        return result

    monkeypatch.setattr(long_module, "fast_long_counts", wrapped)
    return calls


def table_of(loaded):
    """Question -> (n, c) in the reader's order, with the ids' own types."""
    return [(q, type(q), int(n), int(c)) for q, n, c in zip(
        loaded.counts.ids, loaded.counts.n_samples, loaded.counts.n_correct, strict=True)]


def both(path, **kwargs):
    """Both readers on one file: the same counts (order and types too) or the same error."""
    try:
        expected = slow(str(path), **kwargs)
    except ReportError as error:
        with pytest.raises(ReportError) as found:
            load_long(str(path), **kwargs)
        assert str(found.value) == str(error)
        return None
    loaded = load_long(str(path), **kwargs)
    assert loaded.column == expected.column
    assert table_of(loaded) == table_of(expected)
    assert loaded.shortest == expected.shortest  # the question the k-cap message names
    return loaded


def write_jsonl(path, records):
    text = "".join(json.dumps(r) + "\n" for r in records)
    if path.name.endswith(".gz"):
        with gzip.open(path, "wt") as handle:
            handle.write(text)
    else:
        path.write_text(text)
    return path


def test_padded_ids_and_float_outcomes_stay_on_the_fast_path(tmp_path, monkeypatch):
    records = [{"q": "q1", "s": 0, "ok": 1}, {"q": " q1", "s": 1, "ok": 1.0},
               {"q": "q2 ", "s": 0, "ok": 0.0}, {"q": "7", "s": 0, "ok": 0},
               {"q": " 7", "s": 1, "ok": 1}, {"q": "-0", "s": 0, "ok": 1},
               {"q": "0", "s": 1, "ok": 0}, {"q": "07", "s": 0, "ok": 1}]
    for name in ("p.jsonl", "p.jsonl.gz"):
        path = write_jsonl(tmp_path / name, records)
        for sample in (None, "s"):
            calls = spy(monkeypatch)
            loaded = both(path, id="q", sample=sample, column="ok")
            assert calls == [True] and loaded is not None
            assert table_of(loaded) == [("q1", str, 2, 2), ("q2", str, 1, 0), (7, int, 2, 1),
                                        (0, int, 2, 1), ("07", str, 1, 1)]
            monkeypatch.undo()


def test_a_pair_repeated_through_the_id_rule_is_refused_with_both_lines(tmp_path, monkeypatch):
    path = write_jsonl(tmp_path / "r.jsonl", [{"q": "a", "s": " 0", "ok": 1},
                                              {"q": "a ", "s": "-0", "ok": 0}])
    calls = spy(monkeypatch)
    with pytest.raises(ReportError, match=r"line 1 and line 2") as error:
        load_long(str(path), id="q", sample="s", column="ok")
    assert calls == [False] and "r.jsonl" in str(error.value)
    both(path, id="q", sample="s", column="ok")


@pytest.mark.parametrize("later, problem", [
    (True, "changed type"),        # a boolean among numbers: pyarrow stops, the line reader reads
    (2, "not binary"),
    (None, "outcome"),
    ("1", None),                   # text "1" is read as 1 by the line reader
])
def test_an_outcome_of_another_kind_goes_to_the_line_reader(tmp_path, monkeypatch, later,
                                                            problem):
    records = [{"q": i % 7, "ok": i % 2} for i in range(50)]
    records.insert(30, {"q": 3, "ok": later})
    path = write_jsonl(tmp_path / "k.jsonl", records)
    calls = spy(monkeypatch)
    loaded = both(path, id="q", column="ok")
    assert calls == [False]
    if loaded is None:
        with pytest.raises(ReportError, match="line 31"):
            load_long(str(path), id="q", column="ok")


def categorical_table(ids, samples, outcomes):
    return pa.table({"q": pa.array(ids).dictionary_encode(),
                     "s": pa.array(samples).dictionary_encode(),
                     "ok": pa.array(outcomes, pa.bool_())})


def test_categorical_parquet_ids_stay_on_the_fast_path(tmp_path, monkeypatch):
    rng = np.random.default_rng(5)
    rows = 3000
    q = [f"id{v}" if v % 3 else f" {v}" for v in rng.integers(0, 60, rows)]
    s = [str(i) for i in range(rows)]
    ok = rng.integers(0, 2, rows).astype(bool).tolist()
    path = tmp_path / "cat.parquet"
    pq.write_table(categorical_table(q, s, ok), path, row_group_size=700)
    assert pa.types.is_dictionary(pq.read_schema(path).field("q").type)
    for sample in (None, "s"):
        calls = spy(monkeypatch)
        both(path, id="q", sample=sample, column="ok", chunk_size=500)
        assert calls == [True]
        monkeypatch.undo()
    folder = tmp_path / "parts"  # parts with their own dictionaries, a pair repeated across
    folder.mkdir()
    pq.write_table(categorical_table(q[:1000], s[:1000], ok[:1000]), folder / "a.parquet")
    pq.write_table(categorical_table(q[1000:] + [q[5]], s[1000:] + [s[5]], ok[1000:] + [True]),
                   folder / "b.parquet")
    calls = spy(monkeypatch)
    both(folder, id="q", column="ok")
    assert calls == [True]
    with pytest.raises(ReportError, match="repeated") as error:
        load_long(str(folder), id="q", sample="s", column="ok")
    assert "a.parquet, row 6" in str(error.value) and "b.parquet, row 2001" in str(error.value)


def test_a_deep_line_far_into_the_file_is_caught_on_the_way_into_pyarrow(tmp_path, monkeypatch):
    """The nesting check runs on the bytes pyarrow reads (no second read): a too deep line
    many blocks in goes to the line reader, which names it; one inside a field kpass does not
    read is refused by it too (pyarrow never parses such a line)."""
    monkeypatch.setattr(long_fast, "READ_BLOCK", 1 << 12)
    records = [json.dumps({"q": i % 40, "ok": i % 2}) for i in range(4000)]
    records[3210] = '{"q": 1, "ok": 1, "x": ' + "[" * 150 + "]" * 150 + "}"
    path = tmp_path / "deep.jsonl"
    path.write_text("\n".join(records) + "\n")
    calls = spy(monkeypatch)
    with pytest.raises(ReportError, match="line 3211"):
        load_long(str(path), id="q", column="ok")
    assert calls == [False]


ID_POOL = ["q1", " q1", "q1 ", "7", " 7", "07", "-0", "0", "é", "", "  ", "x y", "10"]
OUTCOMES = [0, 1, 0.0, 1.0, True, 2, None, "1"]


@settings(max_examples=60, deadline=None)
@given(cells=st.lists(st.tuples(st.sampled_from(ID_POOL), st.sampled_from(["0", "1", " 1", "-0"]),
                                st.sampled_from(OUTCOMES)), min_size=1, max_size=60),
       fmt=st.sampled_from(["csv", "jsonl", "parquet", "parquet-categorical"]),
       with_sample=st.booleans(), clean=st.booleans())
def test_generated_files_equal_the_line_reader(tmp_path_factory, cells, fmt, with_sample, clean):
    """Counts or error text equal the line reader's on generated files, many tiny batches
    (every gathered batch brings new ids), for every format route."""
    if clean:  # mostly well-formed files, so the fast path itself is exercised often
        cells = [(q or "q", s, 1 if ok in (1, 1.0, True) else 0) for q, s, ok in cells]
        cells = [(q if q.strip() else "q", s, ok) for q, s, ok in cells]
    folder = tmp_path_factory.mktemp("g")
    if fmt == "csv":
        path = folder / "g.csv"
        path.write_text("q,s,ok\n" + "".join(
            f"{q},{s},{'' if ok is None else str(ok).lower() if isinstance(ok, bool) else ok}\n"
            for q, s, ok in cells))
    elif fmt == "jsonl":
        path = write_jsonl(folder / "g.jsonl", [{"q": q, "s": s, "ok": ok} for q, s, ok in cells])
    else:
        outcomes = [ok for _, _, ok in cells]
        if not all(isinstance(ok, (int, float)) and not isinstance(ok, bool) for ok in outcomes):
            outcomes = [int(ok in (1, 1.0, True)) for ok in outcomes]
        columns = {"q": pa.array([q for q, _, _ in cells]), "s": pa.array([s for _, s, _ in cells]),
                   "ok": pa.array(outcomes)}
        if fmt.endswith("categorical"):
            columns = {name: column.dictionary_encode() if name != "ok" else column
                       for name, column in columns.items()}
        path = folder / "g.parquet"
        pq.write_table(pa.table(columns), path, row_group_size=7)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(long_fast, "ROWS_PER_DISTINCT", 1)
        patch.setattr(long_fast, "READ_BLOCK", 64)  # a few rows per pyarrow block
        both(path, id="q", sample="s" if with_sample else None, column="ok", chunk_size=3)


@pytest.mark.parametrize("cells_per_row", [0, 4, 10**9])  # sort only, the default, grid only
def test_the_repeat_check_equals_a_set_of_pairs(monkeypatch, cells_per_row):
    """Both ways of finding a repeated (question, sample) -- the bitmap of questions x samples
    and the sort -- against a Python set of the canonical pairs, with raw codes that the id
    rule merges (raw ids 0 and 3 are one question)."""
    monkeypatch.setattr(long_codes, "GRID_CELLS_PER_ROW", cells_per_row)
    rng = np.random.default_rng(11)
    id_map = np.array([0, 1, 2, 0, 3], dtype=np.int64)
    sample_map = np.array([0, 1, 1, 2, 3, 4], dtype=np.int64)
    for trial in range(300):
        rows = int(rng.integers(1, 12))
        raw_ids = rng.integers(0, 5, rows)
        raw_samples = rng.integers(0, 6, rows)
        keys = (raw_ids.astype(np.int64) << 32) | raw_samples
        split = int(rng.integers(0, rows + 1))
        pairs = list(zip(id_map[raw_ids].tolist(), sample_map[raw_samples].tolist(), strict=True))
        expected = len(set(pairs)) < len(pairs)
        found = long_codes.repeated_pairs([keys[:split], keys[split:]], id_map, sample_map, 4)
        assert found == expected, (trial, pairs)


def test_work_per_batch_is_bounded_by_the_rows(tmp_path, monkeypatch):
    """Linear time: the lookups that grow with the known ids (one hash table over them per
    gathered batch) add up to a fixed fraction of the rows, however small pyarrow's blocks
    and ``--chunk-size`` are. Before issue 31 every 64K-row batch hashed every known id."""
    rng = np.random.default_rng(2)
    rows, questions = 120_000, 3_000
    q = rng.integers(0, questions, rows)
    seen: dict[int, int] = {}
    s = []  # sample numbers 0, 1, ... within each question
    for a in q.tolist():
        s.append(seen.get(a, 0))
        seen[a] = s[-1] + 1
    path = tmp_path / "w.csv"
    path.write_text("q,s,ok\n" + "".join(f"q{a},{b},{b % 2}\n" for a, b in zip(q, s, strict=True)))
    monkeypatch.setattr(long_fast, "READ_BLOCK", 1 << 12)  # ~300 blocks
    looked_up = []
    encode = long_codes.Codes.encode

    def counted(self, values):
        looked_up.append(self.size)  # the hash table index_in builds for this batch
        return encode(self, values)

    monkeypatch.setattr(long_codes.Codes, "encode", counted)
    calls = spy(monkeypatch)
    loaded = load_long(str(path), id="q", sample="s", column="ok", chunk_size=100)
    assert calls == [True] and loaded.counts.n_questions == len(set(q.tolist()))
    assert int(loaded.counts.n_samples.sum()) == rows
    # Every gathered batch but the last has at least ROWS_PER_DISTINCT rows per known id and
    # sample; the last adds at most the distinct values. (Hashing every known id per pyarrow
    # block, as before, would be about 300 x 3000.)
    distinct = questions + max(s) + 1
    assert sum(looked_up) <= rows // long_fast.ROWS_PER_DISTINCT + distinct


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.one_of(st.sampled_from(ID_POOL + ["-3", "7.0", "a\nb", "\tq", "-",
                                                            "q\x85"]),
                                 st.text(max_size=6)), min_size=1, max_size=8, unique=True))
def test_ids_taken_as_they_are_only_where_the_id_rule_keeps_them(values):
    """The shortcut that skips the id rule (``_Codes.canonical``) is taken only when
    :func:`canonical_id` maps every distinct raw id to itself, and then the fast path's ids
    are those of the rule applied one by one."""
    codes = long_codes.Codes(pa, pytest.importorskip("pyarrow.compute"))
    codes.encode(pa.array(values, type=pa.string()))
    if codes.canonical():
        assert all(canonical_id(value, "f", None) == value for value in values)
        ids, index = long_codes.canonical_codes(codes.values(), True, "f",
                                                   "question id")
        assert ids.tolist() == values and index.tolist() == list(range(len(values)))
    if all(value.isascii() and value.isprintable() and value == value.strip() and value
           and not value.lstrip("-").isdigit() for value in values):
        assert codes.canonical()  # plain ASCII labels that are not integers take the shortcut


# The DuckDB route: large Parquet inputs without --sample, DuckDB installed (io/long_duckdb).

duckdb = pytest.importorskip("duckdb")
from kpass.io.long import long_duckdb  # noqa: E402


def duckdb_spy(monkeypatch):
    """DuckDB's routes switched on at any size; records per call whether one answered."""
    monkeypatch.setattr(long_duckdb, "DUCKDB_ROWS", 0)
    monkeypatch.setattr(long_duckdb, "DUCKDB_BYTES", 0)
    calls = []
    for name in ("duckdb_long_counts", "duckdb_stream_counts"):
        original = getattr(long_fast, name)

        def wrapped(*args, _original=original, **kwargs):
            result = _original(*args, **kwargs)
            calls.append(result is not None)
            return result

        monkeypatch.setattr(long_fast, name, wrapped)
    return calls


def pyarrow_only(path, **kwargs):
    """The pyarrow route's answer (DuckDB's switched off for this call)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(long_fast, "use_duckdb", lambda *a, **k: False)
        return load_long(str(path), **kwargs)


PARQUET_IDS = ID_POOL + [None]
PARQUET_OUTCOMES = [0, 1, 0.0, 1.0, 0.5, 2, float("nan"), -0.0, None, True, False]


@settings(max_examples=80, deadline=None)
@given(cells=st.lists(st.tuples(st.sampled_from(PARQUET_IDS), st.sampled_from(PARQUET_OUTCOMES)),
                      min_size=1, max_size=40),
       int_ids=st.booleans(), outcome_kind=st.sampled_from(["int", "float", "bool", "as is"]),
       categorical=st.booleans(), parts=st.integers(1, 3), clean=st.booleans())
@pytest.mark.slow
def test_duckdb_route_equals_the_line_reader_and_the_pyarrow_route(
        tmp_path_factory, cells, int_ids, outcome_kind, categorical, parts, clean):
    """On generated Parquet inputs (one file or parts; text or integer ids, categorical or
    not; integer, float or boolean outcomes with nulls, NaN, 0.5, 2): whatever DuckDB's route
    answers equals the pyarrow route's and the line reader's counts, ids, id types and order;
    whatever it refuses ends as the line reader's answer or error."""
    if clean:
        cells = [(q if q and q.strip() else "q", 1 if ok in (1, True) else 0) for q, ok in cells]
    ids = [q for q, _ in cells]
    if int_ids:
        ids = [None if q is None else len(q) * 3 - 7 for q in ids]
    outcomes = [ok for _, ok in cells]
    kind = {"int": pa.int64(), "float": pa.float64(), "bool": pa.bool_(), "as is": None}
    if outcome_kind != "as is":
        outcomes = [None if ok is None else ok if outcome_kind == "float"
                    else int(ok == 1) if outcome_kind == "int" else bool(ok == 1)
                    for ok in outcomes]
    elif not all(isinstance(ok, (int, float)) and not isinstance(ok, bool) for ok in outcomes):
        outcomes = [1 if ok == 1 else 0 for ok in outcomes]
    table = pa.table({"q": pa.array(ids), "ok": pa.array(outcomes, kind[outcome_kind])})
    if categorical:
        table = table.set_column(0, "q", table.column("q").dictionary_encode())
    folder = tmp_path_factory.mktemp("d")
    if parts == 1:
        path = folder / "d.parquet"
        pq.write_table(table, path, row_group_size=5)
    else:
        path = folder / "parts"
        path.mkdir()
        step = -(-table.num_rows // parts)
        for part in range(parts):
            pq.write_table(table.slice(part * step, step), path / f"part-{part}.parquet")
    with pytest.MonkeyPatch.context() as patch:
        calls = duckdb_spy(patch)
        loaded = both(path, id="q", column="ok")
        if calls and calls[0]:
            assert loaded is not None
            assert table_of(loaded) == table_of(pyarrow_only(path, id="q", column="ok"))


def test_duckdb_route_answers_clean_inputs_in_first_seen_order_across_parts(tmp_path,
                                                                           monkeypatch):
    # Ids first seen in a later part come after those of earlier parts, whatever DuckDB's
    # hash order; padded and integer-text ids go through the id rule; the parts are found by
    # their names even with a quote and a space in the folder's name.
    folder = tmp_path / "it's parts"
    folder.mkdir()
    rng = np.random.default_rng(11)
    chunks = [["b", "a", " 7", "c"], ["z", "a", "7", "y", "b"], ["x", "w", "-0", "0"]]
    for number, chunk in enumerate(chunks):
        rows = [chunk[i % len(chunk)] for i in range(200)]
        pq.write_table(pa.table({'my "q"': rows, "ok": rng.integers(0, 2, 200)}),
                       folder / f"part-{number}.parquet", row_group_size=37)
    calls = duckdb_spy(monkeypatch)
    loaded = both(folder, id='my "q"', column="ok")
    assert calls == [True]
    assert [q for q, *_ in table_of(loaded)] == ["b", "a", 7, "c", "z", "y", "x", "w", 0]


@pytest.mark.parametrize("case", ["null id", "nan", "half", "two", "null outcome",
                                  "float ids", "types differ across parts", "small",
                                  "not installed", "too old", "with sample", "api breaks"])
def test_duckdb_route_leaves_what_it_doubts_to_the_other_routes(tmp_path, monkeypatch, case):
    rows = 60
    ids: list = [f"q{i % 6}" for i in range(rows)]
    ok: list = [i % 2 for i in range(rows)]
    if case == "null id":
        ids[40] = None
    elif case in ("nan", "half", "two", "null outcome"):
        ok = [float(v) for v in ok]
        ok[41] = {"nan": float("nan"), "half": 0.5, "two": 2.0, "null outcome": None}[case]
    elif case == "float ids":
        ids = [float(i % 6) for i in range(rows)]
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"q": ids, "s": list(range(rows)), "ok": ok}), path)
    if case == "types differ across parts":
        path = tmp_path / "parts"
        path.mkdir()
        pq.write_table(pa.table({"q": ids[:30], "ok": ok[:30]}), path / "a.parquet")
        pq.write_table(pa.table({"q": list(range(30)), "ok": ok[30:]}), path / "b.parquet")
    calls = duckdb_spy(monkeypatch)
    if case == "small":
        monkeypatch.setattr(long_duckdb, "DUCKDB_ROWS", rows + 1)
    if case == "not installed":
        real = long_duckdb.importlib.util.find_spec
        monkeypatch.setattr(long_duckdb.importlib.util, "find_spec",
                            lambda name, *a: None if name == "duckdb" else real(name, *a))
    if case == "too old":  # older than the report extra's pin: its API may differ
        real_version = long_duckdb.importlib.metadata.version
        monkeypatch.setattr(long_duckdb.importlib.metadata, "version",
                            lambda name: "1.0.0" if name == "duckdb" else real_version(name))
    if case == "api breaks":  # any failure of the accelerator leaves the input to the others
        def broken(*args, **kwargs):
            raise AttributeError("__enter__")

        monkeypatch.setattr(duckdb, "connect", broken)
    both(path, id="q", sample="s" if case == "with sample" else None, column="ok")
    # Not tried at all without DuckDB (or one too old) or with --sample; tried and declined
    # else (a small Parquet input is declined once its footers are read for rows and types).
    assert calls == ([] if case in ("not installed", "too old", "with sample") else [False])


@settings(max_examples=80, deadline=None)
@given(cells=st.lists(st.tuples(st.sampled_from(ID_POOL), st.sampled_from(OUTCOMES)),
                      min_size=1, max_size=60),
       fmt=st.sampled_from(["csv", "tsv", "jsonl", "jsonl.gz"]), parts=st.integers(1, 3),
       clean=st.booleans(), int_ids=st.booleans())
@pytest.mark.slow
def test_duckdb_grouping_pyarrows_batches_equals_the_line_reader(
        tmp_path_factory, cells, fmt, parts, clean, int_ids):
    """Text inputs parsed by pyarrow and grouped by DuckDB (tiny blocks, so many batches):
    whatever that route answers equals the pyarrow route's and the line reader's counts,
    ids, id types and order, across parts too; whatever it doubts ends as the line reader's
    answer or error."""
    if clean:
        cells = [(q if q.strip() else "q", 1 if ok in (1, 1.0, True) else 0) for q, ok in cells]
    if int_ids and fmt.startswith("jsonl"):
        cells = [(len(q) * 3 - 7, ok) for q, ok in cells]
    folder = tmp_path_factory.mktemp("t")
    step = -(-len(cells) // parts)
    chunks = [cells[i:i + step] for i in range(0, len(cells), step)]
    target = folder / "parts" if len(chunks) > 1 else folder
    target.mkdir(exist_ok=True)
    for number, chunk in enumerate(chunks):
        name = target / f"part-{number}.{fmt}"
        if fmt.startswith("jsonl"):
            write_jsonl(name, [{"q": q, "ok": ok} for q, ok in chunk])
        else:
            sep = "," if fmt == "csv" else "\t"
            name.write_text(f"q{sep}ok\n" + "".join(
                f"{q}{sep}{'' if ok is None else str(ok).lower() if isinstance(ok, bool) else ok}\n"
                for q, ok in chunk))
    path = target if len(chunks) > 1 else target / f"part-0.{fmt}"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(long_fast, "READ_BLOCK", 64)  # a few rows per pyarrow block
        calls = duckdb_spy(patch)
        loaded = both(path, id="q", column="ok")
        if calls and calls[0]:
            assert loaded is not None
            assert table_of(loaded) == table_of(pyarrow_only(path, id="q", column="ok"))


def test_duckdb_stream_keeps_first_seen_order_and_stops_at_a_doubt(tmp_path, monkeypatch):
    # Many pyarrow blocks: the ids come in first-seen order whatever DuckDB's hash order; a
    # bad outcome far into the file stops the stream, and the line reader (not pyarrow's
    # route, which would stop at the same row) names its line.
    monkeypatch.setattr(long_fast, "READ_BLOCK", 1 << 10)
    rng = np.random.default_rng(3)
    order = [f"id{v}" for v in rng.permutation(300)]
    records = [{"q": order[i % 300] if i >= 300 else order[i], "ok": int(rng.integers(0, 2))}
               for i in range(3000)]
    path = write_jsonl(tmp_path / "s.jsonl", records)
    calls = duckdb_spy(monkeypatch)
    loaded = both(path, id="q", column="ok")
    assert calls == [True] and [q for q, *_ in table_of(loaded)] == order
    records[2500]["ok"] = 2
    path = write_jsonl(tmp_path / "bad.jsonl", records)
    calls = duckdb_spy(monkeypatch)
    pyarrow_reads = []
    real_codes = long_fast.Codes
    monkeypatch.setattr(long_fast, "Codes", lambda *a: pyarrow_reads.append(1) or real_codes(*a))
    both(path, id="q", column="ok")
    assert calls == [False] and pyarrow_reads == []
    with pytest.raises(ReportError, match="line 2501"):
        load_long(str(path), id="q", column="ok")


def test_duckdb_draws_no_progress_bar_and_spills_outside_the_users_folder(tmp_path, monkeypatch):
    # DuckDB's own progress bar printed to stdout on a terminal, into `--format json`
    # output (seen on a 100M-row Parquet file under `script`); its default spill folder is
    # `.tmp` in the working folder. The route switches the bar off before its query (DuckDB
    # leaves it off by itself where stdout is not a terminal, as under pytest, so the order
    # of the statements is what is checked) and spills under the system's temporary folder.
    import tempfile
    from pathlib import Path

    during = []
    real_connect = duckdb.connect

    class Recorded:
        def __init__(self, *args, **kwargs):
            self.con = real_connect(*args, **kwargs)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.con.close()

        def register(self, *args):
            return self.con.register(*args)

        def execute(self, query, *args):
            during.append(" ".join(query.split()) if "GROUP BY" not in query else self.con.execute(
                "SELECT current_setting('temp_directory')").fetchone()[0])
            return self.con.execute(query, *args)

    monkeypatch.setattr(duckdb, "connect", Recorded)
    calls = duckdb_spy(monkeypatch)
    path = tmp_path / "p.parquet"
    pq.write_table(pa.table({"q": ["a", "b"] * 50, "ok": [1, 0] * 50}), path)
    loaded = load_long(str(path), id="q", column="ok")
    assert calls == [True] and table_of(loaded) == [("a", str, 50, 50), ("b", str, 50, 0)]
    assert during == ["SET enable_progress_bar = false",
                      str(Path(tempfile.gettempdir()) / "kpass-duckdb")]


def test_a_csv_with_a_byte_order_mark_stays_on_the_fast_path(tmp_path, monkeypatch):
    """Excel's "CSV UTF-8" starts with a BOM; pyarrow drops it, so the fast route reads it."""
    rows = ["q,ok"] + [f"q{i % 5},{(i * 7) % 3 == 0:d}" for i in range(40)]
    plain = tmp_path / "plain.csv"
    plain.write_text("\n".join(rows) + "\n")
    marked = tmp_path / "marked.csv"
    marked.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    calls = spy(monkeypatch)
    loaded = both(marked, id="q", column="ok")
    assert calls == [True] and loaded is not None
    assert table_of(loaded) == table_of(slow(str(plain), id="q", column="ok"))
    want = [(f"q{j}", str, 8, sum((i * 7) % 3 == 0 for i in range(40) if i % 5 == j))
            for j in range(5)]
    assert table_of(loaded) == want
