"""What a Space shows: the results and comparison tables, their plots and the formulas.

Shipped beside ``app.py`` (``spaces/build.py`` copies it) and loaded by it as one of its
modules.
"""

from __future__ import annotations

import math
import re
from typing import Any

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

# Key suffixes of a metric module's flat result dict -> table column: the same names
# (kpass's one vocabulary, docs/reference/names.md): se over questions; the posterior's
# mean, sd and credible interval cred_lo..cred_hi.
SUFFIXES = {"_se": "se", "_mean": "mean", "_sd": "sd", "_cred_lo": "cred_lo",
            "_cred_hi": "cred_hi"}
# The decisive columns come first, so a phone (420 px) shows them before the table scrolls
# sideways, and each interval stands beside its own centre: the estimate and its se over
# questions, then the posterior mean with its credible interval and sd (the credible
# interval is about the mean, and may leave the estimate out); A - B with p and P(A better).
COLUMNS = ["metric", "k", "estimate", "se", "mean", "cred_lo", "cred_hi", "sd", "questions"]
NUMERIC = COLUMNS[2:8]
COMPARE_COLUMNS = ["metric", "k", "A - B", "p-value", "P(A better)", "lo", "hi", "se",
                   "A", "B", "questions"]
# With a margin the question is the margin's claim: its verdict and p (the one-sided t
# test; TOST for equivalence) in place of the test of no difference, and its sign-flip
# counterpart where kpass compare shows one (fewer than 30 questions).
MARGIN_COLUMNS = ["metric", "k", "A - B", "verdict", "p margin", "p margin exact", "lo", "hi",
                  "se", "A", "B", "questions"]
#: Width of every plot in inches (at 100 dpi): drawn for a ~560 px box, so on a phone (a
#: ~360 px box) the text shrinks by a third, not by half as a 7-inch figure's did.
PLOT_WIDTH = 5.6


# ----------------------------------------------------------------------------- output


def results_table(result: dict[str, Any]) -> pd.DataFrame:
    """The module's flat dict -> one row per metric and k (``<metric>@{k}`` plus suffixes)."""
    rows: dict[str, dict[str, Any]] = {}
    for key, value in result.items():
        if not isinstance(value, (int, float)):
            continue  # per-question lists are not part of the table
        base, column = key, "estimate"
        for suffix, name in SUFFIXES.items():
            if key.endswith(suffix) and key[: -len(suffix)] in result:
                base, column = key[: -len(suffix)], name
                break
        if base not in rows:
            match = re.match(r"^(.*?[@^])(\d+)(.*)$", base)
            label, k = (match[1] + "k" + match[3], int(match[2])) if match else (base, None)
            rows[base] = {"metric": label, "k": k}
        rows[base][column] = float(value)
    return pd.DataFrame(list(rows.values()), columns=COLUMNS)


def questions_used(table: pd.DataFrame, questions: list[Any], short: str | None) -> None:
    """Fill the ``questions`` column: with ``short="skip"``, only those with n >= k count."""
    sizes = [len(q.values) for q in questions]
    table["questions"] = [
        sum(n >= int(k) for n in sizes) if short == "skip" and k == k and k is not None
        else len(sizes) for k in table["k"]]


def error_bars(table: pd.DataFrame) -> list[Any]:
    """Distances from the estimate to the credible ends (0 where clipping left it outside)."""
    return [(table["estimate"] - table["cred_lo"]).clip(lower=0),
            (table["cred_hi"] - table["estimate"]).clip(lower=0)]


def lay_out(figure: Figure, axes: Any, legend: bool) -> None:
    """Legend outside the axes, at the right, and every label inside the figure.

    The legend never covers a band or a point; the page shows the plot's label above the
    figure (see ``CSS``), so nothing of the page sits on the axes either.
    """
    if legend:
        axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
                    fontsize="small", frameon=False)
    figure.tight_layout(pad=0.6)


def results_plot(table: pd.DataFrame):
    """Each metric against k with its credible band; metrics without k as points with intervals."""
    # A bare Figure, not pyplot's: pyplot would keep every request's figure alive.
    figure = Figure(figsize=(PLOT_WIDTH, 2.75))
    axes = figure.subplots()
    with_k = table[table["k"].notna()]
    for label, group in with_k.groupby("metric", sort=False):
        group = group.sort_values("k")
        ks = group["k"].astype(int).to_numpy()
        line = axes.plot(ks, group["estimate"], marker="o", label=label)[0]
        if group["mean"].notna().all():
            axes.plot(ks, group["mean"], linestyle="--", linewidth=1,
                      color=line.get_color())
        if group["cred_lo"].notna().all():
            axes.fill_between(ks, group["cred_lo"], group["cred_hi"], alpha=0.18,
                              color=line.get_color(), linewidth=0)
            if len(group) == 1:
                axes.errorbar(ks, group["estimate"], capsize=4, color=line.get_color(),
                              yerr=error_bars(group))
    if len(with_k):
        axes.set_xlabel("k")
        locator = axes.xaxis.get_major_locator()
        if isinstance(locator, MaxNLocator):  # the default AutoLocator is one
            locator.set_params(integer=True)
    else:
        axes.errorbar(range(len(table)), table["estimate"], fmt="o", capsize=6,
                      yerr=error_bars(table))
        axes.set_xticks(range(len(table)), list(table["metric"]))
        axes.set_xlim(-1, len(table))
    axes.set_ylabel("estimate\n(dashed: posterior mean)")
    axes.grid(alpha=0.3)
    lay_out(figure, axes, legend=bool(len(with_k)))
    return figure


def shown(table: pd.DataFrame, digits: int = 4) -> pd.DataFrame:
    """The table as displayed: numbers rounded, k as text, SE only when the module gives it.

    The ``questions`` column is shown only when the rows differ in it (``short = skip``):
    else the message says how many questions were used, and the table fits its box.
    """
    display = table.copy()
    for column in NUMERIC:
        display[column] = [None if v is None or math.isnan(v) else round(float(v), digits)
                           for v in display[column]]
    display["k"] = ["" if v is None or v != v else str(int(v)) for v in display["k"]]
    display["questions"] = [str(int(v)) if v == v and v is not None else ""
                            for v in display["questions"]]
    if display["se"].isna().all():
        display = display.drop(columns="se")
    if len(display) and display["questions"].nunique() == 1:
        display = display.drop(columns="questions")
    return display


# ----------------------------------------------------------------------------- formulas


BETA = (r"Each question's success rate $p \sim \mathrm{Beta}(\alpha_0 + c,\ \beta_0 + n - c)$; "
        r"posterior **mean** $\mu=\frac1M\sum_q \mathbb E[g(p_q)]$, **sd** "
        r"$\sigma=\frac1M\sqrt{\sum_q \mathrm{Var}[g(p_q)]}$ (questions fixed), credible "
        r"interval **cred_lo**, **cred_hi** $= \mu \mp z\sigma$.")
HYPER = r"$X \sim \mathrm{Hypergeometric}(n, c, k)$: correct among $k$ of a question's $n$ samples."
FORMULAS = {
    "pass_at_k_bayes": [r"$\mathrm{Pass@}k = 1 - \binom{n-c}{k}\big/\binom{n}{k}$, "
                        r"$\mathrm{Pass}^k = \binom{c}{k}\big/\binom{n}{k}$, averaged over "
                        r"questions; $g(p) = 1-(1-p)^k$ or $p^k$.", BETA],
    "g_pass_at_k_bayes": [HYPER, r"$\text{G-Pass@}k_\tau = P(X \ge \lceil \tau k\rceil)$, "
                          r"$\text{G-Pass@}k = \text{G-Pass@}k_1$, $\text{mG-Pass@}k = "
                          r"2\int_{1/2}^{1}\text{G-Pass@}k_\tau\,d\tau$.", BETA],
    "maj_at_k_bayes": [HYPER, r"$\mathrm{Maj@}k = P(X \ge \lfloor k/2\rfloor + 1)$: a **strict "
                       r"majority of correct** samples (cons@k on 0/1 outcomes). For a "
                       r"plurality vote over answers see `vote_at_k_bayes`.", BETA],
    "auc_at_k_bayes": [r"$\mathrm{AUC@}K = \frac{1}{K-1}\sum_{j=1}^{K-1} "
                       r"\frac{\mathrm{Pass@}j + \mathrm{Pass@}(j+1)}{2}$ "
                       r"($\mathrm{AUC@}1 = \mathrm{Pass@}1$).", BETA],
    "geo_spectrum_bayes": [r"$\mathrm{Geom@}k = \frac1M\sum_q P_q^{a} U_q^{b}$ "
                           r"($P$ = Pass@k, $U$ = Pass^k); $S_{w,k}=\sum_r w_r P(X\ge r)$; "
                           r"$\mathrm{GeoSpectrum@}k = \mathrm{Pass@}k^{\lambda} "
                           r"S_{w,k}^{1-\lambda}$.", HYPER, BETA],
    "max_at_k_bayes": [r"$\mathrm{Max@}k = \binom{n}{k}^{-1}\sum_{i=k}^{n}\binom{i-1}{k-1} "
                       r"g_{(i)}$ with rewards $g = w_{\text{category}}$ sorted; "
                       r"$w=[0,1]$ gives Pass@k.",
                       r"Posterior: Dirichlet(1 + counts) over categories."],
    "bayes_at_n": [r"$\mu = w_0 + \frac{1}{MT}\sum_q\sum_j \nu_{qj}(w_j - w_0)$, "
                   r"$\nu_{qj} = n_{qj} + 1 + n^0_{qj}$, $T = 1 + C + D + N$ "
                   r"(Dirichlet posterior over categories, with prior outcomes).",
                   r"Interval $\mu \pm z\sigma$."],
    "avg_at_n_bayes": [r"$\mathrm{avg@}N = \frac1M\sum_q\frac1N\sum_i w_{R_{qi}}$; "
                       r"$\sigma_a = \frac{T}{N}\sigma_{\text{Bayes}}$, interval "
                       r"$a \pm z\sigma_a$."],
    "tailpass_bayes": [r"$\mathrm{TailPass@}k(t) = \frac1M\sum_q P(B_q \ge t)$, $B$ the "
                       r"average rubric score of $k$ attempts; discovery $P(B>0)$ "
                       r"(Pass@k), stability $P(B=1)$ (Pass^k). Point: $k$ of $n$ attempts "
                       r"without replacement.",
                       r"Posterior: Dirichlet(concentration + counts + $\eta$ R0 counts) over the "
                       r"reward levels; exact Dirichlet-multinomial moments, interval "
                       r"$\mu \pm z\sigma$ in [0, 1]."],
    "vote_at_k_bayes": [r"$\mathrm{Vote@}k = \frac1M\sum_q P(\text{plurality of }k\text{ "
                        r"draws} = \text{gold})$, ties split fractionally; posterior: "
                        r"Dirichlet(concentration) over answer frequencies."],
}
SE_NOTE = (r"**se**: standard error over questions (the spread if the questions were "
           r"re-drawn); **sd**: posterior sd with the questions fixed. $z = "
           r"\Phi^{-1}\!\left(\frac{1+\text{confidence}}{2}\right)$.")
LATEX: list[dict[str, str | bool]] = [{"left": "$$", "right": "$$", "display": True},
                                      {"left": "$", "right": "$", "display": False}]


def formulas(family: str) -> str:
    """Short Markdown with LaTeX for the family (empty for a module outside kpass)."""
    lines = FORMULAS.get(family)
    return "\n\n".join([*lines, SE_NOTE]) if lines else ""


def compare_plot(table: pd.DataFrame, margin: float | None = None, equivalence: bool = False):
    """A - B of each metric against k: one small panel per metric (no bands on top of each
    other), its interval as a band, the zero line in the middle, "favours A" above it and
    "favours B" below; with a ``margin`` a dashed line at A - B = margin (and at -margin
    for ``equivalence``)."""
    marks = [] if margin is None else [margin, -margin] if equivalence else [margin]
    with_k = table[table["k"].notna()]
    if not len(with_k):
        figure = Figure(figsize=(PLOT_WIDTH, 2.6))
        axes = figure.subplots()
        axes.axhline(0, color="black", linewidth=0.8)
        axes.errorbar(range(len(table)), table["A - B"], fmt="o", capsize=6,
                      yerr=[table["A - B"] - table["lo"], table["hi"] - table["A - B"]])
        for mark in marks:
            axes.axhline(mark, color="tab:red", linewidth=0.8, linestyle="--")
        axes.set_xticks(range(len(table)), list(table["metric"]))
        axes.set_xlim(-1, len(table))
        axes.set_ylabel("A - B (interval)")
        axes.grid(alpha=0.3)
        lay_out(figure, axes, legend=False)
        return figure
    groups = list(with_k.groupby("metric", sort=False))
    columns = min(3, len(groups))
    rows = -(-len(groups) // columns)
    figure = Figure(figsize=(PLOT_WIDTH, 1.9 * rows + 0.35))
    grid = figure.subplots(rows, columns, squeeze=False, sharex=True)
    for axes, (label, group) in zip(grid.flat, groups, strict=False):
        group = group.sort_values("k")
        ks = group["k"].astype(int).to_numpy()
        axes.fill_between(ks, group["lo"], group["hi"], alpha=0.2, color="tab:blue",
                          linewidth=0)
        axes.plot(ks, group["A - B"], marker="o", markersize=4, color="tab:blue")
        axes.axhline(0, color="black", linewidth=0.8)
        for mark in marks:
            axes.axhline(mark, color="tab:red", linewidth=0.8, linestyle="--")
        reach = max(abs(float(group["lo"].min())), abs(float(group["hi"].max())), 1e-3,
                    *(abs(mark) for mark in marks))
        axes.set_ylim(-1.1 * reach, 1.1 * reach)
        axes.set_title(str(label), fontsize=9)
        axes.grid(alpha=0.3)
        for text, height, where in (("favours A", 0.97, "top"), ("favours B", 0.03, "bottom")):
            axes.annotate(text, xy=(0.98, height), xycoords="axes fraction", ha="right",
                          va=where, fontsize=7, color="dimgray")
        locator = axes.xaxis.get_major_locator()
        if isinstance(locator, MaxNLocator):  # the default AutoLocator is one
            locator.set_params(integer=True)
    for axes in list(grid.flat)[len(groups):]:
        axes.set_visible(False)
    for axes in grid[-1]:
        axes.set_xlabel("k")
    for axes in grid[:, 0]:
        axes.set_ylabel("A - B")
    figure.tight_layout(pad=0.6)
    return figure


def margin_note(table: pd.DataFrame, margin: float | None, equivalence: bool,
                confidence: float) -> str:
    """What a margin's table showed, in words ("" without a margin).

    `` Margin 0.02 (B the new model): each row tests "B is not worse than A by more than
    0.02" (one-sided t test at 95%, each row tested alone): shown on 2 of 4 rows.``
    """
    if margin is None:
        return ""
    from kpass.stats.comparison import margin_claim

    how = "two one-sided t tests" if equivalence else "one-sided t test"
    shown = int((table["verdict"] == "shown").sum()) if len(table) else 0
    return (f" Margin {margin:g} (B the new model): each row tests "
            f"\"{margin_claim(margin, equivalence)}\" ({how} at {confidence * 100:g}%, each row "
            f"tested alone): shown on {shown} of {len(table)} row{'s' if len(table) != 1 else ''}.")


def shown_compare(table: pd.DataFrame, digits: int = 4) -> pd.DataFrame:
    """The comparison as displayed: numbers rounded, k as text.

    The ``questions`` column is shown only when the rows differ in it (``short = skip``):
    else the message says how many questions were paired, and the table fits its box. A
    margin's ``p margin exact`` only below 30 questions, as ``kpass compare`` shows its
    exact p.
    """
    from kpass.stats.small_sample import FEW_QUESTIONS

    display = table.copy()
    if "p margin exact" in display and not (display["questions"] < FEW_QUESTIONS).any():
        display = display.drop(columns="p margin exact")
    for column in display.columns:
        if column not in ("metric", "k", "questions", "verdict"):
            display[column] = [round(float(v), digits) for v in display[column]]
    display["k"] = ["" if v is None or v != v else str(int(v)) for v in display["k"]]
    if len(display) and display["questions"].nunique() == 1:
        display = display.drop(columns="questions")
    return display


# ----------------------------------------------------------------------------- the page


def input_help(kind: str, names: list[str]) -> str:
    """What one line of input looks like for this kind of module."""
    if kind == "answers":
        return "One question a line: its sampled answers, then | and the gold answer."
    if "R0" in names:
        return ("One question a line: its outcome categories (0, 1, ...); optionally | and "
                "prior outcomes (R0).")
    return "One question a line: its 0/1 outcomes, separated by spaces or commas."


UPLOAD_HELP = ("CSV or JSONL: one question a row (an `outcomes` column, or the outcomes "
               "themselves; an `id` column, if any, names each question once), or one sample "
               "a row, every row with its `id` (long format, grouped by id), as `kpass report` "
               "reads them.")
# Narrow screens: the wide results table scrolls inside its box, never the page, and the
# results come above the inputs (after Compute the page scrolls them into view: SCROLL_JS).
# Tables wrap their headers to fit their box; a plot's label sits above the figure, not on it.
COMPARE_HELP = (
    "The same questions for both models, one a line in the same order. It opens on trials "
    "1-2 against trials 3-4 of the tau-bench run (one model twice: the difference should "
    "be within its interval **lo**-**hi**). **A - B** is the paired difference, **se** its "
    "standard error over questions, **p-value** the test of no difference, **P(A better)** the "
    "posterior probability on these questions. The Compute tab's options apply. A "
    "**margin** asks instead whether B (the new model) is not worse than A by more than it "
    "(**verdict**, **p margin**: one-sided t test; with **equivalence**, |A - B| < margin).")
CSS = """
.gradio-container {max-width: min(1280px, 100vw) !important; margin: 0 auto;}
.gradio-container .main, .gradio-container .wrap, .gradio-container .contain {min-width: 0;
  max-width: 100%;}
#kpass-message p {margin: 0.2em 0; font-size: 0.95em;}
#kpass-message strong {color: #b91c1c;}
#kpass-table, #kpass-plot, #kpass-compare-table, #kpass-board-table, #kpass-board-plot,
#kpass-plan-table, #kpass-plan-plot {min-width: 0; max-width: 100%; overflow-x: auto;}
#kpass-main, #kpass-main > .column, #kpass-board-main, #kpass-board-main > .column,
#kpass-plan-main, #kpass-plan-main > .column {min-width: 0; max-width: 100%;}
:is(#kpass-table, #kpass-compare-table, #kpass-board-table, #kpass-plan-table)
  :is(th, [role=gridcell]) {font-size: 13px;}
:is(#kpass-table, #kpass-compare-table, #kpass-board-table, #kpass-plan-table) .cell-wrap {
  padding-left: 6px; padding-right: 6px;}
:is(#kpass-table, #kpass-compare-table, #kpass-board-table, #kpass-plan-table) th .header {
  white-space: normal; word-break: normal; overflow-wrap: normal;}
#kpass-plot [data-testid="block-label"], #kpass-compare-plot [data-testid="block-label"],
#kpass-board-plot [data-testid="block-label"], #kpass-plan-plot [data-testid="block-label"] {
  position: static; margin-bottom: 4px;}
#kpass-upload .icon-wrap, #kpass-board-upload .icon-wrap {display: none;}
@media (max-width: 700px) {#kpass-main, #kpass-board-main, #kpass-plan-main {
    flex-direction: column-reverse;}
  [role=tablist] > button, .tab-container > button {padding-left: 7px; padding-right: 7px;}
  :is(#kpass-table, #kpass-compare-table, #kpass-board-table, #kpass-plan-table)
    :is(th, [role=gridcell]) {font-size: 12px;}
  :is(#kpass-table, #kpass-compare-table, #kpass-board-table, #kpass-plan-table) .cell-wrap {
    padding-left: 3px; padding-right: 3px;}}
"""
# After Compute on a narrow screen (one column: the results above the inputs), bring what
# the computation changed into view: the message when it is an error, else the results.
SCROLL_JS = """(...args) => {
  if (window.innerWidth > 700) return args;
  const bring = () => {
    const message = document.querySelector('#%(message)s');
    const failed = message && message.innerText.includes('Input error');
    const target = failed ? message : document.querySelector('#%(table)s');
    if (!target) return;
    const box = target.getBoundingClientRect();
    const top = failed ? box.top - (window.innerHeight - box.height) / 2 : box.top - 8;
    window.scrollTo({top: Math.max(0, window.scrollY + top)});
  };
  // Once the outputs are drawn, and again in case a busy page drew them late.
  setTimeout(bring, 150);
  setTimeout(bring, 450);
  return args;
}"""


def scroll_js(message: str, table: str) -> str:
    """:data:`SCROLL_JS` for one tab's message and results elements."""
    return SCROLL_JS % {"message": message, "table": table}
