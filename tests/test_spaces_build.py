"""The Space builder and the shared app, without a browser (see test_spaces_browser.py)."""

import importlib.util
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
MODULES = sorted(p.name for p in (REPO / "metrics").iterdir() if (p / f"{p.name}.py").is_file())


def load(name):
    spec = importlib.util.spec_from_file_location(f"kpass_spaces_{name}", REPO / "spaces" /
                                                  f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


build = load("build")
app = load("app")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("spaces")
    return {p.name: p for p in build.build(out=out)}


def test_build_writes_one_space_per_module(built):
    assert len(MODULES) >= 8
    assert sorted(built) == MODULES


@pytest.mark.parametrize("name", MODULES)
def test_space_folder_is_complete(built, name):
    folder = built[name]
    wheel = f"kpass-{metadata.version('kpass')}-py3-none-any.whl"
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["README.md", "app.py", "requirements.txt", f"{name}.py", wheel])
    assert (folder / f"{name}.py").read_bytes() == (REPO / "metrics" / name /
                                                    f"{name}.py").read_bytes()
    assert (folder / "app.py").read_bytes() == (REPO / "spaces" / "app.py").read_bytes()
    with zipfile.ZipFile(folder / wheel) as archive:
        names = archive.namelist()
    assert "kpass/evaluate_module.py" in names
    assert "kpass/data/tau_bench_airline_gpt4o.jsonl" in names


@pytest.mark.parametrize("name", MODULES)
def test_card_front_matter_matches_pinned_gradio(built, name):
    text = (built[name] / "README.md").read_text(encoding="utf-8")
    meta, body = build.split_card(text)
    assert meta["sdk"] == "gradio"
    assert meta["app_file"] == "app.py"
    assert meta["tags"][:2] == ["evaluate", "metric"]
    requirements = (built[name] / "requirements.txt").read_text().splitlines()
    assert f"gradio=={meta['sdk_version']}" in requirements
    assert yaml.safe_load(text.split("---")[1]) == meta
    source_card = REPO / "metrics" / name / "README.md"
    if source_card.is_file():
        assert body.strip() == build.split_card(source_card.read_text(encoding="utf-8"))[1].strip()


@pytest.mark.parametrize("name", MODULES)
def test_requirements_are_pinned_and_ship_the_wheel(built, name):
    lines = (built[name] / "requirements.txt").read_text().splitlines()
    assert lines[0].startswith("./kpass-") and (built[name] / lines[0]).is_file()
    for line in lines[1:]:
        package, version = line.split("==")
        assert version == metadata.version(package)
    pinned = {line.split("==")[0] for line in lines[1:]}
    assert {"gradio", "evaluate", "datasets", "numpy", "scipy", "matplotlib"} <= pinned


def test_front_matter_keeps_card_fields_and_adds_space_fields():
    card = "---\ntitle: Pass@k\ntags:\n- pass@k\n- evaluate\nsdk: streamlit\n---\n# Card\n"
    meta, body = build.split_card(build.space_card(card, "x", "9.9.9"))
    assert meta["title"] == "Pass@k"
    assert meta["tags"] == ["evaluate", "metric", "pass@k"]
    assert (meta["sdk"], meta["sdk_version"], meta["app_file"]) == ("gradio", "9.9.9", "app.py")
    assert body == "# Card\n"


def test_unknown_module_is_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown metric module"):
        build.build(["no_such_metric"], out=tmp_path)


# ----------------------------------------------------------------------------- the app


def shown_defaults(parameters):
    values = []
    for parameter in parameters:
        default = parameter.default
        if parameter.name in app.NUMBERS:
            values.append(default)
        elif isinstance(default, (list, tuple)):
            values.append(", ".join(map(str, default)))
        else:
            values.append("" if default is None else str(default))
    return values


@pytest.fixture(scope="module")
def modules():
    import evaluate

    return {name: evaluate.load(str(REPO / "metrics" / name / f"{name}.py")) for name in MODULES}


@pytest.mark.parametrize("name", MODULES)
def test_app_example_table_equals_module_results(modules, name):
    from kpass.data import tau_bench_outcomes

    module = modules[name]
    parameters = app.module_parameters(module)
    kind = app.module_kind(module)
    message, table, figure = app.run(module, parameters, app.example_text(kind), None,
                                     app.EXAMPLE_K, "", *shown_defaults(parameters))
    assert message.startswith("Computed") and figure is not None
    outcomes = tau_bench_outcomes()
    inputs = {"predictions": outcomes}
    if kind == "answers":
        inputs = {"predictions": [[str(x) for x in row] for row in outcomes],
                  "references": ["1"] * len(outcomes)}
    options = {"k": [1, 2, 3, 4]} if app.uses_k(module) else {}
    expected = app.results_table(module.compute(**inputs, **options))
    assert len(table) == len(expected) > 0
    for column in app.COLUMNS[2:]:
        assert table[column].tolist() == pytest.approx(expected[column].round(4).tolist(),
                                                       abs=1e-12)


@pytest.mark.parametrize("name", MODULES)
@pytest.mark.parametrize("text,ks,needle", [
    ("0 1 x 1\n1 1 0 0", "1", "predictions"),
    ("", "1", "no input"),
    ("0 1 1 0\n1 1 0 0", "1, 9", "`k`"),
    ("0 1 1 0\n1 1 0 0", "two", "`k`"),
    ('{"outcomes": [1, 0', "1", "not valid JSON"),
])
def test_app_bad_input_gives_a_message_not_a_traceback(modules, name, text, ks, needle):
    module = modules[name]
    parameters = app.module_parameters(module)
    if not app.uses_k(module) and needle == "`k`":
        # Modules without k (bayes_at_n, avg_at_n_bayes) ignore the k box entirely.
        message, table, figure = app.run(module, parameters, text, None, ks, "",
                                         *shown_defaults(parameters))
        assert not message.startswith("**Input error:**") and len(table) > 0
        return
    if app.module_kind(module) == "answers":
        if text.startswith("0 1 x"):
            text, needle = "a b c\nb b", "references"  # no gold answers
        elif text.startswith("0 1 1 0"):
            text = "0 1 1 0 | 1\n1 1 0 0 | 1"
    message, table, figure = app.run(module, parameters, text, None, ks, "",
                                     *shown_defaults(parameters))
    assert message.startswith("**Input error:**") and needle in message
    assert "Traceback" not in message and len(table) == 0 and figure is None


def test_app_reads_csv_and_jsonl_uploads(modules, tmp_path):
    module = modules["pass_at_k_bayes"]
    parameters = app.module_parameters(module)
    csv_file = tmp_path / "outcomes.csv"
    csv_file.write_text("s1,s2,s3\n1,0,1\n0,0,1\n")
    jsonl_file = tmp_path / "outcomes.jsonl"
    jsonl_file.write_text('{"task_id": 0, "outcomes": [1, 0, 1]}\n{"outcomes": [0, 0, 1]}\n')
    named_csv = tmp_path / "named.csv"
    named_csv.write_text('task,outcomes\n0,"[1, 0, 1]"\n1,0 0 1\n')
    expected = app.shown(app.results_table(module.compute(predictions=[[1, 0, 1], [0, 0, 1]],
                                                          k=[1, 2])))
    for upload in (csv_file, jsonl_file, named_csv):
        message, table, _ = app.run(module, parameters, "ignored", str(upload), "1, 2", "",
                                    *shown_defaults(parameters))
        assert "uploaded file" in message and "2 question(s)" in message
        assert table.equals(expected)


def test_app_parameters_reach_the_module(modules):
    module = modules["g_pass_at_k_bayes"]
    parameters = app.module_parameters(module)
    values = shown_defaults(parameters)
    values[[p.name for p in parameters].index("tau")] = "0.5, 1"
    values[[p.name for p in parameters].index("confidence")] = 0.8
    _, table, _ = app.run(module, parameters, "1 0 1 1\n0 0 1 0", None, "2", "", *values)
    expected = app.results_table(module.compute(predictions=[[1, 0, 1, 1], [0, 0, 1, 0]], k=2,
                                                tau=[0.5, 1.0], confidence=0.8))
    assert table["metric"].tolist() == expected["metric"].tolist()
    assert table["lower"].tolist() == pytest.approx(expected["lower"].round(4).tolist())


def test_results_table_groups_keys_by_metric_and_k():
    table = app.results_table({"pass@2": 0.5, "pass@2_mu": 0.4, "pass@2_sigma": 0.1,
                               "pass@2_lo": 0.2, "pass@2_hi": 0.6, "g-pass@3_tau0.5": 0.3,
                               "bayes@n": 0.7, "bayes@n_per_question": [0.7]})
    assert table["metric"].tolist() == ["pass@k", "g-pass@k_tau0.5", "bayes@n"]
    assert table.iloc[0].tolist()[1:] == [2, 0.5, 0.4, 0.1, 0.2, 0.6]
