"""The package's conventions, each stated once: interval level, tie policy, the classical tie
rule, convergence thresholds, the context separator.

Every interval the package reports — posterior HDIs, classical delta-method and bootstrap
intervals, Wilson intervals of observed shares — has the same probability :data:`HDI_PROB`, so
that the cross-check compares intervals of one level. Change it here and every table, plot and
verdict follows.

The classical tie rule (:data:`CLASSICAL_TIE_RULE`): the paper's estimators (S_com, the
first-position rate, the moments, Δ_S) count a tie as half a win. Under the error models with ties
as an outcome (METHODS §7.5) a verdict is a tie with probability τ and otherwise wrong with
probability ε, so a half-counted tie behaves in expectation like an error with probability
ε_half = (1 − τ)ε + τ/2. :func:`decided_error_rate` inverts this with the judge's observed tie
share, which puts every classical error rate on the models' scale — the error rate among
decided verdicts — and the cross-check compares like with like.

The tie policy (:data:`TIES`): ties are data. Every door —
:func:`~bayes_pairwise.data.load_comparisons`, :func:`~bayes_pairwise.datasets.load`, the command
line and :func:`~bayes_pairwise.report.build_report` — keeps them as an outcome of the error models
(``"model"``) unless told otherwise; ``"drop"`` (the paper's published numbers) and ``"half"``
stay available by name. Functions take ``ties=None`` and ``hdi_prob=None`` and read the values
here *at call time* (:func:`resolve_ties`, :func:`resolve_hdi_prob`), as ArviZ reads
``rcParams["stats.hdi_prob"]``: change :data:`HDI_PROB` and every later call follows.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

__all__ = [
    "AGREEMENT_TOLERANCE",
    "CLASSICAL_TIE_RULE",
    "CONTEXT_SEP",
    "EBFMI_MIN",
    "ESS_MIN",
    "ESTIMAND_ERROR",
    "ESTIMAND_ORDER_INCONSISTENT",
    "HDI_PROB",
    "JUDGE_BOARDS_N_BOOT",
    "LEADERBOARD_N_BOOT",
    "LOWER_BOUND_NOTE",
    "RHAT_MAX",
    "STRENGTH_TIE_RTOL",
    "TIES",
    "TIE_DISPERSION_GROUPS",
    "TIE_POLICIES",
    "decided_error_rate",
    "estimand",
    "hdi_columns",
    "integer_seed",
    "interval_label",
    "judge_rng",
    "name_list",
    "replicate_p_clause",
    "replicate_p_text",
    "resolve_hdi_prob",
    "resolve_ties",
    "tie_dispersion_group",
    "z_value",
]

#: Probability of every reported interval (posterior HDI and classical intervals alike).
HDI_PROB: float = 0.94

#: Estimated strengths closer than this share of their largest absolute value are tied when
#: two rankings are compared (Kendall τ, Spearman ρ: the cross-check's MM-vs-model row, its
#: plot, the judges' leaderboard agreement). MM, Newton and MAP solve to a tolerance, so two
#: items with the same record differ in the last bits only, and those bits differed between
#: machines (Spearman 0.9527 vs 0.9530 on the golden case).
STRENGTH_TIE_RTOL: float = 1e-9

#: The tie policy when none is given: ties are data, an outcome of the error models.
TIES: str = "model"

#: Every tie policy by name: model (default), drop (removed, counted), half (half a win), error.
TIE_POLICIES: tuple[str, ...] = ("model", "drop", "half", "error")

#: What a tie rate that varies (the order models' ``tie_dispersion``) varies by: each context's
#: tie count beta-binomial (``"context"``, also ``True``), or each pair's, per judge
#: (``"pair"``: a pair tied in one order is tied in the other more often than chance).
TIE_DISPERSION_GROUPS: tuple[str, ...] = ("context", "pair")

#: Convergence thresholds of a NUTS fit: R-hat at most, bulk and tail ESS at least, E-BFMI at
#: least.
RHAT_MAX: float = 1.01
ESS_MIN: int = 400
EBFMI_MIN: float = 0.3

#: Joins a context and an item name into the item's label (``"q12::gpt4"``).
CONTEXT_SEP: str = "::"

#: Bootstrap replicates of a classical leaderboard, wherever it is built (``leaderboard``, the
#: cross-check and the report): one number for one question (with 200 in the cross-check, PRD
#: gpt4's strength read [1.384, 1.874] in the report and [1.362, 1.854] from ``leaderboard``),
#: rank probabilities to about ±0.03 at worst (1.96·√(0.25/1000)). 1,000 replicates of the
#: QLoRA log's 7 systems over 953 questions take under a second.
LEADERBOARD_N_BOOT: int = 1000

#: Bootstrap replicates of each judge's own board where every judge gets one for the agreement
#: table (the cross-check's per-judge boards, ``leaderboard --agreement-with``): enough for
#: Kendall τ's interval, and affordable for logs of many judges (llmfao's 124 crowd judges took
#: 137 s at 1,000 replicates each, about 27 s at 200).
JUDGE_BOARDS_N_BOOT: int = 200

#: Two intervals closer than this count as overlapping: the resolution of the Δ_S grids (step
#: 0.005), below which no classical estimate here is meaningful.
AGREEMENT_TOLERANCE: float = 0.005

#: How the classical estimators treat ties, in the words shown to users.
CLASSICAL_TIE_RULE: str = (
    "classical error rates count a tie as half a win (the paper's rule) and are then put on the "
    "models' scale, the error rate among decided verdicts: ε = (ε_half − τ/2)/(1 − τ), τ = the "
    "judge's observed share of ties"
)


def resolve_ties(ties: str | None = None) -> str:
    """The tie policy ``ties``, or :data:`TIES` (read now) when None.

    Examples
    --------
    >>> resolve_ties(), resolve_ties("drop")
    ('model', 'drop')
    """
    return TIES if ties is None else str(ties)


def tie_dispersion_group(value: Any) -> str | None:
    """What the setting ``tie_dispersion`` groups the ties by: None (off: ``False`` or None),
    ``"context"`` (``True`` or ``"context"``) or ``"pair"``.

    Raises
    ------
    ValueError
        Any other value, naming the allowed ones.

    Examples
    --------
    >>> tie_dispersion_group(False), tie_dispersion_group(True), tie_dispersion_group("pair")
    (None, 'context', 'pair')
    """
    if isinstance(value, str):
        if value in TIE_DISPERSION_GROUPS:
            return value
    elif value is None or value in (False, True):  # a flag (NetCDF may hand back 0 / 1)
        return "context" if value else None
    raise ValueError(
        f"tie_dispersion must be False, True (= 'context') or one of "
        f"{', '.join(repr(g) for g in TIE_DISPERSION_GROUPS)}; got {value!r}"
    )


def resolve_hdi_prob(prob: float | None = None) -> float:
    """The interval probability ``prob``, or :data:`HDI_PROB` (read now) when None.

    Examples
    --------
    >>> resolve_hdi_prob() == HDI_PROB, resolve_hdi_prob(0.5)
    (True, 0.5)
    """
    p = HDI_PROB if prob is None else float(prob)
    if not 0.0 < p < 1.0:
        raise ValueError(f"hdi_prob must be in (0, 1), got {p!r}")
    return p


def hdi_columns(prob: float | None = None) -> tuple[str, str]:
    """ArviZ's names of the HDI bound columns of ``az.summary(hdi_prob=prob)``.

    Examples
    --------
    >>> hdi_columns(0.9)
    ('hdi_5%', 'hdi_95%')
    """
    p = resolve_hdi_prob(prob)
    return f"hdi_{100 * (1 - p) / 2:g}%", f"hdi_{100 * (1 + p) / 2:g}%"


def interval_label(prob: float | None = None) -> str:
    """``"94%"`` for the default level.

    Examples
    --------
    >>> interval_label(0.9)
    '90%'
    """
    return f"{100 * resolve_hdi_prob(prob):g}%"


#: How many names a message lists before it says how many more there are.
NAMES_SHOWN: int = 5


def name_list(names: Any, *, quote: bool = False, shown: int | None = None) -> str:
    """Names for a message: all of them up to :data:`NAMES_SHOWN`, then how many more.

    Every message that names a log's judges (a pooled table, a refusal that asks for one
    judge, a design warning) lists them through this, so a crowd of 100 judges gives one short
    line wherever it is named.

    Examples
    --------
    >>> name_list(["gpt4", "claude"])
    'gpt4, claude'
    >>> name_list([f"j{i}" for i in range(9)], quote=True)
    "'j0', 'j1', 'j2', 'j3', 'j4' and 4 more"
    """
    names = [repr(str(n)) if quote else str(n) for n in names]
    k = NAMES_SHOWN if shown is None else int(shown)
    more = f" and {len(names) - k} more" if len(names) > k else ""
    return ", ".join(names[:k]) + more


def replicate_p_text(p: float, n: int) -> str:
    """A p-value estimated from ``n`` replicates, as a user reads it.

    P(rep > obs) + ½P(rep = obs) over ``n`` replicates moves in steps of 1/(2n): 0 means no
    replicate reached the observed value, which says p < 1/n, not p = 0 (and 1 the mirror).

    Examples
    --------
    >>> replicate_p_text(0.0, 500), replicate_p_text(1.0, 500), replicate_p_text(0.232, 500)
    ('< 0.002', '> 0.998', '0.232')
    """
    if not (math.isfinite(p) and n > 0):
        return "–" if not math.isfinite(p) else f"{p:.3f}"
    step = 1.0 / n
    if p < step / 2:
        return f"< {step:.2g}"
    if p > 1 - step / 2:
        return f"> {1 - step:.{max(3, len(f'{step:.2g}') - 2)}f}"
    return f"{p:.3f}"


def replicate_p_clause(p: float, n: int) -> str:
    """:func:`replicate_p_text` after its relation, for a sentence.

    Examples
    --------
    >>> replicate_p_clause(0.0, 500), replicate_p_clause(0.232, 500)
    ('p < 0.002', 'p = 0.232')
    """
    text = replicate_p_text(float(p), int(n))
    return f"p {text}" if text[0] in "<>" else f"p = {text}"


def z_value(prob: float | None = None) -> float:
    """Two-sided standard-normal quantile for a central interval of probability ``prob``.

    Examples
    --------
    >>> round(z_value(0.95), 3)
    1.96
    """
    from scipy.stats import norm

    return float(norm.ppf(0.5 + resolve_hdi_prob(prob) / 2.0))


def decided_error_rate(
    eps_half: float, tau: float, *, se_half: float = math.nan, se_tau: float = 0.0
) -> tuple[float, float]:
    """Error rate among decided verdicts from a ties-counted-half rate (delta-method SE).

    ε = (ε_half − τ/2)/(1 − τ); with no ties (τ = 0) the rate is unchanged.

    Parameters
    ----------
    eps_half : float
        A classical error rate computed with ties counted half.
    tau : float
        The judge's observed share of ties, in [0, 1).
    se_half, se_tau : float
        Standard errors of the two inputs (treated as independent).

    Returns
    -------
    eps, se : float

    Examples
    --------
    >>> eps, se = decided_error_rate(0.9 * 0.1 + 0.1 / 2, 0.1, se_half=0.01)
    >>> round(eps, 10), round(se, 4)
    (0.1, 0.0111)
    """
    if not 0.0 <= tau < 1.0:
        return math.nan, math.nan
    eps = (eps_half - tau / 2.0) / (1.0 - tau)
    d_tau = (eps_half - 0.5) / (1.0 - tau) ** 2
    se = math.sqrt((se_half / (1.0 - tau)) ** 2 + (d_tau * se_tau) ** 2)
    return float(eps), float(se)


#: Fewer pairs seen in both orders than this, per judge, and the error rates are not reported
#: as findings: a log of two verdicts gives ε₊ = 0 and ε₋ = 1 exactly, which says nothing yet.
MIN_PAIRS_TO_SAY = 10


# ------------------------------------------------------------------------ estimand (issue 25)
#: Estimand of a rate fitted without gold labels: the order-inconsistent error rate, a lower
#: bound on the judge's error (a pair wrong in both orders looks like a reversed truth).
ESTIMAND_ORDER_INCONSISTENT: str = "order_inconsistent_error"
#: Estimand of a rate that gold labels inform: the judge's error rate.
ESTIMAND_ERROR: str = "error"
#: What the reader must not miss next to an order-inconsistent rate.
LOWER_BOUND_NOTE: str = (
    "errors repeated in both orders are invisible without labels, so the error rates can be higher"
)


def estimand(labelled: bool) -> str:
    """The estimand of an error rate: :data:`ESTIMAND_ERROR` when gold labels inform it, else
    :data:`ESTIMAND_ORDER_INCONSISTENT`.

    Examples
    --------
    >>> estimand(False)
    'order_inconsistent_error'
    """
    return ESTIMAND_ERROR if labelled else ESTIMAND_ORDER_INCONSISTENT


# ------------------------------------------------------------------------ per-judge streams
def judge_rng(random_seed: Any, judge: str) -> Any:
    """The random stream of one judge's log-level check (sharp bounds' bootstrap, the
    identification simulation): from ``(random_seed, crc32(judge))``, so a judge's numbers are
    the same whether the log holds that judge alone (``fit --judge``) or beside others (the
    report). A ``Generator`` is used as given (shared by the judges); ``None`` is unseeded.

    Examples
    --------
    >>> a, b = judge_rng(0, "gpt4").random(), judge_rng(0, "gpt4").random()
    >>> a == b, a == judge_rng(0, "bard").random()
    (True, False)
    """
    import zlib

    import numpy as np

    if isinstance(random_seed, np.random.Generator):
        return random_seed
    return np.random.default_rng(
        None if random_seed is None else [int(random_seed), zlib.crc32(str(judge).encode())]
    )


def integer_seed(random_seed: Any) -> int | None:
    """The seed as an ``int`` when it is a fixed integer seed (a NumPy integer counts, a bool
    does not); None for None, a ``Generator`` or anything else.

    The one rule for "the same seed gives the same numbers": results cached per seed
    (identification, the within-pair correlation test) and the caveats a fit records key on it.

    Examples
    --------
    >>> import numpy as np
    >>> integer_seed(np.int64(7)), integer_seed(3), integer_seed(True), integer_seed(None)
    (7, 3, None, None)
    """
    if isinstance(random_seed, numbers.Integral) and not isinstance(random_seed, bool):
        return int(random_seed)
    return None
