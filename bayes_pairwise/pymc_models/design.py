"""Design checks run before sampling: can the data inform every parameter?

Three situations are detected and reported as :class:`~bayes_pairwise.errors.DesignWarning`:

* **No pair seen in both presentation orders** (per judge, error models): ε₊ and ε₋ cannot be
  separated from the strengths; with a single verdict per pair the uniform ε cannot either.
* **Presentation order confounded with item identity** (biased Bradley–Terry): when the
  position indicator of a judge lies in the span of the item-difference columns (e.g. every item
  is always shown in the same slot), γ is not separable from the strengths.
* **Covariates that are fixed item properties**: a covariate whose per-verdict value is exactly
  ``v_first − v_second`` for some per-item values ``v`` (plus, possibly, a judge constant) is
  confounded with the strengths — e.g. answer length with a single judge, or a self-preference
  term when every verdict comes from one judge family (METHODS §7.3).

The last two are exact linear-algebra tests on the Gram matrix of the design
``[e_first − e_second | judge indicators | covariates]``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import scipy.sparse as sp

from bayes_pairwise.conventions import name_list
from bayes_pairwise.data import Comparisons
from bayes_pairwise.errors import DesignWarning, user_stacklevel
from bayes_pairwise.matrices import PairCounts

__all__ = [
    "check_error_design",
    "check_regression_design",
    "explained_by_items",
]

#: Relative residual below which a column counts as exactly explained by the others.
_RTOL = 1e-8
#: Designs with more item columns than this skip the exact rank test (cost ~ columns³).
_MAX_COLUMNS = 3000


def _warn(message: str) -> None:
    # reported at the user's line, however deep in the package the check runs
    warnings.warn(message, DesignWarning, stacklevel=user_stacklevel())


def check_error_design(pc: PairCounts, *, positional: bool) -> list[str]:
    """Warn when judges never saw a pair in both orders (error models): one warning naming them.

    Parameters
    ----------
    pc : PairCounts
    positional : bool
        True for the positional model (ε₊/ε₋), False for the uniform model (ε).

    Returns
    -------
    list of str
        The messages issued.

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> from bayes_pairwise.matrices import pair_counts
    >>> df = pd.DataFrame({"first": ["a", "a", "b"], "second": ["b", "c", "c"],
    ...                    "outcome": ["first", "second", "first"]})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     msgs = check_error_design(pair_counts(load_comparisons(df)), positional=True)
    >>> len(msgs), caught[0].category.__name__
    (1, 'DesignWarning')
    """
    affected: list[str] = []
    for jdx, judge in enumerate(pc.judges):
        rows = pc.judge == jdx
        if not rows.any():
            continue
        both = (pc.k_plus[rows] > 0) & (pc.k_minus[rows] > 0)
        if both.any():
            continue
        repeated = (pc.k_plus[rows] + pc.k_minus[rows]) > 1
        if positional or not repeated.any():
            affected.append(str(judge))
    if not affected:
        return []
    if positional:
        what = (
            "no pair was seen in both presentation orders, so the error rates eps_plus / "
            "eps_minus are not separable from the item strengths; their posterior is driven by "
            "the prior. Collect each pair in both orders."
        )
    else:
        what = (
            "every pair was judged once, in one order only, so the error rate eps is not "
            "separable from the spread of the strengths; its posterior is driven by the prior. "
            "Collect each pair in both orders (or repeat verdicts)."
        )
    # one message for all affected judges: a crowd of 100 judges gets one line, not 100
    msg = f"{_judges_text(affected, len(pc.judges))}: {what}"
    _warn(msg)
    return [msg]


def _judges_text(names: Sequence[str], total: int, shown: int = 5) -> str:
    """``judge 'a'`` or ``judges 'a', 'b' and 3 more (5 of 9)``."""
    if len(names) == 1:
        return f"judge {names[0]!r}"
    return f"judges {name_list(names, quote=True, shown=shown)} ({len(names)} of {total})"


def _item_difference_matrix(data: Comparisons) -> sp.csr_matrix:
    n = data.n_comparisons
    rows = np.concatenate([np.arange(n), np.arange(n)])
    cols = np.concatenate([data.first, data.second])
    vals = np.concatenate([np.ones(n), -np.ones(n)])
    return sp.csr_matrix((vals, (rows, cols)), shape=(n, data.n_items))


def _judge_matrix(data: Comparisons) -> sp.csr_matrix:
    n = data.n_comparisons
    return sp.csr_matrix(
        (np.ones(n), (np.arange(n), np.asarray(data.judge))), shape=(n, data.n_judges)
    )


def _residual_share(gram: np.ndarray, col: int, basis: Sequence[int]) -> float:
    """||x_col − P_basis x_col||² / ||x_col||² from the Gram matrix."""
    total = gram[col, col]
    if total <= 0:
        return 0.0
    if not basis:
        return 1.0
    b = np.asarray(basis)
    g_bb = gram[np.ix_(b, b)]
    g_bc = gram[b, col]
    coef = np.linalg.lstsq(g_bb, g_bc, rcond=1e-12)[0]
    resid = total - g_bc @ coef
    return float(max(resid, 0.0) / total)


def explained_by_items(data: Comparisons, values: np.ndarray, *, with_judge: bool = True) -> bool:
    """Is ``values`` (one per verdict) exactly ``v_first − v_second`` (+ a judge constant)?

    Parameters
    ----------
    data : Comparisons
    values : ndarray, shape (n_comparisons,)
    with_judge : bool
        Also allow one constant per judge (absorbed by γ in the biased BT model).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from bayes_pairwise.data import load_comparisons
    >>> df = pd.DataFrame({"first": ["a", "b", "c", "a"], "second": ["b", "c", "a", "c"],
    ...                    "outcome": ["first"] * 4})
    >>> data = load_comparisons(df)
    >>> length = {"a": 120.0, "b": 300.0, "c": 80.0}
    >>> x = np.array([length[f] - length[s] for f, s in zip(df["first"], df["second"])])
    >>> explained_by_items(data, x)
    True
    >>> explained_by_items(data, np.array([1.0, -2.0, 0.5, 3.0]))
    False
    """
    cols = [_item_difference_matrix(data)]
    if with_judge:
        cols.append(_judge_matrix(data))
    cols.append(sp.csr_matrix(np.asarray(values, dtype=float).reshape(-1, 1)))
    x = sp.hstack(cols).tocsc()
    gram = (x.T @ x).toarray()
    last = gram.shape[0] - 1
    return _residual_share(gram, last, list(range(last))) < _RTOL


def check_regression_design(
    data: Comparisons,
    covariates: Mapping[str, np.ndarray],
) -> list[str]:
    """Warn when γ or a covariate effect is confounded with the strengths (biased BT).

    Parameters
    ----------
    data : Comparisons
    covariates : mapping of str to ndarray
        The covariate columns the model will use (one value per verdict).

    Returns
    -------
    list of str
        The messages issued.

    Examples
    --------
    >>> import warnings
    >>> from bayes_pairwise.simulate import simulate_biased_bt
    >>> sim = simulate_biased_bt(8, 400, random_seed=0)
    >>> quality = {it: float(i) for i, it in enumerate(sim.data.items)}  # a fixed item property
    >>> x = {"length": [quality[sim.data.items[f]] - quality[sim.data.items[s]]
    ...                 for f, s in zip(sim.data.first, sim.data.second)]}
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     msgs = check_regression_design(sim.data, x)
    >>> "fixed item property" in msgs[0]
    True
    """
    if data.n_items > _MAX_COLUMNS:
        return []
    names = list(covariates)
    cols = [_item_difference_matrix(data), _judge_matrix(data)]
    for name in names:
        cols.append(sp.csr_matrix(np.asarray(covariates[name], dtype=float).reshape(-1, 1)))
    x = sp.hstack(cols).tocsc()
    gram = (x.T @ x).toarray()
    n_items, n_judges = data.n_items, data.n_judges
    items = list(range(n_items))
    messages = []
    for jdx, judge in enumerate(data.judges):
        col = n_items + jdx
        others = items + [n_items + k for k in range(n_judges) if k != jdx]
        if _residual_share(gram, col, others) < _RTOL:
            msg = (
                f"judge {judge!r}: the presentation order is confounded with item identity (which "
                "item is shown first is determined by the items), so the first-position shift "
                "gamma is not separable from the strengths. Show items in both positions."
            )
            _warn(msg)
            messages.append(msg)
    judges = [n_items + k for k in range(n_judges)]
    for c, name in enumerate(names):
        col = n_items + n_judges + c
        if _residual_share(gram, col, items + judges) < _RTOL:
            single = " with a single judge" if n_judges == 1 else ""
            msg = (
                f"covariate {name!r} is a fixed item property{single}: its value is exactly the "
                "difference of per-item values (first minus second), so its effect is confounded "
                "with the item strengths (METHODS §7.3: a spurious effect appears when quality "
                "correlates with it). Its posterior reflects the prior, not the judge."
            )
            _warn(msg)
            messages.append(msg)
    return messages
