"""The answer where you are (issue 28): report's headline on stdout, --json, quiet entry points."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import pandas as pd
import pytest

from bayes_pairwise.cli import main
from bayes_pairwise.errors import DesignWarning, quiet_third_party


@pytest.fixture(scope="module")
def two_judges(tmp_path_factory):
    from bayes_pairwise.simulate import simulate_round_robin

    frames = []
    for k, (judge, eps) in enumerate((("alice", 0.05), ("bob", 0.3))):
        f = simulate_round_robin(6, eps=eps, random_seed=k).frame.copy()
        f["judge"] = judge
        frames.append(f)
    path = tmp_path_factory.mktemp("logs") / "two.csv"
    pd.concat(frames).to_csv(path, index=False)
    return path


@pytest.mark.slow  # two report builds (about a minute on two quiet cores)
def test_report_prints_each_judges_verdict_and_json(two_judges, tmp_path, capsys):
    out = tmp_path / "r.html"
    argv = ["report", str(two_judges), "--map", "--model", "uniform", "--out", str(out)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    # the headline table: a header and one line per judge, each with its verdict
    for judge in ("alice", "bob"):
        row = next(line for line in lines if line.split()[:1] == [judge])
        assert any(v in row for v in ("AGREE", "DISAGREE", "NO VERDICT"))
        assert any(line.startswith(f"{judge}: ") for line in lines)  # the verdict sentence
    assert "report written to" in captured.err and out.exists()
    assert main([*argv, "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["report"] == str(out)
    assert {v["judge"] for v in res["verdicts"]} == {"alice", "bob"}


def test_third_party_notices_dropped_inside_entry_points_only():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with quiet_third_party():
            warnings.warn("\nArviZ is undergoing a major refactor", FutureWarning, stacklevel=1)
            warnings.warn(
                "PyTensor could not link to a BLAS installation.", UserWarning, stacklevel=1
            )
            warnings.warn("ours", DesignWarning, stacklevel=1)
        warnings.warn("\nArviZ is undergoing a major refactor", FutureWarning, stacklevel=1)
    assert [str(w.message).strip() for w in seen] == [
        "ours",
        "ArviZ is undergoing a major refactor",
    ]


def test_pymc_sampling_lines_are_dropped_inside_the_block(caplog):
    import logging

    log = logging.getLogger("pymc.sampling.forward")
    with caplog.at_level(logging.INFO, logger="pymc.sampling.forward"):
        with quiet_third_party():
            log.info("Sampling: [wins]")
            log.info("something else")
        log.info("Sampling: [wins]")
    assert [r.getMessage() for r in caplog.records] == ["something else", "Sampling: [wins]"]


def test_importing_the_package_and_cli_does_not_import_pandas_or_filter_warnings():
    code = (
        "import sys, warnings; before = list(warnings.filters); "
        "import bayes_pairwise.cli, bayes_pairwise as bp; "
        "assert 'pandas' not in sys.modules and 'numpy' not in sys.modules, 'heavy import'; "
        "import bayes_pairwise.crosscheck; assert callable(bp.crosscheck); "
        "assert bp.crosscheck is sys.modules['bayes_pairwise.crosscheck'].crosscheck; "
        "import bayes_pairwise.pymc_models; "
        "assert not [f for f in warnings.filters if f not in before and f[1] is not None "
        "and ('BLAS' in f[1].pattern or 'ArviZ' in f[1].pattern)], 'global filter'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_usage_error_and_help_are_quick():
    """Usage errors and --help import no NumPy, pandas or PyMC (well under 0.5 s warm)."""
    code = (
        "import sys; from bayes_pairwise.cli import main; rc = main(['estimate']); "
        "assert rc == 2; assert 'pandas' not in sys.modules and 'pymc' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_leaderboard_bt_on_arena_has_no_position_warning(capsys):
    assert main(["leaderboard", "chatbot_arena", "--judge", "human", "--n-boot", "5"]) == 0
    err = capsys.readouterr().err
    assert "position parameter" not in err and "DesignWarning" not in err


def test_warnings_print_as_one_line(capsys):
    assert main(["estimate", "chatbot_arena", "--judge", "human", "--method", "scom"]) == 0
    err = capsys.readouterr().err
    assert "warning: chatbot_arena: the presentation order" in err
    assert "DesignWarning" not in err and "runpy" not in err


@pytest.mark.parametrize("command", ["estimate", "fit", "compare", "report", "leaderboard"])
def test_help_shows_an_example(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    assert "examples:" in text and f"  bayes-pairwise {command} " in text


def test_every_subcommand_has_examples_that_parse():
    import shlex

    from bayes_pairwise.cli import EXAMPLES, build_parser

    parser = build_parser()
    commands = set(parser._subparsers._group_actions[0].choices)
    assert commands == set(EXAMPLES)
    for command, lines in EXAMPLES.items():
        for line in lines:
            argv = shlex.split(line.split("   #")[0])
            assert argv[:2] == ["bayes-pairwise", command]
            parser.parse_args(argv[1:])  # every flag exists and every value is accepted


def test_diagnostics_repr_counts_the_failing_checks():
    import numpy as np

    from bayes_pairwise.pymc_models.diagnostics import Diagnostics

    n = 806
    table = pd.DataFrame(
        {
            "r_hat": np.full(n, 1.0),
            "rhat_ok": np.ones(n, dtype=bool),
            "ess_ok": np.ones(n, dtype=bool),
            "reported": np.ones(n, dtype=bool),
        }
    )
    table.loc[3, "rhat_ok"] = False
    table.loc[7, "ess_ok"] = False
    table.loc[9, "rhat_ok"] = False  # a nuisance coordinate: not counted
    table.loc[9, "reported"] = False
    diag = Diagnostics(table, divergences=0, tree_depth_hits=0, ebfmi=np.ones(2), ok=False)
    text = repr(diag)
    assert "1 R-hat > 1.01, 1 ESS < 400 of 805 parameters checked" in text
    assert "FAILED" not in text and "806 parameters," not in text
    ok = Diagnostics(table.assign(rhat_ok=True, ess_ok=True), 0, 0, np.ones(2), ok=True)
    assert repr(ok).startswith("Diagnostics(ok: 806 parameters checked")


def test_plot_legends_sit_outside_the_data_area(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import arviz as az
    import numpy as np

    from bayes_pairwise.classical.deltas import DeltaS2DFit
    from bayes_pairwise.plots import plot_misfit_heatmap, plot_posterior_vs_grid
    from bayes_pairwise.simulate import simulate_round_robin

    sim = simulate_round_robin(10, eps_plus=0.05, eps_minus=0.25, random_seed=0)
    fit = DeltaS2DFit(grid_step=0.05, n_subsets=30, cache_dir=tmp_path).fit(sim.data)
    rng = np.random.default_rng(0)
    idata = az.from_dict(
        posterior={"eps_plus": rng.beta(5, 40, (2, 300)), "eps_minus": rng.beta(12, 40, (2, 300))}
    )
    axes = [plot_misfit_heatmap(fit)]
    axes += list(plot_posterior_vs_grid(idata, ("moments", {"eps_plus": 0.1, "eps_minus": 0.2})))
    for ax in axes:
        fig = ax.figure
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        legend = ax.get_legend().get_window_extent(renderer)
        frame = ax.get_window_extent(renderer)
        assert legend.y1 < frame.y0  # wholly below the axes: it covers no data


class _FakeBackgroundSampler:
    """nutpie's background sampler, as far as wait_reporting uses it."""

    def __init__(self, polls: int, *, fail: bool = False):
        self.polls, self.fail, self.n, self.cancelled = polls, fail, 0, False

    @property
    def is_finished(self):
        self.n += 1
        if self.fail and self.n > 2:
            raise KeyboardInterrupt
        if self.n == 1:
            raise TimeoutError  # what nutpie answers while the chains are busy
        return self.n > self.polls

    def inspect(self):
        import arviz as az
        import numpy as np

        diverging = np.zeros((2, 40), dtype=bool)
        diverging[0, :3] = True
        return az.from_dict(sample_stats={"diverging": diverging})

    def wait(self):
        return "trace"

    def cancel(self):
        self.cancelled = True


def test_nuts_progress_lines_when_piped():
    from bayes_pairwise.progress import wait_reporting

    lines: list[str] = []
    fake = _FakeBackgroundSampler(12)
    assert wait_reporting(fake, lines.append, draws=100, tune=100, chains=2, every=0.5) == "trace"
    assert lines and lines[0].startswith("NUTS: 40/100 draws per chain, 3 divergences so far")
    assert "s left" in lines[0]
    interrupted = _FakeBackgroundSampler(100, fail=True)
    with pytest.raises(KeyboardInterrupt):
        wait_reporting(interrupted, lines.append, draws=100, tune=100, chains=2, every=0.5)
    assert interrupted.cancelled


def test_nuts_progress_during_tuning_says_tuning_and_leaks_no_arviz_warning():
    """While the chains tune, nutpie's snapshot holds no draws and ArviZ warns "More chains
    (2) than draws (0)" building it; the line says tuning and the warning stays inside."""
    import warnings

    import arviz as az
    import numpy as np

    from bayes_pairwise.progress import wait_reporting

    class Tuning(_FakeBackgroundSampler):
        def inspect(self):
            return az.from_dict(sample_stats={"diverging": np.zeros((2, 0), dtype=bool)})

    lines: list[str] = []
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        wait_reporting(Tuning(6), lines.append, draws=100, tune=100, chains=2, every=0.5)
    assert lines and lines[0].startswith("NUTS: tuning (100 steps per chain, 2 chains)")
    assert not [w for w in seen if "More chains" in str(w.message)]


@pytest.mark.slow  # two short NUTS fits
def test_progress_lines_do_not_change_the_draws():
    import numpy as np

    import bayes_pairwise as bp

    sim = bp.simulate_round_robin(12, eps=0.1, random_seed=0)
    kw = dict(draws=300, tune=300, chains=2)
    a = bp.UniformError(**kw).fit(sim.data, random_seed=3, on_progress=lambda line: None)
    b = bp.UniformError(**kw).fit(sim.data, random_seed=3)
    assert np.array_equal(a.idata_.posterior["eps"].values, b.idata_.posterior["eps"].values)
