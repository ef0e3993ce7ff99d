r"""Planning an evaluation from scratch: the questions needed, or what they detect, no pilot.

:func:`kpass.plan` without a pilot run calls :func:`plan_from_scratch`, which returns a
:class:`Design`.

The model (a two-model paired design). Question q has a latent difficulty; model A's
success rate on it is p_A = expit(mu_A + spread Z_1) and model B's is
p_B = expit(mu_B + spread (rho Z_1 + sqrt(1 - rho^2) Z_2)), Z_1, Z_2 independent N(0, 1):
logit-normal question rates with sd ``spread`` on the logit scale, the two models' logits
correlated ``rho`` (``correlation``). mu_A is set so that the metric's population value
E[g(p_A)] is ``baseline`` and mu_B so that E[g(p_B)] = baseline + difference, g the
metric's Bernstein polynomial (E[s_q | p_q] = g(p_q) for the per-question estimate s_q on
n samples). The paired per-question difference d_q = s_q(B) - s_q(A) then has mean
``difference`` and variance

    Var(d) = E[s_A^2] + E[s_B^2] - 2 E[g(p_A) g(p_B)] - difference^2,

E[s^2] = E_p[sum_c Binom(n, p)(c) s(n, c)^2] (the two runs' samples independent given the
question), each expectation by Gauss-Hermite quadrature over Z (exact in the binomial
sums). The questions needed are those of the two-sided paired t test :func:`kpass.compare`
runs (noncentral t, :func:`kpass.stats.power._questions`).

Defaults: ``spread`` = 2.0, the maximum-likelihood logit-normal sd of the bundled
tau-bench sample (airline, GPT-4o, 50 tasks x 4 trials: 2.04, rounded;
:func:`logit_normal_spread` fits one to a run of yours); ``correlation`` = 0.5 (an
assumption: no two models' outcomes on one benchmark are bundled; lower is the cautious
side, as it plans more questions).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import gammaln, log_expit

from .._core.counting.checks import ArgumentTypeError, InputError, _show, check_real
from .._core.counting.counts import BinaryCounts
from ..registry import of_function
from .power import _questions, _t_power

#: The default between-question spread: sd of the success rates' logits (tau-bench fit).
DEFAULT_SPREAD = 2.0

#: The default correlation of the two models' question logits (an assumption; see module).
DEFAULT_CORRELATION = 0.5

#: Gauss-Hermite nodes per dimension (the integrands are smooth and bounded).
_NODES = 64

#: The most samples per question a plan from scratch takes (as a pilot's plan).
_MAX_SAMPLES = 10_000


@dataclass(frozen=True)
class Design:
    """A paired evaluation planned from scratch: how many questions, or what they detect.

    Attributes:
        metric: the metric's name (``"pass_at_k"``).
        label: its title at this k (``"Pass@1"``).
        k: the budget.
        baseline: model A's population value of the metric.
        difference: B - A the design detects (given, or the detectable one).
        samples: samples per question and model.
        questions: questions needed (given, or the smallest with the power asked for).
        power: the power asked for.
        achieved: the power at ``questions`` and ``difference`` (>= ``power``).
        confidence: the two-sided test's level is 1 - confidence.
        spread: sd of the question rates' logits.
        correlation: correlation of the two models' question logits.
        sd: sd of a question's paired difference d_q at ``difference``.
        solved: ``"questions"`` (the difference was given) or ``"difference"``.
    """

    metric: str
    label: str
    k: int
    baseline: float
    difference: float
    samples: int
    questions: int
    power: float
    achieved: float
    confidence: float
    spread: float
    correlation: float
    sd: float
    solved: str
    _sd_at: Callable[[float], float] = field(repr=False, compare=False)

    def power_at(self, questions: int, difference: float | None = None) -> float:
        """Power of the paired t test with ``questions`` questions at ``difference``."""
        m = _whole(questions, "questions", 2)
        delta = self.difference if difference is None else self._checked(difference)
        return _t_power(m, abs(delta), self._sd_at(delta), 1.0 - self.confidence)

    def questions_for(self, difference: float) -> int:
        """Questions the paired t test needs to detect ``difference`` with ``power``."""
        delta = self._checked(difference)
        sd = self._sd_at(delta)
        return _questions(abs(delta), sd * sd, self.power, 1.0 - self.confidence)

    def detectable(self, questions: int) -> float:
        """The smallest improvement B - A > 0 that ``questions`` questions detect with ``power``.

        Raises:
            ValueError: not even B at the metric's ceiling is detected with so few.
        """
        m = _whole(questions, "questions", 2)
        alpha = 1.0 - self.confidence
        top = (1.0 - self.baseline) * (1.0 - 1e-6)

        def gap(delta: float) -> float:
            return _t_power(m, delta, self._sd_at(delta), alpha) - self.power

        if gap(top) < 0.0:
            raise InputError(f"`questions`={m} detects no improvement of {self.label} from "
                             f"baseline={self.baseline:g} with power={self.power:g}, not "
                             "even to 1; expected more questions")
        from scipy.optimize import brentq

        return float(brentq(gap, 1e-9, top, xtol=1e-10))

    def curve(self, questions: Sequence[int]) -> list[tuple[int, float]]:
        """(questions, detectable difference) at each number of questions given."""
        return [(int(m), self.detectable(m)) for m in questions]

    def as_dict(self) -> dict[str, Any]:
        """The public fields as a plain dict (JSON-safe)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__
                if not name.startswith("_")}

    def __str__(self) -> str:
        """Two lines: the answer, then what it assumes."""
        target = (f"{self.label} {self.baseline:.3f} vs {self.baseline + self.difference:.3f}, "
                  f"{self.power:.0%} power, {self.confidence:.0%} confidence, paired two-sided "
                  "t test")
        if self.solved == "questions":
            answer = f"Questions needed: {self.questions:,} ({target})"
        else:
            answer = (f"Detectable difference: {self.difference:.3f} with "
                      f"{self.questions:,} questions ({target})")
        return (f"{answer}\nAssumed: {self.samples} samples per question and model, spread "
                f"{self.spread:g} (sd of question logits), correlation {self.correlation:g} "
                f"(the models' question logits); sd of a question's difference {self.sd:.3f}")

    __repr__ = __str__

    def _checked(self, difference: Any) -> float:
        delta = check_real(difference, "difference")
        target = self.baseline + delta
        if delta == 0.0 or not 0.0 < target < 1.0:
            raise InputError(f"`difference` must be non-zero with baseline + difference in "
                             f"(0, 1); got difference={_show(difference)} at "
                             f"baseline={self.baseline:g}")
        return delta


def _whole(value: Any, name: str, low: int, high: float = math.inf) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer, float)):
        raise ArgumentTypeError(f"`{name}` must be a whole number >= {low}; got "
                                f"{name}={_show(value)}")
    number = float(value)
    if not (math.isfinite(number) and number == int(number) and low <= number <= high):
        span = f">= {low}" if high == math.inf else f"in [{low}, {high:g}]"
        raise InputError(f"`{name}` must be a whole number {span}; got {name}={_show(value)}")
    return int(number)


def _binomial(n: int, logits: np.ndarray) -> np.ndarray:
    """Binom(n, expit(logit))(c) for c = 0..n, one row per logit (on the log scale)."""
    c = np.arange(n + 1, dtype=float)
    log_choose = gammaln(n + 1.0) - gammaln(c + 1.0) - gammaln(n - c + 1.0)
    t = logits[:, None]
    return np.exp(log_choose + c * log_expit(t) + (n - c) * log_expit(-t))


class _Population:
    """The metric's moments over logit-normal question rates (see the module)."""

    def __init__(self, metric: Callable[..., Any], k: int, samples: int, args: tuple[Any, ...],
                 kwargs: dict[str, Any], spread: float, correlation: float) -> None:
        def table(n: int) -> np.ndarray:
            counts = BinaryCounts(np.full(n + 1, n), np.arange(n + 1))
            return np.asarray(metric(counts, k, *args, per_question=True, **kwargs),
                              dtype=float)

        self.k, self.n, self.spread = k, samples, spread
        self.credit = table(k)         # s(k, c): g(p) = sum_c Binom(k, p)(c) s(k, c)
        self.squares = table(samples) ** 2
        nodes, weights = np.polynomial.hermite_e.hermegauss(_NODES)
        self.x, self.w = nodes, weights / weights.sum()
        self.rho, self.rest = correlation, math.sqrt(max(1.0 - correlation ** 2, 0.0))

    def g(self, logits: np.ndarray) -> np.ndarray:
        return _binomial(self.k, logits.ravel()).dot(self.credit).reshape(logits.shape)

    def mean(self, mu: float) -> float:
        return float(self.w @ self.g(mu + self.spread * self.x))

    def second(self, mu: float) -> float:
        return float(self.w @ (_binomial(self.n, mu + self.spread * self.x) @ self.squares))

    def cross(self, mu_a: float, mu_b: float) -> float:
        g_a = self.g(mu_a + self.spread * self.x)
        z_b = self.rho * self.x[:, None] + self.rest * self.x[None, :]
        g_b = self.g(mu_b + self.spread * z_b)
        return float(self.w @ (g_a[:, None] * g_b) @ self.w)

    def location(self, value: float, name: str, label: str) -> float:
        """The location mu with E[g(expit(mu + spread Z))] = value."""
        from scipy.optimize import brentq

        low, high = self.mean(-40.0), self.mean(40.0)
        if not low < value < high:
            raise InputError(f"`{name}` must lie strictly between {low:.4g} and {high:.4g} "
                             f"(the values {label} takes); got {name}={value:g}")
        return float(brentq(lambda mu: self.mean(mu) - value, -40.0, 40.0, xtol=1e-12))


def plan_from_scratch(metric: Callable[..., Any], name: str, k: Any, args: tuple[Any, ...],
                      kwargs: dict[str, Any], *, baseline: Any, difference: Any,
                      samples: Any, questions: Any, spread: Any, correlation: Any,
                      power: Any, confidence: Any) -> Design:
    """The :class:`Design` of :func:`kpass.plan` without a pilot (its arguments checked here)."""
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1:
        raise ArgumentTypeError(f"`k` must be one int >= 1 for planning; got k={_show(k)}")
    k = int(k)
    if baseline is None or samples is None:
        raise InputError("a plan without a pilot needs `baseline` (model A's value of the "
                         "metric) and `samples` (per question); got "
                         f"baseline={_show(baseline)}, samples={_show(samples)}")
    if (difference is None) == (questions is None):
        raise InputError("give one of `difference` (to get the questions needed) and "
                         "`questions` (to get the detectable difference); got "
                         f"difference={_show(difference)}, questions={_show(questions)}")
    base = check_real(baseline, "baseline", low=0.0, high=1.0, low_open=True, high_open=True)
    n = _whole(samples, "samples", k, _MAX_SAMPLES)
    sd_logit = check_real(DEFAULT_SPREAD if spread is None else spread, "spread", low=0.0,
                          high=10.0)
    rho = check_real(DEFAULT_CORRELATION if correlation is None else correlation,
                     "correlation", low=0.0, high=1.0)
    level = check_real(0.8 if power is None else power, "power", low=0.0, high=1.0,
                       low_open=True, high_open=True)
    conf = check_real(0.95 if confidence is None else confidence, "confidence", low=0.0,
                      high=1.0, low_open=True, high_open=True)
    family = of_function(name)
    label = family.title.format(k=k, tau=kwargs.get("tau", args[0] if args else ""))
    population = _Population(metric, k, n, args, kwargs, sd_logit, rho)
    if population.mean(40.0) - population.mean(-40.0) < 1e-9:
        raise InputError(f"{label} does not depend on the success rate at k={k}; there is "
                         "nothing to plan")
    mu_a = population.location(base, "baseline", label)
    second_a = population.second(mu_a)

    def sd_at(delta: float) -> float:
        mu_b = population.location(base + delta, "baseline + difference", label)
        variance = (second_a + population.second(mu_b) - 2.0 * population.cross(mu_a, mu_b)
                    - delta * delta)
        return math.sqrt(max(variance, 1e-300))

    partial = Design(metric=name, label=label, k=k, baseline=base, difference=math.nan,
                     samples=n, questions=0, power=level, achieved=math.nan, confidence=conf,
                     spread=sd_logit, correlation=rho, sd=math.nan, solved="", _sd_at=sd_at)
    if difference is not None:
        delta = partial._checked(difference)
        m = partial.questions_for(delta)
        solved = "questions"
    else:
        m = _whole(questions, "questions", 2)
        delta = partial.detectable(m)
        solved = "difference"
    return Design(metric=name, label=label, k=k, baseline=base, difference=delta, samples=n,
                  questions=m, power=level, achieved=partial.power_at(m, delta),
                  confidence=conf, spread=sd_logit, correlation=rho, sd=sd_at(delta),
                  solved=solved, _sd_at=sd_at)


def logit_normal_spread(counts: BinaryCounts) -> tuple[float, float]:
    """Maximum-likelihood (mu, spread) of logit-normal success rates behind binary counts.

    The marginal likelihood of question q is E_Z[Binom(n_q, expit(mu + spread Z))(c_q)],
    by Gauss-Hermite quadrature; how :data:`DEFAULT_SPREAD` was fitted to the tau-bench
    sample (and how to fit a spread to a run of your own).
    """
    from scipy.optimize import minimize
    from scipy.special import logsumexp

    nodes, weights = np.polynomial.hermite_e.hermegauss(_NODES)
    log_w = np.log(weights / weights.sum())
    n = counts.n_samples.astype(float)[:, None]
    c = counts.n_correct.astype(float)[:, None]

    def loss(theta: np.ndarray) -> float:
        t = theta[0] + math.exp(theta[1]) * nodes[None, :]
        log_lik = c * log_expit(t) + (n - c) * log_expit(-t) + log_w
        return -float(logsumexp(log_lik, axis=1).sum())

    fit = minimize(loss, np.array([0.0, 0.0]), method="Nelder-Mead",
                   options={"xatol": 1e-8, "fatol": 1e-10, "maxiter": 4000})
    return float(fit.x[0]), float(math.exp(fit.x[1]))



def one_model_variances(metric: Callable[..., Any], k: int, args: tuple[Any, ...],
                        kwargs: dict[str, Any], baseline: float, spread: float, label: str
                        ) -> tuple[float, Callable[[int], float]]:
    r"""Between-question variance and within(n) of one model's per-question values, assumed.

    The questions' success rates are logit-normal, p = expit(mu + spread Z), with mu set so
    that E[g(p)] = ``baseline``: between = Var(g(p)) and within(n) = E[sum_c Binom(n, p)(c)
    s(n, c)^2] - E[g(p)^2] (exact binomial sums). The expectations over Z are trapezoid
    sums on [-9, 9] with step h = min(1/2, 1 / (2 spread)): the integrands are analytic in
    a strip |Im z| < pi / spread (expit's poles), so the error is of order
    exp(-2 pi^2 / (spread h)) <= e^-39 (Trefethen & Weideman 2014, SIAM Review), where
    64 Gauss-Hermite nodes are off by 1e-3 at spread 4. ``spread`` = inf is the limit:
    every question always or never solved (p in {0, 1}), within(n) = 0 and between =
    (g(1) - g(0))^2 q (1 - q), q the share always solved; as every per-question value
    lies in [0, 1], no population with this ``baseline`` has a larger variance (at most
    baseline (1 - baseline)).
    """
    from scipy.optimize import brentq

    def table(n: int) -> np.ndarray:
        counts = BinaryCounts(np.full(n + 1, n), np.arange(n + 1))
        return np.asarray(metric(counts, k, *args, per_question=True, **kwargs), dtype=float)

    credit = table(k)
    g0, g1 = float(credit[0]), float(credit[-1])
    if math.isinf(spread):
        share = (baseline - g0) / (g1 - g0) if g1 != g0 else math.nan
        if not 0.0 < share < 1.0:
            raise InputError(f"`baseline` must lie strictly between {min(g0, g1):.4g} and "
                             f"{max(g0, g1):.4g} (the values {label} takes); got "
                             f"baseline={baseline:g}")
        return (g1 - g0) ** 2 * share * (1.0 - share), lambda n: 0.0
    step = min(0.5, 0.5 / spread) if spread > 0 else 1.0
    x = np.arange(-9.0, 9.0 + step / 2, step) if spread > 0 else np.zeros(1)
    w = np.exp(-0.5 * x * x)
    w /= w.sum()

    def g(logits: np.ndarray) -> np.ndarray:
        return _binomial(k, logits) @ credit

    def mean(mu: float) -> float:
        return float(w @ g(mu + spread * x))

    low, high = mean(-40.0), mean(40.0)
    if not low < baseline < high:
        raise InputError(f"`baseline` must lie strictly between {low:.4g} and {high:.4g} (the "
                         f"values {label} takes); got baseline={baseline:g}")
    mu = float(brentq(lambda m: mean(m) - baseline, -40.0, 40.0, xtol=1e-13))
    logits = mu + spread * x
    values = g(logits)
    between = float(w @ (values - baseline) ** 2)
    second = float(w @ (values * values))

    def within_at(n: int) -> float:
        squares = table(n) ** 2
        return max(float(w @ (_binomial(n, logits) @ squares)) - second, 0.0)

    return between, within_at
