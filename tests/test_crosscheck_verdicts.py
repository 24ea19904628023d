"""The verdict rule: a verdict rests on the error rates, never on the tie rate alone."""

from __future__ import annotations

import math
from dataclasses import asdict

import pandas as pd

from bayes_pairwise.crosscheck import Agreement, _verdicts


def _ag(quantity: str, overlap: bool | None, gap: float = 0.0) -> dict:
    return asdict(
        Agreement(
            judge="j",
            quantity=quantity,
            model="positional (MAP)",
            classical="moments (S_com, r₁)",
            classical_estimate=0.59,
            classical_lower=math.nan if overlap is None else 0.5,
            classical_upper=math.nan if overlap is None else 0.7,
            posterior_mean=0.45,
            posterior_lower=math.nan,
            posterior_upper=math.nan,
            overlap=overlap,
            gap=gap,
            difference=math.nan,
            difference_lower=math.nan,
            difference_upper=math.nan,
            primary=True,
            basis="MAP point",
        )
    )


def test_tie_rate_alone_gives_no_verdict() -> None:
    # seen on PRD (MAP): eps+ 0.453 vs 0.594 without a classical interval, the tie rates agree;
    # the old rule printed "AGREE, gap 0.000"
    ag = pd.DataFrame([_ag("eps_plus", None), _ag("eps_minus", None), _ag("tie_rate", True)])
    (v,) = _verdicts(ag, ["j"], {})
    assert v.verdict == "NO VERDICT"
    assert math.isnan(v.gap)
    assert "ε₊, ε₋ has no interval" in v.text and "the tie rates agree" in v.text


def test_unassessed_rate_is_named_next_to_a_verdict() -> None:
    ag = pd.DataFrame(
        [_ag("eps_plus", None), _ag("eps_minus", False, gap=0.1), _ag("tie_rate", True)]
    )
    (v,) = _verdicts(ag, ["j"], {})
    assert v.verdict == "DISAGREE" and v.gap == 0.1
    assert v.text.rstrip(".").endswith("ε₊ not assessed (no classical interval)")


def test_a_row_shared_by_two_models_is_said_once() -> None:
    # compare fits uniform and positional: both carry the same tie-rate comparison
    ag = pd.DataFrame([_ag("tie_rate", True), _ag("tie_rate", True), _ag("eps_plus", True)])
    (v,) = _verdicts(ag, ["j"], {})
    assert v.verdict == "AGREE"
    assert v.text.count("tie rate") == 1
    assert "(MAP point vs classical 94% interval)" in v.text
