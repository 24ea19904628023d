"""The pair kernels' Ops (pair rows and the pair-difficulty mixture) against the textbook
likelihood (``tests/likelihood_oracles.py``) and finite differences."""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from likelihood_oracles import pair_rows_logp

from bayes_pairwise.pymc_models.fused import (
    difficulty_logp_fused,
    pair_logp_fused,
    pair_logp_numpy,
)

P, J = 240, 3


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(11)
    kp = rng.integers(0, 5, P)
    km = rng.integers(0, 5, P)
    t1 = rng.binomial(kp, 0.2)
    t2 = rng.binomial(km, 0.2)
    return {
        "val2": np.stack([rng.binomial(kp, 0.6), rng.binomial(km, 0.4)], 1),
        "k2": np.stack([kp, km], 1),
        "val4": np.stack([rng.binomial(kp - t1, 0.6), rng.binomial(km - t2, 0.4), t1, t2], 1),
        "k4": np.stack([kp, km, kp, km], 1),
        "judge": rng.integers(0, J, P),
        "truth": rng.integers(-1, 2, P),
        "point": [
            rng.normal(0.0, 2.0, P),
            rng.uniform(0.02, 0.45, J),
            rng.uniform(0.02, 0.45, J),
            rng.normal(-1.5, 1.0, P),
            rng.normal(-1.0, 1.0, P),
            rng.uniform(0.5, 0.9, J),
            rng.uniform(0.05, 0.45, J),
        ],
    }


def _pair(case: str, r: dict):
    """The inputs, the Op's rows and the oracle's rows (a function of the point) of a case."""
    names = ("d", "ep", "em", "etp", "etm", "eh", "pi")
    d, ep, em, etp, etm, eh, pi = ins = [pt.vector(n) for n in names]
    truth = r["truth"] if case.endswith("truth") else None
    judge = r["judge"]
    mix = case.startswith("mix")
    rates = (ep, em, eh, pi) if mix else (ep, em)
    op = difficulty_logp_fused if mix else pair_logp_fused
    form = case.removeprefix("mix_").removesuffix("_truth")
    if form == "binom":
        value, k, eta = r["val2"], r["k2"], {}
    elif form == "tie_pos":
        value, k, eta = r["val4"], r["k4"], {"eta_plus": etp, "eta_minus": etm}
    else:
        value, k, eta = r["val4"], r["k4"], {"eta_plus": etp}
    fused = op(value, d, *rates, judge, k, truth=truth, **eta)

    def oracle(point):
        kw = dict(zip(names, point, strict=True))
        ties = {n: kw[{"eta_plus": "etp", "eta_minus": "etm"}[n]] for n in eta}
        hard = {"eps_hard": kw["eh"], "hard_share": kw["pi"]} if mix else {}
        return pair_rows_logp(
            value, kw["d"], judge, kw["ep"], kw["em"], k, truth=truth, **ties, **hard
        )

    return ins, fused, oracle


FORMS = ["binom", "binom_truth", "tie", "tie_truth", "tie_pos", "tie_pos_truth"]
CASES = FORMS + [f"mix_{f}" for f in FORMS]


@pytest.mark.parametrize("case", CASES)
def test_kernels_match_the_textbook_likelihood(case, rows):
    ins, fused, oracle = _pair(case, rows)
    fn = pytensor.function(ins, fused, on_unused_input="ignore")
    got = fn(*rows["point"])
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, oracle(rows["point"]), rtol=0, atol=1e-8)


@pytest.mark.parametrize("case", CASES)
def test_elementwise_graph_for_jax_matches_the_textbook_likelihood(case, rows):
    """The elementwise graph the JAX samplers use is the same likelihood as the kernels."""
    from bayes_pairwise.pymc_models.likelihoods import elementwise_rows_logp

    ins, fused, oracle = _pair(case, rows)
    node = fused.owner
    nf = node.op.n_float
    value_k = {"binom": ("val2", "k2")}.get(case.removeprefix("mix_").removesuffix("_truth"))
    val, k = (rows[n] for n in (value_k or ("val4", "k4")))
    rates = tuple(node.inputs[1 : 1 + node.op.n_rates])
    etas = [*node.inputs[1 + node.op.n_rates : nf], None, None]
    judge, truth = node.inputs[nf], node.inputs[nf + 1]
    graph = elementwise_rows_logp(val, ins[0], judge, rates, k, truth, etas[0], etas[1])
    got = pytensor.function(ins, graph, on_unused_input="ignore")(*rows["point"])
    np.testing.assert_allclose(got, oracle(rows["point"]), rtol=0, atol=1e-8)


@pytest.mark.parametrize("case", [*FORMS, "mix_binom", "mix_tie_truth", "mix_tie_pos_truth"])
def test_kernel_gradients_finite_differences(case, rows):
    ins, fused, _ = _pair(case, rows)
    w = np.random.default_rng(3).normal(size=P)  # a random contraction of the row vector
    total = (fused * w).sum()
    grads = pytensor.grad(total, ins, disconnected_inputs="ignore")
    fn = pytensor.function(ins, [total, *grads], on_unused_input="ignore")
    point = [np.array(x, dtype=float) for x in rows["point"]]
    analytic = fn(*point)[1:]
    h = 1e-6
    for arg in range(len(ins)):
        per_judge = arg in (1, 2, 5, 6)
        for idx in (0, 1, 2) if per_judge else (0, 7, 101, 239):
            up = [x.copy() for x in point]
            down = [x.copy() for x in point]
            up[arg][idx] += h
            down[arg][idx] -= h
            num = (fn(*up)[0] - fn(*down)[0]) / (2 * h)
            assert analytic[arg][idx] == pytest.approx(num, rel=1e-5, abs=1e-6), (arg, idx)


@pytest.mark.parametrize("case", ["binom_truth", "tie_pos", "mix_tie_pos_truth"])
def test_numba_backend_equals_the_c_backend(case, rows):
    """The graph nutpie compiles (numba) and ``perform`` (MAP, log-likelihood) agree."""
    ins, fused, _ = _pair(case, rows)
    grads = pytensor.grad(fused.sum(), ins, disconnected_inputs="ignore")
    by_c = pytensor.function(ins, [fused, *grads], on_unused_input="ignore")(*rows["point"])
    by_numba = pytensor.function(ins, [fused, *grads], on_unused_input="ignore", mode="NUMBA")(
        *rows["point"]
    )
    for a, b in zip(by_c, by_numba, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_extreme_values_stay_finite():
    """Large |d|, rates near the bounds and many repeats: no overflow in the power table."""
    val = np.array([[40, 0], [0, 40], [200, 190]])
    k = np.array([[40, 40], [40, 40], [300, 300]])
    for d in (np.array([60.0, -60.0, 0.0]), np.array([-700.0, 700.0, 3.0])):
        for e in (1e-9, 0.4999):
            lp, g_d, g_ep, g_em, *_ = pair_logp_numpy(val, d, [e], [e], np.zeros(3), k)
            ref = pair_rows_logp(val, d, np.zeros(3, int), [e], [e], k)
            assert all(np.all(np.isfinite(x)) for x in (lp, g_d, g_ep, g_em))
            # SciPy's binomial loses digits at p = 1e-9 (a relative 1.5e-9 at k = 300)
            np.testing.assert_allclose(lp, ref, rtol=1e-8, atol=1e-8)


def test_dists_evaluate_with_the_kernel(rows):
    """Every form of the observed node is the kernel's Op, with the oracle's values."""
    import pymc as pm

    from bayes_pairwise.pymc_models.fused import PairLogp
    from bayes_pairwise.pymc_models.likelihoods import pair_counts_dist, tie_counts_dist

    def uses_kernel(model):
        nodes = pytensor.graph.basic.io_toposort(model.value_vars, [model.logp()])
        return any(isinstance(n.op, PairLogp) for n in nodes)

    d = np.zeros(P)
    eps = np.array([0.1, 0.2, 0.3])
    c2 = {"pair": np.arange(P), "count": ["n1", "n2"]}
    c4 = {"pair": np.arange(P), "count": ["n1", "n2", "t1", "t2"]}
    with pm.Model(coords=c2) as plain:
        pair_counts_dist("w", d, rows["judge"], eps, eps, rows["k2"], observed=rows["val2"])
    with pm.Model(coords=c2) as gold:
        pair_counts_dist(
            "w",
            d,
            rows["judge"],
            eps,
            eps,
            rows["k2"],
            observed=rows["val2"],
            truth=rows["truth"],
        )
    eta = np.full(P, -1.0)
    with pm.Model(coords=c4) as ties:
        tie_counts_dist(
            "w", d, rows["judge"], eps, eps, eta, eta, rows["k2"], observed=rows["val4"]
        )
    pairs = (("plain", plain), ("gold", gold), ("ties", ties))
    assert all(uses_kernel(m) for _, m in pairs)
    lp = {n: m.compile_logp(sum=False)({})[0] for n, m in pairs}
    args = (d, rows["judge"], eps, eps)
    np.testing.assert_allclose(
        lp["plain"], pair_rows_logp(rows["val2"], *args, rows["k2"]), rtol=0, atol=1e-8
    )
    ref_gold = pair_rows_logp(rows["val2"], *args, rows["k2"], truth=rows["truth"])
    np.testing.assert_allclose(lp["gold"], ref_gold, rtol=0, atol=1e-8)
    ref_ties = pair_rows_logp(rows["val4"], *args, rows["k4"], eta_plus=eta)
    np.testing.assert_allclose(lp["ties"], ref_ties, rtol=0, atol=1e-8)


def test_many_judges_do_not_grow_the_logp_graph():
    """Regression: a masked sum per judge made 100 crowd judges compile for > 10 min (CI 137)."""
    import pandas as pd
    import pytensor.graph.basic as gb

    import bayes_pairwise as bp
    from bayes_pairwise.pymc_models import get_model

    def n_nodes(n_judges: int) -> int:
        frames = [
            bp.simulate_round_robin(4, eps=0.1, random_seed=j).frame.assign(judge=f"j{j}")
            for j in range(n_judges)
        ]
        data = bp.load_comparisons(pd.concat(frames, ignore_index=True), judge="judge")
        model = get_model("uniform").build_model(data)
        return len(gb.io_toposort(model.free_RVs, [model.logp()]))

    assert n_nodes(100) <= n_nodes(12) + 5


def test_written_out_exp_and_log1p_match_libm_over_their_range():
    """The kernel's own e^x (x ≤ 0) and log(1 + y) (0 ≤ y ≤ 1), to a few ulp."""
    from bayes_pairwise.pymc_models.fused import _exp_nonpos, _log1p_unit, _softplus_sigmoid

    x = -np.concatenate([np.linspace(0.0, 300.0, 20001), np.logspace(-18, 2.47, 2001)])
    got = np.array([_exp_nonpos(v) for v in x])
    np.testing.assert_allclose(got, np.exp(x), rtol=4e-16, atol=0)
    assert _exp_nonpos(0.0) == 1.0
    # floored at e^-300 (its square stays a normal number), never 0 or NaN
    assert _exp_nonpos(-1e6) == _exp_nonpos(-300.0) == pytest.approx(np.exp(-300.0), rel=1e-15)
    # where it is floored, softplus and the sigmoid are off by less than 1e-130, absolute
    for v in (-301.0, -700.0, -1e4):
        sp, sg = _softplus_sigmoid(v)
        assert 0.0 <= sp < 1e-130 and 0.0 <= sg < 1e-130
        sp, sg = _softplus_sigmoid(-v)
        assert sp == -v and sg == 1.0
    y = np.concatenate([np.linspace(0.0, 1.0, 20001), np.logspace(-300, 0, 2001)])
    got = np.array([_log1p_unit(v) for v in y])
    np.testing.assert_allclose(got, np.log1p(y), rtol=6e-16, atol=0)
    assert _log1p_unit(0.0) == 0.0


def test_count_rows_match_their_graph_and_the_binomial_coefficients(rows):
    from scipy.special import comb

    from bayes_pairwise.pymc_models.fused import _count_rows_symbolic, count_rows

    for val, ties in ((rows["val2"], False), (rows["val4"], True)):
        counts, coef = count_rows(val, rows["k4"], ties=ties)
        sym_counts, sym_coef = _count_rows_symbolic(val, rows["k4"], ties)
        np.testing.assert_array_equal(counts, sym_counts.eval())
        np.testing.assert_allclose(coef, sym_coef.eval(), rtol=1e-12, atol=1e-12)
        assert counts.flags.c_contiguous and counts.shape == (6 if ties else 4, P)
    # without ties: log C(k+, n1) + log C(k-, n2); f = k - n
    counts, coef = count_rows(rows["val2"], rows["k2"])
    n1, n2 = rows["val2"].T
    kp, km = rows["k2"].T
    np.testing.assert_array_equal(counts, np.stack([n1, kp - n1, n2, km - n2]))
    np.testing.assert_allclose(np.exp(coef), comb(kp, n1) * comb(km, n2), rtol=1e-10)


@pytest.mark.parametrize("mix", [False, True])
def test_both_backends_share_one_compiled_kernel(rows, mix):
    """nutpie's numba graph and ``perform`` (MAP, pointwise log-likelihood) call the kernel with
    the same argument types, so a process compiles it once (1.5 s), not once per backend; also
    for a label-free model, whose all-unknown ``truth`` the numba graph computes at run time."""
    from bayes_pairwise.pymc_models.fused import _difficulty_ties0, _pair_logp_ties0

    entry = _difficulty_ties0 if mix else _pair_logp_ties0
    d, ep, em, eh, pi = (pt.vector(n) for n in ("d", "ep", "em", "eh", "pi"))
    ins = [d, ep, em, eh, pi] if mix else [d, ep, em]
    op = difficulty_logp_fused if mix else pair_logp_fused
    out = op(rows["val2"], *ins, rows["judge"], rows["k2"])
    args = [np.asarray(x, dtype=float) for x in rows["point"][:3]]
    args += [np.asarray(x, dtype=float) for x in rows["point"][5:]] if mix else []
    before = set(entry.signatures)  # other tests of this worker may have added some
    by_c = pytensor.function(ins, out)(*args)
    by_numba = pytensor.function(ins, out, mode="NUMBA")(*args)
    np.testing.assert_allclose(by_c, by_numba, rtol=0, atol=1e-12)
    # the entry both call: one compiled signature, the data read-only, the parameters not
    used = {s for s in entry.signatures if s not in before} or before
    read_only = (False,) * len(ins) + (True, True, True, True)
    assert any(tuple(not a.mutable for a in s) == read_only for s in used), used
    assert len(set(entry.signatures) - before) <= 1


_BITS_CHILD = """
import hashlib, numpy as np
from bayes_pairwise.pymc_models.fused import count_rows, run_kernel
rng = np.random.default_rng(5)
P = 4950
kp, km = rng.integers(0, 3, P), rng.integers(0, 3, P)
t1, t2 = rng.binomial(kp, 0.2), rng.binomial(km, 0.2)
value = np.stack([rng.binomial(kp - t1, 0.7), rng.binomial(km - t2, 0.6), t1, t2], 1)
k = np.stack([kp, km, kp, km], 1)
judge, truth = np.zeros(P, np.int64), np.full(P, -1)
d, ep, em = rng.normal(0, 5, P), np.array([0.15]), np.array([0.3])
tp, tm = rng.normal(-1.5, 1, P), rng.normal(-1, 1, P)
h = hashlib.sha256()
counts, coef = count_rows(value[:, :2], k[:, :2])
for out in run_kernel(0, d, ep, em, tp[:0], tm[:0], judge, truth, counts, coef):
    h.update(out.tobytes())
counts, coef = count_rows(value, k, ties=True)
for out in run_kernel(2, d, ep, em, tp, tm, judge, truth, counts, coef):
    h.update(out.tobytes())
print(h.hexdigest())
"""


def test_a_fresh_compile_and_the_cached_kernel_give_the_same_bits(tmp_path):
    """The first process on a machine compiles the kernel, later ones load it from numba's
    cache. With LLVM free to fuse a multiply and an add ('contract'), the two codes rounded
    the ε₋ partial differently in about a quarter of the rows (by an ulp), so the first NUTS
    fit on a machine drew other draws than every later fit with the same seed. Both must give
    the same bits."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    run = [sys.executable, "-c", _BITS_CHILD]
    fresh = subprocess.run(run, env=env, capture_output=True, text=True, check=True)
    cached = subprocess.run(run, env=env, capture_output=True, text=True, check=True)
    assert any((tmp_path / "numba").rglob("*.nbc"))  # the second one did load a cache
    assert fresh.stdout.strip() == cached.stdout.strip()
