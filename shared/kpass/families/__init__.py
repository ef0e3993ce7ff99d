"""The metric families' public functions by name, for the layers above them.

``kpass.stats``, ``kpass.stats.ranking``, the report commands and the ``evaluate`` modules
look a metric up here (``function("pass_at_k")``, its posterior ``function("pass_at_k_ci")``)
instead of importing the whole ``kpass`` package, so no module of the package imports the
package that imports it (issue 19: no import cycles). The family modules themselves import
nothing above ``_core``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .auc import *  # noqa: F403 - each family module's __all__: its public functions
from .avg import *  # noqa: F403
from .bayes import *  # noqa: F403
from .geom import *  # noqa: F403
from .gpass import *  # noqa: F403
from .maj import *  # noqa: F403
from .max_reward import *  # noqa: F403
from .pass_at_k import *  # noqa: F403
from .tailpass.metric import *  # noqa: F403
from .vote import *  # noqa: F403

__all__ = ["function", "functions", "namespace"]

_ALL: dict[str, Callable[..., Any]] = {
    name: value for name, value in dict(globals()).items()
    if not name.startswith("_") and callable(value) and not isinstance(value, type)
    and name not in ("Callable", "Any") and getattr(value, "__module__", "").startswith("kpass.")}


def functions() -> dict[str, Callable[..., Any]]:
    """Every public function of the families (point functions and their ``_ci``), by name."""
    return dict(_ALL)


def function(name: str) -> Callable[..., Any]:
    """The family function called ``name`` (e.g. ``"pass_at_k"``, ``"maj_at_k_ci"``).

    Raises:
        LookupError: no family function has that name.
    """
    try:
        return _ALL[name]
    except KeyError:
        raise LookupError(f"no kpass metric function is called {name!r}") from None


class _Namespace:
    """Attribute access to :func:`function`: ``namespace.pass_at_k``."""

    def __getattr__(self, name: str) -> Callable[..., Any]:
        try:
            return function(name)
        except LookupError as error:
            raise AttributeError(str(error)) from None


namespace = _Namespace()
