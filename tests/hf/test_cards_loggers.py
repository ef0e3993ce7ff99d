"""Every metric and comparison card says which key style each logger needs, and its examples
of the safe keys are what ``key_style="safe"`` returns (checked against ``safe_key``), with
MLflow's own name validator as the judge of the MLflow claim."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kpass.hf.keywords import safe_key

ROOT = Path(__file__).resolve().parents[2]
CARDS = sorted(folder / "README.md" for parent in ("metrics", "comparisons")
               for folder in (ROOT / parent).iterdir()
               if (folder / f"{folder.name}.py").is_file())
NEEDS = {"MLflow": 'key_style="safe"', "TensorBoard": 'key_style="safe"', "W&B": "either"}


def paragraph(card: Path) -> str:
    text = card.read_text(encoding="utf-8")
    found = re.search(r"\*\*Keys for loggers\.\*\*(.*?)(?:\n\n|\Z)", text, re.DOTALL)
    assert found, f"{card.relative_to(ROOT)} has no **Keys for loggers.** paragraph"
    return " ".join(found.group(1).split())


def test_every_module_has_a_card():
    assert len(CARDS) == 11


@pytest.mark.parametrize("card", CARDS, ids=[card.parent.name for card in CARDS])
def test_the_card_says_which_key_style_each_logger_needs(card):
    text = paragraph(card)
    for logger, style in NEEDS.items():
        assert f"**{logger}** {style}" in text.replace("`", ""), (logger, text)


@pytest.mark.parametrize("card", CARDS, ids=[card.parent.name for card in CARDS])
def test_the_cards_safe_key_examples_are_what_the_modules_return(card):
    from mlflow.exceptions import MlflowException
    from mlflow.utils.validation import _validate_metric_name

    pairs = re.findall(r"`([^`]+)` -> `([^`]+)`", paragraph(card))
    assert len(pairs) >= 2
    for default, safe in pairs:
        assert safe_key(default) == safe
        _validate_metric_name(safe)  # MLflow takes the safe key
        with pytest.raises(MlflowException):  # and refuses the default one
            _validate_metric_name(default)
