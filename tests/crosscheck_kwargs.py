"""Cross-check settings the tests share (imported as ``from crosscheck_kwargs import LEAN``).

Most tests of a verdict, a caveat or a reading look at one part of the cross-check; the other
steps (the Δ_S grids, the biased-BT spread search, the leaderboards, the MM strengths, the
diagnostics) only cost time there.
"""

#: Every optional step of :func:`bayes_pairwise.crosscheck.crosscheck` off.
LEAN = {
    "delta_s": False,
    "delta_s_2d": False,
    "biased_bt_spread": False,
    "leaderboard": False,
    "strengths": False,
    "diagnostics": False,
}

#: :data:`LEAN`, the models fitted by MAP.
LEAN_MAP = {**LEAN, "method": "map"}
