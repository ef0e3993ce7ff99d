"""The Space's margins (issue 40, item 4): the Compare tab's margin, equivalence and
sequential null, and the comparison module's page, against kpass.compare and
kpass.confidence_sequence; bad values are located one-line messages."""

import warnings
from pathlib import Path

import numpy as np
import pytest

import kpass

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def page(space_app):
    import evaluate

    module = evaluate.load(str(ROOT / "metrics" / "pass_at_k_bayes" / "pass_at_k_bayes.py"))
    controls = space_app.space_controls.module_controls(module)
    values = [space_app.space_controls.control_value(c) for c in controls]
    return space_app, module, controls, values


def boxes(m=24, seed=3, shift=0.0):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.2, 0.9, m)
    a = rng.binomial(1, p[:, None], (m, 4))
    b = rng.binomial(1, np.clip(p - shift, 0, 1)[:, None], (m, 4))
    return a, b, "\n".join(" ".join(map(str, r)) for r in a), \
        "\n".join(" ".join(map(str, r)) for r in b)


@pytest.mark.parametrize("equivalence", [False, True])
def test_compare_tab_margin_equals_kpass_compare_and_says_what_was_shown(page, equivalence):
    app, module, controls, values = page
    a, b, text_a, text_b = boxes()
    message, table, figure = app.run_compare(module, controls, text_a, text_b, "1, 2", *values,
                                             margin=0.15, equivalence=equivalence)
    assert figure is not None
    assert list(table.columns) == ["metric", "k", "A - B", "verdict", "p margin",
                                   "p margin exact", "lo", "hi", "se", "A", "B"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kpass.SmallSampleWarning)
        expected = (kpass.compare(kpass.pass_at_k, a, b, [1, 2], margin=0.15,
                                  equivalence=equivalence)
                    + kpass.compare(kpass.pass_hat_k, a, b, [1, 2], margin=0.15,
                                    equivalence=equivalence))
    for (_, row), c in zip(table.iterrows(), expected, strict=True):
        assert row["p margin"] == pytest.approx(c.p_margin, abs=1e-4)
        assert row["p margin exact"] == pytest.approx(c.p_margin_exact, abs=1e-4)
        assert row["verdict"] == ("shown" if c.p_margin < 0.05 else "not shown")
    shown = sum(c.p_margin < 0.05 for c in expected)
    claim = ("A and B are within +-0.15 of each other" if equivalence
             else "B is not worse than A by more than 0.15")
    test = "two one-sided t tests" if equivalence else "one-sided t test"
    first, second = message.split("\n\n")
    assert first.endswith(f'Margin 0.15 (B the new model): each row tests "{claim}" ({test} at '
                          f"95%, each row tested alone): shown on {shown} of 4 rows.")
    cs = kpass.confidence_sequence(kpass.pass_at_k, a, b, 1, margin=0.15,
                                   equivalence=equivalence)
    assert second == ("Sequential (anytime-valid, 95%, exchangeable null, questions in line "
                      f"order): pass@1 (deciding whether {claim}) {cs.summary()}.")


def test_compare_tab_sequential_null_and_no_margin(page):
    app, module, controls, values = page
    a, b, text_a, text_b = boxes(m=60, seed=4, shift=0.3)
    message, table, _ = app.run_compare(module, controls, text_a, text_b, "1", *values,
                                        sequential_null="bounded")
    assert "p-value" in table.columns and "p margin" not in table.columns
    cs = kpass.confidence_sequence(kpass.pass_at_k, a, b, 1, null="bounded")
    assert message.split("\n\n")[1] == ("Sequential (anytime-valid, 95%, bounded null, "
                                        f"questions in line order): pass@1 {cs.summary()}.")
    # 60 questions: the sign-flip column is left out, as kpass compare leaves out p exact
    _, table, _ = app.run_compare(module, controls, text_a, text_b, "1", *values, margin=0.1)
    assert "p margin" in table.columns and "p margin exact" not in table.columns


@pytest.mark.parametrize("changed, words", [
    ({"margin": 1.5}, "`margin` must be a finite number in (0, 1); got margin=1.5"),
    ({"margin": "two"}, "`margin` must be a number, e.g. 0.02; got 'two'"),
    ({"margin": 0}, "`margin` must be a finite number in (0, 1)"),
    ({"equivalence": True}, "equivalence needs a margin"),
    ({"sequential_null": "symmetric"}, "the sequential null must be exchangeable or bounded"),
])
def test_compare_tab_bad_margins_are_one_line(page, changed, words):
    app, module, controls, values = page
    _, _, text_a, text_b = boxes()
    message, table, figure = app.run_compare(module, controls, text_a, text_b, "1", *values,
                                             **changed)
    assert message.startswith("**Input error:**") and words in message, message
    assert "\n" not in message and table.empty and figure is None


def test_comparison_module_page_margin(space_app):
    import evaluate

    app = space_app
    module = evaluate.load(str(ROOT / "comparisons" / "kpass_compare"), keep_in_memory=True)
    a, b, text_a, text_b = boxes(m=40, seed=6)
    note, table, figure = app.run_comparison_module(module, text_a, text_b, "1, 2", "pass@k",
                                                     0.9, 0.2, True)
    expected = kpass.compare(kpass.pass_at_k, a, b, [1, 2], confidence=0.9, margin=0.2,
                             equivalence=True)
    assert list(table["verdict"]) == ["shown" if c.p_margin < 0.1 else "not shown"
                                      for c in expected]
    assert list(table["p margin"]) == pytest.approx([c.p_margin for c in expected], abs=1e-4)
    assert "p margin exact" not in table.columns  # 40 questions
    assert '"A and B are within +-0.2 of each other" (two one-sided t tests at 90%' in note
    assert figure is not None
    note, table, _ = app.run_comparison_module(module, text_a, text_b, "1", "pass@k", 0.95,
                                               None, True)
    assert note.startswith("**Input error:**") and "equivalence needs a margin" in note
