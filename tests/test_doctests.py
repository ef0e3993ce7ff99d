"""Every docstring example of the core runs (the seeds' >>> vectors live there)."""

import doctest
import importlib

import pytest

CORE_MODULES = [
    "kpass", "kpass._core.inputs", "kpass._core.counts", "kpass.pass_at_k", "kpass.gpass",
    "kpass.maj", "kpass.auc", "kpass.geom", "kpass.bayes", "kpass.avg", "kpass.max_reward",
    "kpass.data", "kpass.stats.errors", "kpass.stats.comparison", "kpass.stats.planning",
    "kpass.tailpass", "kpass.tailpass_draws", "kpass.tailpass_weights",
    "kpass._core.soft", "kpass._core.canonical", "kpass.io.long", "kpass.registry",
    "kpass.stats.ranking",
]


@pytest.mark.parametrize("name", CORE_MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
