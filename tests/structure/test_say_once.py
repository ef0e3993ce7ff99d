"""Issue 31 item 3: each thing said once (the request objects, the shared option check,
the alignment of sequential comparisons)."""

from __future__ import annotations

import copy
import json
import warnings

import numpy as np
import pytest

import kpass
from kpass.report.compare import run_compare
from kpass.report.leaderboard import run_leaderboard
from kpass.report.parser import build_parser
from kpass.stats.align import align_runs


def write(path, rows):
    path.write_text("".join(json.dumps({"id": q, "outcomes": r}) + "\n" for q, r in rows))
    return path


@pytest.fixture
def runs(tmp_path):
    rng = np.random.default_rng(31)
    ids = [f"q{i}" for i in range(12)]
    a = write(tmp_path / "a.jsonl", [(q, rng.integers(0, 2, 4).tolist()) for q in ids])
    b = write(tmp_path / "b.jsonl", [(q, rng.integers(0, 2, 4).tolist()) for q in ids[::-1]])
    return a, b


@pytest.mark.parametrize("command", ["compare", "leaderboard"])
@pytest.mark.parametrize("output", ["table", "json"])
def test_the_commands_leave_their_parsed_arguments_as_parsed(runs, command, output, capsys):
    """The renderers get a request object; nothing is written into the namespace (before:
    ``args.id``, ``args.notes``, ``args.names``, ``args.paths``)."""
    argv = [command, *map(str, runs), "--id", "id", "--k", "1", "--metrics", "pass@k",
            "--format", output]
    args = build_parser().parse_args(argv)
    args.digits = 3  # what main() fills in
    parser = vars(args).pop("command_parser", None)  # the subcommand's parser, for errors
    before = copy.deepcopy(vars(args))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status = (run_compare if command == "compare" else run_leaderboard)(args)
    assert status == 0, capsys.readouterr().err
    assert vars(args) == before  # no attribute added, none changed
    assert parser is not None
    out = capsys.readouterr().out
    if output == "json":
        document = json.loads(out)
        assert document["matched_by"] == "id"
        assert document["notes"] == [] or all(isinstance(n, str) for n in document["notes"])


BAD_SHARED = "`shared` must be True or False; got shared='no'"
BAD_CONFIDENCE = "`confidence` must be a finite number in (0, 1); got confidence=1.5"
BAD_CLUSTERS = ("`clusters` must be a sequence of labels (list, tuple or array), one per "
                "question in question order; got clusters='xxyy' (str)")


def test_the_shared_options_get_one_message_from_every_function():
    R_a = [[1, 0, 1], [0, 1, 1], [1, 1, 1], [0, 0, 1]]
    R_b = [[0, 0, 1], [0, 1, 0], [1, 0, 1], [0, 0, 0]]
    counts_a, counts_b = kpass.binary_counts(R_a), kpass.binary_counts(R_b)
    calls = {
        "compare": lambda **o: kpass.compare(kpass.pass_at_k, R_a, R_b, 1, **o),
        "leaderboard": lambda **o: kpass.leaderboard(kpass.pass_at_k, {"a": R_a, "b": R_b},
                                                     1, **o),
        "compare_table": lambda **o: kpass.compare_table(counts_a, counts_b, k=1, **o),
    }
    for name, call in calls.items():
        for option, value, expected in (("shared", "no", BAD_SHARED),
                                        ("confidence", 1.5, BAD_CONFIDENCE),
                                        ("clusters", "xxyy", BAD_CLUSTERS)):
            with pytest.raises((TypeError, ValueError)) as info:
                call(**{option: value})
            assert str(info.value) == expected, (name, option)
    for function in (kpass.standard_error, kpass.confidence_sequence):
        with pytest.raises(TypeError) as info:
            function(kpass.pass_at_k, R_a, *([R_b] if function is kpass.confidence_sequence
                                              else []), 1, clusters="xxyy")
        assert str(info.value) == BAD_CLUSTERS


def test_alignment_takes_each_runs_values_in_the_first_runs_order():
    a = kpass.BinaryCounts([2] * 3, [0, 1, 2], ids=["q1", "q2", "q3"])
    b = kpass.BinaryCounts([2] * 4, [2, 2, 1, 0], ids=["q4", "q3", "q2", "q1"])
    alignment = align_runs([a, b], ["A", "B"], shared=True)
    assert alignment.take(0, ["x1", "x2", "x3"]) == ["x1", "x2", "x3"]
    assert alignment.take(1, ["y4", "y3", "y2", "y1"]) == ["y1", "y2", "y3"]


def test_sequential_shared_drops_the_questions_either_run_lacks(tmp_path, capsys):
    """``--sequential --shared`` where B has questions A lacks (and A some B lacks): the
    verdict equals confidence_sequence on the hand-picked common questions, clusters
    carried along (before, B's extra questions were refused although --shared was given)."""
    from kpass.report.cli import main

    rng = np.random.default_rng(7)
    rows_a = {f"q{i}": rng.integers(0, 2, 4).tolist() for i in range(40)}
    rows_b = {f"q{i}": rng.integers(0, 2, 4).tolist() for i in range(5, 50)}
    topics = {q: f"t{i % 6}" for i, q in enumerate(rows_a)}
    path_a = tmp_path / "a.jsonl"
    path_a.write_text("".join(json.dumps({"id": q, "outcomes": r, "topic": topics[q]}) + "\n"
                              for q, r in rows_a.items()))
    path_b = write(tmp_path / "b.jsonl", list(rows_b.items()))
    assert main(["compare", str(path_a), str(path_b), "--id", "id", "--shared",
                 "--clusters", "topic", "--sequential", "--k", "1", "--metrics",
                 "pass@k"]) == 0
    line = capsys.readouterr().out.splitlines()[1]
    common = [q for q in rows_a if q in rows_b]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = kpass.confidence_sequence(
            kpass.pass_at_k, [rows_a[q] for q in common], [rows_b[q] for q in common], 1,
            clusters=[topics[q] for q in common])
    assert line == f"Pass@1  {expected.summary()}"
