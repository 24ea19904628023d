"""The annotation world of the cost-aware study (METHODS §9, seed 003).

Latent scores on the 1..1000 scale, a distance-calibrated judge
``P(correct | Δ) = ½ + (p_max − ½)(1 − exp(−Δ/τ))``, annotator bias (``t_bias`` items whose
perceived score is shifted by ±``Δ_bias``) and, optionally, the package's own judge-error world
(positional flip rates ε₊/ε₋ and ties) on top, so the same simulator serves both.

Scale and τ
-----------
Δ is measured on the 1..1000 score scale itself. Solving P(90) = 0.8 with p_max = 0.99 gives
``τ = −90 / ln(1 − 0.3/0.49) = 95.00`` (the paper's "τ = 0.9" is this curve with Δ in hundreds,
rounded, and then gives P(90) = 0.81). :data:`TAU` holds the solved value.

Listwise noise model
--------------------
A listwise call on k texts draws the k(k−1)/2 pairwise verdicts *independently from the same
pairwise judge* (the distance curve on perceived scores) and returns the texts ordered by their
number of wins in that mini-tournament (Copeland order), ties in the win count broken at random.
For k = 2 this is exactly the pairwise judge. For k > 2 an implied pair's verdict also depends
on the other texts (a cyclic mini-tournament ties on wins and is broken at random), so it can be
slightly less or more reliable than a lone call — e.g. 0.811 against 0.819 for texts at 600 and
500 with a third at 400 (checked by exact enumeration in the tests); the list's value lies in
its k(k−1)/2 implied pairs for k/2 calls.

``list_model="thurstone"`` is a second model consistent with the same pairwise judge, for
judges whose lists are coherent orders: each text in a call gets its perceived score plus τ·E
with E ~ Exp(1) drawn once for the call, and the call returns the texts sorted by that noisy
score; with probability 2(1 − p_max) the whole call is a lapse and returns a random order. Since
E₁ − E₂ is Laplace(0, 1), every implied pair of every list then has *exactly* the pairwise
curve: P(correct | Δ) = (1 − p_max) + (2 p_max − 1)(1 − ½ e^{−Δ/τ}) = ½ + (p_max − ½)(1 − e^{−Δ/τ}),
whatever the other texts in the list (tested). Its implied pairs are transitive and correlated
within a call, so a list carries less information than k(k−1)/2 separate verdicts.

The paper-style flips ε₊/ε₋ and ties apply to pairwise calls only (a list has no first/second).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "DISTRIBUTIONS",
    "LIST_MODELS",
    "P_MAX",
    "TAU",
    "AnnotationWorld",
    "latent_scores",
    "p_correct",
    "simulate_annotation",
    "solve_tau",
]

P_MAX = 0.99
DISTRIBUTIONS = ("linear", "bimodal", "normal")
LIST_MODELS = ("copeland", "thurstone")


def solve_tau(p_target: float = 0.8, delta: float = 90.0, p_max: float = P_MAX) -> float:
    """τ of the distance curve such that ``P(correct | delta) = p_target``.

    Parameters
    ----------
    p_target : float
        Target accuracy in (0.5, p_max).
    delta : float
        Reference score difference (on the 1..1000 scale).
    p_max : float
        Asymptotic accuracy in (0.5, 1].

    Returns
    -------
    float

    Examples
    --------
    >>> round(solve_tau(), 3)
    94.999
    """
    if not 0.5 < p_max <= 1.0:
        raise ValueError(f"p_max must lie in (0.5, 1], got {p_max}")
    if not 0.5 < p_target < p_max:
        raise ValueError(f"p_target must lie in (0.5, p_max), got {p_target}")
    if delta <= 0:
        raise ValueError(f"delta must be > 0, got {delta}")
    frac = (p_target - 0.5) / (p_max - 0.5)
    return float(-delta / np.log1p(-frac))


TAU = solve_tau()


def p_correct(delta: np.ndarray | float, p_max: float = P_MAX, tau: float = TAU) -> np.ndarray:
    """Probability that the judge picks the truly higher text, given ``|Δ|``.

    Examples
    --------
    >>> float(np.round(p_correct(90.0), 6)), float(p_correct(0.0))
    (0.8, 0.5)
    """
    d = np.abs(np.asarray(delta, dtype=float))
    return 0.5 + (p_max - 0.5) * (1.0 - np.exp(-d / tau))


def latent_scores(n_items: int, distribution: str, rng: np.random.Generator) -> np.ndarray:
    """Latent severities on 1..1000.

    ``linear``: evenly spaced 1..1000; ``bimodal``: equal mixture of N(250, 90) and N(750, 90);
    ``normal``: N(500, 150); the last two clipped to [1, 1000].

    Examples
    --------
    >>> latent_scores(3, "linear", np.random.default_rng(0)).tolist()
    [1.0, 500.5, 1000.0]
    """
    if n_items < 2:
        raise ValueError(f"n_items must be >= 2, got {n_items}")
    if distribution == "linear":
        return np.linspace(1.0, 1000.0, n_items)
    if distribution == "bimodal":
        mode = rng.random(n_items) < 0.5
        x = np.where(mode, rng.normal(250.0, 90.0, n_items), rng.normal(750.0, 90.0, n_items))
    elif distribution == "normal":
        x = rng.normal(500.0, 150.0, n_items)
    else:
        raise ValueError(f"distribution must be one of {DISTRIBUTIONS}, got {distribution!r}")
    return np.clip(x, 1.0, 1000.0)


@dataclass(frozen=True, eq=False)
class AnnotationWorld:
    """Texts with latent scores and a simulated judge.

    Attributes
    ----------
    latent : ndarray
        True scores (quality is measured against their order).
    perceived : ndarray
        Scores the judge sees: ``latent`` plus ±``bias_shift`` on the biased items.
    biased : ndarray of bool
        Which items carry annotator bias.
    p_max, tau : float
        Distance-curve parameters.
    eps_plus, eps_minus : float
        Extra positional flips of pairwise verdicts: ε₊ when the judge's intended winner is shown
        first, ε₋ when it is shown second (0 = the paper's world).
    tie_rate : float
        Probability that a pairwise call returns a tie.
    list_model : {"copeland", "thurstone"}
        How a listwise call orders its texts (module docstring); both give every implied pair
        the pairwise curve's accuracy on average, ``"thurstone"`` exactly.
    """

    latent: np.ndarray
    perceived: np.ndarray
    biased: np.ndarray
    p_max: float = P_MAX
    tau: float = TAU
    eps_plus: float = 0.0
    eps_minus: float = 0.0
    tie_rate: float = 0.0
    list_model: str = "copeland"

    @property
    def n_items(self) -> int:
        """Number of texts."""
        return int(self.latent.size)

    def compare(
        self, first: np.ndarray, second: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """Pairwise calls: 1.0 when ``first`` wins, 0.0 when ``second`` wins, 0.5 for a tie.

        Examples
        --------
        >>> w = simulate_annotation(10, random_seed=0)
        >>> w.compare(np.array([9, 0]), np.array([0, 9]), np.random.default_rng(1)).tolist()
        [1.0, 0.0]
        """
        f = np.asarray(first, dtype=np.int64)
        s = np.asarray(second, dtype=np.int64)
        d = self.perceived[f] - self.perceived[s]
        correct = rng.random(f.size) < p_correct(d, self.p_max, self.tau)
        # intended verdict: does the judge mean "first"? (exact ties in score: a coin)
        first_higher = np.where(d == 0, rng.random(f.size) < 0.5, d > 0)
        says_first = first_higher == correct
        if self.eps_plus or self.eps_minus:
            flip_p = np.where(says_first, self.eps_plus, self.eps_minus)
            says_first = says_first ^ (rng.random(f.size) < flip_p)
        out = says_first.astype(float)
        if self.tie_rate:
            out[rng.random(f.size) < self.tie_rate] = 0.5
        return out

    def rank_lists(self, groups: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Listwise calls: each row of ``groups`` (item indices) returned best-first.

        Copeland order of independent pairwise verdicts inside each list, or with
        ``list_model="thurstone"`` the order of once-drawn noisy scores (module docstring).

        Examples
        --------
        >>> w = simulate_annotation(10, random_seed=0)
        >>> w.rank_lists(np.array([[0, 9, 5]]), np.random.default_rng(0)).tolist()
        [[9, 5, 0]]
        """
        g = np.asarray(groups, dtype=np.int64)
        m, k = g.shape
        if self.list_model == "thurstone":
            noisy = self.perceived[g] + self.tau * rng.exponential(size=(m, k))
            lapse = rng.random(m) < 2.0 * (1.0 - self.p_max)
            noisy = np.where(lapse[:, None], rng.random((m, k)), noisy)
            return np.take_along_axis(g, np.argsort(-noisy, axis=1, kind="stable"), axis=1)
        s = self.perceived[g]  # (m, k)
        d = s[:, :, None] - s[:, None, :]  # (m, k, k)
        correct = rng.random((m, k, k)) < p_correct(d, self.p_max, self.tau)
        higher = np.where(d == 0, rng.random((m, k, k)) < 0.5, d > 0)
        wins_upper = higher == correct  # i beats j, used for i < j
        iu = np.triu(np.ones((k, k), dtype=bool), 1)
        beats = np.where(iu, wins_upper, False)
        beats = beats | np.swapaxes(np.where(iu, ~wins_upper, False), 1, 2)
        score = beats.sum(axis=2) + rng.random((m, k)) * 0.5  # random tie-break
        order = np.argsort(-score, axis=1, kind="stable")
        return np.take_along_axis(g, order, axis=1)


def simulate_annotation(
    n_items: int = 1000,
    distribution: str = "linear",
    *,
    bias_items: int = 0,
    bias_shift: float = 200.0,
    p_max: float = P_MAX,
    tau: float = TAU,
    eps_plus: float = 0.0,
    eps_minus: float = 0.0,
    tie_rate: float = 0.0,
    list_model: str = "copeland",
    random_seed: int | np.random.Generator | None = 0,
) -> AnnotationWorld:
    """Draw an annotation world: latent scores, annotator bias and the judge's settings.

    Parameters
    ----------
    n_items : int
        Number of texts.
    distribution : {"linear", "bimodal", "normal"}
        Latent score distribution on 1..1000 (:func:`latent_scores`).
    bias_items : int
        t_bias: how many texts the judge misperceives.
    bias_shift : float
        Δ_bias: each biased text is seen ``bias_shift`` higher or lower (random sign).
    p_max, tau : float
        Distance curve (τ defaults to the solved :data:`TAU`).
    eps_plus, eps_minus, tie_rate : float
        Optional package-style judge errors on pairwise calls.
    list_model : {"copeland", "thurstone"}
        How a listwise call orders its texts (module docstring).
    random_seed : int or Generator
        Seed of this world's draw.

    Returns
    -------
    AnnotationWorld

    Examples
    --------
    >>> w = simulate_annotation(100, "normal", bias_items=10, random_seed=3)
    >>> int(w.biased.sum()), round(float(np.abs(w.perceived - w.latent).max()), 6)
    (10, 200.0)
    """
    if not 0 <= bias_items <= n_items:
        raise ValueError(f"bias_items must lie in [0, n_items], got {bias_items}")
    for name, v in (("eps_plus", eps_plus), ("eps_minus", eps_minus), ("tie_rate", tie_rate)):
        if not 0.0 <= v < 1.0:
            raise ValueError(f"{name} must lie in [0, 1), got {v}")
    if tau <= 0:
        raise ValueError(f"tau must be > 0, got {tau}")
    if list_model not in LIST_MODELS:
        raise ValueError(f"list_model must be one of {list(LIST_MODELS)}, got {list_model!r}")
    rng = np.random.default_rng(random_seed)
    latent = latent_scores(n_items, distribution, rng)
    biased = np.zeros(n_items, dtype=bool)
    biased[rng.choice(n_items, size=bias_items, replace=False)] = True
    sign = np.where(rng.random(n_items) < 0.5, -1.0, 1.0)
    perceived = latent + np.where(biased, sign * bias_shift, 0.0)
    return AnnotationWorld(
        latent=latent,
        perceived=perceived,
        biased=biased,
        p_max=float(p_max),
        tau=float(tau),
        eps_plus=float(eps_plus),
        eps_minus=float(eps_minus),
        tie_rate=float(tie_rate),
        list_model=list_model,
    )
