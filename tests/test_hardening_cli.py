"""Issue 12 hardening: outputs and the command line.

Regression tests, each named after the defect it pins down:

* outputs not atomic (a failed write destroyed the previous file or left a partial one);
* ``--out`` checked after sampling (a bad path lost the whole fit);
* tracebacks instead of one-line errors (malformed files and argument values);
* ``load_model`` on tampered, missing or folder paths raised JSONDecodeError / KeyError /
  FileNotFoundError instead of ModelFileError;
* ``simulate --out x.xlsx`` wrote CSV into an .xlsx;
* raw NumPy RuntimeWarnings leaked into the JSON ``warnings``.

Everything here is fast (no NUTS): argument errors stop at parsing, output errors before any
work, data errors at loading.
"""

from __future__ import annotations

import errno
import json
import os
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bayes_pairwise.cli import main
from bayes_pairwise.errors import BayesPairwiseError, DesignWarning
from bayes_pairwise.output import (
    OutputError,
    atomic_write,
    check_writable,
    write_bytes,
    write_text,
)


# --------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    """A folder of good and malformed inputs."""
    d = tmp_path_factory.mktemp("hardening")
    argv = [
        "simulate",
        "--n-items",
        "6",
        "--eps",
        "0.2",
        "--seed",
        "1",
        "--out",
        str(d / "sim.csv"),
    ]
    assert main(argv) == 0
    (d / "empty.csv").write_bytes(b"")
    (d / "binary.csv").write_bytes(bytes(np.random.default_rng(0).integers(0, 256, 400).tolist()))
    (d / "dir.csv").mkdir()
    (d / "header_only.csv").write_text("first,second,outcome\n")
    (d / "dup_column.csv").write_text("first,second,outcome,outcome\na,b,first,second\n")
    (d / "latin1.csv").write_bytes("first,second,outcome\ncaf\xe9,b,first\n".encode("latin-1"))
    (d / "log.xlsx").write_bytes(b"PK\x03\x04 not really a workbook")
    (d / "garbage.parquet").write_bytes(b"this is not parquet")
    (d / "garbage.jsonl").write_text('{"first": "a", "second": \n')
    (d / "plainfile").write_text("a file, not a folder")
    return d


def assert_one_line_error(capsys, argv: list[str], status: int = 2) -> str:
    """Run the CLI in-process; exit ``status``, exactly one ``error:`` line, no traceback."""
    rc = main(argv)
    cap = capsys.readouterr()
    lines = cap.err.strip("\n").split("\n")
    assert rc == status, (argv, rc, cap.err)
    assert "Traceback" not in cap.err and "Traceback" not in cap.out, cap.err
    errors = [ln for ln in lines if ln.startswith("error:")]
    assert len(errors) == 1, (argv, cap.err)
    # progress lines may come first, but the error is one line and the last one
    assert lines[-1].startswith("error:") and len(lines[-1]) > len("error: "), cap.err
    return lines[-1]


# --------------------------------------------------------------------------- malformed inputs
SIM = ["simulate", "--n-items", "5"]
# (argv with {d} for the folder of inputs, a fragment the error line must contain)
MALFORMED: list[tuple[list[str], str]] = [
    # simulate: every numeric argument
    ([*SIM, "--eps", "2", "--out", "{d}/o.csv"], "--eps"),
    ([*SIM, "--eps", "-0.1", "--out", "{d}/o.csv"], "--eps"),
    ([*SIM, "--eps", "nan", "--out", "{d}/o.csv"], "--eps"),
    ([*SIM, "--eps", "inf", "--out", "{d}/o.csv"], "--eps"),
    ([*SIM, "--eps", "abc", "--out", "{d}/o.csv"], "--eps"),
    ([*SIM, "--eps-plus", "1.5", "--eps-minus", "0.1", "--out", "{d}/o.csv"], "--eps-plus"),
    ([*SIM, "--eps-plus", "0.1", "--eps-minus", "-1", "--out", "{d}/o.csv"], "--eps-minus"),
    ([*SIM, "--eps-plus", "0.1", "--out", "{d}/o.csv"], "--eps-minus"),
    (
        [*SIM, "--eps", "0.1", "--eps-plus", "0.1", "--eps-minus", "0.2", "--out", "{d}/o.csv"],
        "not both",
    ),
    (["simulate", "--n-items", "1", "--eps", "0.1", "--out", "{d}/o.csv"], "--n-items"),
    (["simulate", "--n-items", "0", "--eps", "0.1", "--out", "{d}/o.csv"], "--n-items"),
    (["simulate", "--n-items", "-3", "--eps", "0.1", "--out", "{d}/o.csv"], "--n-items"),
    (["simulate", "--n-items", "2.5", "--eps", "0.1", "--out", "{d}/o.csv"], "--n-items"),
    ([*SIM, "--eps", "0.1", "--repeats", "0", "--out", "{d}/o.csv"], "--repeats"),
    ([*SIM, "--eps", "0.1", "--repeats", "-1", "--out", "{d}/o.csv"], "--repeats"),
    ([*SIM, "--eps", "0.1", "--soft-sigma", "-1", "--out", "{d}/o.csv"], "--soft-sigma"),
    ([*SIM, "--eps", "0.1", "--soft-sigma", "nan", "--out", "{d}/o.csv"], "--soft-sigma"),
    ([*SIM, "--eps", "0.1", "--n-contexts", "0", "--out", "{d}/o.csv"], "--n-contexts"),
    ([*SIM, "--eps", "0.1", "--seed", "-1", "--out", "{d}/o.csv"], "--seed"),
    ([*SIM, "--eps", "0.1", "--seed", str(2**32), "--out", "{d}/o.csv"], "--seed"),
    ([*SIM, "--eps", "0.1", "--seed", "x", "--out", "{d}/o.csv"], "--seed"),
    # simulate: output paths
    ([*SIM, "--eps", "0.1", "--out", "{d}/o.xlsx"], ".parquet"),
    ([*SIM, "--eps", "0.1", "--out", "{d}/o"], "extension"),
    ([*SIM, "--eps", "0.1", "--out", "{d}/missing/o.csv"], "does not exist"),
    ([*SIM, "--eps", "0.1", "--out", "{d}"], "folder"),
    ([*SIM, "--eps", "0.1", "--out", "{d}/dir.csv"], "folder"),
    ([*SIM, "--eps", "0.1", "--out", "{d}/plainfile/o.csv"], "o.csv"),
    ([*SIM, "--eps", "0.1", "--out", ""], "--out"),
    ([*SIM, "--eps", "0.1"], "--out"),
    # estimate: arguments
    (["estimate", "{d}/sim.csv", "--method", "bt-mm", "--ridge", "-1"], "--ridge"),
    (["estimate", "{d}/sim.csv", "--method", "bt-mm", "--ridge", "nan"], "--ridge"),
    (["estimate", "{d}/sim.csv", "--method", "bt-mm", "--ridge", "inf"], "--ridge"),
    (["estimate", "{d}/sim.csv", "--method", "elo", "--seed", "-1"], "--seed"),
    (["estimate", "{d}/sim.csv", "--method", "nope"], "--method"),
    (["estimate", "{d}/sim.csv"], "--method"),
    (["estimate", "{d}/sim.csv", "--method", "scom", "--ties", "maybe"], "--ties"),
    (["estimate", "{d}/sim.csv", "--method", "scom", "--judge", "nobody"], "nobody"),
    (["estimate", "{d}/sim.csv", "--method", "scom", "--first", "nope"], "nope"),
    (["estimate", "{d}/sim.csv", "--method", "scom", "--covariates", "nope"], "nope"),
    (["estimate", "{d}/sim.csv", "--method", "scom", "--outcome-map", "garbage"], "outcome-map"),
    (["estimate", "{d}/sim.csv", "--method", "scom", "--option", "run=main"], "bundled"),
    (["estimate", "prd_vicuna80", "--method", "scom", "--option", "foo=1"], "foo"),
    (["estimate", "prd_vicuna80", "--method", "scom", "--option", "run=zz"], "zz"),
    (["estimate", "prd_vicuna80", "--method", "scom", "--option", "noequals"], "KEY=VALUE"),
    (["estimate", "chatbot_arena", "--method", "scom", "--option", "x=1"], "no option"),
    (["estimate", "prd_vicuna80", "--method", "scom", "--judge", "nobody"], "nobody"),
    # estimate: malformed files
    (["estimate", "{d}/empty.csv", "--method", "scom"], "empty.csv"),
    (["estimate", "{d}/binary.csv", "--method", "scom"], "binary.csv"),
    (["estimate", "{d}/dir.csv", "--method", "scom"], "dir.csv"),
    (["estimate", "{d}/missing.csv", "--method", "scom"], "missing.csv"),
    (["estimate", "{d}/header_only.csv", "--method", "scom"], "empty"),
    (["estimate", "{d}/dup_column.csv", "--method", "scom"], "outcome"),
    (["estimate", "{d}/latin1.csv", "--method", "scom"], "latin1.csv"),
    (["estimate", "{d}/log.xlsx", "--method", "scom"], "log.xlsx"),
    (["estimate", "{d}/garbage.parquet", "--method", "scom"], "garbage.parquet"),
    (["estimate", "{d}/garbage.jsonl", "--method", "scom"], "garbage.jsonl"),
    # a folder is read as one log, file by file: the first bad file is named
    (["estimate", "{d}", "--method", "scom"], "(in hardening"),
    (["estimate", "{d}/dir.csv", "--method", "scom"], "is a directory with no comparison log"),
    # fit: output path and sampler arguments (all rejected before any sampling)
    (["fit", "{d}/sim.csv", "--map", "--out", "{d}/missing/f.nc"], "does not exist"),
    (["fit", "{d}/sim.csv", "--map", "--out", "{d}/f.txt"], ".nc"),
    (["fit", "{d}/sim.csv", "--map", "--out", "{d}"], "folder"),
    (["fit", "{d}/sim.csv", "--draws", "0"], "--draws"),
    (["fit", "{d}/sim.csv", "--draws", "-5"], "--draws"),
    (["fit", "{d}/sim.csv", "--chains", "0"], "--chains"),
    (["fit", "{d}/sim.csv", "--tune", "-1"], "--tune"),
    (["fit", "{d}/sim.csv", "--seed", "-1"], "--seed"),
    (["fit", "{d}/sim.csv", "--map", "--model", "nope"], "nope"),
    (["fit", "{d}/empty.csv", "--map"], "empty.csv"),
    (["fit", "prd_vicuna80", "--map", "--option", "foo=1"], "foo"),
    # report / compare
    (["report", "{d}/sim.csv", "--map", "--out", "{d}/r.pdf"], ".html"),
    (["report", "{d}/sim.csv", "--map", "--out", "{d}/dir.csv"], "folder"),
    (["report", "{d}/sim.csv", "--draws", "0"], "--draws"),
    (["report", "{d}/binary.csv", "--map", "--out", "{d}/r.html"], "binary.csv"),
    (["compare", "{d}/sim.csv", "--chains", "0"], "--chains"),
    (["compare", "{d}/binary.csv", "--map"], "binary.csv"),
    # datasets
    (["datasets", "show", "nope"], "nope"),
    (["datasets", "show"], "name"),
    (["datasets", "export", "prd_vicuna80"], "--out"),
    (["datasets", "export", "prd_vicuna80", "--out", "{d}/x.xlsx"], ".parquet"),
    (["datasets", "export", "nope", "--out", "{d}/x.csv"], "nope"),
    (["datasets", "frobnicate"], "frobnicate"),
    # the command itself
    ([], "command"),
    (["nonsense"], "nonsense"),
    (["estimate", "{d}/sim.csv", "--method", "scom", "--bogus-flag"], "--bogus-flag"),
]


def test_enough_malformed_cases():
    assert len(MALFORMED) >= 50


@pytest.mark.parametrize(
    ("argv", "fragment"), MALFORMED, ids=[" ".join(a)[:60] for a, _ in MALFORMED]
)
def test_tracebacks_instead_of_one_line_errors(files, capsys, argv, fragment):
    before = sorted(p.name for p in files.iterdir())
    line = assert_one_line_error(capsys, [a.format(d=files) for a in argv])
    assert fragment in line
    # nothing was written (no partial output, no temporary left behind)
    assert sorted(p.name for p in files.iterdir()) == before


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    eps=st.one_of(
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        st.text(alphabet="0123456789.-+eEinfa x", max_size=6),
    ),
    n_items=st.one_of(st.integers(-3, 5).map(str), st.text(alphabet="0123.-x", max_size=3)),
)
def test_simulate_argument_values_are_used_or_rejected_in_one_line(tmp_path, capsys, eps, n_items):
    out = tmp_path / "h.csv"
    argv = ["simulate", f"--n-items={n_items}", f"--eps={eps}", "--out", str(out)]
    rc = main(argv)
    cap = capsys.readouterr()
    assert "Traceback" not in cap.err
    if rc == 0:
        value = float(eps)
        assert 0.0 <= value <= 1.0
        assert int(n_items) >= 2
        assert out.exists() and len(out.read_text().splitlines()) == 1 + int(n_items) * (
            int(n_items) - 1
        )
    else:
        assert rc == 2
        lines = cap.err.strip("\n").split("\n")
        assert len(lines) == 1 and lines[0].startswith("error:"), cap.err
        assert not (0.0 <= _float_or_nan(eps) <= 1.0) or _int_or(n_items) < 2
    for p in tmp_path.iterdir():
        p.unlink()


def _float_or_nan(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return float("nan")


def _int_or(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return -1


@settings(max_examples=30, deadline=None)
@given(
    ridge=st.floats(allow_nan=True, allow_infinity=True),
    seed=st.integers(-(2**40), 2**40),
)
def test_estimate_numeric_arguments_checked_at_parse_time(ridge, seed):
    from bayes_pairwise.cli import _UsageError, build_parser

    argv = ["estimate", "x.csv", "--method", "bt-mm", f"--ridge={ridge!r}", f"--seed={seed}"]
    ok = np.isfinite(ridge) and 0 <= ridge <= 1e6 and 0 <= seed <= 2**32 - 1
    if ok:
        args = build_parser().parse_args(argv)
        assert (args.ridge, args.seed) == (ridge, seed)
    else:
        with pytest.raises(_UsageError, match=r"--ridge|--seed"):
            build_parser().parse_args(argv)


# --------------------------------------------------------------------------- outputs
def test_out_checked_after_sampling_fit_fails_fast(files, capsys, monkeypatch):
    import bayes_pairwise.cli as cli

    def boom(*a, **k):
        raise AssertionError("the data were read (and the sampler run) before --out was checked")

    monkeypatch.setattr(cli, "_load_data", boom)
    line = assert_one_line_error(
        capsys, ["fit", str(files / "sim.csv"), "--out", "/nonexistent/dir/f.nc"]
    )
    assert "/nonexistent/dir" in line and "does not exist" in line


def test_out_checked_after_sampling_report_and_simulate_fail_before_work(
    files, capsys, monkeypatch
):
    import bayes_pairwise.report as report
    import bayes_pairwise.simulate as simulate

    def boom(*a, **k):
        raise AssertionError("work started before the output path was checked")

    monkeypatch.setattr(report, "build_report", boom)
    monkeypatch.setattr(simulate, "simulate_round_robin", boom)
    assert_one_line_error(
        capsys, ["report", str(files / "sim.csv"), "--out", "/nonexistent/r.html"]
    )
    assert_one_line_error(
        capsys, ["simulate", "--eps", "0.1", "--out", str(files / "missing" / "s.csv")]
    )


def test_simulate_out_xlsx_rejected_naming_the_supported_extensions(tmp_path, capsys):
    line = assert_one_line_error(
        capsys, ["simulate", "--n-items", "4", "--eps", "0.1", "--out", str(tmp_path / "x.xlsx")]
    )
    for ext in (".csv", ".tsv", ".parquet", ".jsonl"):
        assert ext in line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("ext", [".csv", ".tsv", ".parquet", ".jsonl"])
def test_simulate_writes_the_format_of_its_extension(tmp_path, capsys, ext):
    from bayes_pairwise.data import load_comparisons

    out = tmp_path / f"s{ext}"
    assert main(["simulate", "--n-items", "5", "--eps", "0.1", "--out", str(out)]) == 0
    capsys.readouterr()
    assert load_comparisons(out).n_comparisons == 20
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([out.name, "s.truth.json"])
    if ext == ".parquet":
        assert out.read_bytes()[:4] == b"PAR1"


def test_numpy_runtime_warnings_leak_into_json_warnings(files, capsys, monkeypatch):
    import bayes_pairwise.classical.descriptive as descriptive

    real = descriptive.descriptive_by_judge

    def noisy(data, *a, **k):
        with np.errstate(divide="warn", invalid="warn"):
            np.log(np.zeros(1))  # RuntimeWarning: divide by zero encountered in log
            np.zeros(1) / np.zeros(1)  # RuntimeWarning: invalid value encountered in divide
        warnings.warn("the package's own words", DesignWarning, stacklevel=2)
        return real(data, *a, **k)

    monkeypatch.setattr(descriptive, "descriptive_by_judge", noisy)
    assert main(["estimate", str(files / "sim.csv"), "--method", "scom", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["warnings"] == ["the package's own words"]


# --------------------------------------------------------------------------- atomic writes
def _listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_outputs_not_atomic_writer_failing_halfway_keeps_old_file(tmp_path):
    target = tmp_path / "r.html"
    target.write_text("<html>old</html>")

    def half(tmp: Path) -> None:
        tmp.write_text("<html>new, half wri")
        raise RuntimeError("crash")

    with pytest.raises(RuntimeError, match="crash"):
        atomic_write(target, half)
    assert target.read_text() == "<html>old</html>"
    assert _listing(tmp_path) == ["r.html"]


def test_outputs_not_atomic_keyboard_interrupt_keeps_old_file(tmp_path):
    target = tmp_path / "f.nc"
    target.write_bytes(b"old bytes")

    def interrupted(tmp: Path) -> None:
        tmp.write_bytes(b"new by")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(target, interrupted)
    assert target.read_bytes() == b"old bytes"
    assert _listing(tmp_path) == ["f.nc"]


def test_outputs_not_atomic_full_disk_is_output_error(tmp_path, monkeypatch):
    target = tmp_path / "sim.csv"
    target.write_text("old\n")

    def enospc(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", enospc)
    with pytest.raises(OutputError, match="no space left on device") as info:
        write_text(target, "new\n" * 1000)
    assert isinstance(info.value, OSError) and isinstance(info.value, BayesPairwiseError)
    assert str(target) in str(info.value)
    assert target.read_text() == "old\n"
    assert _listing(tmp_path) == ["sim.csv"]


def test_outputs_not_atomic_full_disk_in_cli_is_one_line(tmp_path, capsys, monkeypatch):
    out = tmp_path / "s.csv"
    out.write_text("old\n")

    def enospc(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", enospc)
    line = assert_one_line_error(
        capsys, ["simulate", "--n-items", "4", "--eps", "0.1", "--out", str(out)]
    )
    assert "no space left on device" in line
    assert out.read_text() == "old\n"
    assert _listing(tmp_path) == ["s.csv"]


def test_outputs_not_atomic_save_model_failure_keeps_old_file(tmp_path, monkeypatch):
    import arviz as az

    import bayes_pairwise as bp
    from bayes_pairwise.pymc_models import UniformError, load_model

    sim = bp.simulate_round_robin(6, eps=0.15, random_seed=0)
    model = UniformError().fit(sim.data, method="map", random_seed=0)
    target = tmp_path / "fit.nc"
    model.save(target)
    old = target.read_bytes()

    real = az.InferenceData.to_netcdf

    def truncated(self, filename, *a, **k):
        real(self, filename, *a, **k)
        with open(filename, "r+b") as fh:
            fh.truncate(100)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(az.InferenceData, "to_netcdf", truncated)
    with pytest.raises(OutputError, match="no space left"):
        model.save(target)
    assert target.read_bytes() == old
    assert _listing(tmp_path) == ["fit.nc"]
    monkeypatch.undo()
    assert type(load_model(target)).__name__ == "UniformError"


def test_outputs_not_atomic_permissions_of_a_new_file_follow_the_umask(tmp_path):
    mask = os.umask(0o027)
    try:
        write_bytes(tmp_path / "a.bin", b"x")
    finally:
        os.umask(mask)
    assert (tmp_path / "a.bin").stat().st_mode & 0o777 == 0o640
    (tmp_path / "b.bin").write_bytes(b"old")
    (tmp_path / "b.bin").chmod(0o604)
    write_bytes(tmp_path / "b.bin", b"new")
    assert (tmp_path / "b.bin").stat().st_mode & 0o777 == 0o604


def test_check_writable_rejections(tmp_path):
    (tmp_path / "file").write_text("x")
    assert check_writable(tmp_path / "A.CSV.GZ", suffixes=(".csv", ".csv.gz")).name == "A.CSV.GZ"
    with pytest.raises(OutputError, match="does not exist"):
        check_writable(tmp_path / "no" / "a.csv")
    with pytest.raises(OutputError, match="folder"):
        check_writable(tmp_path)
    with pytest.raises(OutputError, match="not a folder"):
        check_writable(tmp_path / "file" / "a.csv")
    with pytest.raises(OutputError, match=r"unsupported extension: use \.nc"):
        check_writable(tmp_path / "a.csv", suffixes=(".nc",))
    with pytest.raises(OutputError, match="unsupported extension"):
        check_writable(tmp_path / ".nc", suffixes=(".nc",))  # a bare suffix is no file name
    with pytest.raises(OutputError, match="empty path"):
        check_writable("")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_check_writable_read_only_folder(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        with pytest.raises(OutputError, match="not writable"):
            check_writable(ro / "a.csv")
    finally:
        ro.chmod(0o700)


# --------------------------------------------------------------------------- load_model
@pytest.fixture(scope="module")
def saved_fit(tmp_path_factory) -> Path:
    import bayes_pairwise as bp
    from bayes_pairwise.pymc_models import UniformError

    sim = bp.simulate_round_robin(6, eps=0.15, random_seed=0)
    path = tmp_path_factory.mktemp("fit") / "fit.nc"
    UniformError().fit(sim.data, method="map", random_seed=0).save(path)
    return path


def _tamper_attrs(src: Path, dst: Path, edit) -> None:
    import arviz as az

    from bayes_pairwise.pymc_models.base import ATTR_SETTINGS

    idata = az.from_netcdf(str(src), engine="h5netcdf")
    for g in idata.groups():
        getattr(idata, g).load()
    settings = idata.posterior.attrs[ATTR_SETTINGS]
    idata.posterior.attrs[ATTR_SETTINGS] = edit(settings)
    idata.to_netcdf(str(dst), engine="h5netcdf")


@pytest.mark.parametrize(
    "case",
    ["missing", "folder", "empty", "truncated", "random", "bad_json", "missing_key", "wrong_type"],
)
def test_load_model_tampered_missing_or_folder_raises_model_file_error(saved_fit, tmp_path, case):
    from bayes_pairwise.pymc_models import ModelFileError, load_model

    raw = saved_fit.read_bytes()
    path = tmp_path / "x.nc"
    if case == "folder":
        path = tmp_path
    elif case == "empty":
        path.write_bytes(b"")
    elif case == "truncated":
        path.write_bytes(raw[: len(raw) // 2])
    elif case == "random":
        path.write_bytes(np.random.default_rng(1).bytes(len(raw)))
    elif case == "bad_json":
        _tamper_attrs(saved_fit, path, lambda s: s[: len(s) // 2])
    elif case == "missing_key":
        _tamper_attrs(
            saved_fit,
            path,
            lambda s: json.dumps({k: v for k, v in json.loads(s).items() if k != "params"}),
        )
    elif case == "wrong_type":
        _tamper_attrs(saved_fit, path, lambda s: json.dumps({**json.loads(s), "params": [1, 2]}))
    with pytest.raises(ModelFileError) as info:
        load_model(path)
    assert str(path) in str(info.value)
    assert "\n" not in str(info.value)


def test_a_double_dash_value_is_refused_in_one_line(tmp_path, capsys):
    """argparse drops a value of "--" and left a list where a number belongs: an internal
    error (exit 1) on ``simulate --n-items=--`` (found by the property test above)."""
    out = tmp_path / "h.csv"
    assert main(["simulate", "--n-items=--", "--eps=0.1", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().split("\n")
    assert err == ["error: argument --n-items: expected one value, got '--'"]
    assert not out.exists()
