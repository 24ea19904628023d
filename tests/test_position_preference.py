"""A judge no error rates describe: S_com above r₁² + (1 − r₁)² (caveats.position_preference_*).

With errors that fall verdict by verdict, a pair shown in both orders picks the same position
twice with probability ab + (1 − a)(1 − b) (a = 1 − ε₊, b = ε₋: the chances of picking the
first text); at a first-position rate r₁ = (a + b)/2 this is largest at a = b = r₁. A judge
whose own position preference varies from pair to pair goes above it, and then neither the
moments (no solution) nor a model with one ε₊ and ε₋ describes it (PRD's vicuna-13b).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from crosscheck_kwargs import LEAN_MAP

from bayes_pairwise.caveats import (
    caveats_for,
    position_preference_check,
    position_preference_varies,
)
from bayes_pairwise.classical.descriptive import moments_from_rates, positional_moments
from bayes_pairwise.data import load_comparisons
from bayes_pairwise.simulate import simulate_round_robin


def test_the_ceiling_is_the_most_any_rates_give_and_the_moments_boundary() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.uniform(size=(2, 10_000))
    s = a * b + (1 - a) * (1 - b)  # the same position twice (S_com) with rates a, b
    r1 = (a + b) / 2
    ceiling = (1 + (2 * r1 - 1) ** 2) / 2
    assert np.all(s <= ceiling + 1e-12)
    np.testing.assert_allclose(ceiling - s, (a - b) ** 2 / 2, atol=1e-12)  # equality iff a = b
    # the moment equations have a real solution exactly up to the ceiling
    for r in (0.3, 0.5, 0.8):
        c = (1 + (2 * r - 1) ** 2) / 2
        assert not moments_from_rates(c - 1e-6, r)[2]
        ep, em, edge = moments_from_rates(c + 1e-6, r)
        assert edge and ep + em == pytest.approx(1.0)


def _preference_by_pair(seed: int, p_first: tuple[float, float]) -> pd.DataFrame:
    """5 answers to each of 60 questions, every ordered pair judged once, the first text picked
    with a probability drawn per pair (regardless of which text is better)."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(60):
        for i in range(5):
            for j in range(i + 1, 5):
                p = rng.choice(p_first)
                for first, second in ((i, j), (j, i)):
                    out = "first" if rng.random() < p else "second"
                    rows.append((f"q{q}", f"a{first}", f"a{second}", out))
    return pd.DataFrame(rows, columns=["context", "first", "second", "outcome"])


def test_a_judge_whose_position_preference_varies_by_pair_is_beyond_every_rate() -> None:
    frame = _preference_by_pair(1, (0.9, 0.1))
    data = load_comparisons(frame, context="context")
    found = position_preference_check(data)
    assert found is not None
    assert found.s_com > 0.75 and found.s_com_ceiling == pytest.approx(0.5, abs=0.01)
    assert found.s_com_excess_z > 10
    codes = [c.code for c in caveats_for(data, model_kind="positional", test_correlation=False)]
    assert "position_preference_varies" in codes
    text = position_preference_varies(data).text
    assert f"S_com is {found.s_com:.3f}, above {found.s_com_ceiling:.3f}" in text
    # ties kept: the check reads the decided verdicts of the pairs decided in both orders
    tied = frame.copy()
    tied.loc[::13, "outcome"] = "tie"
    chk = position_preference_check(load_comparisons(tied, context="context"))
    assert chk is not None and type(chk).__name__ == "TiePositionCheck"
    assert chk.s_com_excess_z > 10


@pytest.mark.parametrize(
    ("eps_plus", "eps_minus"),
    [(0.05, 0.30), (0.05, 0.45), (0.3, 0.7)],  # the last: each verdict by position alone
)
def test_a_judge_with_one_pair_of_rates_is_not_flagged(eps_plus: float, eps_minus: float) -> None:
    sim = simulate_round_robin(60, eps_plus=eps_plus, eps_minus=eps_minus, random_seed=2)
    with warnings.catch_warnings():  # at ε₊ + ε₋ = 1 half the draws fall beyond the boundary
        warnings.simplefilter("ignore")
        m = positional_moments(sim.data)
    assert abs(m.s_com_excess_z) < 3 if eps_plus + eps_minus >= 1 else m.s_com_excess_z < -3
    assert position_preference_check(sim.data) is None
    assert position_preference_varies(sim.data) is None


def test_the_uniform_model_gets_no_such_caveat() -> None:
    """S_com's ceiling is about ε₊ and ε₋; the uniform model's own limit (S_com ≤ 1/2) is said
    where its ε is computed."""
    data = load_comparisons(_preference_by_pair(3, (0.95, 0.05)), context="context")
    codes = [c.code for c in caveats_for(data, model_kind="uniform", test_correlation=False)]
    assert "position_preference_varies" not in codes


def test_the_cross_check_says_so_in_the_verdict_from_its_own_moments() -> None:
    """Without ties the cross-check reads the ceiling from the moments it computed already
    (``ClassicalFits.moments``), and the verdict names the numbers."""
    from bayes_pairwise.crosscheck import crosscheck

    data = load_comparisons(_preference_by_pair(1, (0.9, 0.1)), context="context")
    kw = dict(leaderboard=False, biased_bt_spread=False, delta_s=False, delta_s_2d=False)
    cc = crosscheck(data, method="map", **kw)
    m = cc.classical.moments["judge"]
    assert m.beyond_rates
    (text,) = cc.verdicts.text
    assert f"its S_com {m.s_com:.3f} is above the {m.s_com_ceiling:.3f}" in text


def test_a_judge_on_its_ceiling_is_not_flagged_from_a_few_pairs() -> None:
    """A judge that picks the first text 60 % of the time whatever it reads sits exactly on the
    ceiling (ε₊ + ε₋ = 1). With 5 pairs in both orders the delta method's z reached 3 in 2.5 %
    of 400 such logs (10 logs; nominal 0.13 %); below MIN_PAIRS_TEST pairs nothing is flagged,
    and at 20 pairs the rate is back near nominal."""
    from bayes_pairwise.classical.descriptive import MIN_PAIRS_TEST

    def flagged(n_pairs: int, seed: int) -> tuple[bool, float]:
        rng = np.random.default_rng(seed)
        rows = []
        for k in range(n_pairs):
            for first, second in ((f"a{k}", f"b{k}"), (f"b{k}", f"a{k}")):
                rows.append((first, second, "first" if rng.random() < 0.6 else "second"))
        frame = pd.DataFrame(rows, columns=["first", "second", "outcome"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = positional_moments(load_comparisons(frame))
        return m.beyond_rates, m.s_com_excess_z

    assert 5 < MIN_PAIRS_TEST <= 20
    few = [flagged(5, s) for s in range(400)]
    assert sum(f for f, _ in few) == 0
    assert sum(z >= 3 for _, z in few) >= 5  # what the z alone would have flagged
    assert sum(flagged(20, s)[0] for s in range(400)) <= 3


def test_the_cross_check_reads_its_own_moments_for_the_caveats(monkeypatch) -> None:
    """A log without ties: the position-preference caveat of the cross-check reads the moments
    it computed (ClassicalFits.moments), not a new positional_moments per model kind (at the
    boundary each one ran a 400-replicate bootstrap over pairs). The one call left is the
    model's own fit recording its caveats_ (a fit used alone states them too)."""
    from bayes_pairwise import caveats
    from bayes_pairwise.crosscheck import crosscheck

    frame = _preference_by_pair(1, (0.9, 0.1))
    data = load_comparisons(frame, context="context")
    calls = []
    real = caveats.positional_moments

    def counted(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(caveats, "positional_moments", counted)
    cc = crosscheck(data, models=("positional",), **LEAN_MAP)
    assert any("No error rates describe" in c for c in cc.caveats)
    assert len(calls) == 1  # was 3: the fit's, and one per kind (classical, positional)
