"""The comparison module's Space page: it builds, computes through the module and equals
kpass.compare; bad input is a located message; the builder writes its Space folder."""

from pathlib import Path

import pytest

import kpass
from kpass.data import tau_bench_outcomes

ROOT = Path(__file__).resolve().parents[2]



def test_comparison_page_builds_and_equals_kpass_compare(space_app):
    import evaluate

    app = space_app
    module = evaluate.load(str(ROOT / "comparisons" / "kpass_compare"), keep_in_memory=True)
    demo = app.build_comparison_demo(module)
    assert type(demo).__name__ == "Blocks"
    assert type(app.build_demo(module=module)).__name__ == "Blocks"
    text_a, text_b = app.example_pair()
    note, table, figure = app.run_comparison_module(module, text_a, text_b, "1, 2", "maj@k",
                                                     0.9)
    assert figure is not None and "50 paired question" in note
    rows = tau_bench_outcomes()
    a, b = [row[:2] for row in rows], [row[2:] for row in rows]
    for (_, shown), expected in zip(table.iterrows(), kpass.compare(
            kpass.maj_at_k, a, b, [1, 2], confidence=0.9), strict=False):
        assert int(shown["k"]) == expected.k
        assert shown["A - B"] == pytest.approx(expected.difference, abs=1e-4)
        assert shown["se"] == pytest.approx(expected.se, abs=1e-4)
        assert shown["p-value"] == pytest.approx(expected.p_value, abs=1e-4)
    assert len(table) == 2
    note, table, figure = app.run_comparison_module(module, text_a, text_b, "4", "pass@k", 0.95)
    assert note.startswith("**Input error:**") and "k=4" in note and figure is None


def test_bad_input_is_a_located_message(space_app):
    import evaluate

    app = space_app
    module = evaluate.load(str(ROOT / "comparisons" / "kpass_compare"), keep_in_memory=True)
    note, table, figure = app.run_comparison_module(module, "1 0\n1 2", "1 1\n0 0", "1",
                                                     "pass@k", 0.95)
    assert note.startswith("**Input error:**") and "model A box, line 2" in note
    assert figure is None and table.empty


def test_builder_writes_the_comparison_space(tmp_path, space_build):
    build = space_build
    assert "kpass_compare" in build.module_names()
    wheel = tmp_path / "kpass-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"")
    folder = build.build_space("kpass_compare", wheel, tmp_path / "out")
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["README.md", "app.py", "kpass_compare.py", "leaderboard_tab.py", "plan_tab.py",
         "space_input.py",
         "space_output.py", "space_controls.py", "space_failures.py", "space_page.py",
         "requirements.txt",
         wheel.name])  # its modules beside app.py
    card = (folder / "README.md").read_text()
    assert card.startswith("---") and "app_file: app.py" in card


def test_lines_with_ids_are_matched_by_id_and_the_note_says_how(space_app):
    """Box B lists the questions in another order: matched by id, as kpass.compare does."""
    import json

    import evaluate

    app = space_app
    module = evaluate.load(str(ROOT / "comparisons" / "kpass_compare"), keep_in_memory=True)
    a = {"q1": [1, 1, 1, 1], "q2": [0, 0, 0, 1], "q3": [1, 1, 0, 0], "q4": [0, 0, 0, 0]}
    b = {"q1": [1, 0, 0, 0], "q2": [0, 0, 0, 0], "q3": [1, 1, 1, 1], "q4": [0, 1, 0, 0]}
    text_a = "\n".join(json.dumps({"id": q, "predictions": v}) for q, v in a.items())
    text_b = "\n".join(json.dumps({"id": q, "predictions": b[q]}) for q in ["q3", "q1", "q4",
                                                                             "q2"])
    note, table, figure = app.run_comparison_module(module, text_a, text_b, "1", "pass@k", 0.95)
    assert "4 paired question(s) (matched by question id)" in note, note
    # Pass@1 per question is c/n: the mean of A - B by hand, question by question
    want = sum(sum(a[q]) / 4 - sum(b[q]) / 4 for q in a) / 4
    assert want == pytest.approx(0.0625)
    assert float(table.iloc[0]["A - B"]) == pytest.approx(want, abs=1e-4)
    # without ids: line order, said so
    plain_a = "\n".join(" ".join(map(str, v)) for v in a.values())
    note, _, _ = app.run_comparison_module(module, plain_a, plain_a, "1", "pass@k", 0.95)
    assert "(in line order)" in note
    # ids on one box only: refused, naming the boxes
    note, table, _ = app.run_comparison_module(module, text_a, plain_a, "1", "pass@k", 0.95)
    assert note.startswith("**Input error:**") and "model B box" in note and table.empty
    # different questions: refused
    other = text_b.replace('"q4"', '"q9"')
    note, table, _ = app.run_comparison_module(module, text_a, other, "1", "pass@k", 0.95)
    assert note.startswith("**Input error:**") and "q4" in note and table.empty
