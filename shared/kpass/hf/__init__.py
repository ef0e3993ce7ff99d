"""The Hugging Face layer: the only code that imports ``evaluate``."""

from typing import Any


def __getattr__(name: str) -> Any:
    """``kpass.hf.SequentialMonitor``, imported on first use (it does not load evaluate)."""
    if name == "SequentialMonitor":
        from ..stats.monitor import SequentialMonitor

        return SequentialMonitor
    raise AttributeError(f"module 'kpass.hf' has no attribute {name!r}")
