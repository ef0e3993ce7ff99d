"""The Space refuses the rows ``kpass report`` refuses, located; it never merges questions.

Issue 18, item 2: pasted long lines (one sample a line) without an id were merged into one
"null" question, and wide rows (one question a line) with a repeated id were taken as they
came where the CLI refuses them. Each case below is given to the CLI (``kpass report``,
with ``--id id`` where the rows have ids) and to the Space, pasted and uploaded: both must
refuse it, the Space with "**Input error:** <box or file>, line N" (or the repeated id with
both lines), N being the line the CLI names.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from kpass.report.cli import main as kpass_main

REPO = Path(__file__).resolve().parents[2]


app: Any = None
space_controls: Any = None
evaluate: Any = None


@pytest.fixture(scope="module", autouse=True)
def _space_page(space_app):
    """The Space's modules as this file's names, bound when its first test runs (the
    shared loader, tests/conftest.py: gradio is not imported while collecting)."""
    global app, space_controls, evaluate
    import evaluate
    app = space_app
    space_controls = app.space_controls


@pytest.fixture(scope="module")
def module():
    return evaluate.load(str(REPO / "metrics" / "pass_at_k_bayes" / "pass_at_k_bayes.py"))


def run(module, text, upload=None):
    controls = space_controls.module_controls(module)
    return app.run(module, controls, text, upload, "1",
                   *[space_controls.control_value(c) for c in controls])


def cli_refusal(path: Path, capsys, with_id: bool) -> str:
    capsys.readouterr()
    argv = ["report", str(path), "--k", "1"] + (["--id", "id"] if with_id else [])
    status = kpass_main(argv)
    err = capsys.readouterr().err
    assert status != 0, f"the CLI accepted {path.name}"
    return err


# name: (file name, content, where the CLI and the Space must point, CLI with --id)
REFUSED = {
    "long lines, one without an id": (
        "rows.jsonl", '{"id": "a", "correct": 1}\n{"correct": 0}\n{"id": "a", "correct": 1}\n',
        "line 2", True),
    "long lines, none with an id": (
        "rows.jsonl", '{"correct": 1}\n{"correct": 0}\n{"correct": 1}\n', "line 1", False),
    "long lines with a null id": (
        "rows.jsonl", '{"id": "a", "correct": 1}\n{"id": null, "correct": 0}\n', "line 2", True),
    "wide rows with a repeated id": (
        "rows.jsonl", '{"id": "a", "correct": [1, 0]}\n{"id": "b", "correct": [0]}\n'
        '{"id": "a", "correct": [1, 1]}\n', "line 1 and line 3", True),
    "wide rows with a repeated id written as text and as a number": (
        "rows.jsonl", '{"id": 7, "correct": [1, 0]}\n{"id": "7", "correct": [1, 1]}\n',
        "line 1 and line 2", True),
    "a long row after wide rows": (
        "rows.jsonl", '{"id": "a", "correct": [1, 0]}\n{"id": "b", "correct": 1}\n', "line 2",
        True),
    "a wide row after long rows": (
        "rows.jsonl", '{"id": "a", "correct": 1}\n{"id": "b", "correct": [1, 0]}\n', "line 2",
        True),
    "an empty id": (
        "rows.jsonl", '{"id": "a", "correct": 1}\n{"id": " ", "correct": 0}\n', "line 2", True),
    "an id that is neither a string nor an integer": (
        "rows.jsonl", '{"id": "a", "correct": 1}\n{"id": 1.5, "correct": 0}\n', "line 2", True),
    "CSV long rows, one with an empty id": (
        "rows.csv", "id,correct\na,1\n,0\na,0\n", "line 3", True),
    "CSV wide rows with a repeated id": (
        "rows.csv", 'id,outcomes\na,"[1, 0]"\nb,"[0, 1]"\na,"[0, 0]"\n', "line 2 and line 4",
        True),
    "CSV one outcome a row and no id column": (
        "rows.csv", "correct\n1\n0\n1\n", "line 2", False),
}


def assert_refused_at(message: str, source: str, where: str) -> None:
    assert message.startswith("**Input error:** "), message
    assert "\n" not in message and "Traceback" not in message, message
    if " and " in where:  # a repeated id: both lines
        assert message.startswith(f"**Input error:** {source}: question id "), message
        assert f"is repeated: {where}" in message, message
    else:
        assert message.startswith(f"**Input error:** {source}, {where}: "), message


@pytest.mark.parametrize("name", list(REFUSED))
def test_the_space_refuses_what_the_cli_refuses_at_the_same_line(module, tmp_path, capsys,
                                                                 name):
    filename, content, where, with_id = REFUSED[name]
    path = tmp_path / filename
    path.write_text(content, encoding="utf-8")
    err = cli_refusal(path, capsys, with_id)
    cli_lines = re.findall(r"line (\d+)", err)
    assert cli_lines and cli_lines == re.findall(r"line (\d+)", where), err
    message, table, figure = run(module, "ignored", upload=str(path))
    assert_refused_at(message, f"the file {filename}", where)
    assert len(table) == 0 and figure is None
    if filename.endswith(".jsonl"):  # the same lines pasted in the box
        message, table, _ = run(module, content)
        assert_refused_at(message, "text box", where)
        assert len(table) == 0


def test_the_compare_tab_names_the_box_of_a_refused_row(module):
    controls = space_controls.module_controls(module)
    message, _, _ = app.run_compare(module, controls, "1 0\n0 1",
                                    '{"id": "a", "correct": 1}\n{"correct": 0}', "1",
                                    *[space_controls.control_value(c) for c in controls])
    assert message.startswith("**Input error:** model B box, line 2: one outcome (0) and no "
                              "question id"), message


@pytest.mark.parametrize("content,with_id", [
    # long lines in any order, the id written as text or as a number: grouped by id
    ('{"id": "q1", "correct": 1}\n{"id": 2, "correct": 0}\n{"id": "q1", "correct": 0}\n'
     '{"id": "2", "correct": 0}\n{"id": "q1", "correct": 1}\n{"id": 2, "correct": 1}\n', True),
    # wide rows with distinct ids
    ('{"id": "a", "correct": [1, 0, 1]}\n{"id": "b", "correct": [0, 0, 1]}\n', True),
    # wide rows, some with an id and some without: questions by position (the CLI
    # without --id; the Space needs no id for a wide row)
    ('{"id": "a", "correct": [1, 0, 1]}\n{"correct": [0, 0, 1]}\n', False),
])
def test_accepted_rows_give_the_questions_the_cli_reads(module, tmp_path, capsys, content,
                                                        with_id):
    # The CLI's Pass@1 of the file against the Space's, and the question count.
    path = tmp_path / "rows.jsonl"
    path.write_text(content, encoding="utf-8")
    capsys.readouterr()
    assert kpass_main(["report", str(path), "--k", "1", "--metrics", "pass@k", "--format",
                       "csv"] + (["--id", "id"] if with_id else [])) == 0, capsys.readouterr()
    cli = capsys.readouterr().out.splitlines()
    header, row = cli[0].split(","), cli[1].split(",")
    assert int(row[header.index("questions")]) == 2
    assert float(row[header.index("estimate")]) == 0.5  # (2/3 + 1/3) / 2, exactly
    message, table, _ = run(module, content)
    assert message.startswith("Computed") and "over 2 question(s)" in message, message
    first = table.iloc[0]
    assert (first["metric"], first["k"], first["estimate"]) == ("pass@k", "1", 0.5), table
