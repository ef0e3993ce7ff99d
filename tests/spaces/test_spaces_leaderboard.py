"""The Space's Leaderboard tab without a browser (see test_spaces_browser.py for the page).

What it shows equals ``kpass.leaderboard`` on the same outcomes (as the Compare tab is
checked against ``kpass.compare``), the estimates equal exact fractions, questions are
matched by id or by line, bad input is one located line naming the model's box (or file)
and line, the limits and the deadline hold; and the page's figures keep their legend and
labels off the data (issue 21).
"""

import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
MODULES = sorted(p.name for p in (REPO / "metrics").iterdir() if (p / f"{p.name}.py").is_file())


app: Any = None
space_controls: Any = None
space_input: Any = None
tab: Any = None
evaluate: Any = None


@pytest.fixture(scope="module", autouse=True)
def _space_page(space_app):
    """The Space's modules as this file's names, bound when its first test runs (the
    shared loader, tests/conftest.py: gradio is not imported while collecting)."""
    global app, space_controls, space_input, tab, evaluate
    import evaluate
    app = space_app
    space_controls = app.space_controls
    space_input = app.space_input
    tab = app.leaderboard_tab


@pytest.fixture(scope="module")
def modules():
    return {name: evaluate.load(str(REPO / "metrics" / name / f"{name}.py")) for name in MODULES}


def rank(module, boxes, metric=None, k="1", confidence=0.95, uploads=None, **changed):
    """The tab's computation with the Compute tab's controls at their defaults but ``changed``."""
    controls = space_controls.module_controls(module)
    values = [changed.pop(c.name, space_controls.control_value(c)) for c in controls]
    assert not changed, f"no such control: {changed}"
    metric = metric or space_controls.COMPARED[space_controls.module_family(module)][0][0]
    return app.run_leaderboard(module, controls, boxes, uploads, metric, k, confidence, *values)


def outcomes(text, kind="binary"):
    """A box's text read plainly (independently of the page's parser): one question a line."""
    rows = [line.split("|")[0].split() for line in text.splitlines() if line.strip()]
    return rows if kind == "answers" else [[int(x) for x in row] for row in rows]


def rank_set(row):
    return str(row.rank_lo) if row.rank_lo == row.rank_hi else f"{row.rank_lo}-{row.rank_hi}"


def assert_table_equals(table, board):
    level = f"{board.confidence * 100:g}%"
    # The decisive columns first (issue 28: on a phone they show before the table scrolls).
    assert list(table.columns) == ["rank", "model", "rank set", "P(best)", "estimate", "se",
                                   f"{level} interval"]
    assert len(table) == len(board.rows)
    for (_, shown), row in zip(table.iterrows(), board.rows, strict=True):
        lo, hi = (float(x) for x in re.findall(r"-?\d+\.\d+", shown[f"{level} interval"]))
        assert (shown["rank"], shown["model"], shown["rank set"]) == (row.rank, row.name,
                                                                      rank_set(row))
        assert [shown["estimate"], shown["se"], lo, hi, shown["P(best)"]] == pytest.approx(
            [row.estimate, row.se, row.lo, row.hi, row.prob_best], abs=6e-5)


@pytest.mark.parametrize("name", MODULES)
def test_board_equals_kpass_leaderboard_for_every_metric_of_the_module(modules, name):
    import kpass

    module = modules[name]
    kind, family = space_controls.module_kind(module), space_controls.module_family(module)
    boxes = tab.example_models(kind)
    runs = {model: outcomes(text, kind) for model, text in boxes}
    k = [2] if space_controls.uses_k(module) else []
    for label, function in space_controls.COMPARED[family]:
        message, table, figure = rank(module, boxes, label, "2")
        assert message.startswith("Ranked at ") and figure is not None, message
        assert "5 models on 150 question(s)" in message
        given = runs
        if label in space_controls.BINARIZED:
            given = {m: [[int(space_controls.BINARIZED[label](c)) for c in r] for r in R]
                     for m, R in runs.items()}
        references = [["1"] * 150] if kind == "answers" else []
        board = kpass.leaderboard(getattr(kpass, function), given, *references, *k)
        assert_table_equals(table, board)


def test_example_estimates_are_exact_fractions_and_ranks_follow_them(modules):
    boxes = tab.example_models()
    _, table, _ = rank(modules["pass_at_k_bayes"], boxes, "pass@k", "1")
    exact = {model: sum(Fraction(sum(row), len(row)) for row in outcomes(text)) / 150
             for model, text in boxes}
    for _, shown in table.iterrows():
        assert shown["estimate"] == pytest.approx(float(exact[shown["model"]]), abs=5e-5)
        assert shown["rank"] == 1 + sum(value > exact[shown["model"]] for value in exact.values())
    # the seeded example of docs/how-to/leaderboard.md: the same draws, the same board
    assert table["model"].tolist() == ["rl-2k", "rl-1k", "sft", "sft-dpo", "base"]
    assert table["rank set"].tolist() == ["1-2", "1-2", "3-4", "3-4", "5"]


def test_confidence_and_the_compute_tabs_options_reach_the_leaderboard(modules):
    import kpass

    A = [[1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 1], [0, 1], [1, 1, 1, 0]]
    B = [[1, 0, 0, 0], [0, 0, 0, 0], [1, 1, 0], [1, 1], [0, 0, 1, 1]]
    C = [[1, 1, 1, 1], [0, 1, 1, 0], [1, 0, 1], [0, 0], [1, 1, 1, 1]]
    boxes = [(name, "\n".join(" ".join(map(str, row)) for row in R))
             for name, R in (("a", A), ("b", B), ("c", C))]
    message, table, _ = rank(modules["maj_at_k_bayes"], boxes, "maj@k", "3", confidence=0.8,
                             short="skip")
    board = kpass.leaderboard(kpass.maj_at_k, {"a": A, "b": B, "c": C}, 3, short="skip",
                              confidence=0.8)
    assert "on 4 question(s)" in message and "80% intervals" in message, message
    assert_table_equals(table, board)


def test_questions_are_matched_by_id_whatever_their_order(modules, tmp_path):
    import kpass

    R = {"a": {"q1": [1, 0], "q2": [0, 0], "q3": [1, 1]},
         "b": {"q1": [0, 0], "q2": [1, 0], "q3": [1, 1]},
         "c": {"q1": [1, 1], "q2": [1, 1], "q3": [0, 1]}}
    jsonl = '{{"id": "{}", "correct": {}}}'
    box_a = "\n".join(jsonl.format(q, v) for q, v in R["a"].items())
    box_b = "\n".join(jsonl.format(q, R["b"][q]) for q in ("q3", "q1", "q2"))
    upload = tmp_path / "c.csv"  # long format, one sample a row, in yet another order
    upload.write_text("id,correct\n" + "".join(f"{q},{x}\n" for q in ("q2", "q3", "q1")
                                               for x in R["c"][q]))
    message, table, _ = rank(modules["pass_at_k_bayes"], [("a", box_a), ("b", box_b)],
                             "pass@k", "1", uploads=[str(upload)])
    assert "matched by id" in message, message
    board = kpass.leaderboard(kpass.pass_at_k, {m: list(v.values()) for m, v in R.items()}, 1)
    assert_table_equals(table, board)


@pytest.mark.parametrize("boxes,k,needle", [
    ([("a", "1 0\n0 1"), ("b", "1 0\n0 x")], "1",
     "box 2 (model 'b'), line 2, column 3: `predictions` must hold numbers"),
    ([("a", "1 0\n0 1"), ("b", "1 0\n0 2")], "1",
     "box 2 (model 'b'), line 2, column 3: `predictions` must hold binary"),
    ([("a", "1 0\n0 1"), ("", ""), ("", "1 0\n1 y")], "1",
     "box 3 (model 'model 3'), line 2, column 3"),
    ([("a", "1 0\n0 1"), ("b", "1 0")], "1", "box 1 (model 'a') has 2 questions and box 2 "
                                              "(model 'b') 1"),
    ([("a", "1 0\n0 1"), ("a", "1 1\n0 1")], "1", "two models are named 'a'"),
    ([("a", "1 0\n0 1"), ("b", "")], "1", "at least 2 models; got 1"),
    ([("a", "1 0\n0 1"), ("b", "1 1\n0 1")], "1, 2", "one k at a time; got 2 values"),
    ([("a", "1 0\n0 1"), ("b", "1 1\n0 1")], "3", "box 1 (model 'a'): `k` must be an int"),
    ([("a", '{"id": "q1", "correct": [1, 0]}\n{"id": "q2", "correct": [0, 1]}'),
      ("b", '{"id": "q1", "correct": [1, 1]}\n{"id": "q9", "correct": [1, 0]}')], "1",
     "box 2 (model 'b') has no question 'q2' (box 1 (model 'a'), line 2)"),
    ([("a", "1 0\n0 1"), ("b", "[" * 5000)], "1", "nested too deeply"),
])
def test_bad_input_names_the_model_box_and_line(modules, boxes, k, needle):
    message, table, figure = rank(modules["pass_at_k_bayes"], boxes, "pass@k", k)
    assert message.startswith("**Input error:** ") and needle in message, message
    assert "\n" not in message and "Traceback" not in message
    assert len(table) == 0 and figure is None


def test_bad_uploads_name_the_file_and_line(modules, tmp_path):
    bad = tmp_path / "rl-2k.csv"
    bad.write_text("id,correct\nq1,1\nq1,7\nq2,0\nq2,1\n")
    # The box names its questions as the file does (ids on some models only are refused).
    box = '{"id": "q1", "outcomes": [1, 0]}\n{"id": "q2", "outcomes": [0, 1]}'
    message, table, _ = rank(modules["pass_at_k_bayes"], [("a", box)], "pass@k", "1",
                             uploads=[str(bad)])
    assert message.startswith("**Input error:** the file rl-2k.csv, line 3: "), message
    assert "must hold binary" in message and len(table) == 0


def test_answers_take_the_first_models_gold_and_refuse_another(modules):
    module = modules["vote_at_k_bayes"]
    message, table, _ = rank(module, [("a", "a b a | a\nb b c | c"), ("b", "b b a\nc c c")],
                             "vote@k", "1")
    assert message.startswith("Ranked at "), message
    message, _, _ = rank(module, [("a", "a b a | a\nb b c | c"), ("b", "b b a | a\nc c c | b")],
                         "vote@k", "1")
    assert "box 2 (model 'b'), line 2: gold answer 'b', but 'c'" in message, message
    message, _, _ = rank(module, [("a", "a b a\nb b c"), ("b", "b b a | a\nc c c | c")],
                         "vote@k", "1")
    assert "gold answer after '|' on the lines of box 1 (model 'a')" in message, message
    message, _, _ = rank(module, [("a", "a b a | a\nb b c | c"), ("b", "b b a | a\nc c c")],
                         "vote@k", "1")
    assert message.startswith("**Input error:** box 2 (model 'b'): `references` is given for "
                               "some questions but not on line 2"), message


def test_limits_are_enforced_and_said(modules):
    boxes = [(f"m{i}", "1 0\n0 1") for i in range(tab.MAX_MODELS + 1)]
    message, table, _ = rank(modules["pass_at_k_bayes"], boxes)
    assert f"13 models; this tab ranks at most {tab.MAX_MODELS}" in message, message
    big = ("0 " * 1000 + "\n") * (space_input.MAX_OUTCOMES // 2000 + 1)
    message, _, _ = rank(modules["pass_at_k_bayes"], [("a", big), ("b", big), ("c", big)])
    assert "outcomes in all; this tab takes at most" in message, message[:200]
    assert f"at most {tab.MAX_MODELS} models" in tab.limits(app)


def test_a_slow_leaderboard_is_stopped_at_the_deadline(modules, monkeypatch):
    import time

    import kpass

    def sleeps(*args, **kwargs):
        time.sleep(60)

    monkeypatch.setattr(app, "MAX_SECONDS", 0.5)
    monkeypatch.setattr(kpass, "leaderboard", sleeps)
    start = time.monotonic()
    message, table, _ = rank(modules["pass_at_k_bayes"], tab.example_models())
    assert time.monotonic() - start < 30
    assert "takes more than 0.5 s, the page's limit" in message and len(table) == 0


# ----------------------------------------------------------------------------- figures


def extents(figure):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(figure).draw()
    return figure.canvas.get_renderer()


def overlaps(a, b):
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def assert_clear(figure):
    """The legend is off the axes, and every text of the figure lies inside it."""
    renderer = extents(figure)
    whole = figure.bbox
    for axes in figure.axes:
        legend = axes.get_legend()
        if legend is not None:
            assert not overlaps(legend.get_window_extent(renderer),
                                axes.get_window_extent(renderer)), "the legend covers the data"
        texts = [axes.xaxis.label, axes.yaxis.label, *axes.texts]
        for axis, (lo, hi) in ((axes.xaxis, axes.get_xlim()), (axes.yaxis, axes.get_ylim())):
            texts += [label for label, at in zip(axis.get_ticklabels(),
                                                 axis.get_majorticklocs(), strict=True)
                      if min(lo, hi) <= at <= max(lo, hi)]  # the ticks drawn
        for text in texts:
            if text.get_text() and text.get_visible():
                box = text.get_window_extent(renderer)
                assert box.x0 >= whole.x0 - 1 and box.x1 <= whole.x1 + 1, text.get_text()
                assert box.y0 >= whole.y0 - 1 and box.y1 <= whole.y1 + 1, text.get_text()


@pytest.mark.parametrize("name", ["pass_at_k_bayes", "g_pass_at_k_bayes", "tailpass_bayes"])
def test_plots_keep_their_legend_off_the_bands(modules, name):
    module = modules[name]
    controls = space_controls.module_controls(module)
    values = [space_controls.control_value(c) for c in controls]
    kind = space_controls.module_kind(module)
    _, _, figure = app.run(module, controls, app.example_text(kind), None, "1, 2, 3, 4",
                           *values)
    assert_clear(figure)
    _, _, figure = app.run_compare(module, controls, *app.example_pair(kind), "1, 2", *values)
    assert_clear(figure)


def test_forest_plot_has_every_model_and_its_rank_set_inside_the_figure(modules):
    _, table, figure = rank(modules["pass_at_k_bayes"], tab.example_models())
    assert_clear(figure)
    axes = figure.axes[0]
    assert [t.get_text() for t in axes.get_yticklabels()] == \
        [f"{r}. {m}" for r, m in zip(table["rank"], table["model"], strict=True)]
    assert [t.get_text() for t in axes.texts] == \
        [f"rank {s}" if "-" not in s else f"ranks {s}" for s in table["rank set"]]


# ----------------------------------------------------------------------------- the page


def test_every_message_says_when_it_was_computed(modules):
    module = modules["pass_at_k_bayes"]
    controls = space_controls.module_controls(module)
    values = [space_controls.control_value(c) for c in controls]
    clock = r"at \d\d:\d\d:\d\d UTC: "
    message, _, _ = app.run(module, controls, "1 0\n0 1", None, "1", *values)
    assert re.match("Computed " + clock, message), message
    message, _, _ = app.run_compare(module, controls, "1 0\n0 1", "1 1\n0 1", "1", *values)
    assert re.match("Compared " + clock, message), message
    message, _, _ = rank(module, [("a", "1 0\n0 1"), ("b", "1 1\n0 1")])
    assert re.match("Ranked " + clock, message), message


def test_results_table_shows_the_questions_column_only_when_it_varies(modules):
    module = modules["tailpass_bayes"]
    controls = space_controls.module_controls(module)
    values = [space_controls.control_value(c) for c in controls]
    message, table, _ = app.run(module, controls, app.example_text("categorical"), None,
                                "1, 2", *values)
    assert "questions" not in table.columns and "over 50 question(s)" in message, message
    values = [("skip" if c.name == "short" else space_controls.control_value(c)) for c in controls]
    _, table, _ = app.run(module, controls, "1 0 1\n0 1 1\n0 1", None, "1, 3", *values)
    assert sorted(set(table["questions"])) == ["2", "3"]


def test_compare_table_shows_the_questions_column_only_when_it_varies(modules):
    module = modules["pass_at_k_bayes"]
    controls = space_controls.module_controls(module)
    values = [space_controls.control_value(c) for c in controls]
    message, table, _ = app.run_compare(module, controls, *app.example_pair(), "1, 2", *values)
    assert "questions" not in table.columns and "over 50 paired question(s)" in message
    values = [("skip" if c.name == "short" else space_controls.control_value(c)) for c in controls]
    message, table, _ = app.run_compare(module, controls, "1 0 1\n0 1 1\n0 1",
                                        "1 1 0\n0 0 1\n1 1", "1, 3", *values)
    assert table["questions"].tolist() == [3, 2, 3, 2], message


def test_the_page_has_a_leaderboard_tab_on_metric_spaces_only(modules):
    demo = app.build_demo(module=modules["pass_at_k_bayes"])
    ids = {block.elem_id for block in demo.blocks.values()}
    assert {"kpass-tab-board", "kpass-board-table", "kpass-board-plot", "kpass-board-run",
            f"kpass-board-text-{tab.MAX_MODELS}"} <= ids
    comparison = evaluate.load(str(REPO / "comparisons" / "kpass_compare"),
                               module_type="comparison", keep_in_memory=True)
    ids = {block.elem_id for block in app.build_demo(module=comparison).blocks.values()}
    assert "kpass-tab-board" not in ids


@pytest.mark.parametrize("name", ["pass_at_k_bayes", "g_pass_at_k_bayes"])
def test_compare_plot_has_one_panel_per_metric_with_zero_in_the_middle(modules, name):
    module = modules[name]
    controls = space_controls.module_controls(module)
    values = [space_controls.control_value(c) for c in controls]
    pair = app.example_pair(space_controls.module_kind(module))
    _, table, figure = app.run_compare(module, controls, *pair, "1, 2", *values)
    shown = [axes for axes in figure.axes if axes.get_visible()]
    assert [axes.get_title() for axes in shown] == list(dict.fromkeys(table["metric"]))
    for axes in shown:
        low, high = axes.get_ylim()
        assert low == pytest.approx(-high)  # up favours A, down favours B, equally far
        assert [t.get_text() for t in axes.texts] == ["favours A", "favours B"]
        assert len(axes.collections) == 1  # one band per panel, never one band over another
    assert_clear(figure)
