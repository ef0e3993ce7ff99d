"""What `import kpass` and a plain `kpass report` load, in a fresh process.

The import-time budget (issue 31: `import kpass` within 1.3x of `import numpy,
scipy.special`) is kept by what is loaded, not by a clock: a module on the deny list
that `import kpass` adds to what numpy and scipy.special load themselves fails the
test, named with the chain of imports that brought it in (from ``python -X
importtime``). Timings are in ``benchmarks/bench_import.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
SAMPLE = SHARED / "kpass" / "data" / "tau_bench_airline_gpt4o.jsonl"

# Each costs tens to hundreds of milliseconds to import, and a plain `import kpass` needs
# none of them (functions that do import them inside their bodies). A package name covers
# its submodules. Only what kpass adds counts: scipy.special 1.17 loads numpy.f2py and
# numpy.ma itself (through scipy._lib.array_api_compat), so those stay in the floor.
DENY = (
    "scipy.optimize", "scipy.stats", "scipy.linalg", "scipy.sparse", "scipy.spatial",
    "scipy.integrate", "scipy.interpolate", "scipy.fft", "scipy.signal", "scipy.ndimage",
    "numpy.f2py", "numpy.ma", "pyarrow", "polars", "pandas", "narwhals", "matplotlib",
    "evaluate", "datasets", "huggingface_hub", "inspect_ai", "duckdb", "gradio", "mpmath",
    "sympy", "statsmodels", "tqdm", "rich", "requests", "fsspec", "cloudpickle",
)
RUN_TIME = " (by the code run itself, or inside a function at run time)"


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(SHARED), *filter(None, [os.environ.get("PYTHONPATH")])]))


def _loaded(code: str) -> tuple[set[str], str]:
    """The modules loaded after running ``code`` in a fresh interpreter, and its importtime log."""
    script = (f"import json, sys\n{code}\n"
              "sys.__stdout__.write('\\n' + json.dumps(sorted(sys.modules)) + '\\n')")
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", script], env=_env(),
                          capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout.splitlines()[-1])), done.stderr


def _denied(name: str, deny: tuple[str, ...]) -> bool:
    return any(name == bad or name.startswith(bad + ".") for bad in deny)


def import_chain(log: str, module: str) -> list[str]:
    """The chain ``module <- importer <- ... <- top`` from a ``python -X importtime`` log.

    The log lists a module after everything it imported, indented two spaces per level:
    a module's importer is the next line one level shallower.
    """
    rows = []
    for line in log.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        field = line.split("|", 2)[2]
        rows.append(((len(field) - len(field.lstrip(" ")) - 1) // 2, field.strip()))
    exact = [index for index, (_, name) in enumerate(rows) if name == module]
    inside = [index for index, (_, name) in enumerate(rows) if name.startswith(module + ".")]
    found = exact or inside  # a package may show only its submodules' lines
    if not found:
        return [module]
    depth, name = rows[found[0]]
    chain = [name]
    for later_depth, later in rows[found[0] + 1:]:
        if later_depth < depth:
            chain.append(later)
            depth = later_depth
    return chain


def _heavy(code: str, deny: tuple[str, ...], baseline: set[str]) -> list[str]:
    """One line per denied package that ``code`` loads beyond ``baseline``: how it came in."""
    loaded, log = _loaded(code)
    new = loaded - baseline
    shown = []
    for bad in deny:
        if any(_denied(name, (bad,)) for name in new):
            chain = import_chain(log, bad)
            shown.append(" <- ".join(chain) + ("" if len(chain) > 1 else RUN_TIME))
    return shown


@pytest.fixture(scope="module")
def baseline() -> set[str]:
    """What numpy and scipy.special load on their own (scipy 1.17 loads numpy.f2py)."""
    return _loaded("import numpy, scipy.special")[0]


def _report_code(path: Path, flags: Sequence[str] = (), before: str = "", after: str = ""
                 ) -> str:
    """Python that runs ``kpass report PATH FLAGS`` quietly and checks it printed Pass@1.

    ``before`` runs first, ``after`` last (both lines of Python, ending in a newline or not).
    """
    return ("import contextlib, io, sys\nfrom kpass.report.cli import main\n" + before
            + "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
            f"    code = main(['report', {str(path)!r}, *{list(flags)!r}])\n"
            "assert code in (0, None) and 'Pass@1' in out.getvalue(), out.getvalue()\n" + after)


def test_import_kpass_adds_no_heavy_module(baseline):
    heavy = _heavy("import kpass", DENY, baseline)
    assert not heavy, "`import kpass` loads heavy modules:\n  " + "\n  ".join(heavy)


def test_a_plain_report_adds_no_heavy_module(baseline):
    # The bundled sample (2 KB) is under LINE_READER_BYTES: read line by line, no pyarrow.
    heavy = _heavy(_report_code(SAMPLE), DENY, baseline)
    assert not heavy, "`kpass report` loads heavy modules:\n  " + "\n  ".join(heavy)


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_a_tiny_long_file_report_loads_no_heavy_module(tmp_path, baseline, fmt):
    # A long text file under LINE_READER_BYTES is read line by line, as a wide one is: the
    # same counts as pyarrow's route, and no pyarrow import (docs/how-to/big-logs.md says so).
    pytest.importorskip("pyarrow")
    from kpass.io.formats import readers
    from kpass.io.long.load import load_long

    rows = [{"q": f"q{i % 7}", "s": i // 7, "ok": (i * 5) % 3 % 2} for i in range(60)]
    path = tmp_path / f"tiny.{fmt}"
    if fmt == "csv":
        path.write_text("q,s,ok\n" + "".join(f"{r['q']},{r['s']},{r['ok']}\n" for r in rows))
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert path.stat().st_size < readers.LINE_READER_BYTES
    flags = ["--id", "q", "--sample", "s", "--column", "ok"]
    heavy = _heavy(_report_code(path, flags), DENY, baseline)
    assert not heavy, "a tiny long file's report loads:\n  " + "\n  ".join(heavy)
    small = load_long(str(path), id="q", sample="s", column="ok")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(readers, "LINE_READER_BYTES", 0)
        arrow = load_long(str(path), id="q", sample="s", column="ok")
    for loaded in (small, arrow):
        assert list(loaded.counts.ids) == [f"q{i}" for i in range(7)]
        assert loaded.counts.n_samples.tolist() == [9, 9, 9, 9, 8, 8, 8]
        assert loaded.counts.n_correct.tolist() == [
            sum(r["ok"] for r in rows if r["q"] == f"q{i}") for i in range(7)]
        assert loaded.shortest == "question 'q4'"


# Each case is a kpass process (~1.6 s of CPU): the inner loop runs two formats, one with
# --sample, and the whole suite all eight.
_SLOW = pytest.mark.slow


@pytest.mark.parametrize(("fmt", "with_sample"), [
    ("csv", False), ("parquet", True),
    pytest.param("jsonl", False, marks=_SLOW), pytest.param("parts", False, marks=_SLOW),
    pytest.param("csv", True, marks=_SLOW), pytest.param("jsonl", True, marks=_SLOW),
    pytest.param("parquet", False, marks=_SLOW), pytest.param("parts", True, marks=_SLOW)])
def test_a_long_file_report_loads_pyarrow_but_not_pandas(tmp_path, baseline, fmt, with_sample):
    # A long file over LINE_READER_BYTES is grouped by pyarrow; pyarrow imports pandas
    # (~0.25 s, more than reading a million-row Parquet file) on its first conversion of a
    # Python or numpy value, which kpass.io.arrow_numpy avoids. Ids padded and integer-text
    # ("-0", " q1") and float outcomes take the id rule and the outcome cast too.
    pa = pytest.importorskip("pyarrow")
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    rng = np.random.default_rng(7)
    rows = 3000
    ids = [["q1", " q1", "-0", "0", "q2", "7"][i % 6] for i in range(rows)]
    table = pa.table({"q": ids, "s": [str(i) for i in range(rows)],
                      "ok": rng.integers(0, 2, rows).astype(float)})
    path = tmp_path / ("runs" if fmt == "parts" else f"runs.{fmt}")
    if fmt == "csv":
        pacsv.write_csv(table, path)
    elif fmt == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in table.to_pylist()))
    elif fmt == "parquet":
        pq.write_table(table, path)
    else:
        path.mkdir()
        for part in range(3):
            pq.write_table(table.slice(part * 1000, 1000), path / f"part-{part}.parquet")
    flags = ["--id", "q", "--column", "ok"] + (["--sample", "s"] if with_sample else [])
    code = _report_code(path, flags, before=(
        "from kpass.io.long import load as long_module\n"
        "real = long_module.fast_long_counts\nused = []\n"
        "def spy(*a, **k):\n    found = real(*a, **k)\n    used.append(found is not None)\n"
        "    return found\n"
        "long_module.fast_long_counts = spy\n"), after=(
        "assert used == [True], used\n"
        "assert 'pyarrow' in sys.modules"))
    # (pyarrow.lib imports cloudpickle itself.)
    allowed = ("pyarrow", "cloudpickle")
    heavy = _heavy(code, tuple(name for name in DENY if name not in allowed), baseline)
    assert not heavy, "a long file's report loads:\n  " + "\n  ".join(heavy)


@pytest.mark.parametrize("values", [[], [0], [3, -1, 7, 2**30], list(range(1000))])
def test_arrow_arrays_from_numpy_without_pandas_equal_pyarrows_own(values):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.compute as pc

    from kpass.io.arrow_numpy import filled, index_array

    ours = index_array(np.array(values))
    assert ours.type == pa.int64() and ours.equals(pa.array(values, type=pa.int64()))
    with_nulls = pa.array([None if v % 3 == 0 else v for v in values], type=pa.int32())
    expected = pc.fill_null(with_nulls, -1).to_numpy(zero_copy_only=False)
    got = filled(with_nulls, -1)
    assert got.dtype == np.int64 and got.tolist() == expected.tolist()
    got[:1] = 5  # writable, and not Arrow's memory
    assert filled(with_nulls, -1).tolist() == expected.tolist()


def test_the_check_names_a_heavy_import_and_its_chain(baseline):
    # The subprocess really reports a heavy import, and the chain names its importer: the
    # two tests above can fail.
    heavy = _heavy("import kpass\nimport scipy.optimize", DENY, baseline)
    assert heavy[0] == "scipy.optimize" + RUN_TIME
    assert "scipy.linalg <- scipy.optimize._optimize <- scipy.optimize" in "\n".join(heavy)


def test_import_chain_follows_the_importtime_indentation():
    log = "\n".join([
        "import time: self [us] | cumulative | imported package",
        "import time:        10 |         10 |     c",
        "import time:        10 |         20 |   b",
        "import time:        10 |         10 |   d",
        "import time:        10 |         40 | a",
        "import time:        10 |         10 | e",
    ])
    assert import_chain(log, "c") == ["c", "b", "a"]
    assert import_chain(log, "d") == ["d", "a"]
    assert import_chain(log, "e") == ["e"]
    assert import_chain(log, "missing") == ["missing"]
    assert import_chain(log.replace("   b", "   p.b"), "p") == ["p.b", "a"]


@pytest.mark.parametrize("type_name", ["bool_", "int8", "int16", "int32", "int64", "uint8",
                                       "uint16", "uint32", "uint64", "float16", "float32",
                                       "float64"])
def test_arrow_to_numpy_without_pandas_equals_pyarrows_own(type_name):
    # The readers take pyarrow arrays by DLPack (pyarrow's to_numpy imports pandas): the
    # same values and dtype as pyarrow's own conversion, sliced (non-zero offset) or not.
    pa = pytest.importorskip("pyarrow")
    from kpass.io.arrow_numpy import to_numpy as _numpy

    whole = pa.array([1, 0, 1, 1, 0, 1, 0, 0, 1], type=pa.int64()).cast(getattr(pa, type_name)())
    for array in (whole, whole.slice(3), whole.slice(2, 5)):
        ours, theirs = _numpy(array), array.to_numpy(zero_copy_only=False)
        assert ours.dtype == theirs.dtype and ours.tolist() == theirs.tolist()
    with_null = pa.array([1.0, None, 0.0])
    assert str(_numpy(with_null).tolist()) == str(with_null.to_numpy(zero_copy_only=False)
                                                  .tolist())


@pytest.mark.parametrize("rows", [10, 150, 400])
def test_small_files_read_line_by_line_count_as_pyarrow_does(tmp_path, monkeypatch, rows):
    # Under LINE_READER_BYTES (8 KiB) the line reader reads the file; above it pyarrow does:
    # both give the row sums, and pyarrow's count (threshold 0) the same as the default.
    pytest.importorskip("pyarrow")
    from kpass.io.formats import readers

    rng = np.random.default_rng(rows)
    matrix = rng.integers(0, 2, size=(rows, 6)).tolist()
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps({"id": i, "outcomes": r}) + "\n"
                            for i, r in enumerate(matrix)))
    used = []
    real_fast = readers._fast

    def spy(reader):
        found = real_fast(reader)
        used.append(found is not None)
        return found

    monkeypatch.setattr(readers, "_fast", spy)
    default = readers.load_counts(str(path))
    monkeypatch.setattr(readers, "LINE_READER_BYTES", 0)
    arrow = readers.load_counts(str(path))
    assert used == [path.stat().st_size >= 8 << 10, True]
    assert default.counts.n_correct.tolist() == arrow.counts.n_correct.tolist() == list(
        map(sum, matrix))
    assert default.counts.n_samples.tolist() == arrow.counts.n_samples.tolist() == [6] * rows
    assert default.shortest == arrow.shortest and default.column == arrow.column
