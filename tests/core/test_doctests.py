"""Every docstring example of the core runs (the seeds' >>> vectors live there)."""

import doctest
import importlib

import pytest

CORE_MODULES = [
    "kpass", "kpass._core.counting.inputs", "kpass._core.counting.counts",
    "kpass._core.counting.soft", "kpass._core.counting.canonical",
    "kpass.families.pass_at_k", "kpass.families.gpass", "kpass.families.maj",
    "kpass.families.auc", "kpass.families.geom", "kpass.families.bayes", "kpass.families.avg",
    "kpass.families.max_reward", "kpass.families.tailpass.metric",
    "kpass.families.tailpass.draws", "kpass.families.tailpass.weights",
    "kpass.data", "kpass.stats.errors", "kpass.stats.comparison", "kpass.stats.planning",
    "kpass.stats.ranking", "kpass.io.long.load", "kpass.io.errors", "kpass.registry",
    "kpass.stats.cost", "kpass.report.cost", "kpass.report.from_counts", "kpass.io.frames",
    "kpass.stats.multiplicity", "kpass.stats.strata",
]


@pytest.mark.parametrize("name", CORE_MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
