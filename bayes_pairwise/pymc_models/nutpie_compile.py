"""Compile a PyMC model for nutpie with its C callbacks cached on disk.

``nutpie.compile_pymc_model`` builds the log-density (and gradient) with PyTensor's numba
backend, which PyTensor caches on disk, keyed by the graph. It then wraps that function in two
numba C callbacks (``numba.cfunc``) for its Rust sampler. Those wrappers close over the
compiled function, so numba cannot cache them: every new process compiles them again, and the
compile pulls the whole log-density through LLVM once more (10–20 s of the 15–30 s that
``compile_pymc_model`` takes on two cores; see ``docs/src/speed.md``).

:func:`compile_nutpie_model` builds the same model, but writes the two wrappers as source with
a cache key made of PyTensor's own key of the log-density graph (its ops and constants: the
data, for a frozen model) and the dimensions. Numba then caches the callbacks next to
PyTensor's numba cache, and a new process loads them instead of compiling. Where the key is not
available (a graph with an uncacheable op, shared variables, an unknown nutpie version) it falls
back to ``nutpie.compile_pymc_model``, so the result is the same either way; only the time
differs.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import warnings
from typing import Any

import numpy as np

from bayes_pairwise.errors import NUMBA_NO_CACHE_NOTICE

__all__ = ["compile_nutpie_model"]

#: Bumped when the wrapper source below changes, so that old cached callbacks are not reused.
_WRAPPER_VERSION = "2"

_LOGP_SRC = """
def bayes_pairwise_nutpie_logp(dim, x_, out_, logp_, user_data_):
    if dim != N_DIM:
        return -1
    try:
        x = carray(x_, (N_DIM,))
        out = carray(out_, (N_DIM,))
        logp = carray(logp_, ())
        logp_val, grad = inner(x)
        logp[()] = logp_val
        finite = True
        for i in range(N_DIM):
            out[i] = grad[i]
            if not np.isfinite(grad[i]):
                finite = False
        if not finite:
            return 3
        if not np.isfinite(logp_val):
            return 4
    except Exception:
        return 1
    return 0
"""

_EXPAND_SRC = """
def bayes_pairwise_nutpie_expand(dim, expanded, x_, out_, user_data_):
    if dim != N_DIM:
        return -1
    if expanded != N_EXPANDED:
        return -1
    try:
        x = carray(x_, (N_DIM,))
        out = carray(out_, (N_EXPANDED,))
        (values,) = inner(x)
        for i in range(N_EXPANDED):
            out[i] = values[i]
    except Exception:
        return -2
    return 0
"""


def _cached_cfunc(src: str, name: str, inner: Any, sig: Any, key: str, **consts: int) -> Any:
    import numba
    from pytensor.link.numba.cache import compile_numba_function_src

    py_func = compile_numba_function_src(
        src,
        name,
        # __name__: numba rebuilds the function's environment from this module when it loads
        # the callback from its cache
        global_env={
            "__name__": __name__,
            "inner": inner,
            "carray": numba.carray,
            "np": np,
            **consts,
        },
        cache_key=key,
    )
    return numba.cfunc(sig, cache=True)(py_func)


def _key(kind: str, inner_key: str, *dims: int) -> str:
    import nutpie
    import pytensor

    versions = f"pytensor {pytensor.__version__}, nutpie {nutpie.__version__}"
    text = f"bayes_pairwise-nutpie-{kind}-v{_WRAPPER_VERSION}|{versions}|{inner_key}|{dims}"
    return hashlib.sha256(text.encode()).hexdigest()


def compile_nutpie_model(model: Any, *, require_cache: bool = False) -> Any:
    """``nutpie.compile_pymc_model(model)`` with the C callbacks cached on disk.

    Parameters
    ----------
    model : pymc.Model
        The model. The callbacks are cached when its data are frozen as constants (no shared
        variables) and every op of its graph has a PyTensor cache key; otherwise they are
        compiled as ``nutpie.compile_pymc_model`` compiles them.
    require_cache : bool
        Raise ``RuntimeError`` instead of falling back when the callbacks cannot be cached.

    Returns
    -------
    nutpie.compile_pymc.CompiledPyMCModel
        The compiled model, as ``nutpie.compile_pymc_model`` returns it.

    Examples
    --------
    >>> import pymc as pm
    >>> with pm.Model() as m:
    ...     x = pm.Normal("x", 0.0, 1.0)
    >>> compiled = compile_nutpie_model(m)  # doctest: +SKIP
    >>> compiled.n_dim  # doctest: +SKIP
    1
    """
    import pytensor

    # PyTensor's numba code without fast-math: with its flags ('contract', 'reassoc') the code
    # compiled in a process and the code loaded from the cache rounded differently, so the
    # first fit of a model on a machine drew other draws than every later one with the same
    # seed (tests/test_nutpie_compile.py). The flag is part of PyTensor's cache key.
    with warnings.catch_warnings(), pytensor.config.change_flags(numba__fastmath=False):
        warnings.filterwarnings("ignore", message=NUMBA_NO_CACHE_NOTICE, category=Warning)
        return _compile_nutpie_model(model, require_cache=require_cache)


def _compile_nutpie_model(model: Any, *, require_cache: bool) -> Any:
    import nutpie

    try:
        from nutpie import compile_pymc as cp
        from pymc.initial_point import make_initial_point_fn

        parts = (
            cp._make_functions,
            cp.CompiledPyMCModel,
            cp._prepare_dims_and_coords,
            cp.make_user_data,
            cp._wrap_with_lock,
        )
    except (ImportError, AttributeError) as exc:  # another nutpie layout
        if require_cache:
            raise RuntimeError(f"this nutpie cannot take the cached path: {exc}") from exc
        return nutpie.compile_pymc_model(model)
    make_functions, compiled_class, prepare, make_user_data, wrap_lock = parts

    # As nutpie.compile_pymc_model(model) with its defaults (numba backend, support-point start
    # jittered in every free variable).
    initial_point_fn = wrap_lock(
        make_initial_point_fn(
            model=model,
            overrides=None,
            default_strategy="support_point",
            jitter_rvs=set(model.free_RVs),
            return_transformed=True,
        )
    )
    n_dim, n_expanded, logp_pt, expand_pt, initial_point_fn, shape_info = make_functions(
        model,
        mode="NUMBA",
        compute_grad=True,
        join_expanded=True,
        pymc_initial_point_fn=initial_point_fn,
        var_names=None,
    )
    cached = _cached_callbacks(logp_pt, expand_pt, n_dim, n_expanded)
    if cached is None:
        if require_cache:
            raise RuntimeError(
                "the model's callbacks cannot be cached: it reads shared variables or an op of "
                "its graph has no PyTensor cache key"
            )
        # nutpie's own callbacks, compiled again in every process (a second PyTensor compile, on
        # a path the package's frozen models never take)
        return nutpie.compile_pymc_model(model)
    logp_cfunc, expand_cfunc = cached
    dims, coords = prepare(model, shape_info)
    return compiled_class(
        _n_dim=n_dim,
        dims=dims,
        _coords=coords,
        _shapes={name: tuple(shape) for name, _, shape in zip(*shape_info, strict=False)},
        compiled_logp_func=logp_cfunc,
        compiled_expand_func=expand_cfunc,
        initial_point_func=initial_point_fn,
        shared_data={},
        user_data=make_user_data({}, {}),
        n_expanded=n_expanded,
        shape_info=shape_info,
        logp_func=logp_pt,
        expand_func=expand_pt,
    )


def _callback_signatures() -> tuple[Any, Any]:
    """nutpie's C signatures of the log-density and expansion callbacks."""
    import numba

    types = numba.types
    logp_sig = types.int64(
        types.uint64,
        types.CPointer(types.double),
        types.CPointer(types.double),
        types.CPointer(types.double),
        types.voidptr,
    )
    expand_sig = types.int64(
        types.uint64,
        types.uint64,
        types.CPointer(types.double),
        types.CPointer(types.double),
        types.voidptr,
    )
    return logp_sig, expand_sig


def _cached_callbacks(logp_pt: Any, expand_pt: Any, n_dim: int, n_expanded: int) -> Any:
    """The two C callbacks through numba's disk cache, or None where they cannot be cached."""
    from pytensor.link.numba.cache import CACHED_SRC_FUNCTIONS

    if logp_pt.get_shared() or expand_pt.get_shared():
        return None
    logp_fn = logp_pt.vm.jit_fn
    expand_fn = expand_pt.vm.jit_fn
    logp_key = CACHED_SRC_FUNCTIONS.get(getattr(logp_fn, "py_func", None))
    expand_key = CACHED_SRC_FUNCTIONS.get(getattr(expand_fn, "py_func", None))
    if logp_key is None or expand_key is None:
        return None
    logp_sig, expand_sig = _callback_signatures()
    logp_cfunc = _cached_cfunc(
        _LOGP_SRC,
        "bayes_pairwise_nutpie_logp",
        logp_fn,
        logp_sig,
        _key("logp", logp_key, n_dim),
        N_DIM=int(n_dim),
    )
    expand_cfunc = _cached_cfunc(
        _EXPAND_SRC,
        "bayes_pairwise_nutpie_expand",
        expand_fn,
        expand_sig,
        _key("expand", expand_key, n_dim, n_expanded),
        N_DIM=int(n_dim),
        N_EXPANDED=int(n_expanded),
    )
    return logp_cfunc, expand_cfunc


# The hand-written log-density (pymc_models.direct): callbacks that do not depend on the model,
# one per tie form, reading the model's arrays from the user-data block nutpie passes them.
_DIRECT_LOGP_SRC = """
def bayes_pairwise_direct_logp(dim, x_, out_, logp_, user_data_):
    try:
        x = carray(x_, (dim,))
        out = carray(out_, (dim,))
        logp = carray(logp_, ())
        ud = carray(user_data_, (N_USER_DATA,), np.int64)
        logp_val = inner(x, out, ud)
        logp[()] = logp_val
        for i in range(dim):
            if not np.isfinite(out[i]):
                return 3
        if not np.isfinite(logp_val):
            return 4
    except Exception:
        return 1
    return 0
"""

_DIRECT_EXPAND_SRC = """
def bayes_pairwise_direct_expand(dim, expanded, x_, out_, user_data_):
    if expanded != dim:
        return -1
    x = carray(x_, (dim,))
    out = carray(out_, (dim,))
    for i in range(dim):
        out[i] = x[i]
    return 0
"""


@functools.cache  # model-independent: one pair per written-out form and process
def _direct_callbacks(key: str, entry: Any, n_user_data: int) -> tuple[Any, Any]:
    logp_sig, expand_sig = _callback_signatures()
    logp = _cached_cfunc(
        _DIRECT_LOGP_SRC,
        "bayes_pairwise_direct_logp",
        entry,
        logp_sig,
        _key(f"{key}-{_WRAPPER_VERSION}", "", n_user_data),
        N_USER_DATA=n_user_data,
    )
    expand = _cached_cfunc(
        _DIRECT_EXPAND_SRC,
        "bayes_pairwise_direct_expand",
        None,
        expand_sig,
        _key(f"direct-v{_WRAPPER_VERSION}-expand", ""),
    )
    return logp, expand


def compile_direct_model(spec: Any, model: Any) -> Any:
    """A nutpie model of the hand-written log-density ``spec`` of ``model``.

    The value variables are sampled and stored unconstrained (``spec.names``);
    ``spec.constrained`` turns them into the model's variables. Nothing model-specific is
    compiled: the callbacks depend on the form only (``spec.callback_key``: for the strength
    models the tie form and the rates, flat, hierarchical or pair difficulty; for the
    hard-truth models the kernel's source) and are cached on disk.

    Parameters
    ----------
    spec : DirectSpec or OrderDensity
        :mod:`.direct` or :mod:`.order_density`.
    model : pymc.Model
        The model the spec writes out (for its coords).

    Returns
    -------
    nutpie.compile_pymc.CompiledPyMCModel
    """
    import dataclasses

    from nutpie import compile_pymc as cp

    logp_cfunc, expand_cfunc = _direct_callbacks(
        spec.callback_key, spec.entry(), spec.user_data_size
    )
    offsets = np.cumsum((0, *spec.sizes))
    shape_info = (
        list(spec.names),
        [slice(int(a), int(b)) for a, b in itertools.pairwise(offsets)],
        [tuple(int(k) for k in shape) for shape in spec.shapes],
    )
    dims, coords = cp._prepare_dims_and_coords(model, shape_info)

    @dataclasses.dataclass(frozen=True)
    class DirectModel(cp.CompiledPyMCModel):
        spec: Any = None  # keeps the arrays the user-data block points to alive

    return DirectModel(
        _n_dim=spec.n_dim,
        dims=dims,
        _coords=coords,
        _shapes={name: shape for name, shape in zip(shape_info[0], shape_info[2], strict=True)},
        compiled_logp_func=logp_cfunc,
        compiled_expand_func=expand_cfunc,
        initial_point_func=spec.initial_point,
        shared_data={},
        user_data=spec.user_data,
        n_expanded=spec.n_dim,
        shape_info=shape_info,
        logp_func=None,
        expand_func=None,
        spec=spec,
    )
