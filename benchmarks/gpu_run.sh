#!/usr/bin/env bash
# Issue 27 item 4 on a lent GPU machine: PyMC's JAX NUTS (numpyro) on the QLoRA log and a
# 1,000-item round robin (benchmarks/bench_jax_gpu.py). Run from the repository root with the
# cp312 wheels the machine's image lacks in .whl/ (pymc, pytensor, arviz and their pure-Python
# needs), a numpy wheel in .whlnp/ (used only if the image's numpy breaks the import) and the
# QLoRA log in .gpudata/. Every part has its own time limit; results go to $OUT/results.jsonl.
set -u -o pipefail
OUT=${OUT:-/tmp/gpu_out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
if [ -z "${NO_INSTALL:-}" ]; then  # NO_INSTALL=1: a rehearsal in an environment that has them
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl || exit 1
fi
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
echo "g++: $(command -v g++)  cores: $(nproc)"
check='import numpy, numba, jax, numpyro, pymc, pytensor, arviz, bayes_pairwise.pymc_models
print("numpy", numpy.__version__, "numba", numba.__version__, "jax", jax.__version__,
      "numpyro", numpyro.__version__, "pymc", pymc.__version__, "pytensor",
      pytensor.__version__, "arviz", arviz.__version__, jax.devices())'
if ! python3 -c "$check" > "$OUT/import.log" 2>&1; then
    tail -5 "$OUT/import.log"
    echo "import failed: trying numpy from .whlnp"
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/np \
        .whlnp/*.whl || exit 1
    export PYTHONPATH=/tmp/np:$PYTHONPATH
    python3 -c "$check" > "$OUT/import.log" 2>&1 || { tail -30 "$OUT/import.log"; exit 1; }
fi
tail -1 "$OUT/import.log"
LOG=.gpudata/qlora_oa_gpt4_long.csv.gz
run() {  # run LIMIT NAME ARGS...: one part, its log in $OUT/NAME.log
    local limit=$1 name=$2
    shift 2
    local t0=$SECONDS
    timeout "$limit" python3 benchmarks/bench_jax_gpu.py --log "$LOG" --out "$OUT/results.jsonl" \
        "$@" ${BENCH_ARGS:-} > "$OUT/$name.log" 2>&1
    echo "== $name: rc $? after $((SECONDS - t0)) s (limit $limit s)"
    grep -v -i "warn\|blas\|conda\|troubleshoot\|experimental backend" "$OUT/$name.log" | tail -4
}
run "${GRAD_S:-70}" grad --only grad
run "${QLORA_S:-230}" qlora --only qlora
run "${RR_S:-170}" rr1000 --only rr1000
echo "== results"
cat "$OUT/results.jsonl" 2>/dev/null
