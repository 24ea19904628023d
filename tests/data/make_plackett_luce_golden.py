"""Regenerate the Plackett–Luce golden cases (issue 30).

Run: ``python tests/data/make_plackett_luce_golden.py``.

* ``pl_400x5.csv``: 400 lists of 5 drawn from 30 items under Plackett–Luce (true log-strengths
  N(0, 1), centred), each list shown in a random order (column ``shown``, 1 = first) that the
  judge ignores.
* ``pl_400x5_first_bonus.csv``: the same lists, items, shown orders and strengths, ranked by a
  judge that adds a log-odds bonus of 1.0 to the item shown first.
* ``pl_400x5_choix.csv``: per item the true log-strength and ``choix.ilsr_rankings`` (tol 1e-12)
  on both logs, centred.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
N_ITEMS, N_LISTS, K, BONUS = 30, 400, 5, 1.0


def main() -> None:
    import choix

    rng = np.random.default_rng(20261125)
    theta = rng.normal(0.0, 1.0, N_ITEMS)
    theta -= theta.mean()
    frames, fits = {}, {"item": [f"t{i:02d}" for i in range(N_ITEMS)], "true": theta}
    items = np.stack([rng.choice(N_ITEMS, K, replace=False) for _ in range(N_LISTS)])  # shown order
    gumbel = rng.gumbel(size=(N_LISTS, K))
    for name, bonus in (("pl_400x5", 0.0), ("pl_400x5_first_bonus", BONUS)):
        u = theta[items] + gumbel
        u[:, 0] += bonus
        order = np.argsort(-u, axis=1)  # shown slot at each rank
        ranked = np.take_along_axis(items, order, axis=1)
        rows = []
        for li in range(N_LISTS):
            for r in range(K):
                rows.append((f"L{li:03d}", f"t{ranked[li, r]:02d}", r + 1, int(order[li, r]) + 1))
        frames[name] = pd.DataFrame(rows, columns=["list", "item", "rank", "shown"])
        frames[name].to_csv(HERE / f"{name}.csv", index=False)
        est = choix.ilsr_rankings(N_ITEMS, [tuple(x) for x in ranked], tol=1e-12, max_iter=1000)
        fits[f"choix_{name}"] = est - est.mean()
    pd.DataFrame(fits).to_csv(HERE / "pl_400x5_choix.csv", index=False, float_format="%.12f")


if __name__ == "__main__":
    main()
