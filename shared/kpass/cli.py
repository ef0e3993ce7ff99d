"""Stable import path of the ``kpass`` command: ``kpass.cli.main`` (see :mod:`kpass.report.cli`)."""

from .report.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    raise SystemExit(main())
