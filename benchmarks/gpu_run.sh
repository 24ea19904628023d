#!/usr/bin/env bash
# Issue 27 item 4 on a lent GPU machine: PyMC's JAX NUTS (numpyro) on the QLoRA log and a
# 1,000-item round robin (benchmarks/bench_jax_gpu.py). Run from the repository root with the
# cp312 wheels the machine's image lacks in .whl/ (pymc, pytensor, arviz and their pure-Python
# needs), a numpy wheel in .whlnp/ (used only if the image's numpy breaks the import) and the
# QLoRA log in .gpudata/. Every part has its own time limit; results go to $OUT/results.jsonl.
# The wheels, fetched where pip reaches an index (the machine's image has jax, numpyro, numba,
# scipy, pandas, xarray, h5py, matplotlib; pymc wants cachetools < 7):
#   pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any -d .whl \
#     pymc==5.28.5 pytensor==2.38.3 arviz==0.23.4 h5netcdf xarray-einstats platformdirs \
#     "cachetools<7" etuples logical-unification minikanren cons
# Used on 2026-11-27 (docs/src/speed.md): GRAD_ARGS=--profile QLORA_S=0 RR_S=90 \
#   BENCH_ARGS="--draws 100" bash benchmarks/gpu_run.sh
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
run() {  # run LIMIT NAME ARGS...: one part, its log in $OUT/NAME.log, its exit status in RC
    local limit=$1 name=$2
    shift 2
    local t0=$SECONDS
    timeout "$limit" python3 benchmarks/bench_jax_gpu.py --log "$LOG" --out "$OUT/results.jsonl" \
        "$@" ${BENCH_ARGS:-} > "$OUT/$name.log" 2>&1
    RC=$?
    echo "== $name: rc $RC after $((SECONDS - t0)) s (limit $limit s), XLA_FLAGS '${XLA_FLAGS:-}'"
    grep -v -i "warn\|blas\|conda\|troubleshoot\|experimental backend" "$OUT/$name.log" | tail -4
}
grad_ms() {  # grad_ms PART: the last recorded gradient time of PART on the default device, in ms
    python3 -c "import json,sys; r=[json.loads(l) for l in open('$OUT/results.jsonl')]
print(int(1000*[x for x in r if x['part']==sys.argv[1]][-1]['default_s']))" "$1" 2>/dev/null || echo 99999
}
run "${GRAD_S:-70}" grad --only grad --hlo "$OUT" ${GRAD_ARGS:-}
if [ -n "${XLA_TRY:-}" ]; then  # the same gradients under other XLA flags, kept if they run
    export XLA_FLAGS="$XLA_TRY"
    run "${GRAD_S:-70}" grad_flags --only grad
    [ "$RC" = 0 ] || unset XLA_FLAGS
fi
# NUTS only where one gradient costs at most MAX_GRAD_MS (default: always)
[ "${QLORA_S:-230}" -gt 0 ] && [ "$(grad_ms "grad qlora")" -le "${MAX_GRAD_MS:-99999}" ] && run "${QLORA_S:-230}" qlora --only qlora
[ "${RR_S:-170}" -gt 0 ] && [ "$(grad_ms "grad rr1000")" -le "${MAX_GRAD_MS:-99999}" ] && run "${RR_S:-170}" rr1000 --only rr1000
echo "== results"
cat "$OUT/results.jsonl" 2>/dev/null
