"""The shared parts of every ``*_ci`` docstring, written once and filled in (as scipy does).

A ``_ci`` function's docstring names its shared arguments and sections with ``%(name)s``
placeholders (``confidence: %(confidence)s``, ``Returns:`` then ``%(returns)s``);
:func:`ci_doc` replaces them when the function is defined, so ``help()``, the doctests and
the API reference read the full text, and a change to a shared part is made here once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

#: Continuation lines of an argument's description are indented by 12 spaces.
_MORE = "\n            "

#: Placeholder -> text, for the Args, Returns and Raises sections of the ``_ci`` functions.
PARTS = {
    "confidence": "credibility level of the interval, in (0, 1).",
    "bounds": "(low, high) clipping bounds of ``cred_lo`` and ``cred_hi``, or None.",
    "alpha0": "Beta prior alpha in [1e-300, 1e300] (the uniform prior's; Beta(1, 1), the"
              + _MORE + "published definition, by default).",
    "beta0": "Beta prior beta in [1e-300, 1e300].",
    "prior": '``"uniform"`` (Beta(``alpha0``, ``beta0``)), ``"empirical"`` (a Beta fitted to'
             + _MORE + "these questions by maximum likelihood; see"
             + _MORE + ":mod:`kpass._core.moments.prior`) or an ``(a, b)`` pair (Beta(a, b)).",
    "short": '``"error"`` (default) refuses questions with fewer than k samples;'
             + _MORE + '``"skip"`` leaves them out for that k.',
    "returns": ":class:`kpass.Posterior` ``(mean, sd, cred_lo, cred_hi)``, a NamedTuple"
               "\n        equal to the reference library's 4-tuple; a list of them for several k.",
    "returns_one": ":class:`kpass.Posterior` ``(mean, sd, cred_lo, cred_hi)``, a NamedTuple"
                   "\n        equal to the reference library's 4-tuple.",
    "latent": "The target is defined for any k (k may exceed n), so no question is short:"
              "\n        this function takes no ``short=``.",
    "dirichlet": "The posterior is a Dirichlet over the reward categories (the reference"
                 "\n        library's), not a Beta per question, so this function takes no"
                 "\n        ``prior=``.",
    "no_k": "It has no k, so no question is short: it takes no ``short=``.",
}


def ci_doc(function: F) -> F:
    """Fill the ``%(name)s`` placeholders of ``function``'s docstring from :data:`PARTS`."""
    text = function.__doc__ or ""
    for name, part in PARTS.items():
        text = text.replace(f"%({name})s", part)
    if "%(" in text:
        raise LookupError(f"{function.__name__}: unknown docstring placeholder in {text!r}")
    function.__doc__ = text
    return function


__all__ = ["PARTS", "ci_doc"]
