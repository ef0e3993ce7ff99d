"""Reading an Inspect log of a run in progress with ``--partial`` (issue 39, item 5).

``tests/fixtures/inspect/watch/started/`` is a log Inspect itself wrote for a run killed
mid-way (status ``started``; the README gives the commands): samples 1..6 were scored in
both epochs, 7..12 never finished. Expected counts come from the task's plan (sample q is
correct in epoch e iff (q + e + shift) % 3 != 0), never from kpass.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("inspect_ai")

from kpass.io.errors import ReportError  # noqa: E402
from kpass.io.harness.inspect_log import _complete, load_inspect  # noqa: E402
from kpass.report.cli import main  # noqa: E402

WATCH = Path(__file__).parents[1] / "fixtures" / "inspect" / "watch"
STARTED = str(next((WATCH / "started").glob("*.eval")))
FINISHED_A, FINISHED_B = sorted(str(path) for path in (WATCH / "finished").glob("*.eval"))


def _plan(questions: range, shift: int = 0) -> dict[int, tuple[int, int]]:
    return {q: (2, sum(1 for e in (1, 2) if (q + e + shift) % 3)) for q in questions}


def _got(counts) -> dict:
    return {int(i): (int(n), int(c)) for i, n, c in zip(counts.ids, counts.n_samples,
                                                        counts.n_correct, strict=True)}


def test_a_started_log_is_refused_with_one_line_naming_partial(capsys):
    assert main(["report", STARTED, "--k", "1"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "status is 'started'" in err[0] and "add --partial" in err[0]


def test_partial_reads_the_samples_scored_so_far():
    loaded = load_inspect(STARTED, partial=True)
    assert _got(loaded.counts) == _plan(range(1, 7))
    assert len(loaded.notes) == 1 and "'started'" in loaded.notes[0]


def test_partial_on_a_finished_log_changes_nothing():
    assert _got(load_inspect(FINISHED_A, partial=True).counts) == _plan(range(1, 13))
    assert _got(load_inspect(FINISHED_B).counts) == _plan(range(1, 13), shift=1)
    assert load_inspect(FINISHED_A, partial=True).notes == []


def test_report_partial_prints_the_scored_questions(capsys):
    assert main(["report", STARTED, "--partial", "--k", "1", "--metrics", "pass@k",
                 "--format", "csv"]) == 0
    captured = capsys.readouterr()
    row = captured.out.splitlines()[1].split(",")
    # 6 questions; correct epochs of the plan: 8 of 12
    assert row[5] == "6" and float(row[6]) == pytest.approx(8 / 12)
    assert "read with --partial" in captured.err


def test_compare_sequential_partial_on_a_live_log_against_a_finished_one(capsys):
    assert main(["compare", STARTED, FINISHED_B, "--sequential", "--partial", "--shared",
                 "--k", "1", "--metrics", "pass@k"]) == 0
    out = capsys.readouterr().out
    assert "6 questions paired by id" in out and "after 6 questions" in out


def _summary(qid: int, epoch: int) -> SimpleNamespace:
    return SimpleNamespace(id=qid, epoch=epoch)


def _header(epochs: int, status: str = "started") -> SimpleNamespace:
    return SimpleNamespace(status=status, eval=SimpleNamespace(config=SimpleNamespace(
        epochs=epochs)))


def test_questions_count_once_all_epochs_are_done_in_the_order_they_finished():
    # epochs finish interleaved: q1e1, q2e1, q2e2, q3e1, q1e2 -> q2 done first, then q1
    summaries = [_summary(1, 1), _summary(2, 1), _summary(2, 2), _summary(3, 1),
                 _summary(1, 2)]
    notes: list[str] = []
    kept = _complete("x.eval", _header(2), summaries, notes)
    assert [(s.id, s.epoch) for s in kept] == [(2, 1), (2, 2), (1, 1), (1, 2)]
    assert len(notes) == 1 and "1 question with epochs still running" in notes[0]
    # a later look: only appended epochs; the earlier questions keep their place first
    later = _complete("x.eval", _header(2), [*summaries, _summary(3, 2)], [])
    assert [(s.id, s.epoch) for s in later][:4] == [(s.id, s.epoch) for s in kept]


def test_no_question_done_yet_is_one_clear_error():
    with pytest.raises(ReportError, match="no question has all its 2 epochs done yet"):
        _complete("x.eval", _header(2), [_summary(1, 1)], [])


@pytest.mark.parametrize("argv", [["next", "--budget", "4", "--k", "1", "--prior", "uniform"],
                                  ["plan", "--questions", "100"]])
def test_next_and_plan_read_a_started_log_with_partial(argv, capsys):
    assert main([argv[0], STARTED, *argv[1:]]) == 1
    assert "add --partial" in capsys.readouterr().err
    assert main([argv[0], STARTED, *argv[1:], "--partial"]) == 0


def test_leaderboard_partial_ranks_the_questions_done(capsys):
    assert main(["leaderboard", STARTED, FINISHED_B, "--partial", "--shared",
                 "--format", "json"]) == 0
    import json

    document = json.loads(capsys.readouterr().out)
    assert document["results"][0]["questions"] == 6
