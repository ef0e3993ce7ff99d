"""The numbers' path through ``_core`` goes down (issue 31): the core's modules in one order,
bottom first, and each imports only modules before it. A Pass@k posterior is then one
descent, driver -> credits -> concentrated -> kernels -> tails/hypergeom, with no module
visited on the way down after a module below it; a new import that points up fails here
and names the pair."""

import functools
import importlib.util
from pathlib import Path

import pytest

_SPEC = importlib.util.spec_from_file_location(
    "kpass_architecture", Path(__file__).with_name("test_architecture.py"))
assert _SPEC is not None and _SPEC.loader is not None
_ARCHITECTURE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_ARCHITECTURE)
graph = _ARCHITECTURE.graph  # the import graph, built from the source with ast

#: Every module of ``_core``, bottom first (group by group, as docs/development.md lists them).
ORDER = [
    "counting.checks", "counting.rowcount", "counting.canonical", "counting.counts",
    "counting.inputs", "counting.states", "counting.soft",
    "moments.hypergeom", "moments.tails", "moments.kernels", "moments.concentrated",
    "moments.credits", "moments.prior", "moments.driver", "moments.geom_blend",
    "dirichlet.rewards", "dirichlet.posterior",
    "vote.kernel", "vote.pairs", "vote.poisson", "vote.posterior",
    "tailpass.exact", "tailpass.checks", "tailpass.moments",
]


@functools.cache
def core_edges() -> dict[str, set[str]]:
    edges = graph()
    prefix = "kpass._core."
    return {name[len(prefix):]: {t[len(prefix):] for t in targets if t.startswith(prefix)}
            for name, targets in edges.items()
            if name.startswith(prefix) and name.count(".") == 3}


def test_the_order_names_every_core_module():
    assert sorted(core_edges()) == sorted(ORDER)


@pytest.mark.parametrize("module", ORDER)
def test_a_core_module_imports_only_modules_below_it(module):
    below = set(ORDER[:ORDER.index(module)])
    above = sorted(core_edges()[module] - below)
    assert not above, f"_core.{module} imports {above}, which the order puts above it"
