r"""Which questions to run: a random subset with known inclusion probabilities (choose_questions).

A new model's benchmark score can be estimated from m of the benchmark's N questions when
the m are drawn at random with known probabilities (:func:`kpass.subset_estimate`). The
reference runs (past models on every question) say which questions vary: a question every
reference model solves, or none does, tells little about a new model, one the references
split on tells much. Two designs:

* ``"simple"``: a simple random sample of m of the N questions, :math:`\pi_q = m / N`.
* ``"stratified"`` (the default): the questions sorted by the reference models' mean rate
  :math:`\bar p_q` and cut into H strata of (nearly) equal size, H = min(10, m // 5)
  (at least 1); m allocated by Neyman's rule :math:`m_h \propto N_h S_h`, with
  :math:`S_h^2` the mean over the stratum of :math:`\bar p_q (1 - \bar p_q)` (the
  outcome variance of a model drawn from the references, which bounds what a prediction
  leaves), at least 2 per stratum (for its variance) and at most :math:`N_h`; then a simple
  random sample of :math:`m_h` within each, :math:`\pi_q = m_h / N_h`. The strata depend on
  the references only (ties in order of the questions), so a question's stratum and
  probability are the same in every draw.

The draw is reproducible from ``seed`` (numpy's PCG64).

References:
    Neyman (1934), JRSS 97(4); Cochran (1977), Sampling Techniques, 3rd ed., ch. 5.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._core.counting.checks import ArgumentTypeError, InputError, _show, check_int
from ._common import _counts_of
from .align import align_runs, question_ids

#: The designs :func:`choose_questions` draws.
DESIGNS = ("stratified", "simple")


@dataclass(frozen=True)
class Subset:
    """The chosen questions, their inclusion probabilities and strata.

    Attributes:
        ids: the chosen question ids (the references' ids, or row numbers 0..N-1 when the
            references carry none), in draw order.
        inclusion: float array (m,), each chosen question's inclusion probability pi_q.
        stratum: int array (m,), each chosen question's stratum (0 in a simple design).
        population: N, the benchmark's number of questions.
        design: ``"stratified"`` or ``"simple"``.
        seed: the seed of the draw (None when the subset was read from a file).
    """

    ids: tuple[Any, ...]
    inclusion: np.ndarray
    stratum: np.ndarray
    population: int
    design: str
    seed: int | None = None

    def __post_init__(self) -> None:
        inclusion = np.asarray(self.inclusion, dtype=float)
        stratum = np.asarray(self.stratum, dtype=np.int64)
        m = len(self.ids)
        if inclusion.shape != (m,) or stratum.shape != (m,):
            raise InputError(f"a subset needs one inclusion probability and one stratum per "
                             f"question; got {m} ids, {inclusion.size} probabilities and "
                             f"{stratum.size} strata")
        if len(set(self.ids)) != m:
            raise InputError("a subset's question ids must be unique")
        if not np.all((inclusion > 0) & (inclusion <= 1)):
            raise InputError(f"inclusion probabilities must lie in (0, 1]; got "
                             f"{inclusion[~((inclusion > 0) & (inclusion <= 1))][0]!r}")
        for h in np.unique(stratum):
            within = inclusion[stratum == h]
            if not np.allclose(within, within[0], rtol=1e-9):
                raise InputError(f"stratum {int(h)} has different inclusion probabilities; "
                                 "within a stratum the questions are a simple random sample")
        object.__setattr__(self, "inclusion", inclusion)
        object.__setattr__(self, "stratum", stratum)

    @property
    def questions(self) -> int:
        """m, the number of chosen questions."""
        return len(self.ids)


def reference_tables(reference: Any) -> tuple[list[Any], np.ndarray, np.ndarray]:
    """The reference runs aligned by the one id rule: (question ids, n (K, N), c (K, N)).

    Questions without ids are numbered by row (0..N-1).
    """
    if not isinstance(reference, Mapping):
        raise ArgumentTypeError(f"`reference` must map each model's name to its outcomes (a "
                                f"dict, as kpass.leaderboard takes); got reference="
                                f"{_show(reference)} ({type(reference).__name__})")
    if len(reference) < 2:
        raise InputError(f"`reference` must hold at least 2 models; got {len(reference)}")
    alignment = align_runs(list(reference.values()), [repr(name) for name in reference],
                           verb="")
    counts = [_counts_of(R) for R in alignment.runs]
    sizes = {counts_.n_questions for counts_ in counts}
    if len(sizes) != 1:
        raise InputError(f"the `reference` runs must score the same questions; got {sizes}")
    ids = question_ids(counts[0])
    N = counts[0].n_questions
    n = np.array([counts_.n_samples for counts_ in counts], dtype=float)
    c = np.array([counts_.n_correct for counts_ in counts], dtype=float)
    return (list(range(N)) if ids is None else ids), n, c


def _allocate(m: int, sizes: np.ndarray, spread: np.ndarray) -> np.ndarray:
    """Neyman's m_h proportional to N_h S_h, at least min(2, N_h), at most N_h, summing to m."""
    floor = np.minimum(2, sizes)
    share = sizes * np.maximum(spread, 1e-6)
    allocation = floor.copy()
    for _ in range(len(sizes) + 1):
        room = sizes - allocation
        left = m - allocation.sum()
        if left <= 0 or not np.any(room > 0):
            break
        want = np.where(room > 0, share, 0.0)
        exact = left * want / want.sum()
        add = np.minimum(np.floor(exact).astype(np.int64), room)
        if add.sum() == 0:  # hand the remainder out by largest fractional part
            order = np.argsort(-(exact - np.floor(exact)) - (room > 0) * 1e-9)
            for h in order[:left]:
                if room[h] > 0:
                    allocation[h] += 1
            continue
        allocation += add
    return allocation


def choose_questions(reference: Mapping[str, Any], m: int, *, seed: int,
                     design: str = "stratified") -> Subset:
    r"""Draw m of the benchmark's questions at random, with known inclusion probabilities.

    See the module docstring for the designs. Run the new model on the returned ids, then
    estimate its full-benchmark score with :func:`kpass.subset_estimate`.

    Args:
        reference: model name -> outcomes on every question of the benchmark (what
            :func:`kpass.leaderboard` takes; ids matched by the one id rule).
        m: how many questions to choose, 2 <= m <= N.
        seed: the seed of the draw (the same seed and references give the same subset).
        design: ``"stratified"`` (the default) or ``"simple"``.

    Returns:
        A :class:`Subset`.

    Raises:
        TypeError: ``reference`` is not a mapping, ``m`` or ``seed`` not an integer.
        ValueError: fewer than 2 reference models, ``m`` outside [2, N] (a stratified design
            needs m >= 4), an unknown ``design``, runs that score different questions.

    Example:
        >>> import kpass
        >>> reference = {"a": kpass.BinaryCounts([1] * 6, [1, 1, 1, 0, 0, 1], ids=list("uvwxyz")),
        ...              "b": kpass.BinaryCounts([1] * 6, [1, 0, 1, 0, 0, 0], ids=list("uvwxyz"))}
        >>> chosen = kpass.choose_questions(reference, 3, seed=1, design="simple")
        >>> len(chosen.ids), chosen.inclusion.tolist()
        (3, [0.5, 0.5, 0.5])
    """
    m, seed = check_int(m, "m"), check_int(seed, "seed")
    if seed < 0:
        raise InputError(f"`seed` must be >= 0 (numpy's generators take no negative seed); "
                         f"got seed={seed}")
    if design not in DESIGNS:
        raise InputError(f"`design` must be one of {', '.join(map(repr, DESIGNS))}; "
                         f"got {design!r}")
    ids, n, c = reference_tables(reference)
    N = len(ids)
    low = 4 if design == "stratified" else 2
    if not low <= m <= N:
        raise InputError(f"`m` must lie in [{low}, {N}] (the benchmark has {N} questions); "
                         f"got {m}")
    rng = np.random.default_rng(int(seed))
    if design == "simple":
        drawn = rng.choice(N, size=int(m), replace=False)
        return Subset(ids=tuple(ids[q] for q in drawn), inclusion=np.full(m, m / N),
                      stratum=np.zeros(m, dtype=np.int64), population=N, design=design,
                      seed=int(seed))
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = np.where(n > 0, c / np.where(n > 0, n, 1), np.nan)
    mean = np.nan_to_num(np.nanmean(np.where(n.sum(axis=0) > 0, rates, 0.5), axis=0), nan=0.5)
    H = max(1, min(10, m // 5))
    order = np.argsort(mean, kind="stable")  # ties by position: the strata do not vary
    strata = np.empty(N, dtype=np.int64)
    strata[order] = np.arange(N) * H // N
    sizes = np.bincount(strata, minlength=H)
    spread = np.sqrt(np.bincount(strata, weights=mean * (1 - mean), minlength=H) / sizes)
    allocation = _allocate(int(m), sizes, spread)
    chosen: list[int] = []
    probabilities: list[float] = []
    labels: list[int] = []
    for h in range(H):
        members = np.flatnonzero(strata == h)
        take = rng.choice(members, size=int(allocation[h]), replace=False)
        chosen.extend(take.tolist())
        probabilities.extend([float(allocation[h] / sizes[h])] * len(take))
        labels.extend([h] * len(take))
    return Subset(ids=tuple(ids[q] for q in chosen), inclusion=np.array(probabilities),
                  stratum=np.array(labels), population=N, design=design, seed=int(seed))
