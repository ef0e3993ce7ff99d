"""Any failure of a computation on the Space is one readable line (issue 18, item 3).

The module's own ValueError/TypeError messages are shown as they are (located). Anything
else a computation raises -- ``decimal.InvalidOperation`` (whose ``str()`` is the class
repr ``[<class 'decimal.InvalidOperation'>]``), ZeroDivisionError, KeyError, a
RuntimeError, an AssertionError, a crash of the forked child -- must become a readable
"**Input error:**" line on every page (a metric's page, its compare tab, the comparison
module's page), with or without fork, never a class repr and never a traceback.
"""

from __future__ import annotations

import decimal
import multiprocessing
import os
import signal
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]


app: Any = None
space_controls: Any = None
space_failures: Any = None
evaluate: Any = None


@pytest.fixture(scope="module", autouse=True)
def _space_page(space_app):
    """The Space's modules as this file's names, bound when its first test runs (the
    shared loader, tests/conftest.py: gradio is not imported while collecting)."""
    global app, space_controls, space_failures, evaluate
    import evaluate
    app = space_app
    space_controls = app.space_controls
    space_failures = app.space_failures


def invalid_operation():
    decimal.Decimal("1e99999999999999999999").quantize(decimal.Decimal(1))


def crash():
    os.kill(os.getpid(), signal.SIGKILL)


def raises(error):
    def function(*args, **kwargs):
        if callable(error) and not isinstance(error, BaseException):
            error()
        raise error
    return function


FAILURES = {
    "decimal.InvalidOperation": (invalid_operation, "a number in the input"),
    "ZeroDivisionError": (ZeroDivisionError("division by zero"), "a number in the input"),
    "OverflowError": (OverflowError("(34, 'Numerical result out of range')"),
                      "a number in the input"),
    "KeyError": (KeyError("pass@1"), "unexpected KeyError"),
    "RuntimeError": (RuntimeError("boom\nsecond line"), "unexpected RuntimeError"),
    "AssertionError": (AssertionError(), "unexpected AssertionError"),
    "IndexError": (IndexError("list index out of range"), "unexpected IndexError"),
    "MemoryError": (MemoryError(), "more memory"),
    "ValueError with a repr": (ValueError([ValueError]), "unexpected ValueError"),
    "crash of the child": (crash, "stopped without an answer"),
}


@pytest.fixture(scope="module")
def module():
    return evaluate.load(str(REPO / "metrics" / "pass_at_k_bayes" / "pass_at_k_bayes.py"))


@pytest.fixture(scope="module")
def comparison():
    return evaluate.load(str(REPO / "comparisons" / "kpass_compare"), keep_in_memory=True)


def assert_readable(message: str, needle: str) -> None:
    assert message.startswith("**Input error:** "), message
    assert needle in message, message
    assert "\n" not in message and "Traceback" not in message, message
    assert "<class" not in message and "[<" not in message and " object at 0x" not in message


def page(module, monkeypatch, error):
    monkeypatch.setattr(module, "_compute", raises(error))
    controls = space_controls.module_controls(module)
    return app.run(module, controls, "1 0 1\n0 1 1", None, "1",
                   *[space_controls.control_value(c) for c in controls])


@pytest.mark.parametrize("name", list(FAILURES))
def test_a_metric_page_shows_any_failure_as_one_readable_line(module, monkeypatch, name):
    error, needle = FAILURES[name]
    message, table, figure = page(module, monkeypatch, error)
    assert_readable(message, needle)
    assert len(table) == 0 and figure is None


@pytest.mark.parametrize("name", list(FAILURES))
def test_the_compare_tab_shows_any_failure_as_one_readable_line(module, monkeypatch, name):
    error, needle = FAILURES[name]
    monkeypatch.setattr(app, "compare_models", raises(error))
    controls = space_controls.module_controls(module)
    values = [space_controls.control_value(c) for c in controls]
    message, table, figure = app.run_compare(module, controls, "1 0 1\n0 1 1", "1 1 1\n0 0 1",
                                             "1", *values)
    assert_readable(message, needle)
    assert len(table) == 0 and figure is None


@pytest.mark.parametrize("name", list(FAILURES))
def test_the_comparison_module_page_shows_any_failure_as_one_readable_line(
        comparison, monkeypatch, name):
    error, needle = FAILURES[name]
    monkeypatch.setattr(app, "comparison_table", raises(error))
    message, table, figure = app.run_comparison_module(comparison, "1 0 1\n0 1 1",
                                                       "1 1 1\n0 0 1", "1", "pass@k", 0.95)
    assert_readable(message, needle)
    assert len(table) == 0 and figure is None


@pytest.mark.parametrize("name", [n for n in FAILURES if n != "crash of the child"])
def test_without_fork_a_failure_is_the_same_readable_line(module, monkeypatch, name):
    error, needle = FAILURES[name]
    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    ran_in = []

    def recorded():
        ran_in.append(os.getpid())
        raises(error)()

    message, _, _ = page(module, monkeypatch, recorded)
    assert_readable(message, needle)
    assert ran_in == [os.getpid()]  # here, not in a forked child: the page took the no-fork path


def test_the_modules_own_value_errors_are_shown_as_they_are(module):
    controls = space_controls.module_controls(module)
    message, _, _ = app.run(module, controls, "1 0 1\n0 1 1", None, "9",
                            *[space_controls.control_value(c) for c in controls])
    assert message.startswith("**Input error:** `k` must be an int in [1, n]"), message


def test_a_huge_number_as_an_answer_is_never_a_class_repr():
    # The answer that gave "[<class 'decimal.InvalidOperation'>]": computed, or one line.
    vote = evaluate.load(str(REPO / "metrics" / "vote_at_k_bayes" / "vote_at_k_bayes.py"))
    controls = space_controls.module_controls(vote)
    message, _, _ = app.run(vote, controls, "1e99999999999999999999 1 | 1\n2 2 | 2", None, "1",
                            *[space_controls.control_value(c) for c in controls])
    assert message.startswith(("Computed", "**Input error:** ")), message
    assert "<class" not in message and "[<" not in message and "\n" not in message, message


def test_failure_message_keeps_a_readable_text_and_drops_a_repr():
    assert space_failures.failure_message(KeyError("pass@1")) == (
        "the computation failed: unexpected KeyError; please report it with the input (pass@1)")
    message = space_failures.failure_message(decimal.InvalidOperation([decimal.InvalidOperation]))
    assert message.startswith("the computation failed: a number in the input") and \
        "<class" not in message
