"""`fit --json` carries the caveats recorded with the fit (issue 7 item 4)."""

from __future__ import annotations

import json

from bayes_pairwise.cli import main
from bayes_pairwise.simulate import simulate_hard_pairs


def test_fit_json_without_labels_carries_the_correlated_errors_caveat(tmp_path, capsys):
    sim = simulate_hard_pairs(10, random_seed=1)
    path = tmp_path / "hp.csv"
    sim.frame.drop(columns=["truth"]).to_csv(path, index=False)
    assert main(["fit", str(path), "--model", "positional", "--map", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    # one round robin of 10: the MAP's joint mode shifts the rates too (caveats.joint_mode)
    assert [c["code"] for c in res["caveats"]] == ["correlated_errors", "map_joint_mode"]
    assert "tie_rate" in res["parameters"] and res["ties"]["n_ties_dropped"] == 0
