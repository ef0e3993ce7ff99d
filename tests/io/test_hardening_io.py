"""`kpass report` on broken files, odd encodings, bad output targets: one line, no traceback.

Each class of defect found by the adversarial pass (issue 13) has a test here: the
command either gives the numbers of what is really in the file (checked against the
core on the outcomes parsed independently) or exits 1/2 with exactly one line on
stderr that names the file (and the line where one applies).
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

import kpass
from kpass.io.formats import parsers as formats
from kpass.report.cli import main

ROWS = [[1, 0, 1, 1], [0, 0, 0, 1], [1, 1, 1, 1], [0, 1, 0, 0]]


def run(capsys, *args):
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line_error(code, err, expected_code, *fragments):
    assert code == expected_code, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("kpass report: error: "), err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def pass1_csv(capsys, path, *extra):
    code, out, err = run(capsys, "report", path, "--k", "1", "--metrics", "pass@k",
                         "--format", "csv", *extra)
    assert code == 0, err
    return float(out.splitlines()[1].split(",")[6])


def jsonl_bytes(rows):
    return "".join(json.dumps({"outcomes": row}) + "\n" for row in rows).encode()


# ----------------------------------------------------------------------------- compressed files


def test_truncated_gzip_is_an_error_naming_the_file_and_where_it_stopped(tmp_path, capsys):
    rows = [list(map(int, np.random.default_rng(seed).integers(0, 2, 16))) for seed in range(400)]
    whole = gzip.compress(jsonl_bytes(rows))
    path = tmp_path / "runs.jsonl.gz"
    path.write_bytes(whole[: len(whole) // 2])
    code, _, err = run(capsys, "report", path)
    assert_one_line_error(code, err, 1, str(path), "after line", "truncated")


def test_a_named_pipe_is_read_once_with_a_bad_row_located(tmp_path, capsys):
    import os
    import threading

    rows = [[1, 0, 1, 1]] * 2000 + [[1, 0.5]]
    fifo = tmp_path / "runs.jsonl"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as pipe:
            pipe.write(jsonl_bytes(rows))

    writer = threading.Thread(target=write)
    writer.start()
    code, _, err = run(capsys, "report", fifo)
    writer.join(timeout=30)
    assert_one_line_error(code, err, 1, "line 2001", "outcomes[1]=0.5")


def test_plain_text_named_gz_is_an_error(tmp_path, capsys):
    path = tmp_path / "runs.jsonl.gz"
    path.write_bytes(jsonl_bytes(ROWS))
    code, _, err = run(capsys, "report", path)
    assert_one_line_error(code, err, 1, str(path), "not a gzip file")


def test_corrupt_gzip_data_is_an_error(tmp_path, capsys):
    data = bytearray(gzip.compress(jsonl_bytes(ROWS * 50)))
    data[len(data) // 2] ^= 0xFF
    path = tmp_path / "runs.csv.gz"
    path.write_bytes(bytes(data))
    code, _, err = run(capsys, "report", path)
    assert_one_line_error(code, err, 1, str(path))


# ----------------------------------------------------------------------------- encodings


@pytest.mark.parametrize("name, content, where", [
    ("runs.jsonl", b'{"outcomes": [1, 0]}\n{"outcomes": [1, \xff]}\n', "line 2"),
    ("runs.json", b'[\n{"outcomes": [1, 0]},\n{"outcomes": [\xff]}\n]', "line 3"),
    ("runs.csv", b'outcomes\n"[1, 0]"\n"[1, 1]"\n"\xff"\n', "line 4"),
    ("runs.tsv", b'outcomes\n[1, 0]\n\xfe\n', "line 3"),
])
def test_bytes_that_are_not_utf8_are_located_by_line(tmp_path, capsys, name, content, where):
    path = tmp_path / name
    path.write_bytes(content)
    code, _, err = run(capsys, "report", path)
    assert_one_line_error(code, err, 1, str(path), where, "not UTF-8")


@pytest.mark.parametrize("name, content", [
    ("runs.jsonl", jsonl_bytes(ROWS)),
    ("runs.json", json.dumps([{"outcomes": row} for row in ROWS]).encode()),
    ("runs.csv", ("correct\n" + "".join(f'"{row}"\n' for row in ROWS)).encode()),
    ("runs.tsv", ("id\tcorrect\n" + "".join(f"q\t{row}\n" for row in ROWS)).encode()),
])
@pytest.mark.parametrize("gz", [False, True])
def test_a_utf8_byte_order_mark_is_dropped_in_every_text_format(tmp_path, capsys, name, content,
                                                                  gz):
    data = b"\xef\xbb\xbf" + content
    path = tmp_path / (name + (".gz" if gz else ""))
    path.write_bytes(gzip.compress(data) if gz else data)
    assert pass1_csv(capsys, path) == pytest.approx(kpass.pass_at_k(ROWS, 1), abs=1e-15)


def test_a_byte_order_mark_is_dropped_with_answers(tmp_path, capsys):
    path = tmp_path / "answers.jsonl"
    records = [{"answers": ["1", "2", "1"], "reference": "1"}, {"answers": ["3"], "reference": "3"}]
    path.write_bytes(b"\xef\xbb\xbf" + "".join(json.dumps(r) + "\n" for r in records).encode())
    code, out, err = run(capsys, "report", path, "--answers", "--k", "1", "--metrics", "pass@k",
                         "--format", "csv")
    assert code == 0, err
    assert float(out.splitlines()[1].split(",")[6]) == pytest.approx((2 / 3 + 1) / 2)


# ----------------------------------------------------------------------------- odd sizes


def test_a_csv_cell_over_the_csv_modules_default_limit_is_read(tmp_path, capsys):
    rng = np.random.default_rng(3)
    long_row = rng.integers(0, 2, 200_000).tolist()  # ~600 kB cell, default limit 128 kB
    rows = [long_row, [1, 0]]
    path = tmp_path / "long.csv"
    path.write_text("outcomes\n" + "".join(f'"{row}"\n' for row in rows))
    assert pass1_csv(capsys, path) == pytest.approx(kpass.pass_at_k(rows, 1), rel=1e-12)


# ----------------------------------------------------------------------------- unreadable files


def test_a_file_that_cannot_be_opened_is_an_error(tmp_path, capsys, monkeypatch):
    # The tests run as root, who may read anything: refuse the open itself.
    path = tmp_path / "secret.jsonl"
    path.write_bytes(jsonl_bytes(ROWS))

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(formats, "open", refuse, raising=False)
    code, _, err = run(capsys, "report", path)
    assert_one_line_error(code, err, 1, str(path), "permission denied")


def test_a_file_of_an_unknown_type_is_refused_by_its_name(tmp_path, capsys):
    path = tmp_path / "runs.txt"
    path.write_text("x")
    code, _, err = run(capsys, "report", path)
    assert_one_line_error(code, err, 1, str(path), "unknown file type")


@pytest.fixture
def saved_dataset(tmp_path):
    datasets = pytest.importorskip("datasets")
    folder = tmp_path / "ds"
    datasets.Dataset.from_dict({"outcomes": ROWS}).save_to_disk(str(folder))
    return folder


def test_a_dataset_folder_reads_before_it_is_broken(saved_dataset, capsys):
    assert pass1_csv(capsys, saved_dataset) == pytest.approx(kpass.pass_at_k(ROWS, 1))


@pytest.mark.parametrize("damage, fragment", [
    (lambda folder: (folder / "state.json").write_text("{broken"), "state.json"),
    (lambda folder: (folder / "state.json").write_text("[1, 2]"), "state.json"),
    (lambda folder: (folder / "state.json").write_text('{"_data_files": [{"x": 1}]}'),
     "lists no data files"),
    (lambda folder: [path.unlink() for path in folder.glob("*.arrow")], "missing"),
    (lambda folder: [path.write_bytes(b"garbage" * 20) for path in folder.glob("*.arrow")], ""),
    (lambda folder: [path.write_bytes(path.read_bytes()[:200]) for path in folder.glob("*.arrow")],
     ""),
])
def test_a_corrupt_dataset_folder_is_an_error(saved_dataset, capsys, damage, fragment):
    damage(saved_dataset)
    code, _, err = run(capsys, "report", saved_dataset)
    assert_one_line_error(code, err, 1, str(saved_dataset), fragment)
    code, _, err = run(capsys, "report", saved_dataset, "--answers")
    assert code == 1 and len(err.splitlines()) == 1 and "Traceback" not in err


def test_npz_named_npy_and_object_arrays_are_refused(tmp_path, capsys):
    npz = tmp_path / "runs.npy"
    with open(npz, "wb") as handle:  # np.savez on a file object keeps the .npy name
        np.savez(handle, outcomes=np.array(ROWS))
    code, _, err = run(capsys, "report", npz)
    assert_one_line_error(code, err, 1, str(npz), ".npz archive")
    objects = tmp_path / "objects.npy"
    np.save(objects, np.array([[1, 0], [1, 1]], dtype=object), allow_pickle=True)
    code, _, err = run(capsys, "report", objects)
    assert_one_line_error(code, err, 1, str(objects), "Python objects")
    truncated = tmp_path / "short.npy"
    np.save(truncated, np.ones((100, 8), dtype=np.int8))
    truncated.write_bytes(truncated.read_bytes()[:200])
    code, _, err = run(capsys, "report", truncated)
    assert_one_line_error(code, err, 1, str(truncated))


# ----------------------------------------------------------------------------- output


def test_a_full_disk_on_stdout_is_one_line_and_status_1():
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "kpass.report.cli", "report"], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "kpass report: error: cannot write the report to standard output (No space left on "
        "device)"]


def test_a_closed_stdout_is_one_line_and_status_1():
    done = subprocess.run(f"{sys.executable} -m kpass.report.cli report >&-", shell=True,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "kpass report: error: cannot write the report: standard output is closed"]


def test_a_closed_pipe_ends_quietly():
    done = subprocess.run(f"{sys.executable} -m kpass.report.cli report | head -c 10", shell=True,
                          capture_output=True, text=True, timeout=120)
    assert done.stdout == "tau_bench_"
    assert done.stderr == ""


@pytest.mark.parametrize("target, fragment", [
    ("{tmp}", "is a directory"),
    ("{tmp}/curves", "no extension"),
    ("{tmp}/curves.txt", "extension .txt"),
])
def test_plot_refuses_directories_and_names_without_a_plot_extension(tmp_path, capsys, target,
                                                                       fragment):
    code, out, err = run(capsys, "report", "--plot", target.format(tmp=tmp_path))
    assert_one_line_error(code, err, 2, "--plot", fragment)
    assert out == ""
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG"), (".pdf", b"%PDF"),
                                           (".SVG", b"<?xml")])
def test_plot_writes_the_format_its_extension_names(tmp_path, capsys, suffix, magic):
    pytest.importorskip("matplotlib")
    target = tmp_path / f"curves{suffix}"
    code, _, err = run(capsys, "report", "--plot", target, "--k", "1,2")
    assert code == 0, err
    assert target.read_bytes().startswith(magic)
    assert [path.name for path in tmp_path.iterdir()] == [target.name]


# ----------------------------------------------------------------------------- every metric


@pytest.mark.parametrize("short", ["error", "skip"])
@pytest.mark.parametrize("extra", [[], ["--tau", "0.25,1"], ["--confidence", "0.8"],
                                   ["--k", "1,3"]])
@pytest.mark.parametrize("answers", [False, True])
def test_metrics_all_runs_on_the_bundled_samples_with_every_option(capsys, short, extra, answers):
    args = ["report", "--metrics", "all", "--short", short, "--format", "json", *extra]
    code, out, err = run(capsys, *args, *(["--answers"] if answers else []))
    assert code == 0, err
    results = json.loads(out)["results"]
    shown = {row["metric"] for row in results}
    expected = {"pass@k", "pass^k", "g-pass@k", "mg-pass@k", "maj@k", "cons@k", "auc@k",
                "geo-spectrum*@k", "avg@n"} | ({"vote@k"} if answers else set())
    assert shown == expected


def test_short_skip_leaves_short_questions_out_for_metrics_without_a_short_option(tmp_path,
                                                                                    capsys):
    rows = [[1, 0, 1], [1, 1, 1, 0, 0, 1], [0, 1, 1, 1, 0], [1, 1, 0, 1, 0, 0, 0]]
    path = tmp_path / "ragged.jsonl"
    path.write_bytes(jsonl_bytes(rows))
    code, out, err = run(capsys, "report", path, "--metrics", "geo-spectrum*@k", "--short",
                         "skip", "--k", "2,5", "--format", "json")
    assert code == 0, err
    got = {row["k"]: row for row in json.loads(out)["results"]}
    for k in (2, 5):
        kept = [row for row in rows if len(row) >= k]  # what "skip" means, computed directly
        assert got[k]["questions"] == len(kept)
        assert got[k]["estimate"] == pytest.approx(kpass.geo_spectrum_star_at_k(kept, k),
                                                   rel=1e-12)
        mean, sd, lo, hi = kpass.geo_spectrum_star_at_k_ci(kept, k)
        assert (got[k]["mean"], got[k]["sd"]) == pytest.approx((mean, sd), rel=1e-12)


# ----------------------------------------------------------------------------- metric modules

METRICS = Path(__file__).resolve().parents[2] / "metrics"


def load_module(name, **kwargs):
    evaluate = pytest.importorskip("evaluate")
    return evaluate.load(str(METRICS / name), keep_in_memory=kwargs.pop("keep_in_memory", True),
                         **kwargs)


def expected_binary(R, k):
    mu, sigma, lo, hi = kpass.pass_at_k_ci(R, k)
    return {f"pass@{k}": kpass.pass_at_k(R, k), f"pass@{k}_mean": mu, f"pass@{k}_sd": sigma}


@pytest.mark.parametrize("names, failing, fragment", [
    # the repro: max_at_k_bayes refuses w=[0] after pass_at_k_bayes has computed
    (["pass_at_k_bayes", "max_at_k_bayes"], {"k": 1, "w": [0]}, "len(w)"),
    # the failing module in the middle: one before it computed, one after it did not run
    (["pass_at_k_bayes", "max_at_k_bayes", "avg_at_n_bayes"], {"k": 1, "w": [0]}, "len(w)"),
    # a module whose k is data-dependent fails after two others succeeded
    (["avg_at_n_bayes", "pass_at_k_bayes", "max_at_k_bayes"], {"k": 1, "w": [1]}, "len(w)"),
    # the first module fails: nothing has computed yet
    (["max_at_k_bayes", "pass_at_k_bayes"], {"k": 9}, "k"),
])
def test_a_failing_module_in_a_combination_loses_no_question_anywhere(names, failing, fragment):
    evaluate = pytest.importorskip("evaluate")
    R = [[1, 0, 1], [0, 0, 1], [1, 1, 1], [0, 0, 0]]
    combined = evaluate.combine([load_module(name) for name in names])
    combined.add_batch(predictions=R[:2])
    combined.add_batch(predictions=R[2:])
    with pytest.raises(ValueError, match=re.escape(fragment)):
        combined.compute(**failing)
    results = combined.compute(k=1)
    for key, value in expected_binary(R, 1).items():
        assert results[key] == pytest.approx(value, rel=1e-12)
    assert results["max@1"] == pytest.approx(kpass.max_at_k(R, 1), rel=1e-12)
    if "avg_at_n_bayes" in names:
        assert results["avg@n"] == pytest.approx(kpass.avg(R)[0], rel=1e-12)
    # The round is settled: the next compute starts from nothing, as evaluate's modules do.
    with pytest.raises(ValueError, match="no questions"):
        combined.compute(k=1)


def test_a_new_batch_after_a_successful_compute_starts_a_new_round():
    R, S = [[1, 0, 1], [0, 0, 1]], [[1, 1, 1, 1]]
    module = load_module("pass_at_k_bayes")
    module.add_batch(predictions=R)
    module.compute(k=1)
    module.add_batch(predictions=S)
    assert module.compute(k=1)["pass@1"] == pytest.approx(1.0)


_SHARD_WORKER = """
import json, sys
import evaluate
rank, cache, out, empty = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
R = json.loads(sys.argv[5])
shard = [] if rank == empty else R[rank::3]
results = {}
for name in ("pass_at_k_bayes", "max_at_k_bayes"):
    module = evaluate.load(sys.argv[6] + "/" + name, num_process=3, process_id=rank,
                           cache_dir=cache, experiment_id="shard-" + name, k=[1, 3], timeout=300)
    for start in range(0, len(shard), 2):
        module.add_batch(predictions=shard[start:start + 2])
    results[name] = module.compute()
json.dump(results, open(out + str(rank), "w"))
"""


@pytest.mark.parametrize("empty", [1, 0])
@pytest.mark.slow
def test_distributed_run_with_an_empty_process_merges_the_others(tmp_path, empty):
    pytest.importorskip("evaluate")
    rng = np.random.default_rng(empty)
    R = rng.integers(0, 2, size=(7, 4)).tolist()
    workers = [subprocess.Popen([sys.executable, "-c", _SHARD_WORKER, str(rank),
                                 str(tmp_path / "cache"), str(tmp_path / "out"), str(empty),
                                 json.dumps(R), str(METRICS)],
                                stderr=subprocess.PIPE, text=True) for rank in range(3)]
    for worker in workers:
        _, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err
    outputs = [json.loads((tmp_path / f"out{rank}").read_text()) for rank in range(3)]
    assert outputs[1] == outputs[2] == {"pass_at_k_bayes": None, "max_at_k_bayes": None}
    merged = [row for rank in range(3) if rank != empty for row in R[rank::3]]
    single = load_module("pass_at_k_bayes", k=[1, 3])
    single.add_batch(predictions=merged)
    assert outputs[0]["pass_at_k_bayes"] == pytest.approx(single.compute(), rel=1e-12)
    for k in (1, 3):
        assert outputs[0]["pass_at_k_bayes"][f"pass@{k}"] == pytest.approx(
            kpass.pass_at_k(merged, k), rel=1e-12)
        assert outputs[0]["max_at_k_bayes"][f"max@{k}"] == pytest.approx(
            kpass.max_at_k(merged, k), rel=1e-12)


# ----------------------------------------------------------------------------- default k


def test_default_k_stops_at_the_documented_cap_with_a_note(tmp_path, capsys):
    from kpass.report.table import DEFAULT_K_MAX

    rng = np.random.default_rng(8)
    path = tmp_path / "long.npy"
    np.save(path, rng.integers(0, 2, size=(3, 2000)).astype(np.int8))
    code, out, err = run(capsys, "report", path, "--format", "json", "--metrics", "pass@k")
    assert code == 0, err
    document = json.loads(out)
    ks = [row["k"] for row in document["results"]]
    assert ks == [2**i for i in range(10)] and ks[-1] == DEFAULT_K_MAX
    assert any("--k" in note and str(DEFAULT_K_MAX) in note for note in document["notes"])
    code, out, err = run(capsys, "report", path, "--format", "json", "--metrics", "pass@k",
                         "--k", "2000")
    assert code == 0, err
    document = json.loads(out)
    assert [row["k"] for row in document["results"]] == [2000]
    assert not any("k stops" in note for note in document["notes"])  # (3 questions: a
    assert any("only 3 questions" in note for note in document["notes"])  # small-sample note)


# ----------------------------------------------------------------------------- pyarrow fast path


def _row_text(row, style):
    if style == "json":
        return json.dumps(row)
    if style == "python":
        return str([bool(v) for v in row])  # [True, False]: the fast path leaves it to Python
    if style == "spaces":
        return " ".join(map(str, row))
    if style == "semicolons":
        return ";".join(map(str, row))
    return "(" + ",".join(map(str, row)) + ")"


def _write(path, rows, fmt, style="json"):
    if fmt == "jsonl":
        data = "".join(json.dumps({"id": i, "outcomes": row}) + "\n" for i, row in enumerate(rows))
    else:
        sep = "," if fmt == "csv" else "\t"
        data = f"id{sep}outcomes\n" + "".join(f'{i}{sep}"{_row_text(row, style)}"\n'
                                              for i, row in enumerate(rows))
    raw = data.encode()
    if path.suffix == ".gz":
        raw = gzip.compress(raw)
    path.write_bytes(raw)
    return path


@pytest.mark.parametrize("fmt, style", [("jsonl", "json"), ("csv", "json"), ("csv", "spaces"),
                                        ("csv", "semicolons"), ("csv", "tuple"),
                                        ("csv", "python"), ("tsv", "json")])
@pytest.mark.parametrize("ragged", [False, True])
@pytest.mark.parametrize("gz", [False, True])
def test_fast_and_line_by_line_readers_give_the_row_sums(tmp_path, fmt, style, ragged, gz):
    from kpass.io.formats.readers import load_counts

    # A fixed seed (hash() of strings changes from run to run); the first row has 2+ samples,
    # since a bare single value first ("0") is read as the long format and refused by design.
    rng = np.random.default_rng(zlib.crc32(repr((fmt, style, ragged, gz)).encode()))
    rows = [rng.integers(0, 2, size=int(rng.integers(1 if i else 2, 40)) if ragged else 16
                         ).tolist() for i in range(3000)]
    path = _write(tmp_path / f"runs.{fmt}{'.gz' if gz else ''}", rows, fmt, style)
    fast = load_counts(str(path), chunk_size=700)
    slow = load_counts(str(path), chunk_size=700, skip_bad=True)  # skip_bad reads line by line
    assert fast.counts.n_samples.tolist() == slow.counts.n_samples.tolist() == list(map(len, rows))
    assert fast.counts.n_correct.tolist() == slow.counts.n_correct.tolist() == list(map(sum, rows))
    assert fast.shortest == slow.shortest
    assert fast.column == slow.column == "outcomes"


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_canonical_files_are_read_by_pyarrow_without_the_line_by_line_pass(tmp_path, monkeypatch,
                                                                           fmt):
    from kpass.io.formats.readers import load_counts

    rows = np.random.default_rng(1).integers(0, 2, size=(500, 8)).tolist()
    path = _write(tmp_path / f"runs.{fmt}", rows, fmt)

    def no_slow_pass(self):
        raise AssertionError("the line-by-line reader ran")

    reader = formats.READERS[fmt]
    monkeypatch.setattr(reader, "batches", no_slow_pass)
    assert load_counts(str(path)).counts.n_correct.tolist() == list(map(sum, rows))


@pytest.mark.parametrize("fmt, bad, problem", [
    ("jsonl", '{"id": 1, "outcomes": [1, 0.5]}', "outcomes[1]=0.5"),
    ("jsonl", '{"id": 1, "outcomes": null}', "got None"),
    ("jsonl", '{"id": 1}', "no `outcomes` field"),
    ("jsonl", '{"id": 1, "outcomes": [1, true, "1"]}', "outcomes[2]='1'"),
    ("jsonl", '{"id": 1, "outcomes": [1, 0', "not valid JSON"),
    ("csv", '7,"[1, 2]"', "outcomes[1]=2"),
    ("csv", '7,"[1, x]"', "cannot read 'x'"),
    ("csv", "7,", "empty"),
    ("csv", '7,"[1, 0"', "unbalanced"),
])
def test_a_bad_row_deep_in_a_file_is_located_by_the_second_pass(tmp_path, fmt, bad, problem):
    from kpass.io.errors import ReportError
    from kpass.io.formats.readers import load_counts

    rows = np.random.default_rng(2).integers(0, 2, size=(5000, 8)).tolist()
    path = _write(tmp_path / f"runs.{fmt}", rows, fmt)
    lines = path.read_text().splitlines()
    position = 4321
    lines.insert(position, bad)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ReportError) as caught:
        load_counts(str(path))
    assert caught.value.where == f"line {position + 1}"
    assert problem in caught.value.problem


def test_rows_pyarrow_cannot_type_are_read_by_the_second_pass(tmp_path):
    from kpass.io.formats.readers import load_counts

    rows = np.random.default_rng(4).integers(0, 2, size=(3000, 8)).tolist()
    path = _write(tmp_path / "runs.jsonl", rows, "jsonl")
    with path.open("a") as handle:  # a bare list among objects, and booleans among ints
        handle.write("[1, 0, 1]\n" + json.dumps({"outcomes": [True, 0, 1.0]}) + "\n")
    loaded = load_counts(str(path))
    assert loaded.counts.n_correct.tolist() == list(map(sum, rows)) + [2, 2]


CELLS = ["[1, 0, 1]", "1 0 1", "1;0;1", "1|0", "(1,0)", "(1,0]", "1", "0", "[1]", "1,0,",
         ",1", "[ 1 ,0 ]", " [1, 0]", "[1, 0] ", "[1, 0", "1, 0]", "[]", "[ ]", ",", "10",
         "[1, 10]", "01", "[1,[0]]", "]1[", "[1](0)", "1 0 x", "True", "[1.0, 0]", "1e0",
         "[1,\n0]", "1\t0", "[+1, -0]", "٣", "[1, 0]]"]


def test_vectorised_cells_agree_with_parse_cell_whenever_they_answer():
    pa = pytest.importorskip("pyarrow")
    from kpass.io.formats.fast import cell_counts
    from kpass.io.formats.parsers import parse_cell
    from kpass.io.rows import Unreadable

    answered = 0
    for cell in CELLS:
        for batch in ([cell], [cell, cell], [cell, "[1, 1]"], ["0 0", cell]):
            counts = cell_counts(pa.array(batch))
            parsed = [parse_cell(text) for text in batch]
            if counts is None:
                continue
            answered += 1
            assert not any(isinstance(p, Unreadable) for p in parsed), batch
            assert counts.n_samples.tolist() == [len(p) for p in parsed], batch
            assert counts.n_correct.tolist() == [int(sum(p)) for p in parsed], batch
    assert answered >= 40  # the common spellings are answered without Python


def test_same_shape_cells_count_the_digits_and_refuse_any_other_byte():
    pa = pytest.importorskip("pyarrow")
    from kpass.io.formats.fast import cell_counts

    rng = np.random.default_rng(3)
    rows = rng.integers(0, 2, size=(9000, 23)).tolist()  # more rows than one cache block
    cells = ["[" + ", ".join(map(str, row)) + "]" for row in rows]
    counts = cell_counts(pa.array(cells))
    assert counts.n_samples.tolist() == [23] * 9000
    assert counts.n_correct.tolist() == [sum(row) for row in rows]
    for position, byte in [(1, "2"), (2, ";"), (0, "("), (4, "1"), (len(cells[0]) - 1, "}")]:
        bad = list(cells)
        bad[8500] = bad[8500][:position] + byte + bad[8500][position + 1:]
        assert len(bad[8500]) == len(cells[0])
        # Whatever the fast path cannot vouch for goes to the general parser (or is refused).
        result = cell_counts(pa.array(bad))
        if result is not None:
            assert result.n_correct[8500] == sum(
                int(token) for token in bad[8500].strip("[]()").replace(";", ",").split(","))


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 13, 64, 67])
@pytest.mark.parametrize("style", ["json", "spaces", "tuple"])
@pytest.mark.parametrize("words", [True, False])
def test_same_shape_cells_of_every_length_count_like_numpy(n, style, words, monkeypatch):
    # Cell lengths of every residue mod 8: groups of 1 to 8 cells per run of 64-bit words,
    # words shared by two or more cells, and cells left over after the last whole group;
    # words=False: the byte-by-byte path of numpy < 2 (no np.bitwise_count).
    pa = pytest.importorskip("pyarrow")
    from kpass.io.formats import fast
    from kpass.io.formats.fast import cell_counts

    if not words:
        monkeypatch.setattr(fast, "_bitwise_count", None)

    rng = np.random.default_rng(n)
    matrix = rng.integers(0, 2, size=(2000 + n % 7, n))
    cells = [_row_text(row, style) for row in matrix.tolist()]
    for array in (pa.array(cells), pa.array(cells).slice(3, 1500)):
        expected = matrix[3:1503] if array.offset else matrix
        counts = cell_counts(array)
        assert counts.n_samples.tolist() == [n] * len(expected)
        assert counts.n_correct.tolist() == expected.sum(axis=1).tolist()


@pytest.mark.parametrize("n", [20000, 40001])
def test_same_shape_cells_too_long_for_word_groups_count_like_numpy(n):
    # "1 0 1 ..." cells of 2n - 1 bytes: a group of 8 such cells outgrows the cache, so
    # they are counted byte by byte; 2n - 1 = 39999 or 80001 bytes, odd either way.
    pa = pytest.importorskip("pyarrow")
    from kpass.io.formats import fast
    from kpass.io.formats.fast import cell_counts

    matrix = np.random.default_rng(n).integers(0, 2, size=(30, n))
    cells = [_row_text(row, "spaces") for row in matrix.tolist()]
    assert fast._layout(cells[0].replace("1", "0").encode()).by_words is False
    counts = cell_counts(pa.array(cells))
    assert counts.n_samples.tolist() == [n] * 30
    assert counts.n_correct.tolist() == matrix.sum(axis=1).tolist()
    cells[17] = cells[17][:-1] + "2"
    assert cell_counts(pa.array(cells)) is None  # parse_cell says why


@pytest.mark.parametrize("n", [3, 5, 64])
def test_same_shape_cells_refuse_a_changed_byte_at_every_position(n):
    pa = pytest.importorskip("pyarrow")
    from kpass.io.formats.fast import cell_counts
    from kpass.io.formats.parsers import parse_cell
    from kpass.io.rows import Unreadable

    rng = np.random.default_rng(5)
    matrix = rng.integers(0, 2, size=(40, n))
    cells = [_row_text(row, "json") for row in matrix.tolist()]
    row = 37  # in the last whole group of cells, or after it
    for position in range(len(cells[row])):
        for byte in "2 ,;x]":
            bad = list(cells)
            bad[row] = bad[row][:position] + byte + bad[row][position + 1:]
            if bad[row] == cells[row]:
                continue
            counts = cell_counts(pa.array(bad))
            parsed = parse_cell(bad[row])
            if counts is None:
                continue  # parse_cell decides, with its message
            assert not isinstance(parsed, Unreadable), bad[row]
            assert counts.n_samples[row] == len(parsed), bad[row]
            assert counts.n_correct[row] == sum(parsed), bad[row]
            others = [i for i in range(len(cells)) if i != row]
            assert counts.n_correct[others].tolist() == matrix[others].sum(axis=1).tolist()


def test_a_csv_whose_first_row_outgrows_the_header_probe_is_read_by_pyarrow(tmp_path,
                                                                          monkeypatch):
    # The header is read from the first HEADER_BYTES; a first row longer than that is read
    # again with a whole block, still by pyarrow (no line-by-line pass).
    from kpass.io.formats import fast
    from kpass.io.formats.readers import load_counts

    rows = np.random.default_rng(6).integers(0, 2, size=(300, 100)).tolist()
    path = _write(tmp_path / "runs.csv", rows, "csv")
    monkeypatch.setattr(fast, "HEADER_BYTES", 64)  # shorter than one row (300 bytes)

    def no_slow_pass(self):
        raise AssertionError("the line-by-line reader ran")

    monkeypatch.setattr(formats.READERS["csv"], "batches", no_slow_pass)
    loaded = load_counts(str(path))
    assert loaded.counts.n_correct.tolist() == np.sum(rows, axis=1).tolist()
    assert loaded.column == "outcomes"


def test_bytes_that_are_not_utf8_count_only_in_the_outcome_cell(tmp_path):
    # pyarrow reads the outcome column unchecked; the cell check refuses any byte that is
    # not ASCII, so a bad byte there is found by the line-by-line pass, with its line.
    from kpass.io.errors import ReportError
    from kpass.io.formats.readers import load_counts

    rows = np.random.default_rng(9).integers(0, 2, size=(4000, 8)).tolist()
    cells = [_row_text(row, "json").encode() for row in rows]
    ids = [f"q{i}".encode() for i in range(len(rows))]
    ids[10] = b"caf\xe9"  # latin-1 in the id column: not read, not an error
    lines = [b"id,outcomes"] + [i + b',"' + c + b'"' for i, c in zip(ids, cells, strict=True)]
    path = tmp_path / "runs.csv"
    path.write_bytes(b"\n".join(lines) + b"\n")
    assert load_counts(str(path)).counts.n_correct.tolist() == np.sum(rows, axis=1).tolist()
    lines[3001] = lines[3001].replace(b"[1", b"[\xff").replace(b"[0", b"[\xff")
    path.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(ReportError) as caught:
        load_counts(str(path))
    assert caught.value.where == "line 3002" and "not UTF-8" in caught.value.problem


def test_a_csv_above_the_whole_file_size_is_streamed_with_the_same_counts(tmp_path, monkeypatch):
    from kpass.io.formats import fast
    from kpass.io.formats.readers import load_counts

    rows = np.random.default_rng(4).integers(0, 2, size=(3000, 16)).tolist()
    path = _write(tmp_path / "runs.csv", rows, "csv")
    whole = load_counts(str(path), chunk_size=700)
    monkeypatch.setattr(fast, "WHOLE_CSV_BYTES", 0)
    streamed = load_counts(str(path), chunk_size=700)
    for counts in (whole, streamed):
        assert counts.counts.n_correct.tolist() == [sum(row) for row in rows]
