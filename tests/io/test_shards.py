"""Sharded inputs: a folder of part files (Spark/Hive/Dask style, with _SUCCESS and .crc files)
or a glob pattern is one input to `kpass report`, `compare` and `leaderboard`, with the same
numbers as a single file holding every row; duplicates are found across parts, errors name
the part and its line."""

import gzip
import json

import numpy as np
import pytest

from kpass.report.cli import main

RNG = np.random.default_rng(5)
R = RNG.integers(0, 2, size=(40, 6))
R_B = RNG.integers(0, 2, size=(40, 6))
CELLS = [(f"q{i}", j, int(R[i, j])) for i in range(40) for j in range(6)]
ORDER = RNG.permutation(len(CELLS))


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def results(out):
    return [(r["label"], r["estimate"], r["se"]) for r in json.loads(out)["results"]]


def jsonl(rows):
    return "".join(json.dumps({"outcomes": r.tolist()}) + "\n" for r in rows)


def write_wide(folder, rows, parts=3):
    folder.mkdir()
    for part in range(parts):
        (folder / f"part-{part:05d}.jsonl").write_text(jsonl(rows[part::parts]))
    (folder / "_SUCCESS").write_text("")
    (folder / ".part-00000.jsonl.crc").write_text("not data")
    pooled = folder.parent / f"{folder.name}.jsonl"
    pooled.write_text("".join(jsonl(rows[part::parts]) for part in range(parts)))
    return folder, pooled


def long_lines(cells):
    return ["q,s,ok\n"] + [f"{q},{s},{x}\n" for q, s, x in cells]


def write_long(folder, parts=4, gz=True):
    folder.mkdir()
    shuffled = [CELLS[t] for t in ORDER]
    for part, chunk in enumerate(np.array_split(np.arange(len(shuffled)), parts)):
        text = "".join(long_lines([shuffled[t] for t in chunk]))
        if gz:
            (folder / f"part-{part}.csv.gz").write_bytes(gzip.compress(text.encode()))
        else:
            (folder / f"part-{part}.csv").write_text(text)
    (folder / "_SUCCESS").write_text("")
    single = folder.parent / f"{folder.name}-all.csv"
    single.write_text("".join(long_lines(shuffled)))
    return folder, single


def test_a_folder_of_wide_parts_equals_the_pooled_file(tmp_path, capsys):
    folder, pooled = write_wide(tmp_path / "wide", R)
    expected = run(capsys, "report", pooled, "--format", "json")
    for source in (folder, tmp_path / "wide" / "part-*.jsonl"):
        code, out, err = run(capsys, "report", source, "--format", "json")
        assert code == 0, err
        assert results(out) == results(expected[1])


@pytest.mark.parametrize("gz", [True, False])
def test_long_parts_by_id_equal_the_single_file(tmp_path, capsys, gz):
    folder, single = write_long(tmp_path / "long", gz=gz)
    options = ["--id", "q", "--sample", "s", "--column", "ok", "--k", "1,6", "--format", "json"]
    _, expected, _ = run(capsys, "report", single, *options)
    pattern = tmp_path / "long" / ("part-*.csv.gz" if gz else "part-*.csv")
    for source in (folder, pattern):
        code, out, err = run(capsys, "report", source, *options)
        assert code == 0, err
        assert results(out) == results(expected)
        assert json.loads(out)["inputs"][0]["questions"] == 40


def test_parquet_parts_equal_the_single_file(tmp_path, capsys):
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    folder = tmp_path / "pq"
    folder.mkdir()
    shuffled = [CELLS[t] for t in ORDER]
    for part, chunk in enumerate(np.array_split(np.arange(len(shuffled)), 5)):
        rows = [shuffled[t] for t in chunk]
        table = pa.table({"q": [r[0] for r in rows], "s": [r[1] for r in rows],
                          "ok": [r[2] for r in rows]})
        pq.write_table(table, folder / f"part-{part:05d}-c000.snappy.parquet")
    (folder / "_SUCCESS").write_text("")
    single = tmp_path / "all.csv"
    single.write_text("".join(long_lines(shuffled)))
    options = ["--id", "q", "--sample", "s", "--column", "ok", "--format", "json"]
    _, expected, _ = run(capsys, "report", single, *options)
    code, out, err = run(capsys, "report", folder, *options)
    assert code == 0, err
    assert results(out) == results(expected)


def test_a_sample_repeated_across_parts_is_found_with_both_places(tmp_path, capsys):
    folder, _ = write_long(tmp_path / "long", gz=False)
    first = (folder / "part-0.csv").read_text().splitlines()[1]
    with open(folder / "part-3.csv", "a") as handle:
        handle.write(first + "\n")
    code, _, err = run(capsys, "report", folder, "--id", "q", "--sample", "s", "--column", "ok")
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert "is repeated: part-0.csv, line 2 and part-3.csv, line" in err, err


def test_compare_and_leaderboard_take_sharded_inputs(tmp_path, capsys):
    a, a_single = write_wide(tmp_path / "a", R)
    b, b_single = write_wide(tmp_path / "b", R_B)
    _, expected, _ = run(capsys, "compare", a_single, b_single, "--format", "json", "--k", "1")
    code, out, err = run(capsys, "compare", a, b, "--format", "json", "--k", "1")
    assert code == 0, err
    strip = [{key: value for key, value in r.items() if key not in ("a_file", "b_file")}
             for r in json.loads(out)["results"]]
    assert strip == [{key: value for key, value in r.items() if key not in ("a_file", "b_file")}
                     for r in json.loads(expected)["results"]]
    code, out, err = run(capsys, "leaderboard", f"A={a}", f"B={b}", "--format", "json")
    assert code == 0, err
    _, single, _ = run(capsys, "leaderboard", f"A={a_single}", f"B={b_single}", "--format",
                       "json")
    assert json.loads(out)["results"] == json.loads(single)["results"]


@pytest.mark.parametrize("make, needle", [
    (lambda d: None, "the pattern matches no file"),
    (lambda d: (d / "_SUCCESS").write_text(""), "a directory with no part files"),
    (lambda d: ((d / "a.jsonl").write_text('{"outcomes": [1]}\n'),
                (d / "b.csv").write_text("outcomes\n1\n")), "different formats"),
])
def test_bad_shards_are_one_line_errors(tmp_path, capsys, make, needle):
    folder = tmp_path / "parts"
    folder.mkdir()
    make(folder)
    source = tmp_path / "parts" / "*.parquet" if needle.startswith("the pattern") else folder
    code, _, err = run(capsys, "report", source)
    assert code == 1 and needle in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("kind", ["wide", "long", "parquet"])
def test_a_0_byte_part_is_an_empty_partition_as_a_header_only_part_is(tmp_path, capsys, kind):
    """Spark and Dask write an empty partition as a 0-byte part: it adds no rows."""
    if kind == "wide":
        folder, single = write_wide(tmp_path / "parts", R)
        (folder / "part-00009.jsonl").write_bytes(b"")
        options = ["--format", "json"]
    elif kind == "long":
        folder, single = write_long(tmp_path / "parts", gz=False)
        (folder / "part-8.csv").write_text("q,s,ok\n")  # header only: no rows
        (folder / "part-9.csv").write_bytes(b"")
        options = ["--id", "q", "--sample", "s", "--column", "ok", "--format", "json"]
    else:
        pq = pytest.importorskip("pyarrow.parquet")
        import pyarrow as pa

        folder = tmp_path / "parts"
        folder.mkdir()
        table = pa.table({"q": [c[0] for c in CELLS], "s": [c[1] for c in CELLS],
                          "ok": [c[2] for c in CELLS]})
        pq.write_table(table, folder / "part-00000.parquet")
        pq.write_table(table.slice(0, 0), folder / "part-00001.parquet")  # empty Parquet
        (folder / "part-00002.parquet").write_bytes(b"")
        single = tmp_path / "all.csv"
        single.write_text("".join(long_lines(CELLS)))
        options = ["--id", "q", "--sample", "s", "--column", "ok", "--format", "json"]
    _, expected, _ = run(capsys, "report", single, *options)
    code, out, err = run(capsys, "report", folder, *options)
    assert code == 0, err
    assert results(out) == results(expected)
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "part-0.csv").write_bytes(b"")
    (empty / "part-1.csv").write_bytes(b"")
    code, _, err = run(capsys, "report", empty)
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "every part is empty (0 bytes: part-0.csv, part-1.csv)" in err
