"""The metric cards (metrics/<name>/README.md), which are also the Spaces' front pages:
the values they quote run, BibTeX entry types match the venue, range and direction are
stated, no link to an unpublished package page, and Maj@k is told apart from the vote."""

import doctest
import os
import re
import sys
import tempfile
from pathlib import Path

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_EVALUATE_OFFLINE"] = "1"
if "evaluate" not in sys.modules:
    os.environ["HF_MODULES_CACHE"] = tempfile.mkdtemp(prefix="kpass-hf-modules-")
pytest.importorskip("evaluate")

METRICS = Path(__file__).resolve().parents[2] / "metrics"
NAMES = sorted(p.name for p in METRICS.iterdir() if (p / f"{p.name}.py").is_file())
# Venues of the papers the cards cite: conference papers are @inproceedings, the rest @misc.
CONFERENCES = ("International Conference on Learning Representations", "Annual Meeting of "
               "the Association for Computational Linguistics", "Neural Information Processing")


def card(name):
    return (METRICS / name / "README.md").read_text(encoding="utf-8")


def section(text, title):
    return text.split(f"### {title}", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]


def entries(text):
    return re.findall(r"^@(\w+)\{([^,]+),\n(.*?)\n\}", text, re.S | re.M)


@pytest.mark.parametrize("name", NAMES)
def test_values_from_popular_papers_run(name, monkeypatch):
    monkeypatch.chdir(METRICS)  # bare names resolve to ./<name>/<name>.py
    blocks = re.findall(r"```python\n(.*?)```", section(card(name), "Values from Popular Papers"),
                        re.S)
    assert blocks, "no runnable values"
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0


def test_pass_card_quotes_the_tau_bench_paper():
    values = section(card("pass_at_k_bayes"), "Values from Popular Papers")
    assert "0.420, 0.273, 0.220, 0.200" in values and "Yao et al. (2024)" in values
    assert "[0.42, 0.273, 0.22, 0.2]" in values


@pytest.mark.parametrize("name", NAMES)
def test_bibtex_entry_types_match_the_venue(name):
    sources = [card(name), (METRICS / name / f"{name}.py").read_text(encoding="utf-8")]
    for text in sources:
        found = entries(text)
        assert found
        for kind, key, body in found:
            conference = any(venue in body for venue in CONFERENCES)
            if conference:
                assert kind == "inproceedings" and "booktitle=" in body, key
            else:
                assert kind == "misc" and re.search(r"eprint=\{\d{4}\.\d{5}\}", body), key
            assert "journal={arXiv" not in body and "journal={International" not in body


@pytest.mark.parametrize("name", NAMES)
def test_range_direction_and_uncertainties_are_stated(name):
    text = " ".join(card(name).split())
    assert "higher is better" in text
    assert ("[min w, max w]" in text) == (name in ("max_at_k_bayes", "bayes_at_n",
                                                    "avg_at_n_bayes"))
    assert "in [0, 1]" in text
    assert "`<key>_sd` is the posterior standard deviation with the questions held" in text
    assert "`<key>_se` is the standard error over questions" in text
    assert 'key_style="safe"' in text


@pytest.mark.parametrize("name", NAMES)
def test_no_link_to_an_unpublished_package_page(name):
    for path in (METRICS / name).glob("*"):
        assert "pypi.org/project/kpass" not in path.read_text(encoding="utf-8"), path
    how = card(name).split("## How to Use", 1)[1]
    assert "clone of" in how and "kpass-0.1.0-py3-none-any.whl" in how


def test_maj_card_tells_the_strict_majority_from_the_plurality_vote():
    text = card("maj_at_k_bayes")
    description = text.split("## Metric Description", 1)[1].split("\n## ", 1)[0]
    description = " ".join(description.split())
    assert "strict majority of k samples is correct" in description
    assert "vote_at_k_bayes" in description
    assert "lighteval" in description
    table = section(text, "Output Values")
    assert "vote_at_k_bayes" in table
