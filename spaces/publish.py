"""Create or update one Hugging Face Space per metric module: ``python spaces/publish.py``.

    python spaces/publish.py --org my-org --dry-run     # print the plan, touch nothing
    python spaces/publish.py --org my-org               # build, then publish all
    python spaces/publish.py --org my-org pass_at_k_bayes --token hf_...

For each built folder ``dist/spaces/<name>/`` (the Space name must equal the
script name, so ``evaluate.load("<org>/<name>")`` finds ``<name>.py``):

1. ``create_repo(repo_type="space", space_sdk="gradio", exist_ok=True)``;
2. ``upload_folder`` of the folder, deleting in the same commit the remote files
   the build no longer produces (``.gitattributes`` is kept);
3. in the uploaded ``requirements.txt`` the bundled wheel is referenced by its
   URL on the Space itself: the Hub installs ``requirements.txt`` before it
   copies the repository's other files, so the local path ``./kpass-*.whl``
   (which works for ``pip install -r`` in the folder) does not exist there yet.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from huggingface_hub import HfApi, hf_hub_url


def _load_builder() -> Any:
    """``build.py`` beside this file, loaded by path: ``spaces/`` is a folder of scripts, not
    a package (``spaces`` is the name of Hugging Face's ZeroGPU package)."""
    path = Path(__file__).resolve().parent / "build.py"
    spec = importlib.util.spec_from_file_location("kpass_spaces_build", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


builder = _load_builder()

KEEP = {".gitattributes"}
WHEEL_LINE = re.compile(r"^\./(kpass-[^/\s]+\.whl)\s*$", re.MULTILINE)


def built_spaces(dist: Path, names: list[str] | None = None) -> list[Path]:
    """The built Space folders to publish (all of ``dist`` by default)."""
    folders = sorted(p for p in dist.iterdir() if (p / "app.py").is_file()) if dist.is_dir() else []
    if names:
        found = {p.name: p for p in folders}
        missing = [n for n in names if n not in found]
        if missing:
            raise FileNotFoundError(f"not built: {missing} (run python spaces/build.py)")
        folders = [found[n] for n in names]
    if not folders:
        raise FileNotFoundError(f"no built Spaces in {dist} (run python spaces/build.py)")
    return folders


def hub_requirements(text: str, repo_id: str, endpoint: str | None = None) -> str:
    """``requirements.txt`` with the local wheel path replaced by its URL on the Space."""
    def url(match: re.Match[str]) -> str:
        wheel = match[1]
        link = hf_hub_url(repo_id, wheel, repo_type="space", endpoint=endpoint)
        return f"kpass @ {link}"

    return WHEEL_LINE.sub(url, text)


def local_files(folder: Path) -> list[str]:
    """Paths (relative, POSIX) of every file the Space folder holds."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def escape(path: str) -> str:
    """A file name as an fnmatch pattern matching only itself."""
    return re.sub(r"([*?\[])", r"[\1]", path)


def publish(org: str, names: list[str] | None = None, *, dist: Path = builder.DIST,
            api: Any = None, token: str | None = None, dry_run: bool = False,
            private: bool = False, build_first: bool = True,
            say: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """Create or update the Spaces ``<org>/<name>``; return what was (or would be) done.

    Args:
        org: the Hub user or organisation owning the Spaces.
        names: metric modules to publish (default: all built).
        dist: folder of built Spaces.
        api: an ``HfApi`` (or a stand-in recording calls); default ``HfApi(token=token)``.
        token: Hub token (default: the logged-in one, or ``HF_TOKEN``).
        dry_run: print the plan and call nothing.
        private: create new Spaces as private (their wheel URL then needs a token to
            install, so prefer public Spaces).
        build_first: rebuild the folders before publishing.
        say: where the plan is printed.

    Returns:
        One dict per Space: ``repo_id``, ``upload`` (files), ``delete`` (remote files removed).
    """
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", org or ""):
        raise ValueError(f"`org` must be a Hub user or organisation name; got org={org!r}")
    if build_first:
        builder.build(names or None, out=dist)
    folders = built_spaces(dist, names)
    if api is None and not dry_run:
        api = HfApi(token=token)
    endpoint = getattr(api, "endpoint", None)
    plan = []
    for folder in folders:
        repo_id = f"{org}/{folder.name}"
        upload = local_files(folder)
        entry = {"repo_id": repo_id, "folder": str(folder), "upload": upload, "delete": []}
        plan.append(entry)
        say(f"{'[dry-run] ' if dry_run else ''}Space {repo_id} (sdk gradio) <- {folder}")
        say("  create_repo(repo_type='space', space_sdk='gradio', exist_ok=True)")
        say(f"  upload {len(upload)} file(s): {', '.join(upload)}")
        say("  requirements.txt: ./kpass-*.whl -> its URL on the Space")
        if dry_run:
            say("  delete: remote files not in this list (keeping .gitattributes)")
            continue
        api.create_repo(repo_id, repo_type="space", space_sdk="gradio", exist_ok=True,
                        private=private)
        stale = [f for f in api.list_repo_files(repo_id, repo_type="space")
                 if f not in upload and f not in KEEP]
        entry["delete"] = stale
        say(f"  delete {len(stale)} stale file(s){': ' + ', '.join(stale) if stale else ''}")
        with tempfile.TemporaryDirectory() as scratch:
            staged = Path(scratch) / folder.name
            shutil.copytree(folder, staged)
            requirements = staged / "requirements.txt"
            requirements.write_text(hub_requirements(requirements.read_text(encoding="utf-8"),
                                                     repo_id, endpoint), encoding="utf-8")
            api.upload_folder(repo_id=repo_id, repo_type="space", folder_path=str(staged),
                              commit_message=f"Update {folder.name} Space (kpass)",
                              delete_patterns=[escape(f) for f in stale] or None)
        say(f"  done: https://huggingface.co/spaces/{repo_id}")
    return plan


def main(argv: list[str] | None = None, api: Any = None) -> int:
    """Command line (``api`` lets tests pass a stand-in ``HfApi``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="metric modules (default: all)")
    parser.add_argument("--org", required=True, help="Hub user or organisation")
    parser.add_argument("--dry-run", action="store_true", help="print the plan; call nothing")
    parser.add_argument("--token", default=None, help="Hub token (default: HF_TOKEN / login)")
    parser.add_argument("--private", action="store_true", help="create new Spaces as private")
    parser.add_argument("--no-build", dest="build_first", action="store_false",
                        help="publish dist/spaces as it is")
    parser.add_argument("--dist", type=Path, default=builder.DIST, help="built Spaces folder")
    args = parser.parse_args(argv)
    publish(args.org, args.names or None, dist=args.dist, api=api, token=args.token,
            dry_run=args.dry_run, private=args.private, build_first=args.build_first)
    return 0


if __name__ == "__main__":
    sys.exit(main())
