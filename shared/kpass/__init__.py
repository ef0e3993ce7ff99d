"""kpass: exact, vectorised pass-family metrics with Bayesian credible intervals."""

from ._inputs import (
    ArgumentTypeError,
    BinaryCounts,
    CategoricalCounts,
    binary_counts,
    categorical_counts,
)

__version__ = "0.1.0"

__all__ = [
    "ArgumentTypeError",
    "BinaryCounts",
    "CategoricalCounts",
    "binary_counts",
    "categorical_counts",
]
