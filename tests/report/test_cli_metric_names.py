"""Every CLI that takes a metric name takes its registry key too (one resolver).

``kpass report | compare | leaderboard | next --metrics`` and ``kpass plan --metric`` accept a
family's ``--metrics`` name, its aliases and its registry key (``kpass.registry.Family.key``:
``g-pass@k_tau`` for the CLI's ``g-pass@k``, ``geo_spectrum_star@k`` for ``geo-spectrum*@k``)
and give the same output for each. The reference is the CLI's own name for the family: the
two runs must print the same bytes.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from kpass import registry
from kpass.report.cli import main
from kpass.report.table import family, parse_metrics

#: (registry key, the CLI's name) where the two differ.
DIFFERENT = [(f.key, f.report) for f in registry.REPORTED if f.key != f.report]


def test_the_registry_keys_that_differ_are_the_ones_the_issue_names():
    assert dict(DIFFERENT) == {"g-pass@k_tau": "g-pass@k",
                               "geo_spectrum_star@k": "geo-spectrum*@k"}


@pytest.mark.parametrize(("key", "report"), DIFFERENT)
def test_the_resolver_maps_a_registry_key_to_its_family(key, report):
    assert family(key).key == report and family(key.upper()).key == report
    assert [f.key for f in parse_metrics(f"pass@k,{key}")] == ["pass@k", report]
    assert [f.key for f in parse_metrics(f"{key},{report}")] == [report]  # one family, once


def test_a_registry_key_of_an_unreported_family_is_still_unknown():
    with pytest.raises(ValueError, match="unknown metric 'bayes@n'"):
        parse_metrics("bayes@n")


def _runs(tmp_path, count=3, questions=24, samples=4):
    rng = np.random.default_rng(37)
    paths = []
    for i in range(count):
        path = tmp_path / f"model{i}.jsonl"
        rates = rng.beta(2, 2, size=questions)
        rows = (rng.random((questions, samples)) < rates[:, None]).astype(int)
        path.write_text("".join(json.dumps({"id": f"q{q}", "outcomes": row.tolist()}) + "\n"
                                for q, row in enumerate(rows)))
        paths.append(str(path))
    return paths


def _output(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


@pytest.mark.parametrize(("key", "report"), DIFFERENT)
def test_every_command_gives_the_same_output_for_the_key_and_the_name(tmp_path, capsys, key,
                                                                      report):
    a, b, c = _runs(tmp_path)
    commands = [["report", a, "--k", "1,2", "--format", "json"],
                ["compare", a, b, "--k", "2", "--format", "json"],
                ["leaderboard", a, b, c, "--k", "2", "--format", "json"],
                ["next", a, "--budget", "10", "--k", "2"]]
    for command in commands:
        by_key = main([*command, "--metrics", key]), *capsys.readouterr()
        by_name = main([*command, "--metrics", report]), *capsys.readouterr()
        assert by_key == by_name, command[0]
        if command[0] == "next" and report == "geo-spectrum*@k":  # refused alike, by name
            assert by_key[0] == 2 and "--metrics geo-spectrum*@k: allocation" in by_key[2]
        elif command[0] == "next":
            assert by_key[0] == 0 and by_key[1].startswith("id,extra_samples")
        else:
            assert by_key[0] == 0 and json.loads(by_key[1]), command[0]
        if command[0] == "report":
            rows = json.loads(by_key[1])["results"]
            assert {row["metric"] for row in rows} == {report} and len(rows) == 2


def test_plan_takes_the_registry_key(capsys):
    argv = ["plan", "--baseline", "0.6", "--difference", "0.05", "--samples", "4", "--k", "2"]
    by_key = _output(capsys, [*argv, "--metric", "g-pass@k_tau"])
    assert by_key == _output(capsys, [*argv, "--metric", "g-pass@k"])
    assert by_key.startswith("Questions needed: ") and "G-Pass@2_0.5" in by_key
