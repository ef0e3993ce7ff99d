"""Issue 28's input edges: symlinks and partitions in folders and globs, empty file names,
bytes that are not UTF-8, --normalize misbehaving, --id with --clusters on long files,
--threshold and --answers on every command, harness files of different tools side by side.

Every CLI check runs `kpass.report.cli.main` (or the console script, where a hang must be
caught) and compares the numbers with an independent computation: the same rows in one
plain file, the closed form of Pass@k with exact fractions, or kpass's Python API on
outcomes the test derives itself.
"""

import json
import os
import random
import subprocess
import sys
from fractions import Fraction
from math import comb
from pathlib import Path

import numpy as np
import pytest

import kpass
from kpass.io.errors import ReportError
from kpass.io.formats import readers as readers_module
from kpass.io.formats.readers import load_counts
from kpass.io.long import load as long_module
from kpass.io.long.load import load_long
from kpass.io.shards import shard_parts
from kpass.report.cli import main

FIXTURES = Path(__file__).parents[1] / "fixtures"


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def results(out):
    return [(r["label"], r["estimate"], r["se"]) for r in json.loads(out)["results"]]


def board(out):
    """The first leaderboard of ``--format json``: name -> (estimate, se)."""
    return {row["name"]: (row["estimate"], row["se"])
            for row in json.loads(out)["results"][0]["rows"]}


def notes(err):
    return [line for line in err.splitlines() if ": note: " in line]


def one_line_error(err):
    lines = [line for line in err.strip().splitlines() if ": note: " not in line]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def pass_at_k(groups, k):
    """Pass@k by its closed form with exact fractions: mean of 1 - C(n-c, k) / C(n, k)."""
    values = [1 - Fraction(comb(n - c, k), comb(n, k)) for n, c in groups]
    return float(sum(values) / len(values))


def kpass_script():
    script = Path(sys.executable).with_name("kpass")
    return [str(script)] if script.exists() else [sys.executable, "-m", "kpass.report.cli"]


P_CSV = "id,correct\nq1,1\nq1,0\nq2,0\nq2,0\n"  # Pass@2: q1 -> 1, q2 -> 0


# ----------------------------------------------------------------------------- 1. symlinks


@pytest.fixture
def linked_tree(tmp_path):
    """The issue's tree: s/a/p.csv with `self -> .` and `up -> ..` beside it."""
    folder = tmp_path / "s" / "a"
    folder.mkdir(parents=True)
    (folder / "p.csv").write_text(P_CSV)
    os.symlink(".", folder / "self")
    os.symlink("..", folder / "up")
    return tmp_path


def test_a_glob_through_self_and_parent_links_reads_the_file_once(linked_tree, capsys,
                                                                  monkeypatch):
    monkeypatch.chdir(linked_tree)
    code, out, err = run(capsys, "report", "s/**/*.csv", "--id", "id", "--k", "2",
                         "--metrics", "pass@k", "--format", "json")
    assert code == 0, err
    assert results(out)[0][1] == pytest.approx(pass_at_k([(2, 1), (2, 0)], 2))  # 0.5
    _, alone, _ = run(capsys, "report", "s/a/p.csv", "--id", "id", "--k", "2", "--metrics",
                      "pass@k", "--format", "json")
    assert results(out) == results(alone)
    said = notes(err)
    assert len(said) == 1 and "reached twice through links and read once" in said[0], err
    assert "s/a/self" in said[0] and "s/a/up" in said[0]


def test_the_console_script_ends_on_a_link_loop(linked_tree):
    """Two links back up the tree never finish under glob.glob; the walker ends at once."""
    done = subprocess.run([*kpass_script(), "report", "s/**/*.csv", "--id", "id", "--k", "2",
                           "--metrics", "pass@k", "--format", "csv"], cwd=linked_tree,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    row = done.stdout.splitlines()[1].split(",")
    assert float(row[6]) == pytest.approx(0.5) and row[5] == "2"


def test_an_alias_folder_does_not_double_the_counts(tmp_path, capsys, monkeypatch):
    runs = tmp_path / "runs" / "run-42"
    runs.mkdir(parents=True)
    (runs / "part-0.csv").write_text(P_CSV)
    os.symlink("run-42", tmp_path / "runs" / "latest")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "report", "runs/**/*.csv", "--id", "id", "--k", "1,2",
                         "--metrics", "pass@k", "--format", "json")
    assert code == 0, err
    _, alone, _ = run(capsys, "report", runs / "part-0.csv", "--id", "id", "--k", "1,2",
                      "--metrics", "pass@k", "--format", "json")
    assert results(out) == results(alone)
    assert json.loads(out)["inputs"][0]["questions"] == 2
    # the real path is read, the alias noted
    assert "runs/latest is runs/run-42" in notes(err)[0], err


def test_a_file_link_in_a_folder_is_read_once(tmp_path, capsys):
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "part-0.csv").write_text(P_CSV)
    os.symlink("part-0.csv", folder / "part-1.csv")
    code, out, err = run(capsys, "report", folder, "--id", "id", "--k", "1", "--metrics",
                         "pass@k", "--format", "json")
    assert code == 0, err
    assert results(out)[0][1] == pytest.approx(pass_at_k([(2, 1), (2, 0)], 1))  # 0.25
    assert "part-1.csv is" in notes(err)[0] and "part-0.csv" in notes(err)[0], err


@pytest.mark.parametrize("seed", range(6))
def test_random_links_never_loop_and_read_every_real_file_once(tmp_path, seed):
    """Adversarial: links to ancestors, siblings, files, themselves and nothing, at random.

    Whatever the links, the folder or pattern holds exactly the real files once, and the
    pooled counts are those of the real files' rows (tallied here without kpass).
    """
    rng = random.Random(seed)
    root = tmp_path / "t"
    folders = [root, root / "a", root / "a" / "b", root / "c"]
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
    expected: dict[str, list[int]] = {}
    real_files = []
    for index, folder in enumerate(folders):
        rows = [(f"q{rng.randrange(5)}", rng.randrange(2)) for _ in range(rng.randrange(1, 6))]
        (folder / f"part-{index}.csv").write_text(
            "id,correct\n" + "".join(f"{q},{x}\n" for q, x in rows))
        real_files.append(folder / f"part-{index}.csv")
        for q, x in rows:
            expected.setdefault(q, [0, 0])
            expected[q][0] += 1
            expected[q][1] += x
    targets = [*folders, *real_files, root / "nowhere"]
    for number in range(8):
        home = rng.choice(folders)
        target = rng.choice(targets)
        name = f"link{number}" + (".csv" if target.suffix == ".csv" else "")
        os.symlink(os.path.relpath(target, home), home / name)
    parts = shard_parts(str(root / "**" / "*.csv"))
    assert parts is not None
    assert sorted(os.path.realpath(p) for p in parts.paths) == sorted(
        os.path.realpath(p) for p in real_files)
    loaded = load_long(str(root / "**" / "*.csv"), id="id")
    found = {q: [int(n), int(c)] for q, n, c in zip(loaded.counts.ids, loaded.counts.n_samples,
                                                    loaded.counts.n_correct, strict=True)}
    assert found == expected


PATTERNS = ["t/**", "t/**/*.csv", "t/*/*.csv", "t/**/b/*.csv", "t/*/**/part-?.csv",
            "t/[ab]/*.csv", "t/**/.h/*.csv", "t/a/**/*", "t/*.csv"]


@pytest.mark.parametrize("seed", range(4))
def test_without_links_the_walker_matches_what_glob_matches(tmp_path, monkeypatch, seed):
    """Differential: on a tree without links, the walker's files are glob.glob's files."""
    import glob

    rng = random.Random(100 + seed)
    monkeypatch.chdir(tmp_path)
    folders = [Path("t"), Path("t/a"), Path("t/a/b"), Path("t/b"), Path("t/.h"),
               Path("t/a/.h"), Path("t/c/b")]
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
        for name in rng.sample(["part-0.csv", "part-1.csv", "x.csv", ".hidden.csv",
                                "_SUCCESS", "y.csv.gz"], 3):
            (folder / name).write_text("id,correct\nq1,1\n")  # listed, never read
    for pattern in PATTERNS:
        expected = sorted(path for path in glob.glob(pattern, recursive=True)
                          if os.path.isfile(path)
                          and not os.path.basename(path).startswith(("_", ".")))
        try:
            found = shard_parts(pattern).paths
        except ReportError:
            found = []
        assert found == expected, pattern


# ----------------------------------------------------------------------------- 6. empty names


@pytest.mark.parametrize("command", [["report", ""], ["compare", "", "b.jsonl"],
                                     ["compare", "a.jsonl", " "], ["leaderboard", "", "b.jsonl"],
                                     ["leaderboard", "A=", "b.jsonl"]])
def test_an_empty_file_name_is_an_argument_error(tmp_path, capsys, monkeypatch, command):
    monkeypatch.chdir(tmp_path)  # an empty name must not read this folder
    (tmp_path / "part-0.csv").write_text(P_CSV)
    code, out, err = run(capsys, *command)
    assert code == 2 and out == ""
    assert "an empty file name" in one_line_error(err), err
    assert err.startswith(f"kpass {command[0]}: error: argument")


def test_the_python_loaders_refuse_an_empty_name_too():
    from kpass.io.inputs import InputOptions, load_input

    with pytest.raises(ReportError, match="an empty file name"):
        load_input("", InputOptions())
    with pytest.raises(ReportError, match="an empty file name"):
        shard_parts("")


# ----------------------------------------------------------------------------- 7, 8. partitions

PARTITIONS = {"lang=en/part-0.csv": "id,s,correct\nq1,0,1\nq1,1,0\nq2,0,1\n",
              "lang=fr/region=eu/part-0.csv": "id,s,correct\nq3,0,0\nq3,1,0\nq2,1,1\n",
              "part-0.csv": "id,s,correct\nq4,0,1\nq4,1,1\n"}


def write_partitions(folder):
    for name, text in PARTITIONS.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    (folder / "_SUCCESS").write_text("")
    (folder / "lang=en" / ".part-0.csv.crc").write_text("x")
    (folder / "other").mkdir()
    (folder / "other" / "part-9.csv").write_text("id,s,correct\nq9,0,1\n")


def test_hive_partitions_are_read_and_other_folders_named(tmp_path, capsys):
    folder = tmp_path / "h"
    folder.mkdir()
    write_partitions(folder)
    single = tmp_path / "all.csv"
    single.write_text("id,s,correct\n" + "".join(text.split("\n", 1)[1]
                                                 for text in PARTITIONS.values()))
    options = ["--id", "id", "--sample", "s", "--k", "1,2", "--metrics", "pass@k,pass^k",
               "--format", "json"]
    code, out, err = run(capsys, "report", folder, *options)
    assert code == 0, err
    _, expected, _ = run(capsys, "report", single, *options)
    assert results(out) == results(expected)
    # q1 (2, 1), q2 (2, 2), q3 (2, 0), q4 (2, 2): the rows of every partition, once
    assert results(out)[0][1] == pytest.approx(pass_at_k([(2, 1), (2, 2), (2, 0), (2, 2)], 1))
    said = notes(err)
    assert len(said) == 1 and "1 sub-folder not read (other)" in said[0], err


def test_wide_parts_in_partitions_equal_the_pooled_file(tmp_path, capsys):
    folder = tmp_path / "w"
    rows = {"k=1/part-0.jsonl": [[1, 0, 1]], "k=2/part-0.jsonl": [[0, 0, 0], [1, 1, 0]]}
    for name, outcomes in rows.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("".join(json.dumps({"outcomes": r}) + "\n" for r in outcomes))
    pooled = tmp_path / "w.jsonl"
    pooled.write_text("".join(json.dumps({"outcomes": r}) + "\n"
                              for outcomes in rows.values() for r in outcomes))
    code, out, err = run(capsys, "report", folder, "--format", "json", "--k", "1,3")
    assert code == 0 and not notes(err), err
    _, expected, _ = run(capsys, "report", pooled, "--format", "json", "--k", "1,3")
    assert results(out) == results(expected)


def test_a_folder_of_only_other_folders_says_which_and_how_to_read_them(tmp_path, capsys):
    (tmp_path / "runs" / "model_a").mkdir(parents=True)
    (tmp_path / "runs" / "model_a" / "part-0.csv").write_text(P_CSV)
    code, _, err = run(capsys, "report", tmp_path / "runs", "--id", "id")
    assert code == 1
    line = one_line_error(err)
    assert "model_a" in line and "give a pattern" in line, err


def test_a_repeated_pair_across_partitions_names_paths_relative_to_the_input(tmp_path, capsys):
    folder = tmp_path / "h"
    for lang in ("en", "fr"):
        (folder / f"lang={lang}").mkdir(parents=True)
        (folder / f"lang={lang}" / "part-0.csv").write_text("id,s,correct\nq1,0,1\n")
    code, _, err = run(capsys, "report", folder, "--id", "id", "--sample", "s")
    assert code == 1
    line = one_line_error(err)
    assert ("is repeated: lang=en/part-0.csv, line 2 and lang=fr/part-0.csv, line 2"
            in line), err


def test_a_bad_row_left_out_of_a_wide_partition_is_named_relative_to_the_input(tmp_path,
                                                                              capsys):
    for lang, text in (("en", '{"outcomes": [1, 0]}\n'),
                       ("fr", '{"outcomes": [1, 1]}\n{"outcomes": [1, 2]}\n')):
        (tmp_path / "w" / f"lang={lang}").mkdir(parents=True)
        (tmp_path / "w" / f"lang={lang}" / "part-0.jsonl").write_text(text)
    code, out, err = run(capsys, "report", tmp_path / "w", "--skip-bad", "--k", "1",
                         "--metrics", "pass@k", "--format", "json")
    assert code == 0, err
    assert results(out)[0][1] == pytest.approx(pass_at_k([(2, 1), (2, 2)], 1))
    assert ": lang=fr/part-0.jsonl, line 2: " in err and "(row left out)" in err, err


# ----------------------------------------------------------------------------- 9. bytes

BAD = b"\xff"


def long_file(fmt, place):
    """A long file (q1: 1, 0; q2: 1, 1) with one bad byte in ``place`` of its third row."""
    cells = [("q1", "a", "1", "x"), ("q1", "b", "0", "y"), ("q2", "a", "1", "z"),
             ("q2", "b", "1", "w")]
    rows = []
    for number, (q, s, ok, note) in enumerate(cells):
        row = {"id": q.encode(), "s": s.encode(), "correct": ok.encode(), "note": note.encode()}
        if number == 2:
            row[place] = row[place] + BAD
        rows.append(row)
    if fmt == "csv":
        return b"id,s,correct,note\n" + b"".join(b",".join(r.values()) + b"\n" for r in rows)
    return b"".join(b'{"id": "%s", "s": "%s", "correct": %s, "note": "%s"}\n'
                    % (r["id"], r["s"], r["correct"] if r is not rows[2] or place != "correct"
                       else b'"' + r["correct"] + b'"', r["note"]) for r in rows)


def slow_long(*args, **kwargs):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(long_module, "fast_long_counts", lambda *a, **k: None)
        return load_long(*args, **kwargs)


def outcome(call):
    try:
        loaded = call()
    except ReportError as error:
        return str(error)
    return {q: (int(n), int(c)) for q, n, c in zip(loaded.counts.ids, loaded.counts.n_samples,
                                                   loaded.counts.n_correct, strict=True)}


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
@pytest.mark.parametrize("place", ["note", "id", "s", "correct"])
def test_bad_bytes_fast_and_line_readers_agree_long(tmp_path, fmt, place):
    path = tmp_path / f"long.{fmt}"
    path.write_bytes(long_file(fmt, place))
    fast = outcome(lambda: load_long(str(path), id="id", sample="s"))
    slow = outcome(lambda: slow_long(str(path), id="id", sample="s"))
    assert fast == slow
    if place == "note":  # outside the cells read: ignored, as the docs say
        assert fast == {"q1": (2, 1), "q2": (2, 2)}
    else:
        column = {"id": "id", "s": "s", "correct": "correct"}[place]
        line = 4 if fmt == "csv" else 3  # the header is line 1 of the CSV
        assert fast == (f"{path}: line {line}: not UTF-8 text (bytes that are not UTF-8 in the "
                        f"`{column}` cell)")


def wide_file(fmt, place):
    rows = [[1, 0], [1, 1]]
    if fmt == "csv":
        lines = [b'"[%d,%d]",n%d' % (a, b, i) for i, (a, b) in enumerate(rows)]
        if place == "note":
            lines[1] += BAD
        else:
            lines[1] = b'"[1,1' + BAD + b']",n1'
        return b"outcomes,note\n" + b"\n".join(lines) + b"\n"
    lines = [b'{"outcomes": [%d, %d], "note": "n%d"}' % (a, b, i) for i, (a, b) in
             enumerate(rows)]
    if place == "note":
        lines[1] = lines[1].replace(b'n1"', b'n1' + BAD + b'"')
    else:
        lines[1] = b'{"outcomes": [1, "1' + BAD + b'"], "note": "n1"}'
    return b"\n".join(lines) + b"\n"


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
@pytest.mark.parametrize("place", ["note", "outcomes"])
def test_bad_bytes_fast_and_line_readers_agree_wide(tmp_path, fmt, place):
    path = tmp_path / f"wide.{fmt}"
    path.write_bytes(wide_file(fmt, place))

    def read(fast):
        with pytest.MonkeyPatch.context() as patch:
            if not fast:
                patch.setattr(readers_module, "_fast", lambda reader: None)
            patch.setattr(readers_module, "LINE_READER_BYTES", 0)  # pyarrow reads a small file
            try:
                loaded = load_counts(str(path))
            except ReportError as error:
                return str(error)
            return loaded.counts.n_samples.tolist(), loaded.counts.n_correct.tolist()

    assert read(True) == read(False)
    if place == "note":
        assert read(True) == ([2, 2], [1, 2])
    else:
        assert read(True).startswith(f"{path}: line ") and "not UTF-8 text" in read(True)


def test_bad_bytes_in_answers_and_harness_files_follow_the_same_rule(tmp_path, capsys):
    answers = tmp_path / "answers.csv"
    answers.write_bytes(b'answers,ground_truth,note\n"[1,2]",1,ok' + BAD + b'\n"[3,3]",3,ok\n')
    code, out, err = run(capsys, "report", answers, "--answers", "--k", "1", "--metrics",
                         "pass@k", "--format", "json")
    assert code == 0, err
    assert results(out)[0][1] == pytest.approx(pass_at_k([(2, 1), (2, 2)], 1))
    answers.write_bytes(b'answers,ground_truth,note\n"[1,2]",1,ok\n"[3,' + BAD + b']",3,ok\n')
    code, _, err = run(capsys, "report", answers, "--answers")
    assert code == 1
    assert one_line_error(err).endswith("answers.csv: line 3: not UTF-8 text (bytes that are "
                                        "not UTF-8 in the `answers` cell)")
    lm_eval = tmp_path / "samples_t.jsonl"
    lm_eval.write_bytes(b'{"doc_id": 0, "filter": "none", "metrics": ["acc"], "acc": 1.0, '
                        b'"resps": "' + BAD + b'"}\n{"doc_id": 1, "filter": "none", '
                        b'"metrics": ["acc"], "acc": 0.0}\n')
    code, out, err = run(capsys, "report", lm_eval, "--k", "1", "--metrics", "pass@k",
                         "--format", "json")
    assert code == 0, err
    assert results(out)[0][1] == pytest.approx(0.5)


# ----------------------------------------------------------------------------- 12. --normalize


@pytest.fixture
def normalizers(tmp_path, monkeypatch):
    (tmp_path / "edge_norm.py").write_text(
        "def as_list(x):\n    return [x]\n\n"
        "def as_dict(x):\n    return {'a': x}\n\n"
        "def interrupt(x):\n    raise KeyboardInterrupt\n")
    (tmp_path / "answers.jsonl").write_text(
        '{"answers": [1, 2], "ground_truth": 1}\n{"answers": [3, 3], "ground_truth": 3}\n')
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("edge_norm", None)


@pytest.mark.parametrize("function, kind", [("as_list", "list"), ("as_dict", "dict")])
@pytest.mark.parametrize("command", ["report", "compare"])
def test_normalize_returning_a_container_is_one_line(normalizers, capsys, function, kind,
                                                     command):
    files = ["answers.jsonl"] * (2 if command == "compare" else 1)
    code, _, err = run(capsys, command, *files, "--answers", "--normalize",
                       f"edge_norm:{function}")
    assert code == 1
    line = one_line_error(err)
    assert f"answers.jsonl: line 1: `normalize` (edge_norm:{function}) returned a {kind}" in line


def test_ctrl_c_in_normalize_ends_with_130_and_one_line(normalizers, capsys):
    code, out, err = run(capsys, "report", "answers.jsonl", "--answers", "--normalize",
                         "edge_norm:interrupt")
    assert code == 130 and out == ""
    assert one_line_error(err) == "kpass report: interrupted"


# ----------------------------------------------------------------------------- 14. --id --clusters

RNG = np.random.default_rng(28)
M, N = 12, 4
TOPICS = [f"t{i % 4}" for i in range(M)]
A = RNG.integers(0, 2, size=(M, N))
B = RNG.integers(0, 2, size=(M, N))


def write_long(path, outcomes, shuffle=True):
    rows = [(f"q{i}", j, TOPICS[i], int(outcomes[i, j])) for i in range(M) for j in range(N)]
    if shuffle:
        rows = [rows[t] for t in np.random.default_rng(1).permutation(len(rows))]
    path.write_text("id,s,topic,correct\n" + "".join(f"{q},{s},{t},{x}\n"
                                                     for q, s, t, x in rows))
    return path


def write_wide(path, outcomes):
    path.write_text("".join(json.dumps({"id": f"q{i}", "topic": TOPICS[i],
                                        "outcomes": outcomes[i].tolist()}) + "\n"
                            for i in range(M)))
    return path


@pytest.mark.filterwarnings("ignore::kpass.SmallSampleWarning")  # 12 questions, 4 clusters
def test_compare_long_files_with_id_and_clusters(tmp_path, capsys):
    a, b = write_long(tmp_path / "a.csv", A), write_long(tmp_path / "b.csv", B)
    options = ["--id", "id", "--clusters", "topic", "--k", "1,2", "--metrics", "pass@k",
               "--format", "json"]
    code, out, err = run(capsys, "compare", a, b, *options)
    assert code == 0, err
    rows = json.loads(out)["results"]
    expected = kpass.compare(kpass.pass_at_k, A, B, [1, 2], clusters=TOPICS)
    for row, want in zip(rows, expected, strict=True):
        assert row["difference"] == pytest.approx(want.difference)
        assert row["se"] == pytest.approx(want.se)
    # the same data as wide files (clusters read beside the rows) gives the same table
    wa, wb = write_wide(tmp_path / "a.jsonl", A), write_wide(tmp_path / "b.jsonl", B)
    _, wide, _ = run(capsys, "compare", wa, wb, "--clusters", "topic", "--k", "1,2",
                     "--metrics", "pass@k", "--format", "json")
    assert [x for r in json.loads(wide)["results"] for x in (r["difference"], r["se"])] == (
        pytest.approx([x for r in rows for x in (r["difference"], r["se"])], rel=1e-12))


def test_leaderboard_long_files_with_id_sample_and_clusters(tmp_path, capsys):
    a, b = write_long(tmp_path / "a.csv", A), write_long(tmp_path / "b.csv", B)
    code, out, err = run(capsys, "leaderboard", f"A={a}", f"B={b}", "--id", "id", "--sample",
                         "s", "--clusters", "topic", "--format", "json")
    assert code == 0, err
    found = board(out)
    expected = kpass.leaderboard(kpass.pass_at_k, {"A": A, "B": B}, [1], clusters=TOPICS)[0]
    for row in expected.rows:
        assert found[row.name] == pytest.approx((row.estimate, row.se))


def test_a_question_with_two_cluster_labels_names_both_lines(tmp_path, capsys):
    a = tmp_path / "a.csv"
    a.write_text("id,topic,correct\nq1,t1,1\nq2,t2,0\nq1,t9,0\n")
    code, _, err = run(capsys, "compare", a, a, "--id", "id", "--clusters", "topic")
    assert code == 1
    assert ("question 'q1' has two --clusters labels: 't1' at line 2 and 't9' at line 4"
            in one_line_error(err)), err


@pytest.mark.filterwarnings("ignore::kpass.SmallSampleWarning")  # 4 questions, 2 clusters
def test_a_partition_key_is_a_clusters_column(tmp_path, capsys):
    """`--clusters lang` on h/lang=en/..., h/lang=fr/...: each part's rows carry its value."""
    a_rows = {"en": [("q1", [1, 0]), ("q2", [1, 1])], "fr": [("q3", [0, 0]), ("q4", [1, 0])]}
    for lang, rows in a_rows.items():
        (tmp_path / "h" / f"lang={lang}").mkdir(parents=True)
        (tmp_path / "h" / f"lang={lang}" / "part-0.csv").write_text(
            "id,correct\n" + "".join(f"{q},{x}\n" for q, xs in rows for x in xs))
    b_rows = [("q1", [0, 0]), ("q2", [0, 1]), ("q3", [1, 1]), ("q4", [0, 0])]
    b = tmp_path / "b.csv"
    b.write_text("id,correct\n" + "".join(f"{q},{x}\n" for q, xs in b_rows for x in xs))
    code, out, err = run(capsys, "compare", tmp_path / "h", b, "--id", "id", "--clusters",
                         "lang", "--k", "1", "--metrics", "pass@k", "--format", "json")
    assert code == 0, err
    A_ = np.array([xs for rows in a_rows.values() for _, xs in rows])
    B_ = np.array([xs for _, xs in b_rows])
    want = kpass.compare(kpass.pass_at_k, A_, B_, 1, clusters=["en", "en", "fr", "fr"])
    row = json.loads(out)["results"][0]
    assert (row["difference"], row["se"]) == pytest.approx((want.difference, want.se))
    # a question in two partitions of different values: both places named
    (tmp_path / "h" / "lang=fr" / "part-1.csv").write_text("id,correct\nq1,1\n")
    code, _, err = run(capsys, "compare", tmp_path / "h", b, "--id", "id", "--clusters", "lang",
                       "--shared")
    assert code == 1
    assert ("question 'q1' has two --clusters labels: 'en' at lang=en/part-0.csv, line 2 and "
            "'fr' at lang=fr/part-1.csv, line 2" in one_line_error(err)), err


# ----------------------------------------------------------------------------- 16. --threshold


def write_soft(path, scores):
    path.write_text("id,score\n" + "".join(f"q{i},{s}\n" for i, row in enumerate(scores)
                                           for s in row))
    return path


SOFT_A = np.round(RNG.uniform(0, 1, size=(M, N)), 3)
SOFT_B = np.round(RNG.uniform(0, 1, size=(M, N)), 3)


@pytest.mark.filterwarnings("ignore::kpass.SmallSampleWarning")  # 12 questions
def test_compare_and_leaderboard_accept_threshold(tmp_path, capsys):
    a, b = write_soft(tmp_path / "a.csv", SOFT_A), write_soft(tmp_path / "b.csv", SOFT_B)
    hard_a, hard_b = (SOFT_A > 0.5).astype(int), (SOFT_B > 0.5).astype(int)
    code, _, err = run(capsys, "compare", a, b, "--id", "id", "--column", "score")
    assert code == 1 and "pass --threshold T" in one_line_error(err)
    code, out, err = run(capsys, "compare", a, b, "--id", "id", "--column", "score",
                         "--threshold", "0.5", "--k", "1,2", "--metrics", "pass@k",
                         "--format", "json")
    assert code == 0, err
    expected = kpass.compare(kpass.pass_at_k, hard_a, hard_b, [1, 2])
    assert [r["difference"] for r in json.loads(out)["results"]] == pytest.approx(
        [e.difference for e in expected])
    code, out, err = run(capsys, "leaderboard", f"A={a}", f"B={b}", "--id", "id", "--column",
                         "score", "--threshold", "0.5", "--format", "json")
    assert code == 0, err
    found = {name: value[0] for name, value in board(out).items()}
    assert found == pytest.approx({"A": hard_a.mean(), "B": hard_b.mean()})


def test_leaderboard_accepts_answers(tmp_path, capsys):
    rng = np.random.default_rng(7)
    files, expected = [], {}
    for name in ("A", "B", "C"):
        answers = rng.integers(0, 3, size=(M, N))
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps({"answers": [str(a) for a in row],
                                            "ground_truth": 0}) + "\n" for row in answers))
        files.append(f"{name}={path}")
        expected[name] = (answers == 0).mean()  # answer equal to the reference: correct
    code, out, err = run(capsys, "leaderboard", *files, "--answers", "--format", "json")
    assert code == 0, err
    found = {name: value[0] for name, value in board(out).items()}
    assert found == pytest.approx(expected)
    code, _, err = run(capsys, "leaderboard", *files, "--answers", "--threshold", "0.5")
    assert code == 2 and "--threshold applies to soft scores" in one_line_error(err)
    for extra in (["--answers"], []):  # vote@k is not ranked: said, with or without --answers
        code, _, err = run(capsys, "leaderboard", *files, "--metrics", "pass@k,vote@k", *extra)
        assert code == 2 and "does not rank vote metrics" in one_line_error(err)


# ----------------------------------------------------------------------------- 18. harnesses

LM_GEN = FIXTURES / "lm-eval" / "samples_kp_gen_2026-11-23T08-26-00.825007.jsonl"
LM_MC = FIXTURES / "lm-eval" / "samples_kp_mc_2026-11-23T08-26-00.825007.jsonl"
LT_GEN = FIXTURES / "lighteval" / "details_kp_gen_0_2026-11-23T08-39-44.002695.parquet"


def test_an_lm_eval_file_ranks_beside_a_lighteval_file(capsys):
    pq = pytest.importorskip("pyarrow.parquet")
    lm_rows = [json.loads(line) for line in LM_GEN.read_text().splitlines()]
    lm = {r["doc_id"]: r["exact_match"] for r in lm_rows if r["filter"] == "first"}
    lt = {int(r["doc"]["id"]): r["metric"]["em"] for r in pq.read_table(LT_GEN).to_pylist()}
    assert sorted(lm) == sorted(lt)  # the same five documents
    code, out, err = run(capsys, "leaderboard", f"lm={LM_GEN}", f"lt={LT_GEN}", "--filter",
                         "first", "--format", "json")
    assert code == 0, err
    found = {name: value[0] for name, value in board(out).items()}
    assert found == pytest.approx({"lm": np.mean(list(lm.values())),
                                   "lt": np.mean(list(lt.values()))})
    said = notes(err)
    assert len(said) == 1 and "--filter first applies to lm-eval files; this is a lighteval " \
                              "file, read without it" in said[0], err
    # paired by document id: compare's paired difference is the mean of per-id differences
    code, out, err = run(capsys, "compare", LM_GEN, LT_GEN, "--filter", "first", "--k", "1",
                         "--metrics", "pass@k", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["results"][0]["difference"] == pytest.approx(
        np.mean([lm[d] - lt[d] for d in lm]))


def test_filter_with_no_lm_eval_file_among_the_inputs_is_still_refused(capsys):
    code, _, err = run(capsys, "leaderboard", LT_GEN, LT_GEN.with_name(
        "details_kp_mc_0_2026-11-23T08-39-44.002695.parquet"), "--filter", "first")
    assert code == 1 and "--filter" in one_line_error(err), err


@pytest.mark.parametrize("drop", ["all", "some"])
def test_lm_eval_rows_without_a_filter_are_under_the_default_filter(tmp_path, capsys, drop):
    """lm-eval's own file (filter `none`) with the `filter` field removed from its rows."""
    rows = [json.loads(line) for line in LM_MC.read_text().splitlines()]
    assert {r["filter"] for r in rows} == {"none"}
    for index, row in enumerate(rows):
        if drop == "all" or index % 2:
            del row["filter"]
    path = tmp_path / "samples_kp_mc_nofilter.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    for extra in ([], ["--filter", "none"]):
        code, out, err = run(capsys, "report", path, "--k", "1", "--metrics", "pass@k",
                             "--format", "json", *extra)
        assert code == 0, err
        assert results(out)[0][1] == pytest.approx(np.mean([r["acc"] for r in rows]))
