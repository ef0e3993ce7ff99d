"""Every relative link of the Markdown docs resolves: the file exists, and a ``#fragment``
names a heading of the page it points to (GitHub's anchor of that heading).

Covers README.md, CHANGELOG.md, docs/ (every sub-folder), the metric cards
(metrics/*/README.md, comparisons/*/README.md), benchmarks/ and spaces/ Markdown. Links inside
fenced or inline code are not links and are skipped; absolute URLs (``https:``, ``mailto:``)
are not fetched (no network here).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SKIP_DIRS = {".venv", "_build", "node_modules", ".git", "kpass.egg-info"}


def markdown_files() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "CHANGELOG.md"]
    for folder in ("docs", "metrics", "comparisons", "benchmarks", "spaces"):
        files += [path for path in sorted((ROOT / folder).rglob("*.md"))
                  if not SKIP_DIRS.intersection(path.relative_to(ROOT).parts)]
    return files


FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
INLINE_CODE = re.compile(r"`[^`\n]*`")
# [text](target) and ![alt](target); the target ends at whitespace or ")" (an optional
# "title" after a space is allowed by Markdown and ignored here).
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
# [label]: target reference definitions
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(\S+)", re.M)
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def prose(text: str) -> str:
    """The text outside fenced and inline code."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def links(text: str) -> list[str]:
    body = prose(text)
    return LINK.findall(body) + REFDEF.findall(body)


def github_anchor(heading: str) -> str:
    """GitHub's id for a heading: markup dropped, lower case, punctuation other than ``-``
    and ``_`` removed, each space a ``-``."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = text.replace("`", "").replace("*", "")
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    body = FENCE.sub("", path.read_text(encoding="utf-8"))
    for heading in HEADING.findall(body):
        anchor = github_anchor(heading)
        n = seen.get(anchor, 0)
        seen[anchor] = n + 1
        found.add(anchor if n == 0 else f"{anchor}-{n}")
    found |= set(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", body))
    return found


def is_external(target: str) -> bool:
    return bool(re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I)) or target.startswith("//")


def broken_links(path: Path) -> list[str]:
    problems = []
    for target in links(path.read_text(encoding="utf-8")):
        if is_external(target):
            continue
        where, _, fragment = target.partition("#")
        dest = (path.parent / where).resolve() if where else path
        rel = path.relative_to(ROOT)
        if not dest.exists():
            problems.append(f"{rel}: {target} (no such file)")
        elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
            problems.append(f"{rel}: {target} (no heading #{fragment} in "
                            f"{dest.relative_to(ROOT)})")
    return problems


def test_the_docs_are_found_in_their_sub_folders():
    names = {path.relative_to(ROOT).as_posix() for path in markdown_files()}
    assert {"docs/README.md", "docs/tutorial.md", "docs/reference/command-line.md",
            "docs/how-to/harnesses.md", "docs/explanation/statistics.md",
            "metrics/pass_at_k_bayes/README.md"} <= names


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(path):
    assert broken_links(path) == []


def test_the_checker_catches_a_missing_page_and_a_missing_heading(tmp_path):
    (tmp_path / "there.md").write_text("# A title, with `code`\n\n## Twice\n\n## Twice\n",
                                       encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("[ok](there.md#a-title-with-code) [second](there.md#twice-1)\n"
                    "[gone](missing.md) [bad anchor](there.md#nope)\n"
                    "`[in code](missing.md)` [web](https://example.org/x.md)\n"
                    "```\n[fenced](missing.md)\n```\n", encoding="utf-8")
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        assert broken_links(page) == ["page.md: missing.md (no such file)",
                                      "page.md: there.md#nope (no heading #nope in there.md)"]
    finally:
        ROOT = saved


def reference_entries() -> set[str]:
    """The names docs/reference/api.md's autosummary lists give the site, fully qualified."""
    text = (ROOT / "docs" / "reference" / "api.md").read_text(encoding="utf-8")
    names: set[str] = set()
    for block in re.findall(r"```\{eval-rst\}\n(.*?)```", text, re.S):
        module = re.search(r"^\.\. automodule:: (\S+)", block, re.M)
        if module:
            current = module.group(1)
            continue
        if ".. autosummary::" in block:
            for line in block.splitlines():
                entry = line.strip()
                if entry and not entry.startswith((":", "..")):
                    names.add(entry if entry.startswith("kpass.") else f"{current}.{entry}")
    return names


def test_the_api_reference_lists_every_public_name():
    import kpass
    import kpass.inspect
    import kpass.lighteval

    public = {f"kpass.{name}" for name in kpass.__all__}
    public |= {f"kpass.inspect.{name}" for name in kpass.inspect.__all__}
    public |= {f"kpass.lighteval.{name}" for name in kpass.lighteval.__all__}
    public.add("kpass.hf.install")
    listed = reference_entries()
    assert public - listed == set(), "add to docs/reference/api.md"
    # and nothing listed that is not public (a renamed or removed name)
    assert {name for name in listed if not name.startswith("kpass.hf.")} - public == set()
