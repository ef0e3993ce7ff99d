"""Publishing the Spaces, offline: dry-run, and a stand-in HfApi that records its calls."""

import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# Every test uses `dist`, which builds two Spaces (a kpass wheel): outside `make check`.
pytestmark = pytest.mark.install


def load(name):
    spec = importlib.util.spec_from_file_location(f"kpass_spaces_{name}", REPO / "spaces" /
                                                  f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


publish = load("publish")


class RecordingApi:
    """Stands in for HfApi: records calls, holds remote files, snapshots each upload."""

    endpoint = "https://huggingface.co"

    def __init__(self, remote=None):
        self.calls = []
        self.remote = remote or {}
        self.uploaded = {}

    def create_repo(self, repo_id, **kwargs):
        self.calls.append(("create_repo", repo_id, kwargs))
        self.remote.setdefault(repo_id, [".gitattributes"])

    def list_repo_files(self, repo_id, **kwargs):
        self.calls.append(("list_repo_files", repo_id, kwargs))
        return list(self.remote[repo_id])

    def upload_folder(self, **kwargs):
        self.calls.append(("upload_folder", kwargs["repo_id"], kwargs))
        folder = Path(kwargs["folder_path"])
        self.uploaded[kwargs["repo_id"]] = {p.name: p.read_bytes() for p in folder.iterdir()}


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    publish.builder.build(["pass_at_k_bayes", "maj_at_k_bayes"], out=out)
    return out


def test_dry_run_prints_the_plan_and_calls_nothing(dist, capsys):
    api = RecordingApi()
    plan = publish.publish("my-org", dist=dist, api=api, dry_run=True, build_first=False)
    assert api.calls == []
    assert [entry["repo_id"] for entry in plan] == ["my-org/maj_at_k_bayes",
                                                   "my-org/pass_at_k_bayes"]
    printed = capsys.readouterr().out
    assert "[dry-run] Space my-org/pass_at_k_bayes" in printed
    assert "pass_at_k_bayes.py" in printed and "requirements.txt" in printed


def test_dry_run_from_the_command_line_needs_no_network(dist, capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert publish.main(["--org", "my-org", "--dry-run", "--no-build", "--dist", str(dist),
                         "pass_at_k_bayes"]) == 0
    assert "my-org/pass_at_k_bayes" in capsys.readouterr().out


def test_publish_creates_uploads_and_removes_stale_files(dist):
    api = RecordingApi(remote={"my-org/pass_at_k_bayes": [
        ".gitattributes", "README.md", "app.py", "old_helper.py", "kpass-0.0.9-py3-none-any.whl"]})
    plan = publish.publish("my-org", ["pass_at_k_bayes"], dist=dist, api=api, build_first=False)
    names = [call[0] for call in api.calls]
    assert names == ["create_repo", "list_repo_files", "upload_folder"]
    create = api.calls[0]
    assert create[1] == "my-org/pass_at_k_bayes"
    assert create[2]["repo_type"] == "space" and create[2]["space_sdk"] == "gradio"
    assert create[2]["exist_ok"] is True
    upload = api.calls[2][2]
    assert upload["repo_type"] == "space"
    assert sorted(upload["delete_patterns"]) == ["kpass-0.0.9-py3-none-any.whl", "old_helper.py"]
    assert plan[0]["delete"] == ["old_helper.py", "kpass-0.0.9-py3-none-any.whl"]
    files = api.uploaded["my-org/pass_at_k_bayes"]
    built = {p.name for p in (dist / "pass_at_k_bayes").iterdir()}
    assert set(files) == built
    requirements = files["requirements.txt"].decode()
    wheel = next(name for name in built if name.endswith(".whl"))
    assert (f"kpass @ https://huggingface.co/spaces/my-org/pass_at_k_bayes/resolve/main/{wheel}"
            in requirements.splitlines())
    assert "./kpass" not in requirements
    # the built folder itself keeps the local wheel path for pip install -r in the folder
    assert f"./{wheel}" in (dist / "pass_at_k_bayes" / "requirements.txt").read_text()


def test_new_space_has_nothing_to_delete(dist):
    api = RecordingApi()
    plan = publish.publish("my-org", dist=dist, api=api, build_first=False)
    assert [entry["delete"] for entry in plan] == [[], []]
    assert all(call[2].get("delete_patterns") is None for call in api.calls
               if call[0] == "upload_folder")


def test_publish_refuses_a_bad_org_and_an_unbuilt_module(dist):
    with pytest.raises(ValueError, match="org"):
        publish.publish("bad org/x", dist=dist, api=RecordingApi(), build_first=False)
    with pytest.raises(FileNotFoundError, match="not built"):
        publish.publish("my-org", ["bayes_at_n"], dist=dist, api=RecordingApi(),
                        build_first=False)
