"""Stable import path of the metric modules' base: ``kpass.evaluate_module``.

The implementation lives in :mod:`kpass.hf.evaluate_module`; metric scripts and
``python -m kpass.evaluate_module install`` keep using this name.
"""

from .hf.evaluate_module import *  # noqa: F403
from .hf.evaluate_module import __all__, main  # noqa: F401

if __name__ == "__main__":
    raise SystemExit(main())
