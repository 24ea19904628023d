"""`fit --json` carries the caveats recorded with the fit (issue 7 item 4)."""

from __future__ import annotations

import json

import pytest

from bayes_pairwise.cli import main
from bayes_pairwise.simulate import simulate_hard_pairs


def test_fit_json_without_labels_carries_the_correlated_errors_caveat(tmp_path, capsys):
    sim = simulate_hard_pairs(10, random_seed=1)
    path = tmp_path / "hp.csv"
    sim.frame.drop(columns=["truth"]).to_csv(path, index=False)
    assert main(["fit", str(path), "--model", "positional", "--map", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    # one round robin of 10: the MAP's joint mode shifts the rates too (caveats.joint_mode);
    # its 35 pairs decided in both orders put S_com above its ceiling (0.571 > 0.557), so the
    # log cannot tell these verdicts from ones that ignore the texts (caveats.text_blind)
    codes = ["correlated_errors", "text_blind", "map_joint_mode"]
    assert [c["code"] for c in res["caveats"]] == codes
    assert "tie_rate" in res["parameters"] and res["ties"]["n_ties_dropped"] == 0


def test_estimate_moments_says_when_no_rates_describe_the_judge(capsys):
    """PRD's vicuna-13b: S_com 0.621 on the pairs decided in both orders, above the 0.518 any
    (ε₊, ε₋) give at its first-position rate; the moments' boundary values (ε₊ + ε₋ = 1) come
    with the reason. gpt4 (inside the domain) gets no such warning."""
    argv = ["estimate", "prd_vicuna80", "--method", "moments", "--json", "--judge"]
    assert main([*argv, "vicuna-13b"]) == 0
    res = json.loads(capsys.readouterr().out)
    said = [w for w in res["warnings"] if w.startswith("No error rates describe")]
    assert len(said) == 1 and "S_com is 0.621, above 0.518" in said[0]
    assert res["estimates"]["eps_plus"] + res["estimates"]["eps_minus"] == pytest.approx(1.0)
    # which way the moments it reports (the pairs decided in both orders: its ties come in
    # pairs) left their domain: the same S_com as above, not the rescaled moments' 0.616
    edge = [w for w in res["warnings"] if "outside their domain" in w]
    assert len(edge) == 1 and "no real solution: S_com 0.621 is above 0.518" in edge[0]
    assert "moments of the pairs decided in both orders" in edge[0]
    assert main([*argv, "gpt4"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert not [w for w in res.get("warnings", []) if w.startswith("No error rates describe")]
    assert not [w for w in res.get("warnings", []) if "outside their domain" in w]


def test_rankings_do_not_print_the_error_rates_short_of_pairs_warning(tmp_path, capsys):
    """A 4-item round robin (6 pairs in both orders): `estimate --method scom` warns that its
    error rates are not findings; Elo and Copeland rank the texts and printed the same warning
    about "the error rates from pairs in both orders", which they do not give."""
    from bayes_pairwise.simulate import simulate_round_robin

    path = tmp_path / "rr4.csv"
    simulate_round_robin(4, eps=0.2, random_seed=1).frame.to_csv(path, index=False)
    said = {}
    for method in ("scom", "elo", "copeland"):
        assert main(["estimate", str(path), "--method", method, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        said[method] = any(w.startswith("Too few verdicts") for w in out.get("warnings", []))
    assert said == {"scom": True, "elo": False, "copeland": False}
