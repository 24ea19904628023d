"""Rating systems for simulated annotation logs: Elo, Bradley–Terry (MM), TrueSkill and a fast
Gaussian (Laplace) posterior over BT strengths with the judge's error rates included.

All work on plain arrays ``first, second, outcome`` (outcome 1 = first wins, 0 = second wins,
0.5 = tie), item indices 0..n−1, in the order the verdicts arrived. The online systems (Elo,
TrueSkill) are applied *sequentially*; to do that with NumPy the log is cut into layers in which
no item appears twice (:func:`disjoint_layers`), and each layer is one vectorised step — exactly
the same numbers as a one-verdict-at-a-time loop in the arrival order.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.sparse import linalg as splinalg
from scipy.special import expit, log_ndtr

from bayes_pairwise.classical.bradley_terry import bt_mm, win_matrix_from_arrays
from bayes_pairwise.errors import ConvergenceWarning

__all__ = [
    "ELO_K",
    "ELO_START",
    "GaussianPosterior",
    "TrueSkillEnv",
    "bt_scores",
    "disjoint_layers",
    "elo_update",
    "gaussian_posterior",
    "pl_gaussian_posterior",
    "trueskill_1v1",
    "trueskill_ratings",
]

ELO_K = 32.0
ELO_START = 1500.0


def _arrays(first, second, outcome) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    f = np.asarray(first, dtype=np.int64)
    s = np.asarray(second, dtype=np.int64)
    o = np.asarray(outcome, dtype=float)
    if not (f.shape == s.shape == o.shape) or f.ndim != 1:
        raise ValueError("first, second and outcome must be 1-D arrays of the same length")
    return f, s, o


def disjoint_layers(first: np.ndarray, second: np.ndarray, n_items: int) -> np.ndarray:
    """Layer index of each verdict such that no item appears twice in a layer.

    A verdict goes one layer after the latest layer of either of its items, so applying the layers
    in order is the same as applying the verdicts one by one in arrival order.

    Examples
    --------
    >>> disjoint_layers(np.array([0, 2, 0, 1]), np.array([1, 3, 2, 3]), 4).tolist()
    [0, 0, 1, 1]
    """
    last = np.full(n_items, -1, dtype=np.int64)
    out = np.empty(len(first), dtype=np.int64)
    for t, (a, b) in enumerate(zip(first.tolist(), second.tolist(), strict=True)):
        lay = max(last[a], last[b]) + 1
        out[t] = lay
        last[a] = lay
        last[b] = lay
    return out


def _layer_slices(layers: np.ndarray) -> list[np.ndarray]:
    if layers.size == 0:
        return []
    order = np.argsort(layers, kind="stable")
    cuts = np.flatnonzero(np.diff(layers[order])) + 1
    return np.split(order, cuts)


def elo_update(
    ratings: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    outcome: np.ndarray,
    k: float = ELO_K,
) -> np.ndarray:
    """Sequential Elo (base 10, scale 400, factor ``k``) over a log; returns new ratings.

    Examples
    --------
    >>> elo_update(np.full(2, 1500.0), np.array([0]), np.array([1]), np.array([1.0])).tolist()
    [1516.0, 1484.0]
    """
    f, s, o = _arrays(first, second, outcome)
    r = np.array(ratings, dtype=float, copy=True)
    for idx in _layer_slices(disjoint_layers(f, s, r.size)):
        a, b = f[idx], s[idx]
        e = 1.0 / (1.0 + 10.0 ** ((r[b] - r[a]) / 400.0))
        step = k * (o[idx] - e)
        r[a] += step
        r[b] -= step
    return r


def bt_scores(
    first: np.ndarray,
    second: np.ndarray,
    outcome: np.ndarray,
    n_items: int,
    ridge: float = 1e-6,
    tol: float = 1e-7,
    max_iter: int = 5000,
) -> np.ndarray:
    """Bradley–Terry log-strengths by Hunter's MM (λ = ``ridge``, geometric mean of π = 1).

    Ties count half a win each way. Items never compared get θ = 0 (the λ term).

    Examples
    --------
    >>> th = bt_scores(np.array([0, 0, 1]), np.array([1, 1, 0]), np.array([1.0, 1.0, 1.0]), 2)
    >>> round(float(th[0] - th[1]), 4)  # log 2
    0.6931
    """
    f, s, o = _arrays(first, second, outcome)
    x = win_matrix_from_arrays(f, s, o, n_items=n_items)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        res = bt_mm(x, ridge=ridge, tol=tol, max_iter=max_iter)
    return np.asarray(res.theta, dtype=float)


# ---------------------------------------------------------------------------------- TrueSkill


@dataclass(frozen=True)
class TrueSkillEnv:
    """TrueSkill settings (Herbrich et al. 2007), defaults as in the ``trueskill`` package.

    mu = 25, sigma = 25/3, beta = sigma/2, tau = sigma/100, draw_probability = 0.10.
    """

    mu: float = 25.0
    sigma: float = 25.0 / 3.0
    beta: float = 25.0 / 6.0
    tau: float = 25.0 / 300.0
    draw_probability: float = 0.10

    @property
    def draw_margin(self) -> float:
        """ε = Φ⁻¹((p_draw + 1)/2) · √2 · β (1 vs 1)."""
        from scipy.special import ndtri

        return float(ndtri((self.draw_probability + 1.0) / 2.0) * np.sqrt(2.0) * self.beta)


def _log_phi(x: np.ndarray) -> np.ndarray:
    return -0.5 * x * x - 0.5 * np.log(2.0 * np.pi)


def _v_w_win(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    v = np.exp(_log_phi(x) - log_ndtr(x))
    return v, v * (v + x)


def _v_w_draw(t: np.ndarray, eps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = np.abs(t)
    hi, lo = eps - a, -eps - a  # Φ(hi) − Φ(lo) > 0
    log_den = log_ndtr(hi) + np.log1p(-np.exp(log_ndtr(lo) - log_ndtr(hi)))
    v = (np.exp(_log_phi(lo) - log_den) - np.exp(_log_phi(hi) - log_den)) * np.sign(t)
    v = np.where(t == 0, 0.0, v)
    w = v * v + (hi * np.exp(_log_phi(hi) - log_den) - lo * np.exp(_log_phi(lo) - log_den))
    return v, w


def _trueskill_step(
    mu: np.ndarray, var: np.ndarray, a: np.ndarray, b: np.ndarray, o: np.ndarray, env: TrueSkillEnv
) -> None:
    """One layer (disjoint items) of 1v1 updates in place; o = 1: a won, 0: b won, 0.5: draw."""
    win_is_a = o >= 0.5
    w_i = np.where(win_is_a, a, b)
    l_i = np.where(win_is_a, b, a)
    vw = var[w_i] + env.tau**2
    vl = var[l_i] + env.tau**2
    c2 = 2.0 * env.beta**2 + vw + vl
    c = np.sqrt(c2)
    t = (mu[w_i] - mu[l_i]) / c
    eps = env.draw_margin / c
    draw = o == 0.5
    v_win, w_win = _v_w_win(t - eps)
    v_draw, w_draw = _v_w_draw(t, eps)
    v = np.where(draw, v_draw, v_win)
    w = np.where(draw, w_draw, w_win)
    mu[w_i] = mu[w_i] + vw / c * v
    mu[l_i] = mu[l_i] - vl / c * v
    var[w_i] = vw * (1.0 - vw / c2 * w)
    var[l_i] = vl * (1.0 - vl / c2 * w)


def trueskill_1v1(
    winner: tuple[float, float],
    loser: tuple[float, float],
    drawn: bool = False,
    env: TrueSkillEnv | None = None,
) -> tuple[tuple[float, float], tuple[float, float]]:
    """One TrueSkill game between two players given as (mu, sigma); returns both new (mu, sigma).

    Examples
    --------
    The ``trueskill`` package's documented first example (two new players, one wins):

    >>> (m1, s1), (m2, s2) = trueskill_1v1((25.0, 25 / 3), (25.0, 25 / 3))
    >>> round(m1, 3), round(s1, 3), round(m2, 3), round(s2, 3)
    (29.396, 7.171, 20.604, 7.171)
    """
    env = env or TrueSkillEnv()
    mu = np.array([winner[0], loser[0]], dtype=float)
    var = np.array([winner[1] ** 2, loser[1] ** 2], dtype=float)
    _trueskill_step(mu, var, np.array([0]), np.array([1]), np.array([0.5 if drawn else 1.0]), env)
    sd = np.sqrt(var)
    return (float(mu[0]), float(sd[0])), (float(mu[1]), float(sd[1]))


def trueskill_ratings(
    first: np.ndarray,
    second: np.ndarray,
    outcome: np.ndarray,
    n_items: int,
    env: TrueSkillEnv | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Sequential TrueSkill over a log; returns (mu, sigma) per item.

    Examples
    --------
    >>> mu, sd = trueskill_ratings(np.array([0]), np.array([1]), np.array([1.0]), 2)
    >>> np.round(mu, 3).tolist(), np.round(sd, 3).tolist()
    ([29.396, 20.604], [7.171, 7.171])
    """
    env = env or TrueSkillEnv()
    f, s, o = _arrays(first, second, outcome)
    mu = np.full(n_items, env.mu)
    var = np.full(n_items, env.sigma**2)
    for idx in _layer_slices(disjoint_layers(f, s, n_items)):
        _trueskill_step(mu, var, f[idx], s[idx], o[idx], env)
    return mu, np.sqrt(var)


# ----------------------------------------------------------------------- Gaussian posterior


@dataclass(frozen=True, eq=False)
class GaussianPosterior:
    """Laplace approximation N(mean, cov) to the posterior over BT log-strengths.

    Attributes
    ----------
    mean : ndarray
        Posterior mode (centred).
    sd : ndarray
        Marginal posterior standard deviations, diagonal approximation ``1/sqrt(H_ii)``.
    precision : scipy.sparse matrix
        H: Fisher information plus prior precision at the mode (sparse, n × n).
    """

    mean: np.ndarray
    sd: np.ndarray
    precision: np.ndarray


def gaussian_posterior(
    first: np.ndarray,
    second: np.ndarray,
    outcome: np.ndarray,
    n_items: int,
    *,
    eps_plus: float = 0.0,
    eps_minus: float = 0.0,
    prior_sd: float = 3.0,
    init: np.ndarray | None = None,
    max_iter: int = 30,
    tol: float = 1e-6,
) -> GaussianPosterior:
    """Fast Gaussian posterior over strengths under BT with the judge's error rates.

    Likelihood of a verdict (first, second): ``P(first wins) = ε₋ + (1 − ε₊ − ε₋) σ(θ_f − θ_s)``
    (ties count half each way); prior θ ~ N(0, prior_sd²) i.i.d. The mode is found by Fisher
    scoring (expected information, always positive definite), and the covariance is the inverse of
    the information at the mode (Laplace/Gaussian approximation); the information matrix is
    sparse (one entry per compared pair), so a step is a sparse solve, and the reported marginal
    sd uses its diagonal only.

    Examples
    --------
    >>> f, s = np.array([0, 0, 0, 1]), np.array([1, 1, 2, 2])
    >>> post = gaussian_posterior(f, s, np.ones(4), 3)
    >>> bool(post.mean[0] > post.mean[1] > post.mean[2]), bool(np.all(post.sd < 3.0))
    (True, True)
    """
    f, s, o = _arrays(first, second, outcome)
    if eps_plus + eps_minus >= 1.0:
        raise ValueError("eps_plus + eps_minus must be < 1")
    scale = 1.0 - eps_plus - eps_minus
    prior_prec = 1.0 / prior_sd**2
    theta = np.zeros(n_items) if init is None else np.asarray(init, dtype=float).copy()
    rows = np.concatenate([f, s, f, s])
    cols = np.concatenate([f, s, s, f])
    prior = sparse.identity(n_items, format="csr") * prior_prec
    prec = prior
    for _ in range(max_iter):
        d = theta[f] - theta[s]
        sg = expit(d)
        p = np.clip(eps_minus + scale * sg, 1e-12, 1 - 1e-12)
        dp = scale * sg * (1.0 - sg)
        g_d = (o - p) * dp / (p * (1.0 - p))
        info_d = dp * dp / (p * (1.0 - p))
        grad = np.bincount(f, g_d, n_items) - np.bincount(s, g_d, n_items) - prior_prec * theta
        vals = np.concatenate([info_d, info_d, -info_d, -info_d])
        prec = sparse.csr_matrix((vals, (rows, cols)), shape=(n_items, n_items)) + prior
        jacobi = sparse.diags(1.0 / prec.diagonal())
        step, _ = splinalg.cg(prec, grad, M=jacobi, rtol=1e-10, maxiter=10 * n_items)
        theta = theta + step
        if float(np.max(np.abs(step))) < tol:
            break
    # marginal variances: the diagonal approximation 1 / H_ii (fast; slightly optimistic)
    sd = 1.0 / np.sqrt(prec.diagonal())
    return GaussianPosterior(mean=theta - theta.mean(), sd=sd, precision=prec)


def pl_gaussian_posterior(
    ranked: np.ndarray,
    n_items: int,
    *,
    prior_sd: float = 3.0,
    init: np.ndarray | None = None,
    max_iter: int = 50,
    tol: float = 1e-6,
) -> GaussianPosterior:
    """Fast Gaussian posterior over strengths under Plackett–Luce: each list is one observation.

    ``ranked`` holds one list per row, best first (−1 after a shorter list's end). A list's
    log-likelihood is ``Σ_r u_σ(r) − log Σ_{s≥r} exp u_σ(s)``; its Hessian at stage r is
    ``−(diag p − p pᵀ)`` over the items left, p their choice probabilities, so the precision is
    exact (not Fisher scoring) and sparse (one block per stage). Prior θ ~ N(0, prior_sd²)
    i.i.d.; the mode by Newton steps (sparse CG solves, steps capped at 2 per strength), and
    the marginal sd from the diagonal of the precision, as :func:`gaussian_posterior` does.
    Unlike the independent implied pairs, a list of k counts once: a coherent order of close
    texts tells less than k(k − 1)/2 separate verdicts.

    Examples
    --------
    >>> post = pl_gaussian_posterior(np.array([[0, 1, 2], [0, 2, 1], [1, 0, 2]]), 3)
    >>> bool(post.mean[0] > post.mean[1] > post.mean[2])
    True

    All six orders of three texts once: the mode is 0 and each text's information is
    6 · 2/9 + 4 · 1/4 = 7/3 (12 implied pairs of 1/4 each would claim 3):

    >>> import itertools
    >>> perms = np.array(list(itertools.permutations(range(3))))
    >>> post = pl_gaussian_posterior(perms, 3, prior_sd=1e6)
    >>> np.round(post.precision.diagonal(), 6).tolist()
    [2.333333, 2.333333, 2.333333]
    """
    r = np.asarray(ranked, dtype=np.int64)
    if r.ndim != 2:
        raise ValueError("ranked must be 2-D (lists × ranks)")
    valid = r >= 0
    safe = np.maximum(r, 0)
    k = r.shape[1]
    prior_prec = 1.0 / prior_sd**2
    theta = np.zeros(n_items) if init is None else np.asarray(init, dtype=float).copy()
    prior = sparse.identity(n_items, format="csr") * prior_prec
    prec = prior
    stages = []
    for t in range(k - 1):
        on = valid[:, t] & valid[:, t + 1]
        if on.any():
            items = safe[on, t:]
            ok = valid[on, t:]
            m = items.shape[1]
            ia, ib = np.meshgrid(np.arange(m), np.arange(m), indexing="ij")
            rows = items[:, ia.ravel()].ravel()
            cols = items[:, ib.ravel()].ravel()
            stages.append((items, ok, ia.ravel(), ib.ravel(), rows, cols))
    win = np.bincount(np.concatenate([s[0][:, 0] for s in stages]), minlength=n_items)
    for _ in range(max_iter):
        grad = win - prior_prec * theta
        vals_all, rows_all, cols_all = [], [], []
        for items, ok, ia, ib, rows, cols in stages:
            u = np.where(ok, theta[items], -np.inf)
            u = u - u.max(axis=1, keepdims=True)
            p = np.exp(u)
            p /= p.sum(axis=1, keepdims=True)
            grad = grad - np.bincount(items.ravel(), p.ravel(), n_items)
            h = p[:, ia] * ((ia == ib)[None, :] - p[:, ib])
            vals_all.append(h.ravel())
            rows_all.append(rows)
            cols_all.append(cols)
        prec = (
            sparse.csr_matrix(
                (np.concatenate(vals_all), (np.concatenate(rows_all), np.concatenate(cols_all))),
                shape=(n_items, n_items),
            )
            + prior
        )
        jacobi = sparse.diags(1.0 / prec.diagonal())
        step, _ = splinalg.cg(prec, grad, M=jacobi, rtol=1e-10, maxiter=10 * n_items)
        big = float(np.max(np.abs(step)))
        if big > 2.0:
            step = step * (2.0 / big)
        theta = theta + step
        if big < tol:
            break
    sd = 1.0 / np.sqrt(prec.diagonal())
    return GaussianPosterior(mean=theta - theta.mean(), sd=sd, precision=prec)
