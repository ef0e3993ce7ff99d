"""The metric families, each declared once: what every layer above the core reads.

One :class:`Family` per reported quantity (a point function, or a view of one such as
TailPass's two ends), and one :class:`Module` per ``evaluate`` module. Nothing else in
kpass lists families: ``kpass.stats`` takes its kinds from here (:func:`names`),
``kpass report`` / ``compare`` / ``leaderboard`` their ``--metrics`` table
(:data:`REPORTED`), the ``evaluate`` modules what they compute and compare
(:data:`MODULES`, :func:`compared`), and the Space its controls and comparisons.
``tests/structure/test_registry.py`` derives every consumer's list from this file and checks each
declaration against the functions themselves (an SE kind against the values, a ``_ci``
companion against :mod:`kpass.families`).

This module imports nothing from kpass: it is data, so any layer may read it.

Adding a metric: one :class:`Family` entry here, one family function (and its ``_ci``)
in a family module exported by :mod:`kpass.families`, and its tests; see
``docs/development.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Family", "Module", "FAMILIES", "MODULES", "REPORTED", "KIND_OPTIONS", "PRIMARY",
           "family", "module", "names", "compared", "reported", "constant_at", "of_function"]


@dataclass(frozen=True)
class Family:
    """One metric family as every layer sees it.

    Attributes:
        key: its result key with ``@k`` (or ``@n``) for the budget, unique: ``pass@k``,
            ``g-pass@k_tau``; the ``evaluate`` key is ``key`` with ``{k}`` filled in.
        function: the kpass point function (``kpass.<function>``); its posterior is
            ``kpass.<function>_ci`` where ``interval`` holds.
        module: the ``evaluate`` module that reports it (None: none does).
        data: what it is computed from: ``"binary"`` outcomes, ``"categorical"`` rewards,
            or sampled ``"answers"`` with a reference.
        values: how its standard error over questions is computed. ``"state"``: each
            question's value depends on its (n, c) alone, so the SE is a weighted sum over
            the distinct states (Efron and Tibshirani 1993, eq. 5.3, on grouped data);
            ``"question"``: the CLT SE of the per-question values; ``"dataset"``: a
            dataset-level blend with no per-question value, so a delete-one (or
            delete-cluster) jackknife (Efron and Stein 1981); ``"posterior"``: only a
            posterior quantity (``function`` is the posterior), with no point estimate
            and no SE over questions.
        credit: its per-question value is an unbiased U-statistic of a binary credit,
            E[s_q | p_q] = g(p_q) (a Bernstein polynomial), which :func:`kpass.plan`
            decomposes into between- and within-question variance.
        parameters: positional arguments after k, checked by the point function
            (``("tau",)`` for G-Pass@k_tau: a threshold in [0, 1]).
        per_k: whether it has a budget k (avg@n and bayes@n do not).
        before_k: the positional arguments between the outcomes and k (``("references",)``
            for Vote@k), so that k is positional argument ``len(before_k)`` after the
            outcomes (:attr:`k_position`).
        interval: whether ``kpass.<function>_ci`` exists.
        title: the row label of ``kpass report``, with ``{k}``, ``{tau}`` or ``{n}``.
        report: its name in ``kpass report --metrics`` (None: not offered there).
        aliases: other names ``--metrics`` accepts.
        default: shown by ``kpass report`` when ``--metrics`` is not given.
        constant_at: the k at which it is constant by definition (mG-Pass@1 = 0: its
            thresholds above 1/2 are empty at k = 1); comparing it there tests nothing.
        uncompared_at: the k at which ``kpass compare`` leaves it out beyond
            ``constant_at`` (GeoSpectrum*@1 is 0 for every run: its weights at k = 1 are
            empty), although ``kpass report`` shows it there.
        plotted: drawn by ``kpass report --plot`` and ``compare --plot``.
        comparable: a ``metric=`` value of the ``kpass_compare`` module.
        binarize: for a view of a categorical family, which rewards count as 1
            (``"positive"``: w > 0, ``"full"``: w = 1) before ``function`` is applied.
        moment: for a metric whose population value is a moment of the per-question
            success probability p, which one: ``"p^k"`` (Pass^k = E[p^k]) or
            ``"1-(1-p)^k"`` (Pass@k = 1 - E[(1 - p)^k]); these get the beta-binomial
            interval of :mod:`kpass.stats.beta_binomial`. None for the others.
    """

    key: str
    function: str
    module: str | None
    data: str = "binary"
    values: str = "state"
    credit: bool = False
    parameters: tuple[str, ...] = ()
    per_k: bool = True
    before_k: tuple[str, ...] = ()
    interval: bool = True
    title: str = ""
    report: str | None = None
    aliases: tuple[str, ...] = ()
    default: bool = False
    constant_at: tuple[int, ...] = ()
    uncompared_at: tuple[int, ...] = ()
    plotted: bool = False
    comparable: bool = False
    binarize: str | None = None
    moment: str | None = None

    @property
    def template(self) -> str:
        """The ``evaluate`` result key with ``{k}`` (and ``{tau}``) to fill in."""
        return (self.key.replace("@k", "@{k}").replace("^k", "^{k}")
                .replace("_tau", "_tau{tau}"))

    @property
    def answers(self) -> bool:
        """Whether it needs sampled answers and references (``--answers``)."""
        return self.data == "answers"

    @property
    def k_position(self) -> int | None:
        """Where k stands among the positional arguments after the outcomes (None: no k)."""
        return len(self.before_k) if self.per_k else None

    @property
    def uses_tau(self) -> bool:
        """Whether it takes the G-Pass threshold tau."""
        return "tau" in self.parameters


_PASS = "pass_at_k_bayes"
_G = "g_pass_at_k_bayes"
_GEO = "geo_spectrum_bayes"

#: Every family, in the order reports and tables show them.
FAMILIES: tuple[Family, ...] = (
    Family("pass@k", "pass_at_k", _PASS, credit=True, title="Pass@{k}", report="pass@k",
           aliases=("pass_at_k", "pass"), default=True, plotted=True,
           comparable=True, moment="1-(1-p)^k"),
    Family("pass^k", "pass_hat_k", _PASS, credit=True, title="Pass^{k}", report="pass^k",
           aliases=("pass_hat_k", "pass-hat", "unanimous@k"), default=True, plotted=True,
           comparable=True, moment="p^k"),
    Family("unanimous@k", "unanimous_at_k", None, credit=True, title="Unanimous@{k}"),
    Family("g-pass@k", "g_pass_at_k", _G, credit=True, title="G-Pass@{k}", comparable=True),
    Family("g-pass@k_tau", "g_pass_at_k_tau", _G, credit=True, parameters=("tau",),
           title="G-Pass@{k}_{tau}", report="g-pass@k",
           aliases=("g_pass_at_k_tau", "g-pass", "gpass@k"), default=True, plotted=True,
           comparable=True),
    Family("mg-pass@k", "mg_pass_at_k", _G, credit=True, title="mG-Pass@{k}",
           report="mg-pass@k", aliases=("mg_pass_at_k", "mg-pass", "mgpass@k"), default=True,
           constant_at=(1,), comparable=True),
    Family("maj@k", "maj_at_k", "maj_at_k_bayes", credit=True, title="Maj@{k}",
           report="maj@k", aliases=("maj_at_k", "maj"), default=True, plotted=True,
           comparable=True),
    Family("vote@k", "vote_at_k", "vote_at_k_bayes", data="answers", values="question",
           before_k=("references",), title="Vote@{k}", report="vote@k",
           aliases=("vote_at_k", "vote")),
    Family("cons@k", "cons_at_k", None, credit=True, title="Cons@{k}",
           report="cons@k", aliases=("cons_at_k", "cons")),
    Family("auc@k", "auc_at_k", "auc_at_k_bayes", credit=True, title="AUC@{k}",
           report="auc@k", aliases=("auc_at_k", "auc"), default=True, comparable=True),
    Family("threshold_spectrum@k", "threshold_spectrum_at_k", _GEO, credit=True,
           parameters=("weights",), title="ThresholdSpectrum@{k}"),
    Family("geom@k", "geom_at_k", _GEO, title="Geom@{k}"),
    Family("geom_ds@k", "geom_ds_at_k", _GEO, values="dataset", title="GeomDS@{k}"),
    Family("geo_spectrum@k", "geo_spectrum_at_k", _GEO, values="dataset",
           title="GeoSpectrum@{k}"),
    Family("geo_spectrum_star@k", "geo_spectrum_star_at_k", _GEO, values="dataset",
           title="GeoSpectrum*@{k}", report="geo-spectrum*@k", uncompared_at=(1,),
           aliases=("geo_spectrum_star_at_k", "geo-spectrum*", "geo@k")),
    Family("avg@n", "avg", "avg_at_n_bayes", data="categorical", per_k=False,
           title="Avg@{n}", report="avg@n", aliases=("avg", "avg@k"), default=True),
    Family("bayes@n", "bayes", "bayes_at_n", data="categorical", values="question",
           per_k=False, title="Bayes@{n}"),
    Family("max@k", "max_at_k", "max_at_k_bayes", data="categorical", values="question",
           title="Max@{k}"),
    Family("tailpass_discovery@k", "pass_at_k", "tailpass_bayes", data="categorical",
           title="TailPass-discovery@{k}", binarize="positive"),
    Family("tailpass_stability@k", "pass_hat_k", "tailpass_bayes", data="categorical",
           title="TailPass-stability@{k}", binarize="full"),
    Family("tailpass@k_t", "tailpass_empirical", "tailpass_bayes", data="categorical",
           values="question", parameters=("thresholds",), interval=False,
           title="TailPass@{k}_t"),
    Family("tailpass_moment@k_p", "tailpass", "tailpass_bayes", data="categorical",
           values="posterior", parameters=("moment_power",), interval=False,
           title="TailPass-moment@{k}_p"),
)


#: The family a command shows when one metric is wanted and none is named (Pass@k).
PRIMARY: Family = FAMILIES[0]


@dataclass(frozen=True)
class Module:
    """One ``evaluate`` module (``metrics/<name>/`` or ``comparisons/<name>/``).

    Attributes:
        name: the module name, also the name of its compute function in
            :mod:`kpass.hf.vocabulary`.
        kind: its per-question state: ``"binary"``, ``"categorical"``, ``"answers"`` or
            ``"binary_pair"`` (two models' outcomes, a comparison).
        prior_outcomes: whether it takes prior outcomes ``R0``.
        options: the keywords it uses beyond those of its kind (:data:`KIND_OPTIONS`), as
            the Space offers them.
        unused: keywords of its kind it does not use.
    """

    name: str
    kind: str
    prior_outcomes: bool = False
    options: tuple[str, ...] = ()
    unused: tuple[str, ...] = ()

    @property
    def comparison(self) -> bool:
        """Whether it is an ``evaluate`` comparison (two models), not a metric."""
        return self.kind == "binary_pair"

    @property
    def inputs(self) -> tuple[str, ...]:
        """The inputs it takes: ``predictions``, plus ``R0`` or ``references``."""
        if self.kind == "answers":
            return ("predictions", "references")
        if self.comparison:
            return ("predictions1", "predictions2")
        return ("predictions", "R0") if self.prior_outcomes else ("predictions",)


#: Every ``evaluate`` module, in the order of :data:`FAMILIES`.
MODULES: tuple[Module, ...] = (
    Module(_PASS, "binary"),
    Module(_G, "binary", options=("tau",)),
    Module("maj_at_k_bayes", "binary"),
    Module("auc_at_k_bayes", "binary"),
    Module(_GEO, "binary", options=("lam", "weights", "pass_power", "unanimous_power")),
    Module("max_at_k_bayes", "categorical", prior_outcomes=True),
    Module("bayes_at_n", "categorical", prior_outcomes=True),
    Module("avg_at_n_bayes", "categorical"),
    Module("vote_at_k_bayes", "answers"),
    Module("tailpass_bayes", "categorical", prior_outcomes=True,
           options=("thresholds", "moment_power", "concentration", "eta"), unused=("bounds",)),
    Module("kpass_compare", "binary_pair"),
)

#: The keywords every module of a kind uses (the Space offers them as controls).
KIND_OPTIONS: dict[str, tuple[str, ...]] = {
    "binary": ("confidence", "alpha0", "beta0", "bounds", "short"),
    "categorical": ("w", "confidence", "bounds", "short"),
    "answers": ("confidence", "concentration", "ties", "bounds", "short"),
}

#: The families of ``kpass report``, ``compare`` and ``leaderboard`` (``--metrics``).
REPORTED: tuple[Family, ...] = tuple(f for f in FAMILIES if f.report is not None)


def names(*, values: str | None = None, credit: bool | None = None,
          per_k: bool | None = None) -> tuple[str, ...]:
    """The point functions of the families with these properties, in registry order.

    Views (``binarize``) are left out: they are another family's function; so are
    posterior-only quantities unless ``values="posterior"`` is asked for.

    Args:
        values: ``"state"``, ``"question"`` or ``"dataset"`` (see :class:`Family`).
        credit: whether the per-question value is a binary credit's U-statistic.
        per_k: whether the family has a budget k.

    Returns:
        Function names, each once.

    Example:
        >>> names(values="dataset")
        ('geom_ds_at_k', 'geo_spectrum_at_k', 'geo_spectrum_star_at_k')
        >>> names(values="state", per_k=False)
        ('avg',)
    """
    chosen = [f.function for f in FAMILIES if f.binarize is None
              and (f.values == values if values is not None else f.values != "posterior")
              and (credit is None or f.credit == credit)
              and (per_k is None or f.per_k == per_k)]
    return tuple(dict.fromkeys(chosen))


_FAMILY_BY_KEY = {f.key: f for f in FAMILIES}
_MODULE_BY_NAME = {m.name: m for m in MODULES}


def family(key: str) -> Family:
    """The family with this key (``"pass^k"``), or a LookupError naming the keys."""
    if key not in _FAMILY_BY_KEY:
        raise LookupError(f"no kpass family has key {key!r}; keys: {', '.join(_FAMILY_BY_KEY)}")
    return _FAMILY_BY_KEY[key]


_FAMILY_BY_FUNCTION: dict[str, Family] = {}
for _fam in FAMILIES:
    if _fam.binarize is None:
        _FAMILY_BY_FUNCTION.setdefault(_fam.function, _fam)


def of_function(name: str) -> Family:
    """The family whose point function is ``kpass.<name>`` (views left out), or a LookupError.

    Example:
        >>> of_function("vote_at_k").k_position, of_function("avg").k_position
        (1, None)
    """
    if name not in _FAMILY_BY_FUNCTION:
        raise LookupError(f"no kpass family has the point function {name!r}; functions: "
                          f"{', '.join(_FAMILY_BY_FUNCTION)}")
    return _FAMILY_BY_FUNCTION[name]


def module(name: str) -> Module:
    """The ``evaluate`` module called ``name``, or a LookupError naming the modules."""
    if name not in _MODULE_BY_NAME:
        raise LookupError(f"no kpass module is called {name!r}; modules: "
                          f"{', '.join(_MODULE_BY_NAME)}")
    return _MODULE_BY_NAME[name]


def reported(module_name: str) -> tuple[Family, ...]:
    """The families one ``evaluate`` module reports, in registry order."""
    return tuple(f for f in FAMILIES if f.module == module_name)


def compared(module_name: str | None = None) -> tuple[Family, ...]:
    """Families that can be compared question by question.

    Args:
        module_name: None for the ``metric=`` values of the ``kpass_compare`` module
            (:attr:`Family.comparable`); a module's name for the families of that module
            a paired comparison applies to without further arguments (per-question
            values and no positional parameter), as the Space's Compare tab offers them.
    """
    if module_name is None:
        return tuple(f for f in FAMILIES if f.comparable)
    return tuple(f for f in reported(module_name)
                 if f.values in ("state", "question") and not f.parameters)


def constant_at() -> dict[str, tuple[int, ...]]:
    """Report name -> the k at which that family is constant by definition."""
    return {f.report: f.constant_at for f in REPORTED if f.constant_at and f.report}


def number_label(value: float) -> str:
    """A float as it appears in a key: ``0.5`` -> ``"0.5"``, ``1.0`` -> ``"1"``."""
    short = f"{value:g}"
    return short if float(short) == value else repr(float(value))
