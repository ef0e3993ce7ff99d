"""The shared Space app without a browser: what it shows equals the module, bad input becomes
a located one-line message, uploads in every layout, every option a control, the limits."""

from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
MODULES = sorted(p.name for p in (REPO / "metrics").iterdir() if (p / f"{p.name}.py").is_file())


app: Any = None
space_controls: Any = None
space_input: Any = None
space_output: Any = None
evaluate: Any = None


@pytest.fixture(scope="module", autouse=True)
def _space_page(space_app):
    """The Space's modules as this file's names, bound when its first test runs (the
    shared loader, tests/conftest.py: gradio is not imported while collecting)."""
    global app, space_controls, space_input, space_output, evaluate
    import evaluate
    app = space_app
    space_controls = app.space_controls
    space_input = app.space_input
    space_output = app.space_output


@pytest.fixture(scope="module")
def modules():
    return {name: evaluate.load(str(REPO / "metrics" / name / f"{name}.py")) for name in MODULES}


def run(module, text, ks="1, 2", upload=None, **changed):
    """The app's compute with every control at its shown default, except ``changed``."""
    controls = space_controls.module_controls(module)
    values = [changed.pop(c.name, space_controls.control_value(c)) for c in controls]
    assert not changed, f"no such control: {changed}"
    return app.run(module, controls, text, upload, ks, *values)


def expected_table(module, short=None, **inputs_and_options):
    table = space_output.results_table(module.compute(**inputs_and_options))
    questions = [space_input.Question(list(row), 1) for row in inputs_and_options["predictions"]]
    space_output.questions_used(table, questions, short)
    return space_output.shown(table)


@pytest.mark.parametrize("name", MODULES)
def test_example_table_equals_module_results(modules, name):
    from kpass.data import tau_bench_outcomes

    module = modules[name]
    kind = space_controls.module_kind(module)
    message, table, figure = run(module, app.example_text(kind), space_controls.EXAMPLE_K)
    assert message.startswith("Computed") and figure is not None
    outcomes = tau_bench_outcomes()
    inputs = {"predictions": outcomes}
    if kind == "answers":
        inputs = {"predictions": [[str(x) for x in row] for row in outcomes],
                  "references": ["1"] * len(outcomes)}
    options = {"k": [1, 2, 3, 4]} if space_controls.uses_k(module) else {}
    expected = expected_table(module, **inputs, **options)
    assert len(table) == len(expected) > 0
    assert table.equals(expected)
    assert "questions" not in table.columns and "over 50 question(s)" in message


@pytest.mark.parametrize("name", MODULES)
@pytest.mark.parametrize("text,ks,needle", [
    ("0 1 x 1\n1 1 0 0", "1", "line 1, column 5"),
    ("", "1", "no input"),
    ("0 1 1 0\n1 1 0 0", "1, 9", "`k`"),
    ("0 1 1 0\n1 1 0 0", "two", "`k`"),
    ('{"outcomes": [1, 0', "1", "not valid JSON"),
    ("[" * 5000 + "]" * 5000, "1", "nested too deeply"),
    ("[[" + "[" * 100_000 + "]" * 100_000 + "]]", "1", "nested too deeply"),
    ('{"predictions": [[1, 0], [1]]}', "1", "line 1: value 1 is a list"),
])
def test_bad_input_gives_a_located_message_not_a_traceback(modules, name, text, ks, needle):
    module = modules[name]
    if not space_controls.uses_k(module) and needle == "`k`":
        # Modules without k (bayes_at_n, avg_at_n_bayes) have no k box.
        message, table, _ = run(module, text, ks)
        assert message.startswith("Computed") and len(table) > 0
        return
    if space_controls.module_kind(module) == "answers" and needle == "line 1, column 5":
        text = "a b | a\nb b"  # answers are any strings: the gold answer is what can be wrong
        needle = "`references` is given for some questions but not on line 2"
    elif space_controls.module_kind(module) == "answers" and text.startswith("0 1 1 0"):
        text = "0 1 1 0 | 1\n1 1 0 0 | 1"
    message, table, figure = run(module, text, ks)
    assert message.startswith("**Input error:**") and needle in message, message
    assert "Traceback" not in message and len(table) == 0 and figure is None


@pytest.mark.parametrize("text,where", [
    ("0 1 1 0\n\n# a comment\n1, 0,  2.0, 1", "text box, line 4, column 8"),
    ("[0, 1]\n[1, 0, 3]", "text box, line 2, column 8"),
    ("0 1 1\n  1 1 -1", "text box, line 2, column 7"),
])
def test_errors_name_the_1_based_line_and_column_of_the_text_box(modules, text, where):
    message, _, _ = run(modules["pass_at_k_bayes"], text, "1")
    assert message.startswith(f"**Input error:** {where}: `predictions` must hold binary"), message
    assert "predictions[" not in message


def test_uploads_in_every_layout_give_the_same_table(modules, tmp_path):
    module = modules["pass_at_k_bayes"]
    files = {
        "wide.csv": "s1,s2,s3\n1,0,1\n0,0,1\n",
        "wide_id.csv": "id,s1,s2,s3\na,1,0,1\nb,0,0,1\n",
        "headerless_id.csv": "a,1,0,1\nb,0,0,1\n",
        "named.csv": 'task,outcomes\n0,"[1, 0, 1]"\n1,0 0 1\n',
        "long.csv": "id,correct\nq1,1\nq2,0\nq1,0\nq2,0\nq1,1\nq2,1\n",
        "outcomes.jsonl": '{"task_id": 0, "outcomes": [1, 0, 1]}\n{"outcomes": [0, 0, 1]}\n',
        "long.jsonl": "\n".join(f'{{"question_id": "{q}", "correct": {c}}}' for q, c in
                                [("x", 1), ("y", 0), ("x", 0), ("y", 0), ("x", 1), ("y", 1)]),
        "bom.csv": "\ufeffcorrect,id\n1,a\n0,a\n1,a\n0,b\n0,b\n1,b\n",
    }
    expected = expected_table(module, predictions=[[1, 0, 1], [0, 0, 1]], k=[1, 2])
    for name, content in files.items():
        path = tmp_path / name
        path.write_text(content, encoding="utf-8")
        message, table, _ = run(module, "ignored", "1, 2", upload=str(path))
        assert f"from the file {name}" in message and "2 question(s)" in message, (name, message)
        assert table.equals(expected), name


def test_upload_errors_name_the_file_line(modules, tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("id,correct\nq1,1\nq2,0\nq1,7\n")
    message, _, _ = run(modules["pass_at_k_bayes"], "", "1", upload=str(path))
    assert "the file long.csv, line 4:" in message and "got 7" in message, message


def test_long_answers_keep_one_gold_per_question(modules, tmp_path):
    module = modules["vote_at_k_bayes"]
    path = tmp_path / "answers.csv"
    path.write_text("id,answers,reference\n1,a,a\n1,b,a\n1,a,a\n2,c,d\n2,d,d\n")
    message, table, _ = run(module, "", "1, 2", upload=str(path))
    expected = expected_table(module, predictions=[["a", "b", "a"], ["c", "d"]],
                              references=["a", "d"], k=[1, 2])
    assert table.equals(expected), message
    path.write_text("id,answers,reference\n1,a,a\n1,b,b\n")
    message, _, _ = run(module, "", "1", upload=str(path))
    assert "line 3" in message and "gold answer" in message


def test_every_option_is_a_control_that_reaches_the_module(modules):
    module = modules["g_pass_at_k_bayes"]
    R = [[1, 0, 1, 1], [0, 0, 1, 0]]
    _, table, _ = run(module, "1 0 1 1\n0 0 1 0", "2", tau="0.5, 1", confidence=0.8,
                      alpha0=2.0, beta0=0.5, bounds="0.1, 0.9")
    expected = expected_table(module, predictions=R, k=2, tau=[0.5, 1.0], confidence=0.8,
                              alpha0=2.0, beta0=0.5, bounds=[0.1, 0.9])
    assert table.equals(expected)
    names = {m: [c.name for c in space_controls.module_controls(modules[m])] for m in MODULES}
    assert names["geo_spectrum_bayes"] == ["confidence", "alpha0", "beta0", "bounds", "short",
                                           "lam", "weights", "pass_power", "unanimous_power"]
    assert names["vote_at_k_bayes"] == ["confidence", "concentration", "ties", "bounds", "short"]
    assert names["bayes_at_n"] == ["w", "confidence", "bounds"]


def test_weights_dict_form_from_the_page(modules):
    module = modules["geo_spectrum_bayes"]
    text = "1 0 1 1\n0 0 1 0\n1 1 1 0"
    R = [[1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 1, 0]]
    weights = {2: [0.0, 1.0], 4: [0.0, 0.0, 0.5, 0.5]}
    _, table, _ = run(module, text, "2, 4", weights="2: 0, 1; 4: 0, 0, 0.5, 0.5", lam="0.5")
    assert table.equals(expected_table(module, predictions=R, k=[2, 4], weights=weights,
                                       lam=0.5))
    message, _, _ = run(module, text, "2", weights="two: 0, 1")
    assert "`weights`: expected 'k: w1, w2, ...'" in message


def test_short_skip_says_how_many_questions_each_k_used(modules):
    message, table, _ = run(modules["pass_at_k_bayes"], "1 0 1 1 0 1 1 1\n1 0\n0 1 1 0",
                            "1, 4, 8", short="skip")
    assert "short = skip" in message
    used = dict(zip(table["k"], table["questions"], strict=False))
    assert used == {"1": "3", "4": "2", "8": "1"}


# Each limit's case (text, ks, needle), from the page's limits (loaded when the test runs).
LIMIT_CASES = {
    "ks": lambda limits: ("0 1\n" * 5, ", ".join(["1"] * (limits.MAX_KS + 1)),
                          f"at most {limits.MAX_KS} values"),
    "k": lambda limits: ("0 1\n" * 5, str(limits.MAX_K + 1), f"at most {limits.MAX_K:,}"),
    "chars": lambda limits: ("0 1 " * (limits.MAX_CHARS // 4 + 1), "1",
                             "characters; this page takes at most"),
    "questions": lambda limits: ("0\n" * (limits.MAX_QUESTIONS + 1), "1",
                                 "questions; this page takes at most"),
    "outcomes": lambda limits: (("0 " * 1000 + "\n") * (limits.MAX_OUTCOMES // 1000 + 1), "1",
                                "outcomes; this page"),
}


@pytest.mark.parametrize("case", LIMIT_CASES)
def test_limits_are_enforced_and_said(modules, case):
    text, ks, needle = LIMIT_CASES[case](space_input)
    message, table, _ = run(modules["pass_at_k_bayes"], text, ks)
    assert needle in message and len(table) == 0, message[:300]
    assert str(space_input.MAX_KS) in app.LIMITS and f"{space_input.MAX_QUESTIONS:,}" in app.LIMITS


def test_categories_are_capped_before_the_module_allocates(modules):
    message, _, _ = run(modules["max_at_k_bayes"], "0 1 100000000", "1")
    assert "line 1, column 5: category 100000000 is above" in message


def test_results_table_groups_keys_by_metric_and_k_with_se():
    table = space_output.results_table({"pass@2": 0.5, "pass@2_se": 0.05, "pass@2_mean": 0.4,
                               "pass@2_sd": 0.1, "pass@2_cred_lo": 0.2, "pass@2_cred_hi": 0.6,
                               "g-pass@3_tau0.5": 0.3, "bayes@n": 0.7,
                               "bayes@n_per_question": [0.7]})
    assert table["metric"].tolist() == ["pass@k", "g-pass@k_tau0.5", "bayes@n"]
    columns = ["k", "estimate", "se", "mean", "sd", "cred_lo", "cred_hi"]
    assert table.iloc[0][columns].tolist() == [2, 0.5, 0.05, 0.4, 0.1, 0.2, 0.6]
    assert "se" in space_output.shown(table).columns
    assert "se" not in space_output.shown(space_output.results_table({"pass@1": 0.5})).columns


@pytest.mark.parametrize("name", MODULES)
def test_formulas_are_short_latex(modules, name):
    text = space_output.formulas(space_controls.module_family(modules[name]))
    assert "$" in text and len(text) < 900


def test_a_slow_computation_is_stopped_at_the_deadline_and_the_page_stays_usable(
        modules, monkeypatch):
    import time

    # A computation that certainly outlasts the deadline, whatever the machine's speed: the
    # module's own computation is replaced by one that sleeps for a minute (the forked child
    # inherits the replacement). Without the deadline the call would take 60 s.
    module = modules["vote_at_k_bayes"]
    compute = module._compute

    def sleeps_past_the_deadline(**kwargs):
        time.sleep(60)
        return compute(**kwargs)

    monkeypatch.setattr(app, "MAX_SECONDS", 0.5)
    monkeypatch.setattr(module, "_compute", sleeps_past_the_deadline)
    start = time.monotonic()
    message, table, _ = run(module, "a b a | a", "1, 2")
    assert time.monotonic() - start < 30
    assert "takes more than 0.5 s, the page's limit" in message and len(table) == 0
    monkeypatch.setattr(module, "_compute", compute)
    message, table, _ = run(module, "a b a | a", "1, 2")
    assert message.startswith("Computed") and len(table) == 2


# ----------------------------------------------------------------------------- compare


def compare(module, text_a, text_b, ks="1, 2", **changed):
    controls = space_controls.module_controls(module)
    values = [changed.pop(c.name, space_controls.control_value(c)) for c in controls]
    return app.run_compare(module, controls, text_a, text_b, ks, *values)


@pytest.mark.parametrize("name", MODULES)
def test_compare_tab_equals_kpass_compare(modules, name):
    import kpass
    from kpass.data import tau_bench_outcomes

    module = modules[name]
    kind = space_controls.module_kind(module)
    message, table, figure = compare(module, *app.example_pair(kind))
    assert message.startswith("Compared") and figure is not None, message
    rows = [list(row) for row in tau_bench_outcomes()]
    A, B = [row[:2] for row in rows], [row[2:] for row in rows]
    expected = []
    for label, function in space_controls.COMPARED[name]:
        function = getattr(kpass, function)
        if kind == "answers":
            found = kpass.compare(function, [[str(x) for x in r] for r in A],
                                  [[str(x) for x in r] for r in B], ["1"] * len(A), [1, 2])
        elif space_controls.uses_k(module):
            found = kpass.compare(function, A, B, [1, 2])
        else:
            found = [kpass.compare(function, A, B)]
        expected += [(label, c) for c in found]
    assert len(table) == len(expected)
    for (_, row), (label, c) in zip(table.iterrows(), expected, strict=True):
        assert row["metric"] == label
        shown = [row[column] for column in ("A", "B", "A - B", "se", "lo", "hi",
                                            "p-value", "P(A better)")]
        assert shown == pytest.approx([c.a, c.b, c.difference, c.se, c.lo, c.hi, c.p_value,
                                       c.prob_a_better], abs=6e-5)
        assert c.questions == 50
    assert "over 50 paired question(s)" in message  # the table shows no constant column


def test_compare_options_reach_the_comparison(modules):
    import kpass

    A = [[1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 1], [0, 1]]
    B = [[1, 0, 0, 0], [0, 0, 0, 0], [1, 1, 0], [1, 1]]
    text = ["\n".join(" ".join(map(str, r)) for r in R) for R in (A, B)]
    _, table, _ = compare(modules["maj_at_k_bayes"], *text, "1, 3", short="skip",
                          confidence=0.8)
    expected = kpass.compare(kpass.maj_at_k, A, B, [1, 3], short="skip", confidence=0.8)
    assert table["lo"].tolist() == pytest.approx([c.lo for c in expected], abs=6e-5)
    assert table["questions"].tolist() == [4, 3]


@pytest.mark.parametrize("text_a,text_b,needle", [
    ("1 0\n0 1", "1 0\n0 2", "model B box, line 2, column 3: `predictions` must hold binary"),
    ("1 0\n0 x", "1 0\n0 1", "model A box, line 2, column 3: `predictions` must hold numbers"),
    ("1 0\n0 1", "1 0", "model A has 2 questions and model B 1"),
    ("1 0\n0 1", "", "no input"),
    ("[" * 5000, "1 0", "nested too deeply"),
])
def test_compare_errors_name_the_model_and_place(modules, text_a, text_b, needle):
    message, table, figure = compare(modules["pass_at_k_bayes"], text_a, text_b, "1")
    assert message.startswith("**Input error:**") and needle in message, message
    assert len(table) == 0 and figure is None


def test_compare_tab_equals_the_comparison_module(modules):
    from kpass.data import tau_bench_outcomes

    comparison = evaluate.load(str(REPO / "comparisons" / "kpass_compare"),
                               module_type="comparison", keep_in_memory=True)
    rows = [list(row) for row in tau_bench_outcomes()]
    A, B = [row[:2] for row in rows], [row[2:] for row in rows]
    _, table, _ = compare(modules["pass_at_k_bayes"], *app.example_pair())
    for metric in ("pass@k", "pass^k"):
        results = comparison.compute(predictions1=A, predictions2=B, metric=metric, k=[1, 2])
        for _, row in table[table["metric"] == metric].iterrows():
            key = metric.replace("k", "") + row["k"]
            assert [row["A - B"], row["se"], row["p-value"], row["P(A better)"]] == \
                pytest.approx([results[f"{key}_difference"], results[f"{key}_se"],
                               results[f"{key}_p_value"], results[f"{key}_prob_a_better"]],
                              abs=6e-5)


def test_tailpass_compare_tab_binarizes_a_rubric_by_positive_and_full_credit(modules):
    import kpass

    A = [[0, 1, 2, 2], [1, 1, 0, 0], [2, 2, 2, 1]]
    B = [[0, 0, 1, 2], [2, 1, 0, 0], [1, 1, 2, 0]]
    text = ["\n".join(" ".join(map(str, row)) for row in rows) for rows in (A, B)]
    message, table, _ = compare(modules["tailpass_bayes"], *text, "2", w="0, 0.5, 1")
    assert message.startswith("Compared"), message
    for label, function, hit in (("tailpass_discovery@k", kpass.pass_at_k, lambda c: c > 0),
                                 ("tailpass_stability@k", kpass.pass_hat_k, lambda c: c == 2)):
        a, b = ([[int(hit(c)) for c in row] for row in rows] for rows in (A, B))
        expected = kpass.compare(function, a, b, [2])[0]
        row = table[table["metric"] == label].iloc[0]
        assert [row["A"], row["B"], row["A - B"]] == pytest.approx(
            [expected.a, expected.b, expected.difference], abs=6e-5)
    message, _, _ = compare(modules["tailpass_bayes"], "0 3 1", "0 1 1", "2", w="0, 0.5, 1")
    assert "model A" in message and "got 3" in message
