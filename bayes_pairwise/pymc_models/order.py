"""The error models with a hard truth: one total order per context, summed out (issue 27).

:class:`UniformOrder` and :class:`PositionalOrder` are :class:`UniformError` and
:class:`PositionalBias` in the limit their strength scale σ_s reaches on real judge logs: the
truth of a context is a total order of its items (METHODS §3, the paper's model), every order
equally likely a priori, shared by all the context's pair rows and all judges. The k! orders
are summed out exactly (:mod:`~bayes_pairwise.pymc_models.order_kernel`), so NUTS samples only
the judges' rates and tie rates: a handful of parameters instead of one strength per item.

Why: on the QLoRA GPT-4 log (953 round robins of 7) the strength models push σ_s to ≈ 22 —
P(truth) = σ(s_i − s_j) is 0 or 1 for nearly every pair — and every pair becomes a logistic
wall NUTS must resolve: 327 leapfrog steps per draw and a default fit of 413 s. The order
models give the same rates (``docs/src/speed.md``) at a few steps per draw. They estimate no
strengths; they rank: :attr:`~PositionalOrder.ranks_` is every item's posterior probability of
each rank within its context (the orders summed out exactly at each draw of the rates), and
:attr:`~PositionalOrder.ranks_by_name_` pools it by item name (e.g. per answering system).

NUTS with nutpie samples the density written out (:mod:`~bayes_pairwise.pymc_models.order_density`:
nothing compiled per log); MAP, the Laplace approximation and PyMC's NUTS run the graph below,
with the kernel as an Op.

The observation unit (``contexts``, dim ``context``) is a context: its pair rows share one
order, so the pointwise log-likelihood (LOO) is per context. Supported: one tie rate per judge
(it does not depend on the order), or one per position of the better item
(``tie_positional=True``: the ties enter each order's likelihood, as a second block of rates in
the tables), gold labels (an order a
label contradicts has probability 0), several judges, contexts of up to
:data:`~bayes_pairwise.pymc_models.order_kernel.MAX_CONTEXT_ITEMS` items. Not supported
(refused by name): closeness tie rates, replicated data (no ``random``: no posterior
predictive checks).
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

import numba
import numpy as np
import pandas as pd
import pymc as pm
import pytensor.tensor as pt
import xarray as xr
from pytensor.gradient import DisconnectedType
from pytensor.graph.basic import Apply
from pytensor.graph.op import Op

from bayes_pairwise.caveats import context_sizes_text, order_model_for
from bayes_pairwise.conventions import tie_dispersion_group
from bayes_pairwise.data import Comparisons
from bayes_pairwise.errors import DesignError
from bayes_pairwise.matrices import PairCounts, pair_counts
from bayes_pairwise.model_specs import JAX_SAMPLERS
from bayes_pairwise.pymc_models.base import make_prior
from bayes_pairwise.pymc_models.error_models import (
    PositionalBias,
    UniformError,
    observed_counts,
    pair_labels,
    tie_logits_by_position,
)
from bayes_pairwise.pymc_models.jit_cache import keep_in_step
from bayes_pairwise.pymc_models.order_density import OrderDensity, order_density
from bayes_pairwise.pymc_models.order_kernel import (
    OrderTables,
    order_logp,
    order_pair_probabilities,
    order_rank_probabilities,
    order_sample,
    order_tables,
)
from bayes_pairwise.simulate import order_counts

keep_in_step(__file__)  # before the first cached function: see jit_cache

__all__ = [
    "PPC_DRAWS",
    "RANK_DRAWS",
    "SHARE_DRAWS",
    "OrderLogp",
    "PositionalOrder",
    "UniformOrder",
    "better_first_share",
    "order_model_note",
    "rank_table_by_name",
    "tie_dispersion_logp",
]

#: Bumped when :func:`~bayes_pairwise.pymc_models.order_kernel.order_logp` changes (the numba
#: backend's cache key).
_KERNEL_VERSION = 1

#: Posterior draws (evenly spaced over the chains) that :attr:`PositionalOrder.ranks_` averages
#: the rank probabilities over. Given the rates, each draw's probabilities are exact (the
#: orders summed out); the rates' posterior is narrow, so a few hundred draws leave a Monte
#: Carlo error far below the probabilities' own spread.
RANK_DRAWS = 200
#: Posterior draws of the rates :func:`better_first_share` averages over. The share moves little
#: with the rates (on the QLoRA GPT-4 log its sd over draws is 2e-5, so less than 1e-6 in the
#: tie rate), and each draw runs the pair programme over every context (≈ 0.1 s there).
SHARE_DRAWS = 20
#: Posterior draws (evenly spaced) that :meth:`PositionalOrder.sample_posterior_predictive`
#: replicates the log from: each draws one order per context from its exact posterior, which
#: costs one pass of the subset programme over every context (≈ 10 ms on the QLoRA GPT-4 log),
#: so the default report does not replicate all 2,000. The predictive p-values' Monte Carlo
#: error at 500 replicates is at most 0.022.
PPC_DRAWS = 500


class OrderLogp(Op):
    """Per-context log-likelihood of the hard-truth models and its gradient (an Op).

    Inputs: the per-judge log rates (J, 4) and the constant arrays of
    :meth:`~bayes_pairwise.pymc_models.order_kernel.OrderTables.arrays`. Outputs: the
    per-context log-likelihood (C,) and its partials (C, 4J), which the gradient uses.
    """

    __props__ = ()

    def make_node(self, *inputs: Any) -> Apply:
        rates = pt.as_tensor(inputs[0]).astype("float64")
        data = [pt.as_tensor(x) for x in inputs[1:]]
        n_c = data[0].type.shape[0]
        logp = pt.vector(dtype="float64", shape=(n_c,))
        grad = pt.matrix(dtype="float64", shape=(n_c, None))
        return Apply(self, [rates, *data], [logp.type(), grad.type()])

    def perform(self, node: Apply, inputs: list[np.ndarray], output_storage: list[Any]) -> None:
        rates = np.ascontiguousarray(inputs[0], dtype=np.float64)
        logp, grad = order_logp(rates, *(np.ascontiguousarray(x) for x in inputs[1:]))
        output_storage[0][0] = logp
        output_storage[1][0] = grad

    def infer_shape(self, fgraph: Any, node: Apply, shapes: list[Any]) -> list[Any]:
        n_c = shapes[1][0]
        return [(n_c,), (n_c, shapes[0][0] * 4)]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[c == 0, c == 0] for c in range(len(node.inputs))]

    def L_op(self, inputs: list[Any], outputs: list[Any], output_grads: list[Any]) -> list[Any]:
        g = output_grads[0]
        if isinstance(g.type, DisconnectedType):  # pragma: no cover - only the logp is used
            g = pt.zeros_like(outputs[0])
        rates = inputs[0]
        d_rates = (g[:, None] * outputs[1]).sum(axis=0).reshape(rates.shape)
        return [d_rates, *(DisconnectedType()() for _ in inputs[1:])]


@functools.cache
def _kernel_pointer() -> Any:
    """The kernel as a C function (compiled once, cached on disk), for the numba backend.

    Called through a pointer, the kernel is not compiled again into every model's log-density:
    nutpie's callbacks hold the tables as large constants and cannot be cached, so each new
    process compiles them, and with the kernel inlined that took about 35 s; through the
    pointer it takes a few.
    """
    from numba import carray, cfunc, types

    ptr, i64 = types.voidptr, types.int64
    sig = types.void(ptr, i64, ptr, i64, ptr, ptr, i64, ptr, i64, ptr, ptr, ptr)

    @cfunc(sig, cache=True)
    def order_logp_c(
        p_rates, n_j, p_size, n_c, p_offset, p_counts, n_counts, p_forbid, n_items, p_log_k,
        p_logp, p_grad,
    ):  # fmt: skip
        logp, grad = order_logp(
            carray(p_rates, (n_j, 4), dtype=np.float64),
            carray(p_size, (n_c,), dtype=np.int64),
            carray(p_offset, (n_c + 1,), dtype=np.int64),
            carray(p_counts, (n_counts,), dtype=np.float64),
            carray(p_forbid, (n_items,), dtype=np.int64),
            carray(p_log_k, (n_c,), dtype=np.float64),
        )
        out_logp = carray(p_logp, (n_c,), dtype=np.float64)
        out_grad = carray(p_grad, (n_c, n_j * 4), dtype=np.float64)
        for c in range(n_c):  # loops: a slice assignment compiles numba's shape-error messages
            out_logp[c] = logp[c]
            for k in range(n_j * 4):
                out_grad[c, k] = grad[c, k]

    return order_logp_c.ctypes


def _graph_kernel() -> Any:
    """The Op's implementation for PyTensor's numba backend: the kernel through its pointer."""
    kernel = _kernel_pointer()

    @numba.njit
    def graph_order_logp(log_rates, size, offset, counts, forbid, log_k):
        rates = np.ascontiguousarray(log_rates)  # a reshape of PyMC's parameter: any layout
        size = np.ascontiguousarray(size)
        offset = np.ascontiguousarray(offset)
        counts = np.ascontiguousarray(counts)
        forbid = np.ascontiguousarray(forbid)
        log_k = np.ascontiguousarray(log_k)
        n_c = size.shape[0]
        logp = np.empty(n_c)
        grad = np.empty((n_c, rates.shape[0] * 4))
        kernel(
            rates.ctypes.data, rates.shape[0], size.ctypes.data, n_c, offset.ctypes.data,
            counts.ctypes.data, counts.shape[0], forbid.ctypes.data, forbid.shape[0],
            log_k.ctypes.data, logp.ctypes.data, grad.ctypes.data,
        )  # fmt: skip
        return logp, grad

    return graph_order_logp


def _register_numba() -> None:
    """The kernel for PyTensor's numba backend (what nutpie compiles)."""
    from pytensor.link.numba.dispatch.basic import register_funcify_default_op_cache_key

    @register_funcify_default_op_cache_key(OrderLogp)
    def _funcify(op: OrderLogp, node: Any = None, **kwargs: Any) -> Any:
        return _graph_kernel(), _KERNEL_VERSION


_register_numba()


def _tie_counts(pc: Any, data: Comparisons) -> tuple[np.ndarray, np.ndarray]:
    """Tie and decided verdicts per context and judge, ``(C, J)`` each (the tie terms)."""
    ctx = np.asarray(data.item_context, dtype=np.int64)[np.asarray(pc.i)]
    at = (ctx, np.asarray(pc.judge, dtype=np.int64))
    ties = np.zeros((data.n_contexts, data.n_judges))
    decided = np.zeros((data.n_contexts, data.n_judges))
    np.add.at(ties, at, np.asarray(pc.t1 + pc.t2, dtype=float))
    np.add.at(decided, at, np.asarray(pc.k_plus + pc.k_minus, dtype=float))
    return ties, decided - ties


def _tie_groups(
    pc: Any, data: Comparisons, by: str = "context"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The tie terms' groups, laid out by context: tie and decided verdicts and the judge of
    every group, ``(C, M)`` each. ``by="context"``: one group per context and judge (M = J,
    :func:`_tie_counts`); ``by="pair"``: one per pair row (a pair and a judge; M = the most
    pair rows of a context). Padding cells hold no verdicts, so every tie term there is 0."""
    if by == "context":
        ties, decided = _tie_counts(pc, data)
        judge = np.broadcast_to(np.arange(data.n_judges, dtype=np.int64), ties.shape).copy()
        return ties, decided, judge
    ctx = np.asarray(data.item_context, dtype=np.int64)[np.asarray(pc.i)]
    n_c = data.n_contexts
    per = np.bincount(ctx, minlength=n_c)
    rows = np.argsort(ctx, kind="stable")
    start = np.cumsum(per) - per
    slot = np.arange(rows.size) - start[ctx[rows]]
    width = max(int(per.max(initial=0)), 1)
    ties = np.zeros((n_c, width))
    decided = np.zeros((n_c, width))
    judge = np.zeros((n_c, width), dtype=np.int64)
    t = np.asarray(pc.t1 + pc.t2, dtype=float)
    at = (ctx[rows], slot)
    ties[at] = t[rows]
    decided[at] = np.asarray(pc.k_plus + pc.k_minus, dtype=float)[rows] - t[rows]
    judge[at] = np.asarray(pc.judge, dtype=np.int64)[rows]
    return ties, decided, judge


def _context_logp(
    value: Any,
    log_rates: Any,
    tie_logit: Any,
    tie_rho: Any,
    *,
    tables: tuple[np.ndarray, ...],
    ties: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
    dispersion: bool = False,
) -> Any:
    """``logp`` of the ``contexts`` node: the order sum plus the context's tie terms.

    The tables enter as constants of this graph, not as parameters of the node: PyMC would
    hand parameters over with leading broadcast dimensions, and their reshapes would reach the
    kernel with a layout its loops cannot vectorise. The parameters are reshaped to their core
    shapes. ``ties`` holds the tie groups (:func:`_tie_groups`: ties, decided verdicts and the
    judge, ``(C, M)``): a binomial term per group, or with ``dispersion`` a beta-binomial
    (:func:`tie_dispersion_logp`), summed per context.
    """
    log_rates = pt.as_tensor(log_rates)
    log_rates = log_rates.reshape((log_rates.shape[-2], log_rates.shape[-1]))
    logp = OrderLogp()(log_rates, *(pt.as_tensor(x) for x in tables))[0]
    if ties is not None:  # one rate per judge, the same under every order
        t, d, judge = ties
        eta = pt.as_tensor(tie_logit)
        eta = eta.reshape((eta.shape[-1],))
        if dispersion:
            rho = pt.as_tensor(tie_rho)
            rho = rho.reshape((rho.shape[-1],))
            kappa = 1.0 / rho - 1.0
            a = (pt.sigmoid(eta) * kappa)[judge]
            b = (pt.sigmoid(-eta) * kappa)[judge]
            kappa = kappa[judge]
            g = pt.gammaln
            cell = g(t + a) - g(a) + g(d + b) - g(b) - g(t + d + kappa) + g(kappa)
            logp = logp + cell.sum(axis=-1)
        else:
            eta = eta[judge]
            logp = logp + (t * -pt.softplus(-eta) + d * -pt.softplus(eta)).sum(axis=-1)
    return logp


def tie_dispersion_logp(
    ties: np.ndarray, decided: np.ndarray, tie_rate: float, tie_rho: float
) -> np.ndarray:
    """Log-probability of each context's tie verdicts under one tie rate that varies by context
    (``tie_dispersion=True``): each context's tie probability ~ Beta with mean ``tie_rate`` and
    intra-context correlation ``tie_rho``, integrated out.

    The probability of the sequence of verdicts (ties and decided ones), not of the count: the
    binomial coefficient is left out, as the model with one tie rate leaves it out, so the two
    are scored on the same observations (PSIS-LOO compares them). As ``tie_rho`` → 0 it is the
    one-rate model's ``t log τ + d log(1 − τ)``.

    Parameters
    ----------
    ties, decided : float arrays
        Tie and decided verdicts per context (one judge).
    tie_rate, tie_rho : float

    Returns
    -------
    float array
        ``log B(t + a, d + b) − log B(a, b)`` with ``a = τ κ``, ``b = (1 − τ) κ``,
        ``κ = 1 / ρ − 1``.

    Examples
    --------
    >>> from scipy.special import comb
    >>> from scipy.stats import betabinom
    >>> lp = tie_dispersion_logp(np.array([3.0]), np.array([9.0]), 0.2, 0.1)
    >>> kappa = 1 / 0.1 - 1
    >>> by_hand = betabinom.logpmf(3, 12, 0.2 * kappa, 0.8 * kappa) - np.log(comb(12, 3))
    >>> bool(np.isclose(lp[0], by_hand))
    True
    """
    from scipy.special import gammaln

    t = np.asarray(ties, dtype=float)
    d = np.asarray(decided, dtype=float)
    kappa = 1.0 / tie_rho - 1.0
    a, b = tie_rate * kappa, (1.0 - tie_rate) * kappa
    return (
        gammaln(t + a) - gammaln(a) + gammaln(d + b) - gammaln(b)
        - gammaln(t + d + kappa) + gammaln(kappa)
    )  # fmt: skip


class _OrderModel:
    """What the two hard-truth models share (mixed in before their strength-model parent)."""

    observed_name: ClassVar[str] = "contexts"
    #: The truth is an order per context (no strengths, no σ_s): SBC simulates its logs with
    #: :func:`~bayes_pairwise.simulate.order_counts`.
    hard_truth: ClassVar[bool] = True
    direct_rates: ClassVar[str | None] = None  # PyTensor's graph with the kernel's Op
    caveat_kind: ClassVar[str | None] = None

    def __init__(self, *, tie_dispersion: bool | str = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)  # type: ignore[call-arg]
        self.tie_dispersion = tie_dispersion

    @property
    def prior_kinds(self) -> dict[str, str]:
        kinds = dict(super().prior_kinds)  # type: ignore[misc]
        for name in ("sigma_s", "tie_closeness"):
            kinds.pop(name)
        kinds["tie_rho"] = "unit"
        return kinds

    def _check_data(self, data: Comparisons) -> None:
        super()._check_data(data)  # type: ignore[misc]
        if self.tie_closeness:  # type: ignore[attr-defined]
            raise DesignError(
                f"{type(self).__name__} sums the truth out per context with a tie rate per "
                "judge (or per position, tie_positional=True) that does not depend on how close "
                "the texts are: tie_closeness needs the strength models (uniform, positional)"
            )
        if tie_dispersion_group(self.tie_dispersion):
            self._check_dispersion(data)
        if self.resolved_sampler()["nuts_sampler"] in JAX_SAMPLERS:  # type: ignore[attr-defined]
            raise DesignError(
                f"{type(self).__name__}'s kernel has no JAX form: fit it with nutpie or PyMC's "
                "NUTS (nuts_sampler='auto', 'nutpie' or 'pymc')"
            )
        self._tables(self._prepared(data), self._tie_positional(data))  # type: ignore[attr-defined]

    def _check_dispersion(self, data: Comparisons) -> None:
        """``tie_dispersion`` needs one tie rate per judge, modelled, from whole verdicts, and
        by pair, some pair a judge saw more than once."""
        name = type(self).__name__
        by = tie_dispersion_group(self.tie_dispersion)
        if not self.models_ties(data):  # type: ignore[attr-defined]
            raise DesignError(
                f"{name}(tie_dispersion={self.tie_dispersion!r}) lets the tie rate vary by {by}, "
                "but this fit models no ties (the log has none, or ties='drop'): leave "
                "tie_dispersion off"
            )
        if self.tie_positional:  # type: ignore[attr-defined]
            raise DesignError(
                f"{name}: tie_dispersion (a tie rate that varies by {by}) and tie_positional "
                "(one per position of the better item) do not combine: the positional tie "
                f"rates enter every order's likelihood, the dispersed one is summed out per "
                f"{by} beside it; choose one"
            )
        if data.has_weights:
            raise DesignError(
                f"{name}(tie_dispersion={self.tie_dispersion!r}) needs whole verdicts per {by} "
                "(a beta-binomial count); this log is weighted"
            )
        if by == "pair":
            pc = pair_counts(data)
            shown = np.asarray(pc.k_plus + pc.k_minus)
            if not np.any(shown >= 2):
                raise DesignError(
                    f"{name}(tie_dispersion='pair'): no judge saw any pair more than once in "
                    "this log, so how ties cluster by pair (tie_rho) is not identified; show "
                    "pairs in both orders, or let the tie rate vary by context "
                    "(tie_dispersion='context')"
                )

    def _tie_positional(self, data: Comparisons) -> bool:
        """Tie rates by the better item's position: asked for, and the ties are modelled."""
        return bool(self.tie_positional) and self.models_ties(data)  # type: ignore[attr-defined]

    def _tie_dispersed(self, data: Comparisons) -> str | None:
        """What a tie rate that varies is grouped by (``"context"`` or ``"pair"``,
        :func:`~bayes_pairwise.conventions.tie_dispersion_group`): asked for, ties modelled, one
        rate per judge; else None."""
        by = tie_dispersion_group(self.tie_dispersion)
        if by is None or not self.models_ties(data) or self._tie_positional(data):  # type: ignore[attr-defined]
            return None
        return by

    def _tables(self, data: Comparisons, tie_positional: bool = False) -> tuple[Any, OrderTables]:
        pc = pair_counts(data, weighted=data.has_weights)
        tables = order_tables(
            pc, np.asarray(data.item_context), data.n_contexts, tie_positional=tie_positional
        )
        rows = data.n_judges * (2 if tie_positional else 1)
        probe = np.log(np.full((rows, 4), 0.5))
        bad = np.flatnonzero(~np.isfinite(order_logp(probe, *tables.arrays())[0]))
        if bad.size:
            names = [data.contexts[c] for c in bad[:5]]
            raise DesignError(
                f"the gold labels of {bad.size} context(s) are cyclic (e.g. {names}): no order "
                "agrees with them. Fix the labels or fit without truth=…"
            )
        return pc, tables

    def _build(
        self, data: Comparisons, priors: dict[str, dict[str, Any]], likelihood: str
    ) -> pm.Model:
        tie_model = self.models_ties(data)  # type: ignore[attr-defined]
        tie_pos = self._tie_positional(data)
        dispersed = self._tie_dispersed(data)
        data = self._prepared(data)  # type: ignore[attr-defined]
        pc, tables = self._tables(data, tie_pos)
        coords = {
            "item": list(data.items),
            "judge": list(data.judges),
            "context": list(data.contexts),
            "pair": pair_labels(pc),
            "count": ["n1", "n2", "t1", "t2"] if tie_model else ["n1", "n2"],
            "order": ["k_plus", "k_minus"],
        }
        n_c, n_j = data.n_contexts, data.n_judges
        observed = observed_counts(pc, tie_model)
        with pm.Model(coords=coords) as model:
            # the design, kept with the fit (save / load_model rebuild the log from it); the
            # likelihood reads the order tables built from the same pair rows
            pm.Data("item_context", np.asarray(data.item_context, dtype=np.int64), dims="item")
            pm.Data("pair_i", np.asarray(pc.i, dtype=np.int64), dims="pair")
            pm.Data("pair_j", np.asarray(pc.j, dtype=np.int64), dims="pair")
            pm.Data("pair_judge", np.asarray(pc.judge, dtype=np.int64), dims="pair")
            k = np.stack([pc.k_plus, pc.k_minus], axis=1).astype(observed.dtype)
            pm.Data("k", k, dims=("pair", "order"))
            pm.Data("pair_wins", observed, dims=("pair", "count"))
            if pc.has_truth:
                pm.Data("pair_truth", np.asarray(pc.truth, dtype=np.int64), dims="pair")
            eps_plus, eps_minus = self._rates(priors)  # type: ignore[attr-defined]
            log_rates = pt.stack(
                [pt.log(eps_plus), pt.log1p(-eps_plus), pt.log(eps_minus), pt.log1p(-eps_minus)],
                axis=1,
            )
            ties = None
            if tie_pos:  # τ₊ / τ₋ by the better item's position: in the tables, per order
                a_plus, a_minus = tie_logits_by_position(priors)
                tie_rows = pt.stack(
                    [
                        -pt.softplus(-a_plus),
                        -pt.softplus(a_plus),
                        -pt.softplus(-a_minus),
                        -pt.softplus(a_minus),
                    ],
                    axis=1,
                )
                log_rates = pt.concatenate([log_rates, tie_rows], axis=0)
                tie_logit = pt.zeros(2 * n_j)  # unused: one per row of log_rates
            elif tie_model:
                tie_logit = make_prior("tie_logit", priors["tie_logit"], "real", dims="judge")
                pm.Deterministic("tie_rate", pm.math.sigmoid(tie_logit), dims="judge")
                ties = _tie_groups(pc, data, dispersed or "context")
            else:
                tie_logit = pt.zeros(n_j)
            if dispersed:
                tie_rho = make_prior("tie_rho", priors["tie_rho"], "unit", dims="judge")
            else:
                tie_rho = pt.zeros(n_j)
            pm.CustomDist(
                "contexts",
                log_rates,
                tie_logit,
                tie_rho,
                logp=functools.partial(
                    _context_logp,
                    tables=tables.arrays(),
                    ties=ties,
                    dispersion=bool(dispersed),
                ),
                signature="(j,q),(j),(j)->()",
                dtype="int64",
                observed=np.arange(n_c, dtype=np.int64),
                dims="context",
            )
        return model

    def _direct(
        self, data: Comparisons, priors: dict[str, dict[str, Any]], likelihood: str
    ) -> tuple[OrderDensity | None, str]:
        """The log-density written out for nutpie (:mod:`.order_density`): the callbacks are
        cached once per machine, where the graph's hold the tables and compile per process."""
        tie_model = self.models_ties(data)  # type: ignore[attr-defined]
        tie_pos = self._tie_positional(data)
        dispersed = self._tie_dispersed(data)
        data = self._prepared(data)  # type: ignore[attr-defined]
        pc, tables = self._tables(data, tie_pos)
        return order_density(
            tables,
            n_judges=data.n_judges,
            positional=self.positional,  # type: ignore[attr-defined]
            tie_counts=_tie_counts(pc, data) if tie_model and not tie_pos else None,
            priors=priors,
            tie_positional=tie_pos,
            tie_dispersion=bool(dispersed),
            tie_groups=_tie_groups(pc, data, dispersed) if dispersed else None,
        )

    def _derived_posterior(self, idata: Any, data: Comparisons) -> None:
        """With tie rates by position, ``tie_rate`` [judge]: the expected share of ties among
        the judge's verdicts, as the strength models report it (so that it meets the observed
        tie share in the cross-check). A verdict with the better item first is a tie with
        probability τ₊, second τ₋, so per draw ``tie_rate = a τ₊ + (1 − a) τ₋`` with ``a``
        the expected share of the judge's verdicts that show the better item first: each pair
        row's P(i ≻ j) from the exact posterior over its context's orders
        (:func:`~bayes_pairwise.pymc_models.order_kernel.order_pair_probabilities`), averaged
        over :data:`SHARE_DRAWS` draws of the rates. Where every pair is
        shown as often in each order, ``a`` = 1/2 whatever the orders."""
        if not self._tie_positional(data):
            return
        pc, tables = self._tables(self._prepared(data), True)  # type: ignore[attr-defined]
        post = idata.posterior
        a = better_first_share(post, pc, tables, np.asarray(data.item_context))
        share = xr.DataArray(a, dims="judge", coords={"judge": post.coords["judge"].values})
        tie_rate = share * post["tie_rate_plus"] + (1.0 - share) * post["tie_rate_minus"]
        post["tie_rate"] = tie_rate.transpose("chain", "draw", "judge")

    def reported_names(self, strengths: bool = True) -> list[str]:
        """Posterior variables presented as findings (no strengths: the order is summed out)."""
        names = super().reported_names(strengths=False)  # type: ignore[misc]
        if "tie_rho" in self.idata_.posterior:  # type: ignore[attr-defined]
            names.append("tie_rho")
        return names

    @property
    def strengths_(self) -> Any:
        raise DesignError(
            f"{type(self).__name__} sums the order of each context out and estimates no "
            "strengths: ranks_ gives each item's posterior rank within its context (and "
            "ranks_by_name_ pools it by name); for strengths, fit the strength models "
            "(uniform, positional) or Bradley–Terry"
        )

    @property
    def ranks_(self) -> pd.DataFrame:
        """Posterior rank of every item within its context (1 = best), the order summed out.

        The posterior over each context's orders, given the judges' rates, is exact
        (:func:`~bayes_pairwise.pymc_models.order_kernel.order_rank_probabilities`); it is
        averaged over :data:`RANK_DRAWS` posterior draws of the rates (a MAP or Laplace fit:
        its draws), so the judges' errors and the uncertainty in their rates are both taken
        into account. Gold labels fix the orders they decide.

        Returns
        -------
        pandas.DataFrame
            Indexed by item label: ``context``, ``name``, ``size`` (items in the context),
            ``expected_rank`` and ``rank_sd``, ``p_best`` (P(rank 1)), ``beats_share`` (the
            expected share of the context's other items it is truly better than:
            (size − expected_rank) / (size − 1)), and ``p_rank_1`` … ``p_rank_K``.

        Examples
        --------
        >>> from bayes_pairwise.simulate import simulate_round_robin
        >>> sim = simulate_round_robin(4, eps=0.1, n_contexts=30, random_seed=0)
        >>> m = UniformOrder().fit(sim.data, method="map", random_seed=0)
        >>> r = m.ranks_
        >>> bool(np.allclose(r.groupby("context")["p_best"].sum(), 1.0))
        True
        """
        self._check_fitted()  # type: ignore[attr-defined]
        cached = getattr(self, "_ranks_cache", None)
        if cached is not None and cached[0] is self.idata_:  # type: ignore[attr-defined]
            return cached[1].copy()
        table = _rank_table(self.idata_, self.settings_)  # type: ignore[attr-defined]
        self._ranks_cache = (self.idata_, table)  # type: ignore[attr-defined]
        return table.copy()

    @property
    def ranks_by_name_(self) -> pd.DataFrame:
        """:attr:`ranks_` pooled over contexts by item name (e.g. one row per answering
        system), best first.

        Returns
        -------
        pandas.DataFrame
            Indexed by name: ``contexts`` (how many it appears in), ``beats_share`` (mean over
            its contexts of the expected share of the other items it is truly better than),
            ``p_best`` (mean P(best in its context): the expected share of its contexts it
            wins) and ``expected_rank`` (mean; contexts of different sizes make this harder to
            compare than ``beats_share``).

        Examples
        --------
        >>> from bayes_pairwise.simulate import simulate_round_robin
        >>> sim = simulate_round_robin(4, eps=0.1, n_contexts=30, random_seed=0)
        >>> m = UniformOrder().fit(sim.data, method="map", random_seed=0)
        >>> m.ranks_by_name_["contexts"].tolist()
        [30, 30, 30, 30]
        """
        return rank_table_by_name(self.ranks_)

    def verdict_errors(self, data: Comparisons) -> pd.DataFrame:
        """Posterior probability that each verdict contradicts its context's true order.

        The truth of a context is one order of its items, summed out exactly: given the
        judges' rates, P(a ≻ b | log) is exact for every pair of the context
        (:func:`~bayes_pairwise.pymc_models.order_kernel.order_pair_probabilities`, every
        verdict of the context weighing in), and it is averaged over :data:`RANK_DRAWS`
        posterior draws of the rates. A verdict for ``a`` over ``b`` is an error with
        probability P(b ≻ a | log); a tie has none (NaN); a gold label fixes the pair.

        Parameters
        ----------
        data : Comparisons
            The log the model was fitted to.

        Returns
        -------
        pandas.DataFrame
            :func:`~bayes_pairwise.pymc_models.verdicts.verdict_error_probabilities`'
            columns: ``row``, ``judge``, ``first``, ``second``, ``outcome``, ``p_error``,
            ``p_first_better``.

        Examples
        --------
        >>> from bayes_pairwise.simulate import simulate_round_robin
        >>> sim = simulate_round_robin(4, eps=0.1, n_contexts=30, random_seed=0)
        >>> m = UniformOrder().fit(sim.data, method="map", random_seed=0)
        >>> v = m.verdict_errors(sim.data)
        >>> bool(v.p_error.max() <= 1.0), v.columns.tolist()[-2:]
        (True, ['p_error', 'p_first_better'])
        """
        from bayes_pairwise.pymc_models.verdicts import check_fitted_to, verdict_frame

        check_fitted_to(self, data)
        post = self.idata_.posterior  # type: ignore[attr-defined]
        _, tables, item_context = _stored_design(self.idata_, self.settings_)  # type: ignore[attr-defined]
        prob = _mean_over_draws(
            order_pair_probabilities, post, tables, item_context.size, RANK_DRAWS
        )
        row, local = _kernel_rows(item_context)
        first = np.asarray(data.first, dtype=np.int64)
        second = np.asarray(data.second, dtype=np.int64)
        return verdict_frame(data, prob[row[first], local[second]])

    def sample_posterior_predictive(
        self,
        *,
        random_seed: int | np.random.Generator | None = None,
        progress: bool = False,
        point_draws: int = 500,
        max_draws: int = PPC_DRAWS,
    ) -> Any:
        """Add replicated logs to ``idata_`` (group ``posterior_predictive``, variable ``wins``
        with dims ``chain, draw, pair, count``, as the strength models store it).

        Each replicate takes one posterior draw of the rates, draws one order of every context
        from its exact posterior given those rates and the log
        (:func:`~bayes_pairwise.pymc_models.order_kernel.order_sample`), then the log's verdicts
        again from the model's generative story (:func:`~bayes_pairwise.simulate.order_counts`:
        the same pairs shown as often in each order; ties, then errors). A MAP fit gives
        ``point_draws`` replicates at the mode; a posterior is thinned to at most ``max_draws``
        evenly spaced draws (one chain in the group).

        Parameters
        ----------
        random_seed : int or Generator, optional
        progress : bool
            Accepted for the strength models' signature (the draws take seconds).
        point_draws : int
            Replicates for a one-draw (MAP) posterior.
        max_draws : int
            Most replicates from a longer posterior.

        Returns
        -------
        arviz.InferenceData
            ``idata_``, extended in place.

        Examples
        --------
        >>> from bayes_pairwise.simulate import simulate_round_robin
        >>> sim = simulate_round_robin(4, eps=0.1, n_contexts=30, random_seed=0)
        >>> m = UniformOrder().fit(sim.data, method="map", random_seed=0)
        >>> pp = m.sample_posterior_predictive(random_seed=1, point_draws=20).posterior_predictive
        >>> pp["wins"].shape   # (chain, draw, pair, count)
        (1, 20, 180, 2)
        """
        self._check_replicable()  # type: ignore[attr-defined]
        settings = self.settings_  # type: ignore[attr-defined]
        seed = self._seed(random_seed)  # type: ignore[attr-defined]
        rng = np.random.default_rng(seed)
        idata = self.idata_  # type: ignore[attr-defined]
        post = idata.posterior
        n = post.sizes["chain"] * post.sizes["draw"]
        draws = (
            np.zeros(int(point_draws), dtype=np.int64)
            if n == 1
            else _draw_indices(post, int(max_draws))
        )
        pc, tables, item_context = _stored_design(idata, settings)
        observed = idata.constant_data["pair_wins"]
        ties = observed.shape[1] == 4
        rows = _kernel_rows(item_context)[0]
        arrays = tables.arrays()[:4]
        values = _rate_values(post, draws)
        tie_by = tie_dispersion_group(settings["params"].get("tie_dispersion")) or "context"
        out = np.empty((draws.size, *observed.shape), dtype=np.int64)
        for t, rates in enumerate(_log_rates(post, draws)):
            rank = order_sample(rates, *arrays, rng=rng)[rows]
            out[t] = order_counts(
                pc,
                item_context,
                rank,
                {k: v[t] for k, v in values.items()},
                ties,
                rng,
                tie_by=tie_by,
            )
        da = xr.DataArray(
            out[None],
            dims=("chain", "draw", "pair", "count"),
            coords={
                "chain": [0],
                "draw": np.arange(draws.size),
                "pair": observed.coords["pair"].values,
                "count": observed.coords["count"].values,
            },
        )
        group = xr.Dataset({"wins": da})
        group.attrs["random_seed"] = seed
        group.attrs["plug_in"] = int(n == 1)
        group.attrs["posterior_draws"] = int(draws.size)
        if "posterior_predictive" in idata.groups():
            del idata.posterior_predictive
        idata.add_groups({"posterior_predictive": group})
        return idata


def _judge_draws(post: Any, name: str, draws: np.ndarray) -> np.ndarray:
    """``(D, J)``: a per-judge posterior variable at the chosen flat draw indices."""
    x = np.asarray(post[name].transpose("chain", "draw", "judge"), dtype=float)
    return x.reshape(-1, x.shape[-1])[draws]


def _rate_values(post: Any, draws: np.ndarray) -> dict[str, np.ndarray]:
    """The rates :func:`~bayes_pairwise.simulate.order_counts` reads, as ``(D, J)`` arrays at
    the flat draws."""
    names = ("eps", "eps_plus", "eps_minus", "tie_rate", "tie_rate_plus", "tie_rate_minus",
             "tie_rho")  # fmt: skip
    return {name: _judge_draws(post, name, draws) for name in names if name in post}


def _stored_design(
    idata: Any, settings: dict[str, Any]
) -> tuple[PairCounts, OrderTables, np.ndarray]:
    """The pair rows and order tables of a fit, from the design it keeps (``constant_data``),
    and the context of every item: the same after :func:`~bayes_pairwise.load_model`."""
    cd = idata.constant_data
    wins = np.asarray(cd["pair_wins"], dtype=float)
    k = np.asarray(cd["k"], dtype=float)
    n = wins.shape[0]
    t1, t2 = (wins[:, 2], wins[:, 3]) if wins.shape[1] == 4 else (np.zeros(n), np.zeros(n))
    weighted = bool(settings.get("data", {}).get("weighted"))
    judges = tuple(str(v) for v in idata.posterior.coords["judge"].values)
    item_context = np.asarray(cd["item_context"], dtype=np.int64)
    pc = PairCounts(
        i=np.asarray(cd["pair_i"], dtype=np.int64),
        j=np.asarray(cd["pair_j"], dtype=np.int64),
        judge=np.asarray(cd["pair_judge"], dtype=np.int64),
        context=item_context[np.asarray(cd["pair_i"], dtype=np.int64)],
        k_plus=k[:, 0] if weighted else np.rint(k[:, 0]).astype(np.int64),
        k_minus=k[:, 1] if weighted else np.rint(k[:, 1]).astype(np.int64),
        # the stored wins are the decided ones: n = decided + half the ties, as pair_counts has
        n1=wins[:, 0] + 0.5 * t1,
        n2=wins[:, 1] + 0.5 * t2,
        items=tuple(str(v) for v in cd.coords["item"].values),
        judges=judges,
        t1=t1 if weighted else np.rint(t1).astype(np.int64),
        t2=t2 if weighted else np.rint(t2).astype(np.int64),
        truth=np.asarray(cd["pair_truth"], dtype=np.int64) if "pair_truth" in cd else None,
        weighted=weighted,
    )
    n_contexts = len(settings.get("layout", {}).get("contexts", [])) or int(item_context.max()) + 1
    tie_pos = "tie_rate_plus" in idata.posterior
    return pc, order_tables(pc, item_context, n_contexts, tie_positional=tie_pos), item_context


def _log_rates(post: Any, draws: np.ndarray) -> np.ndarray:
    """``(D, J, 4)`` log rates at the chosen flat draw indices of a posterior."""

    def flat(name: str) -> np.ndarray:
        return _judge_draws(post, name, draws)

    ep, em = (flat("eps"), flat("eps")) if "eps" in post else (flat("eps_plus"), flat("eps_minus"))
    rates = np.stack([np.log(ep), np.log1p(-ep), np.log(em), np.log1p(-em)], axis=-1)
    if "tie_rate_plus" in post:  # the tie rates by position: a second block of rows
        tp, tm = flat("tie_rate_plus"), flat("tie_rate_minus")
        ties = np.stack([np.log(tp), np.log1p(-tp), np.log(tm), np.log1p(-tm)], axis=-1)
        rates = np.concatenate([rates, ties], axis=1)
    return rates


def _draw_indices(post: Any, most: int = RANK_DRAWS) -> np.ndarray:
    """``most`` evenly spaced flat draw indices of a posterior (all when fewer)."""
    n = post.sizes["chain"] * post.sizes["draw"]
    return np.unique(np.linspace(0, n - 1, min(n, most)).round().astype(np.int64))


def _kernel_rows(item_context: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per item: its row in the kernels' outputs (context by context, items by index) and its
    local index within its context (the kernels' column of P(· ≻ item))."""
    order = np.argsort(item_context, kind="stable")
    row = np.empty(item_context.size, dtype=np.int64)
    row[order] = np.arange(item_context.size)
    starts = np.searchsorted(item_context[order], item_context[order], side="left")
    local = np.empty_like(row)
    local[order] = np.arange(item_context.size) - starts
    return row, local


def _mean_over_draws(
    kernel: Any, post: Any, tables: OrderTables, n_items: int, most: int
) -> np.ndarray:
    """``kernel`` (:func:`order_rank_probabilities` or :func:`order_pair_probabilities`)
    averaged over ``most`` evenly spaced posterior draws of the rates (kernel rows)."""
    arrays = tables.arrays()[:4]
    prob = np.zeros((n_items, int(tables.size.max(initial=1))))
    draws = _draw_indices(post, most)
    for rates in _log_rates(post, draws):
        prob += kernel(np.ascontiguousarray(rates), *arrays)
    return prob / draws.size


def better_first_share(
    post: Any, pc: Any, tables: OrderTables, item_context: np.ndarray
) -> np.ndarray:
    """Per judge, the expected share of its verdicts that show the truly better item first,
    under the order model's posterior (see :meth:`_OrderModel._derived_posterior`).

    Parameters
    ----------
    post : xarray.Dataset
        The fit's posterior (``eps`` or ``eps_plus``/``eps_minus``, with tie rates by position
        when ``tables`` hold them).
    pc : PairCounts
        The pair rows the tables were built from.
    tables : OrderTables
    item_context : int array
        Context of every item.

    Returns
    -------
    float array (n_judges,)

    Examples
    --------
    >>> import bayes_pairwise as bp
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(4, eps=0.1, n_contexts=20, random_seed=0)
    >>> m = bp.UniformOrder().fit(sim.data, method="map", random_seed=0)
    >>> pc = bp.pair_counts(sim.data)  # every pair once in each order: a = 1/2
    >>> tables = order_tables(pc, np.asarray(sim.data.item_context), sim.data.n_contexts)
    >>> better_first_share(m.idata_.posterior, pc, tables, np.asarray(sim.data.item_context))
    array([0.5])
    """
    prob = _mean_over_draws(order_pair_probabilities, post, tables, item_context.size, SHARE_DRAWS)
    row, local = _kernel_rows(item_context)
    p = prob[row[np.asarray(pc.i)], local[np.asarray(pc.j)]]
    kp = np.asarray(pc.k_plus, dtype=float)
    km = np.asarray(pc.k_minus, dtype=float)
    n_j = len(pc.judges)
    first = np.bincount(pc.judge, weights=kp * p + km * (1.0 - p), minlength=n_j)
    total = np.bincount(pc.judge, weights=kp + km, minlength=n_j)
    return first / np.maximum(total, 1e-300)


def _rank_table(idata: Any, settings: dict[str, Any]) -> pd.DataFrame:
    """:attr:`_OrderModel.ranks_` of a fit (see there)."""
    _, tables, item_context = _stored_design(idata, settings)
    post = idata.posterior
    draws = _draw_indices(post)
    prob = _mean_over_draws(order_rank_probabilities, post, tables, item_context.size, RANK_DRAWS)
    by_item = prob[_kernel_rows(item_context)[0]]  # kernel rows: context by context
    size = tables.size[item_context]
    ranks = np.arange(1, prob.shape[1] + 1, dtype=float)
    expected = by_item @ ranks
    spread = np.sqrt(np.maximum(by_item @ ranks**2 - expected**2, 0.0))
    layout = settings.get("layout", {})
    items = [str(v) for v in idata.constant_data.coords["item"].values]
    contexts = list(layout.get("contexts", [])) or [str(c) for c in range(int(size.size))]
    table = pd.DataFrame(
        {
            "context": [str(contexts[c]) for c in item_context],
            "name": list(layout.get("item_names", items)),
            "size": size.astype(np.int64),
            "expected_rank": expected,
            "rank_sd": spread,
            "p_best": by_item[:, 0],
            "beats_share": np.where(size > 1, (size - expected) / np.maximum(size - 1, 1), np.nan),
        },
        index=pd.Index(items, name="item"),
    )
    for r in range(prob.shape[1]):
        table[f"p_rank_{r + 1}"] = by_item[:, r]
    table.attrs["rank_draws"] = int(draws.size)
    return table


def rank_table_by_name(ranks: pd.DataFrame) -> pd.DataFrame:
    """A :attr:`PositionalOrder.ranks_` table pooled over contexts by item name, best first
    (see :attr:`PositionalOrder.ranks_by_name_`).

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.DataFrame({"context": ["q1", "q1", "q2", "q2"], "name": ["a", "b", "a", "b"],
    ...                   "expected_rank": [1.2, 1.8, 1.0, 2.0], "p_best": [0.8, 0.2, 1.0, 0.0],
    ...                   "beats_share": [0.8, 0.2, 1.0, 0.0]})
    >>> rank_table_by_name(r)["p_best"].tolist()
    [0.9, 0.1]
    """
    grouped = ranks.groupby("name", sort=False)
    out = pd.DataFrame(
        {
            "contexts": grouped["context"].nunique().astype(np.int64),
            "beats_share": grouped["beats_share"].mean(),
            "p_best": grouped["p_best"].mean(),
            "expected_rank": grouped["expected_rank"].mean(),
        }
    )
    out.index.name = "name"
    out = out.sort_values(["beats_share", "p_best"], ascending=False, kind="stable")
    out.attrs.update(ranks.attrs)
    return out


class UniformOrder(_OrderModel, UniformError):  # noqa: N818 - a model, not an exception
    """Uniform judge error with a hard truth: one total order per context, summed out.

    :class:`UniformError` in the limit σ_s → ∞ (METHODS §3's model): no strengths, the same ε,
    a few leapfrog steps per draw where the strength model needs hundreds (see
    :mod:`bayes_pairwise.pymc_models.order`).

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(6, eps=0.2, n_contexts=60, random_seed=0)
    >>> m = UniformOrder().fit(sim.data, method="map", random_seed=0)
    >>> bool(abs(float(m.idata_.posterior["eps"].values.ravel()[0]) - 0.2) < 0.05)
    True
    """

    default_spec: ClassVar[str] = "uniform_order"


class PositionalOrder(_OrderModel, PositionalBias):
    """Positional judge error with a hard truth: one total order per context, summed out.

    :class:`PositionalBias` in the limit σ_s → ∞ (METHODS §3's model): no strengths, the same
    ε₊ and ε₋; on the QLoRA GPT-4 log a few leapfrog steps per draw instead of 327 (see
    :mod:`bayes_pairwise.pymc_models.order`).

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(6, eps_plus=0.05, eps_minus=0.25, n_contexts=80,
    ...                            random_seed=0)
    >>> m = PositionalOrder().fit(sim.data, method="map", random_seed=0)
    >>> post = m.idata_.posterior
    >>> bool(float(post["eps_minus"].values.ravel()[0]) > float(post["eps_plus"].values.ravel()[0]))
    True
    """

    default_spec: ClassVar[str] = "positional_order"


def order_model_note(model: Any, data: Comparisons, *, method: str = "nuts") -> str | None:
    """What to say before a strength model's NUTS fit whose hard-truth limit fits this log.

    Where :func:`~bayes_pairwise.caveats.order_model_for` names an order model: its name and
    why, with the log's contexts counted. ``None`` otherwise. How long this log's trajectories
    turned out is the fit's to say, after it (the ``long_trajectories`` caveat), not a number
    fixed here.

    Examples
    --------
    >>> from bayes_pairwise.simulate import simulate_round_robin
    >>> sim = simulate_round_robin(7, eps=0.1, n_contexts=30, random_seed=0)
    >>> print(order_model_note(PositionalBias(), sim.data))  # doctest: +NORMALIZE_WHITESPACE
    30 contexts of 7 items: --model positional_order fits the same error rates with each
    context's order summed out (the σ_s → ∞ limit of positional, METHODS §3) — a few leapfrog
    steps per draw where a judge near a hard truth makes positional take hundreds; it ranks
    items within their contexts instead of estimating strengths
    >>> order_model_note(PositionalBias(), simulate_round_robin(13, random_seed=0).data) is None
    True
    """
    order = order_model_for(model, data, method=method)
    if order is None:
        return None
    name = model.name
    return (
        f"{context_sizes_text(data)}: --model {order} fits the same error rates "
        f"with each context's order summed out (the σ_s → ∞ limit of {name}, METHODS §3) — a "
        f"few leapfrog steps per draw where a judge near a hard truth makes {name} take "
        "hundreds; it ranks items within their contexts instead of estimating strengths"
    )
