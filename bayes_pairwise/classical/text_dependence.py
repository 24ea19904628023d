"""Do a judge's verdicts depend on which texts they compare at all?

Two tests of one null hypothesis — every decided verdict picks the first-shown text with one
probability p, whatever the texts (ε₊ + ε₋ = 1) — that look at different things:

* within a pair: S_com against its ceiling r₁² + (1 − r₁)² (the moments' statistics,
  :attr:`~bayes_pairwise.classical.descriptive.PositionalMoments.text_blind_z`), which needs
  pairs shown in both orders and a truth per pair;
* across pairs: :func:`item_dependence`, the score test of Bradley–Terry strengths at 0 given
  the position, which reads how often each text wins against all its opponents. Where a pair's
  repeats answer different prompts (a battle log of systems), the truth varies from prompt to
  prompt, the within-pair test loses its power, and this one keeps it.

The caveat :func:`~bayes_pairwise.caveats.text_blind` speaks only where neither rejects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from bayes_pairwise.data import Comparisons

__all__ = ["DENSE_GROUP_MAX", "ItemDependence", "item_dependence"]

#: Groups of texts up to this size solve their Laplacian densely; larger ones by conjugate
#: gradients on the sparse Laplacian (the score lies in its range).
DENSE_GROUP_MAX = 800


@dataclass(frozen=True)
class ItemDependence:
    """The score test of :func:`item_dependence`.

    Attributes
    ----------
    chi2 : float
        U′ (L − d d′/n)⁺ U / (p(1 − p)): U each text's decided wins less p times its
        first-shown verdicts and (1 − p) times its second-shown ones, L the Laplacian of who met
        whom, d each text's first-shown less second-shown verdicts, n the verdicts.
    df : int
        Texts less connected groups of texts (the rank of L), one less where p and the
        strengths are confounded.
    p_value : float
        P(χ²_df ≥ chi2).
    n_verdicts : int
        Decided verdicts tested.
    r1 : float
        Their share that picks the first-shown text (p).
    """

    chi2: float
    df: int
    p_value: float
    n_verdicts: int
    r1: float

    def text(self) -> str:
        """The numbers, as the caveat reads them."""
        p = f"{self.p_value:.2g}" if self.p_value >= 1e-16 else "< 1e-16"
        return (
            f"across pairs, the texts' wins given the position vary no more than chance allows "
            f"(score test of equal strengths on {self.n_verdicts:,} decided verdicts: "
            f"χ² {self.chi2:,.1f} on {self.df:,} df, p {'= ' if p[0] != '<' else ''}{p})"
        )


def item_dependence(data: Comparisons) -> ItemDependence | None:
    """Score test of "the verdicts do not depend on the texts" against Bradley–Terry strengths.

    Under the null every decided verdict picks the first-shown text with one probability p
    (estimated by r₁); the score of the strengths at 0 is U = B′(y − p) (B: +1 for the first
    text of a verdict, −1 for the second). Estimating p takes away the strengths' information
    it shares with p: with L the Laplacian of the comparisons and d each text's first-shown
    less second-shown verdicts, the efficient score's covariance is p(1 − p)(L − d d′/n), and
    U′(L − d d′/n)⁺U / (p(1 − p)) is χ² on the rank of L — the textbook score test of the
    logistic regression with an intercept and the strengths. L⁺ is taken block by block over
    the connected groups of texts (a context's answers), the rank-one term by Sherman–Morrison;
    where every pair is shown equally often in both orders d = 0. Where every verdict's
    orientation confounds p with the strengths (each pair shown in one order only, without a
    cycle) one df is lost. Ties are left out; None without a decided verdict of each kind, or
    without two texts that met.

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> reader = simulate_round_robin(8, eps=0.1, n_contexts=10, random_seed=0).data
    >>> item_dependence(reader).p_value < 1e-10
    True
    >>> blind = simulate_round_robin(8, eps_plus=0.4, eps_minus=0.6, n_contexts=10, random_seed=0)
    >>> round(item_dependence(blind.data).p_value, 2) > 0.03
    True
    """
    from scipy import sparse
    from scipy.sparse.csgraph import connected_components
    from scipy.stats import chi2 as chi2_dist

    out = np.asarray(data.outcome, dtype=float)
    dec = (out == 0.0) | (out == 1.0)
    y = out[dec]
    n = int(y.size)
    if n == 0:
        return None
    p = float(y.mean())
    if not 0.0 < p < 1.0:
        return None
    first = np.asarray(data.first)[dec]
    second = np.asarray(data.second)[dec]
    items, codes = np.unique(np.concatenate([first, second]), return_inverse=True)
    fi, si = codes[:n], codes[n:]
    m = int(items.size)
    u = np.bincount(fi, weights=y - p, minlength=m) - np.bincount(si, weights=y - p, minlength=m)
    # each text's first-shown less second-shown verdicts: the strengths' information shared
    # with p's, projected out below (both sum to 0 over a connected group, so lie in the range
    # of its Laplacian)
    d = np.bincount(fi, minlength=m) - np.bincount(si, minlength=m).astype(float)
    adj = sparse.coo_matrix((np.ones(n), (fi, si)), shape=(m, m)).tocsr()
    adj = (adj + adj.T).tocsr()
    n_groups, label = connected_components(adj, directed=False)
    degree = np.asarray(adj.sum(axis=1)).ravel()
    order = np.argsort(label, kind="stable")
    edges = np.searchsorted(label[order], np.arange(n_groups + 1))
    uu = ud = dd = 0.0  # U′L⁺U, U′L⁺d, d′L⁺d
    df = 0
    for g in range(n_groups):
        nodes = order[edges[g] : edges[g + 1]]
        if nodes.size < 2:
            continue
        sub = adj[nodes][:, nodes]
        rhs = np.column_stack([u[nodes], d[nodes]])
        if nodes.size <= DENSE_GROUP_MAX:
            lap = -sub.toarray()
            lap[np.diag_indices_from(lap)] += degree[nodes]
            x = np.linalg.lstsq(lap, rhs, rcond=None)[0]
        else:  # a large group (one round robin of thousands of texts): conjugate gradients
            from scipy.sparse.linalg import cg

            lap = sparse.diags(degree[nodes]) - sub
            x = np.column_stack(
                [
                    cg(lap, col, rtol=1e-10, atol=0.0, maxiter=10 * int(nodes.size))[0]
                    for col in rhs.T
                ]
            )
        uu += float(rhs[:, 0] @ x[:, 0])
        ud += float(rhs[:, 0] @ x[:, 1])
        dd += float(rhs[:, 1] @ x[:, 1])
        df += int(nodes.size) - 1
    # The efficient score's covariance is p(1 − p)(L − d d′/n) (p estimated); Sherman–Morrison
    # on L⁺. Where d′L⁺d = n every verdict's orientation is one direction of the strengths (p
    # and the strengths are confounded): that direction is lost, and U is orthogonal to it.
    lost = 1.0 - dd / n
    if lost > 1e-9:
        stat = uu + ud * ud / (n * lost)
    else:
        stat, df = uu, df - 1
    if df <= 0:
        return None
    stat /= p * (1.0 - p)
    return ItemDependence(
        chi2=stat, df=df, p_value=float(chi2_dist.sf(stat, df)), n_verdicts=n, r1=p
    )
