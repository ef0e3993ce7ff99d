"""Sphinx configuration of kpass's documentation site (``make docs``).

The site is the Markdown pages of docs/ as they are read on GitHub (myst-parser), plus
the API reference generated from the docstrings (autodoc + autosummary, Google style
through napoleon) on ``reference/api.md``. Built with ``-W --keep-going``: a warning fails
the build. Why Sphinx and not MkDocs: docs/reference/api.md says.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "shared"))  # a checkout builds without installing

import kpass  # noqa: E402

project = "kpass"
release = version = kpass.__version__
copyright = "the kpass authors"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
]

# docs/README.md is the index GitHub shows for the folder; it is the site's front page too.
root_doc = "README"
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}  # .rst: autosummary
exclude_patterns = ["_build"]

# MyST: GitHub's heading anchors (links like statistics.md#which-prior), $...$ maths.
myst_heading_anchors = 4
myst_enable_extensions = ["dollarmath"]

autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "description"
autodoc_typehints_format = "short"
# Optional harness libraries (extras) are stand-ins while the reference is built, so it
# builds with the docs extra alone.
autodoc_mock_imports = ["inspect_ai", "lighteval"]
napoleon_google_docstring = True
napoleon_numpy_docstring = False

html_theme = "furo"
html_title = f"kpass {release}"

# The pages under each heading of the site's navigation, in this order (docs/README.md
# stays plain Markdown for GitHub: the table of contents is added here, hidden).
TOC = """

```{toctree}
:hidden:
:caption: Tutorial

tutorial
```

```{toctree}
:hidden:
:caption: How-to guides
:glob:

how-to/*
```

```{toctree}
:hidden:
:caption: Reference
:glob:

reference/*
```

```{toctree}
:hidden:
:caption: Explanation
:glob:

explanation/*
```

```{toctree}
:hidden:
:caption: Contributing

development
```
"""


# [text](../CHANGELOG.md): a relative link out of docs/ (README, CHANGELOG, benchmarks, the
# metric cards) names a file of the repository, not a page of the site: on the site it is
# the file itself, copied beside the pages (MyST's ``path:`` link, a download).
OUTSIDE = re.compile(r"(\]\()((?:\.\./)+[^)#\s]+)\)")


def _outside_links(docname: str, text: str) -> str:
    folder = (HERE / docname).parent

    def link(match: re.Match[str]) -> str:
        target = (folder / match.group(2)).resolve()
        if HERE in target.parents:
            return match.group(0)
        return f"{match.group(1)}path:{match.group(2)})"

    return OUTSIDE.sub(link, text)


def _add_toc(app, docname, source):
    """Append the hidden table of contents to the front page as Sphinx reads it.

    Links out of docs/ become links to the files (``_outside_links``).
    """
    source[0] = _outside_links(docname, source[0])
    if docname == root_doc:
        source[0] += TOC


CODE_SPAN = re.compile(r"(``.*?``|`[^`]*`)")
EMAIL_AT = re.compile(r"(?<=\w)@(?=\w)")


def _prose(line: str) -> str:
    """Escape what docutils would misread in prose (outside code).

    ``@`` between word characters (docutils would make Pass@k_q a mailto: link) and ``|``
    (``|T|`` is an absolute value, not a substitution).
    """
    parts = CODE_SPAN.split(line)
    return "".join(part if index % 2 else EMAIL_AT.sub(r"\\@", part).replace("|", "\\|")
                   for index, part in enumerate(parts))


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


MARKUP = re.compile(r"``|:\w+:`")


def _formula_end(lines: list[str], start: int) -> int:
    """The index after the block indented under ``lines[start]``."""
    end = start + 1
    while end < len(lines) and (not lines[end].strip()
                                or _indent(lines[end]) > _indent(lines[start])):
        end += 1
    return end


def _docstring_as_written(app, what, name, obj, options, lines):
    """Read kpass's docstrings as they are written in plain text.

    A ``Formula:`` section (plain-text maths, not a Google section napoleon knows) is shown
    as a text block, aligned as written, unless it uses reST markup (``:func:`` roles,
    literals), which stays markup; ``Pass@k`` in prose stays text.
    """
    out: list[str] = []
    literal_at = None  # the indent a literal block must exceed
    doctest = False
    index = 0
    while index < len(lines):
        line = lines[index]
        if literal_at is not None and line.strip() and _indent(line) <= literal_at:
            literal_at = None
        doctest = line.lstrip().startswith(">>>") or (doctest and bool(line.strip()))
        if line.strip() == "Formula:" and literal_at is None:
            end = _formula_end(lines, index)
            if not any(MARKUP.search(body) for body in lines[index + 1:end]):
                pad = line[:_indent(line)]
                out += [f"{pad}**Formula**:", "", f"{pad}.. code-block:: text", ""]
                out += lines[index + 1:end]
                index = end
                continue
        if literal_at is None and not doctest:
            if line.rstrip().endswith("::"):
                literal_at = _indent(line)
            line = _prose(line)
        out.append(line)
        index += 1
    lines[:] = out


def setup(app):
    """Sphinx's hook for a project's own configuration code."""
    app.connect("source-read", _add_toc)
    app.connect("autodoc-process-docstring", _docstring_as_written)
