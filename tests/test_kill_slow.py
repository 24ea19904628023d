"""Issue 12, defect 3 (outputs not atomic): SIGKILL at random points of ``fit --out`` and
``report --out`` leaves either the previous file, byte for byte, or the complete new one.

Every trial is a separate process running the command line (``bayes_pairwise.cli.main``) that is
killed after a random delay (seeded). To keep 2 × 20 trials within a few minutes, the processes are
forked from a small server that has imported PyMC and warmed the PyTensor cache once (a fresh
interpreter spends ~10 s importing); each child then runs the whole command: load the log, fit
(MAP), write. Two kills in three are spread uniformly over the run, one in three is aimed at the
write: it fires a random 0–20 ms after the temporary output file appears, in a child whose
``os.fsync`` first waits 50 ms (an HTML page is written in microseconds: without that, a kill
"during the write" would be left to luck).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from bayes_pairwise.cli import main
from bayes_pairwise.output import TEMP_MARK

pytestmark = pytest.mark.slow

N_TRIALS = 20
SERVER = r"""
import json, os, sys
proto = os.fdopen(os.dup(1), "w")
devnull = os.open(os.devnull, os.O_WRONLY)
os.dup2(devnull, 1)
os.dup2(devnull, 2)
from bayes_pairwise.cli import main
import bayes_pairwise.pymc_models, bayes_pairwise.report  # noqa: F401  (imported once)

def reply(obj):
    proto.write(json.dumps(obj) + "\n")
    proto.flush()

reply({"ready": True})
for line in sys.stdin:
    msg = json.loads(line)
    if msg["op"] == "run":  # in-process: warms caches, writes the first version of the target
        reply({"rc": main(msg["argv"])})
        continue
    pid = os.fork()
    if pid == 0:
        rc = 1
        if msg.get("slow_write"):  # widen the write window: fsync waits 50 ms first
            import time as _t
            _fsync = os.fsync
            def _slow_fsync(fd):
                _t.sleep(0.05)
                _fsync(fd)
            os.fsync = _slow_fsync
        try:
            rc = main(msg["argv"])
        finally:
            os._exit(rc)
    reply({"pid": pid})
    _, status = os.waitpid(pid, 0)
    reply({"status": status})
"""


class ForkServer:
    def __init__(self) -> None:
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SERVER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self.read() == {"ready": True}

    def read(self) -> dict:
        line = self.proc.stdout.readline()
        assert line, "the fork server died"
        return json.loads(line)

    def send(self, obj: dict) -> None:
        self.proc.stdin.write(json.dumps(obj) + "\n")
        self.proc.stdin.flush()

    def run(self, argv: list[str]) -> int:
        self.send({"op": "run", "argv": argv})
        return self.read()["rc"]

    def start(self, argv: list[str], *, slow_write: bool = False) -> int:
        self.send({"op": "fork", "argv": argv, "slow_write": slow_write})
        return self.read()["pid"]

    def wait(self) -> int:
        return self.read()["status"]

    def close(self) -> None:
        self.proc.kill()  # no need to wait for PyMC's interpreter teardown
        self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def server():
    srv = ForkServer()
    yield srv
    srv.close()


@pytest.fixture(scope="module")
def log(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("kill") / "sim.csv"
    argv = ["simulate", "--n-items", "5", "--eps", "0.15", "--seed", "0", "--out", str(path)]
    assert main(argv) == 0
    return path


def _temps(folder: Path) -> list[Path]:
    return [p for p in folder.iterdir() if TEMP_MARK in p.name]


def _kill_trials(server, folder: Path, target: Path, argv: list[str], complete, seed: int):
    """Run the trials; return (kills that hit an open temporary, completed runs)."""
    t0 = time.perf_counter()
    assert server.run(argv) == 0, "the first, complete run failed"
    duration = time.perf_counter() - t0  # caches are warm: the forked runs take about as long
    assert complete(target)
    previous = target.read_bytes()

    rng = np.random.default_rng(seed)
    hits = finished = 0
    for trial in range(N_TRIALS):
        aim_at_write = trial % 3 == 2
        pid = server.start(argv, slow_write=aim_at_write)
        if aim_at_write:
            deadline = time.perf_counter() + 3 * duration + 5
            while not _temps(folder) and time.perf_counter() < deadline:
                time.sleep(0.0005)
            time.sleep(rng.uniform(0.0, 0.02))
        else:
            time.sleep(rng.uniform(0.0, duration))
        hit = bool(_temps(folder))
        with contextlib.suppress(ProcessLookupError):  # already finished
            os.kill(pid, signal.SIGKILL)
        status = server.wait()
        if os.WIFEXITED(status):
            assert os.WEXITSTATUS(status) == 0, f"trial {trial}: the run failed"
            finished += 1
        hits += hit and _temps(folder) != []
        now = target.read_bytes()
        assert now == previous or complete(target), f"trial {trial}: a damaged {target.name}"
        previous = now
        for tmp in _temps(folder):  # what SIGKILL leaves; the target is untouched by it
            tmp.unlink()
    return hits, finished


def test_outputs_not_atomic_sigkill_fit_out(server, log, tmp_path):
    from bayes_pairwise.pymc_models import load_model

    target = tmp_path / "f.nc"

    def complete(path: Path) -> bool:
        return type(load_model(path)).__name__ == "PositionalBias"

    argv = ["fit", str(log), "--map", "--out", str(target)]
    hits, finished = _kill_trials(server, tmp_path, target, argv, complete, seed=12)
    assert finished < N_TRIALS  # most runs were killed …
    assert hits >= 1  # … and at least one while the temporary was open


def test_outputs_not_atomic_sigkill_report_out(server, log, tmp_path):
    target = tmp_path / "r.html"

    def complete(path: Path) -> bool:
        return path.read_bytes().rstrip().endswith(b"</html>")

    argv = ["report", str(log), "--map", "--out", str(target)]
    hits, finished = _kill_trials(server, tmp_path, target, argv, complete, seed=13)
    assert finished < N_TRIALS
    assert hits >= 1


def test_outputs_not_atomic_sigterm_removes_the_temporary(server, log, tmp_path):
    """SIGTERM while writing: the temporary is removed, the target is old or new, exit 143."""
    target = tmp_path / "f.nc"
    argv = ["fit", str(log), "--map", "--out", str(target)]
    assert server.run(argv) == 0
    rng = np.random.default_rng(14)
    for _ in range(3):
        previous = target.read_bytes()
        pid = server.start(argv)
        while not _temps(tmp_path):
            time.sleep(0.0005)
        time.sleep(rng.uniform(0.0, 0.01))
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        status = server.wait()
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) in (0, 143)
        assert _temps(tmp_path) == []
        from bayes_pairwise.pymc_models import load_model

        assert target.read_bytes() == previous or load_model(target) is not None
