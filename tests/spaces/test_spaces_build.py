"""The Space builder and the shared app, without a browser (see test_spaces_browser.py)."""

import importlib.util
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
MODULES = sorted(p.name for p in (REPO / "metrics").iterdir() if (p / f"{p.name}.py").is_file())


def load(name):
    spec = importlib.util.spec_from_file_location(f"kpass_spaces_{name}", REPO / "spaces" /
                                                  f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


build = load("build")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("spaces")
    return {p.name: p for p in build.build(out=out)}


@pytest.mark.install  # `built` builds every Space and a kpass wheel
def test_build_writes_one_space_per_module(built):
    assert len(MODULES) >= 8
    # every metric module, and the comparison module of comparisons/ (its folder is checked
    # in test_spaces_comparison.py)
    assert sorted(built) == sorted(MODULES + ["kpass_compare"])


# The page: app.py and the modules it loads beside itself.
PAGES = ("app.py", "leaderboard_tab.py", "plan_tab.py", "space_input.py", "space_output.py",
         "space_controls.py", "space_failures.py", "space_page.py")


@pytest.mark.install  # `built` builds every Space and a kpass wheel
@pytest.mark.parametrize("name", MODULES)
def test_space_folder_is_complete(built, name):
    folder = built[name]
    wheel = f"kpass-{metadata.version('kpass')}-py3-none-any.whl"
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["README.md", "app.py", *PAGES[1:], "requirements.txt", f"{name}.py", wheel])
    assert (folder / f"{name}.py").read_bytes() == (REPO / "metrics" / name /
                                                    f"{name}.py").read_bytes()
    for page in PAGES:
        assert (folder / page).read_bytes() == (REPO / "spaces" / page).read_bytes()
    with zipfile.ZipFile(folder / wheel) as archive:
        names = archive.namelist()
    assert "kpass/hf/evaluate_module.py" in names
    assert "kpass/data/tau_bench_airline_gpt4o.jsonl" in names


@pytest.mark.install  # `built` builds every Space and a kpass wheel
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


@pytest.mark.install  # `built` builds every Space and a kpass wheel
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


@pytest.mark.install  # `built` builds every Space and a kpass wheel
def test_built_app_loads_its_leaderboard_tab_from_its_own_folder(built):
    """The Space's app.py imports the tab shipped beside it (not the repository's copy), and
    the page it builds has the Leaderboard tab."""
    import evaluate

    folder = built["pass_at_k_bayes"]
    spec = importlib.util.spec_from_file_location("kpass_built_space_app", folder / "app.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    assert Path(module.leaderboard_tab.__file__) == folder / "leaderboard_tab.py"
    assert Path(module.space_input.__file__) == folder / "space_input.py"
    assert module.find_metric_script(folder) == folder / "pass_at_k_bayes.py"
    demo = module.build_demo(module=evaluate.load(str(folder / "pass_at_k_bayes.py")))
    assert "kpass-board-table" in {block.elem_id for block in demo.blocks.values()}
