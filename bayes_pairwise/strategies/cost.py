"""Cost accounting of the cost-aware study (METHODS §9) and the paper's α-score.

One pairwise decision costs one call; a listwise call on k texts costs k/2 calls (more input
tokens); implied pairs are free. Swap-and-confirm asks both orders: two calls per pair.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ALPHA", "alpha_scores", "listwise_cost", "pairwise_cost"]

ALPHA = 0.4


def pairwise_cost(n_decisions: int) -> float:
    """Cost of ``n_decisions`` pairwise calls.

    Examples
    --------
    >>> pairwise_cost(24 * 500)
    12000.0
    """
    if n_decisions < 0:
        raise ValueError("n_decisions must be >= 0")
    return float(n_decisions)


def listwise_cost(list_sizes: np.ndarray | list[int]) -> float:
    """Cost of listwise calls of the given sizes: Σ k/2.

    Examples
    --------
    >>> listwise_cost([10] * 300)  # three rounds of 100 lists of 10
    1500.0
    """
    k = np.asarray(list_sizes, dtype=float)
    if np.any(k < 2):
        raise ValueError("a listwise call ranks at least 2 texts")
    return float(k.sum() / 2.0)


def alpha_scores(
    rho: np.ndarray | list[float], cost: np.ndarray | list[float], alpha: float = ALPHA
) -> np.ndarray:
    """The paper's ``score_α = α e + (1 − α)(1 − c)`` with e, c min–max normalised.

    Parameters
    ----------
    rho : array
        Effectiveness (Spearman ρ) of each configuration.
    cost : array
        Cost of each configuration (same length).
    alpha : float
        Weight of effectiveness (0.4 in the paper).

    Returns
    -------
    ndarray
        One score per configuration; a constant column normalises to 0.

    Examples
    --------
    >>> alpha_scores([0.92, 0.93, 0.89], [12000, 1500, 4759]).round(3).tolist()
    [0.3, 1.0, 0.414]
    """
    e = np.asarray(rho, dtype=float)
    c = np.asarray(cost, dtype=float)
    if e.shape != c.shape:
        raise ValueError("rho and cost must have the same length")
    if not 0.0 <= alpha <= 1.0:
        raise ValueError("alpha must lie in [0, 1]")

    def norm(v: np.ndarray) -> np.ndarray:
        span = v.max() - v.min() if v.size else 0.0
        return (v - v.min()) / span if span > 0 else np.zeros_like(v)

    return alpha * norm(e) + (1.0 - alpha) * (1.0 - norm(c))
