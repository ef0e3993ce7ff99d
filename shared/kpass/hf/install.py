"""Installing the kpass metric modules where ``evaluate.load("pass_at_k_bayes")`` finds them.

``python -m kpass.hf.install`` (:func:`main`) copies the scripts and cards the
wheel carries into the Hugging Face modules cache; :func:`default_metrics_dir` says where
they are.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

try:
    import evaluate
except ImportError as missing:
    if __name__ != "__main__":
        raise
    # `python -m kpass.hf.install` without the extra: one line on stderr, not a traceback.
    sys.exit(f"python -m kpass.hf.install: needs the evaluate extra ({missing}); install it "
             "with: pip install 'kpass[evaluate]'")

from .vocabulary import (
    COMPARISONS,
    FAMILIES,
)

__all__ = ["default_comparisons_dir", "default_metrics_dir", "install_metric_modules", "main"]


# ----------------------------------------------------------------------------- bare-name loading


def default_metrics_dir() -> Path:
    """Where the metric scripts are: in the package (a wheel), else the source tree's ``metrics/``.

    The wheel carries ``metrics/<name>/<name>.py`` as package data
    ``kpass/metrics/<name>/<name>.py`` (setup.cfg maps the one copy in the
    repository there); a checkout run from source has only the repository's folder.
    """
    packaged = Path(__file__).resolve().parents[1] / "metrics"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[3] / "metrics"


def default_comparisons_dir() -> Path:
    """Where the comparison scripts are: in the package (a wheel), else ``comparisons/``."""
    packaged = Path(__file__).resolve().parents[1] / "comparisons"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[3] / "comparisons"


def install_metric_modules(source: str | os.PathLike[str] | None = None,
                           modules_cache: str | os.PathLike[str] | None = None) -> list[Path]:
    """Copy the metric scripts into evaluate's modules cache, so bare names load offline.

    ``evaluate.load("pass_at_k_bayes")`` looks for ``./pass_at_k_bayes/``, then
    the Hub (``evaluate-metric/pass_at_k_bayes``), then the cached copy
    ``<HF_MODULES_CACHE>/evaluate_modules/metrics/evaluate-metric--<name>/<hash>/<name>.py``.
    This writes that cached copy (the hash is the script's SHA-256, so
    re-installing after an edit adds the newer version, which evaluate prefers).

    Args:
        source: folder holding ``<name>/<name>.py`` (default: :func:`default_metrics_dir`,
            the scripts the wheel carries, or the source tree's ``metrics/``).
        modules_cache: evaluate's modules cache (default: ``HF_MODULES_CACHE``).

    Returns:
        The installed script paths.
    """
    source_dir = Path(source) if source is not None else default_metrics_dir()
    comparisons_dir = source_dir.parent / "comparisons" if source is not None else \
        default_comparisons_dir()
    cache = Path(modules_cache) if modules_cache is not None else Path(
        evaluate.config.HF_MODULES_CACHE)
    root = cache / evaluate.config.MODULE_NAME_FOR_DYNAMIC_MODULES
    metrics_root = root / "metrics"
    metrics_root.mkdir(parents=True, exist_ok=True)
    for package in (cache, root, metrics_root):
        (package / "__init__.py").touch(exist_ok=True)
    installed = []
    for name in sorted(FAMILIES):
        comparison = name in COMPARISONS
        script = (comparisons_dir if comparison else source_dir) / name / f"{name}.py"
        if not script.is_file():
            continue
        digest = hashlib.sha256(script.read_bytes()).hexdigest()
        # evaluate looks a cached comparison up as metrics/evaluate-comparison--<name>
        kind = "comparison" if comparison else "metric"
        folder = metrics_root / f"evaluate-{kind}--{name}"
        target_dir = folder / digest
        target_dir.mkdir(parents=True, exist_ok=True)
        (folder / "__init__.py").touch(exist_ok=True)
        (target_dir / "__init__.py").touch(exist_ok=True)
        target = target_dir / f"{name}.py"
        shutil.copyfile(script, target)
        os.utime(target)  # the newest copy is the one evaluate picks
        installed.append(target)
    if not installed:
        raise FileNotFoundError(f"no metric scripts found under {source_dir}")
    return installed


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m kpass.hf.install``: install the modules for bare-name loading."""
    parser = argparse.ArgumentParser(prog="python -m kpass.hf.install",
                                     description="copy kpass's metric and comparison modules into "
                                     "evaluate's modules cache, so "
                                     "evaluate.load('pass_at_k_bayes') "
                                     "finds them by bare name")
    parser.add_argument("--source", default=None, help="folder with <name>/<name>.py "
                         "(default: the scripts in the installed package)")
    parser.add_argument("--modules-cache", default=None, help="default: $HF_MODULES_CACHE")
    args = parser.parse_args(argv)
    for path in install_metric_modules(args.source, args.modules_cache):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
