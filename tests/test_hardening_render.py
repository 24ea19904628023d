"""Issue 12 (hardening), cache and rendering: a corrupt or tampered Δ_S cache is recomputed with
a warning, never trusted nor fatal; bidi controls and other invisible characters never reach the
HTML report unescaped; a long id never blows up a figure."""

from __future__ import annotations

import re
import warnings

import arviz as az
import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from bayes_pairwise import plots
from bayes_pairwise._html import BIDI_CONTROLS, HtmlPage, esc, visible
from bayes_pairwise.classical import deltas
from bayes_pairwise.classical.deltas import DeltaSFit, synthetic_table
from bayes_pairwise.data import load_comparisons
from bayes_pairwise.errors import CacheWarning
from bayes_pairwise.simulate import simulate_round_robin

LONG = "x" * 3000

# the bidi controls named in the issue: embeddings/overrides, isolates, LRM/RLM, ALM
ISSUE_BIDI = (
    [chr(c) for c in range(0x202A, 0x202F)]
    + [chr(c) for c in range(0x2066, 0x206A)]
    + ["\u200e", "\u200f", "\u061c"]
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# ============================================================================ Δ_S cache
def _no_cache_warning():
    """Context manager turning any CacheWarning into an error (a valid cache reads silently)."""
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.simplefilter("error", CacheWarning)
    return ctx


def _truncate(path):
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) // 2])


def _empty(path):
    path.write_bytes(b"")


def _flip_table_byte(path):
    """Flip one byte inside the stored table's data (not the zip structure)."""
    with np.load(path) as z:
        data = z["values"].tobytes()
    raw = bytearray(path.read_bytes())
    at = bytes(raw).find(data)
    assert at > 0, "the table's bytes are stored verbatim in the .npz"
    raw[at + len(data) // 2] ^= 0x01
    path.write_bytes(bytes(raw))


def _rewrite(path, **changes):
    """Rewrite a cache file as a *valid* .npz with some arrays replaced (tampering)."""
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    arrays.update(changes)
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)


@pytest.mark.parametrize("corrupt", [_truncate, _empty, _flip_table_byte])
def test_corrupt_delta_s_cache_file_is_recomputed_with_a_warning(tmp_path, corrupt):
    fresh = synthetic_table(10, use_cache=False, random_seed=5)
    t1 = synthetic_table(10, cache_dir=tmp_path, random_seed=5)
    assert not t1.from_cache and t1.cache_file is not None
    corrupt(t1.cache_file)
    with pytest.warns(CacheWarning, match=re.escape(str(t1.cache_file))):
        t2 = synthetic_table(10, cache_dir=tmp_path, random_seed=5)
    assert not t2.from_cache
    np.testing.assert_array_equal(t2.values, fresh.values)
    assert t2.cache_file == t1.cache_file  # the bad file was overwritten in place
    ctx = _no_cache_warning()
    try:
        t3 = synthetic_table(10, cache_dir=tmp_path, random_seed=5)
    finally:
        ctx.__exit__(None, None, None)
    assert t3.from_cache
    np.testing.assert_array_equal(t3.values, fresh.values)
    assert not list(tmp_path.glob("*.tmp"))


def test_corrupt_larger_cache_file_is_replaced_by_the_recomputed_table(tmp_path):
    big = synthetic_table(12, cache_dir=tmp_path, random_seed=6)
    _flip_table_byte(big.cache_file)
    with pytest.warns(CacheWarning, match="corrupt"):
        t = synthetic_table(8, cache_dir=tmp_path, random_seed=6)
    assert not t.from_cache
    np.testing.assert_array_equal(t.values, big.values[:, :7])
    assert not big.cache_file.exists()  # removed: it would warn on every later run
    assert t.cache_file is not None and t.cache_file.name.endswith("-n0008.npz")
    assert synthetic_table(8, cache_dir=tmp_path, random_seed=6).from_cache


def test_tampered_delta_s_cache_table_is_detected_by_its_checksum(tmp_path):
    t1 = synthetic_table(9, cache_dir=tmp_path, random_seed=7)
    _rewrite(t1.cache_file, values=t1.values + 0.5)
    with pytest.warns(CacheWarning, match="checksum"):
        t2 = synthetic_table(9, cache_dir=tmp_path, random_seed=7)
    assert not t2.from_cache
    np.testing.assert_array_equal(t2.values, t1.values)
    assert synthetic_table(9, cache_dir=tmp_path, random_seed=7).from_cache


def test_tampered_delta_s_cache_key_shape_or_dtype_is_detected(tmp_path):
    t1 = synthetic_table(9, cache_dir=tmp_path, random_seed=8)
    path = t1.cache_file
    with np.load(path) as z:
        meta = str(z["meta"][()])
    _rewrite(path, meta=np.array(meta.replace('"seed": 8', '"seed": 9')))
    with pytest.warns(CacheWarning, match="key"):
        assert not synthetic_table(9, cache_dir=tmp_path, random_seed=8).from_cache
    _rewrite(path, values=t1.values[:, :5])  # a table too short for its file name
    with pytest.warns(CacheWarning, match="shape"):
        assert not synthetic_table(9, cache_dir=tmp_path, random_seed=8).from_cache
    _rewrite(path, values=t1.values.astype(np.float32))
    with pytest.warns(CacheWarning, match="float32"):
        assert not synthetic_table(9, cache_dir=tmp_path, random_seed=8).from_cache
    _rewrite(path, extra=np.arange(3))
    with pytest.warns(CacheWarning, match="unexpected arrays"):
        assert not synthetic_table(9, cache_dir=tmp_path, random_seed=8).from_cache
    with path.open("wb") as fh:  # a pickle inside: never unpickled
        np.save(fh, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.warns(CacheWarning, match=re.escape(str(path))):
        t = synthetic_table(9, cache_dir=tmp_path, random_seed=8)
    np.testing.assert_array_equal(t.values, t1.values)


def test_tampered_delta_s_cache_does_not_change_the_fitted_eps(tmp_path):
    """The issue saw ε 0.105 → 0.395 from a tampered table that was trusted."""
    sim = simulate_round_robin(30, eps=0.1, random_seed=11)
    fit = DeltaSFit(random_seed=0, n_subsets=60, cache_dir=tmp_path).fit(sim.data)
    eps0 = fit.eps_
    assert 0.05 < eps0 < 0.16
    path = fit.table_.cache_file
    with np.load(path) as z:
        full = z["values"]
    # move every synthetic curve 58 grid steps (0.29) up: the trusted argmin would move with it
    tampered = np.roll(full, 58, axis=0)
    trusted = (np.abs(tampered - fit.observed_curve_) * fit.weights_).sum(axis=1)
    assert abs(float(fit.grid_[int(np.argmin(trusted))]) - eps0) > 0.2  # the attack would work
    _rewrite(path, values=tampered)
    with pytest.warns(CacheWarning, match="checksum"):
        refit = DeltaSFit(random_seed=0, n_subsets=60, cache_dir=tmp_path).fit(sim.data)
    assert not refit.table_.from_cache
    assert refit.eps_ == eps0
    np.testing.assert_array_equal(refit.misfit_, fit.misfit_)


def test_unwritable_cache_dir_warns_and_still_returns_the_table(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.warns(CacheWarning, match="could not write"):
        t = synthetic_table(6, cache_dir=blocker, random_seed=1)
    assert t.cache_file is None and not t.from_cache
    np.testing.assert_array_equal(
        t.values, synthetic_table(6, use_cache=False, random_seed=1).values
    )


def test_cache_file_stores_a_sha256_checksum_of_key_shape_dtype_and_bytes(tmp_path):
    t = synthetic_table(7, cache_dir=tmp_path, random_seed=2)
    with np.load(t.cache_file) as z:
        assert set(z.files) == {"values", "meta", "checksum"}
        checksum = str(z["checksum"][()])
        meta = str(z["meta"][()])
        values = z["values"]
    assert re.fullmatch(r"[0-9a-f]{64}", checksum)
    assert checksum == deltas._table_checksum(values, meta)
    assert checksum != deltas._table_checksum(values.reshape(-1, 1), meta)  # shape counts
    assert checksum != deltas._table_checksum(values, meta.replace("2", "3"))  # key counts
    assert deltas.TABLE_VERSION == 2


# ============================================================================ HTML escaping
def test_bidi_control_set_is_the_issue_list():
    assert set(ISSUE_BIDI) == BIDI_CONTROLS
    assert len(BIDI_CONTROLS) == 12


@pytest.mark.parametrize("ch", ISSUE_BIDI, ids=lambda c: f"U+{ord(c):04X}")
def test_bidi_control_in_an_id_is_rendered_visibly_in_html(ch):
    code = f"U+{ord(ch):04X}"
    ident = f"gpt{ch}4<script>"
    assert esc(ident) == f"gpt&lt;{code}&gt;4&lt;script&gt;"
    page = HtmlPage(f"report {ident}", subtitle=ident)
    page.heading(ident)
    page.heading(ident, level=3)
    page.paragraph(ident)
    page.box(ident, kind="warn", title=ident)
    page.bullets([ident])
    page.preformatted(ident)
    df = pd.DataFrame({ident: [ident, "b"], "ok": [True, False]}, index=[ident, "r"])
    page.table(df, caption=ident)
    page.table(df, flag_column="ok")
    out = page.render()
    assert ch not in out
    assert "<script>" not in out
    assert out.count(f"&lt;{code}&gt;") >= 15
    assert f"<{code}>" not in out  # never a tag-like marker


def test_script_tags_are_escaped_everywhere_in_html():
    evil = '<script>alert("x")</script>'
    page = HtmlPage(evil, subtitle=evil)
    page.heading(evil)
    page.paragraph(evil)
    page.box(evil, title=evil, kind='"><script>')
    page.bullets([evil])
    page.table(pd.DataFrame({evil: [evil]}, index=[evil]), caption=evil)
    out = page.render()
    assert "<script" not in out.lower()
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in out


@pytest.mark.parametrize(
    "code", [0x00, 0x07, 0x0B, 0x0D, 0x1B, 0x1F, 0x7F, 0x85, 0x9F, 0x200B, 0x2028, 0xFEFF, 0xD800]
)
def test_control_and_invisible_characters_are_rendered_visibly_in_html(code):
    ch = chr(code)
    assert esc(f"a{ch}b") == f"a&lt;U+{code:04X}&gt;b"
    page = HtmlPage("t")
    page.paragraph(f"a{ch}b")
    page.table(pd.DataFrame({"id": pd.Series([f"a{ch}b"], dtype=object)}))
    out = page.render()
    assert ch not in out
    out.encode("utf-8")  # a lone surrogate no longer breaks writing the page


def test_tab_newline_and_ordinary_text_are_kept_in_html():
    text = "a\tb\nc — é 中文 עברית 👩‍💻 zero\u200cwidth"
    assert esc(text) == text
    assert visible("plain") == "plain"
    assert visible("a\u202eb") == "a<U+202E>b"


# ============================================================================ plot labels
def _width_in(fig):
    """(figure width, tight-bbox width) in inches, as savefig(bbox_inches="tight") would crop."""
    fig.canvas.draw()
    tight = fig.get_tightbbox(fig.canvas.get_renderer())
    return float(fig.get_size_inches()[0]), float(tight.width)


def _assert_same_size(fig_short, fig_long):
    ws, ts = _width_in(fig_short)
    wl, tl = _width_in(fig_long)
    assert wl <= 2 * ws
    assert tl <= 2 * ts
    assert fig_long.get_size_inches()[1] <= 2 * fig_short.get_size_inches()[1]


def _strength_idata(items):
    rng = np.random.default_rng(0)
    draws = rng.normal([1.0, 0.0, -1.0], 0.1, size=(2, 50, 3))
    return az.from_dict(
        posterior={"strength": draws}, coords={"item": items}, dims={"strength": ["item"]}
    )


def test_long_item_id_does_not_widen_the_strength_forest():
    short = plots.plot_strength_forest(_strength_idata(["a", "b", "c"])).figure
    long_items = ["a", "item-" + LONG + "-end", "c"]
    mm = pd.Series([0.5, 0.0, -0.5], index=long_items)
    ax = plots.plot_strength_forest(_strength_idata(long_items), mm)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert max(len(s) for s in labels) <= plots.LABEL_MAX_CHARS
    assert any(s.startswith("item-xx") and s.endswith("xx-end") and "…" in s for s in labels)
    _assert_same_size(short, ax.figure)
    # the data twin keeps the full id
    df = plots.strength_forest_data(_strength_idata(long_items), mm)
    assert "item-" + LONG + "-end" in df.index


def _judge_idata(judges):
    rng = np.random.default_rng(1)
    n = len(judges)
    return az.from_dict(
        posterior={
            "eps_plus": rng.beta(5, 40, (2, 50, n)),
            "eps_minus": rng.beta(9, 40, (2, 50, n)),
        },
        coords={"judge": judges},
        dims={"eps_plus": ["judge"], "eps_minus": ["judge"]},
    )


def test_long_judge_name_does_not_widen_the_judge_forest_rank_and_posterior_plots():
    short, long_ = ["a", "b"], ["a", LONG]
    _assert_same_size(
        plots.plot_judge_forest(_judge_idata(short)).figure,
        plots.plot_judge_forest(_judge_idata(long_)).figure,
    )
    axs_s = plots.plot_rank(_judge_idata(short))
    axs_l = plots.plot_rank(_judge_idata(long_))
    for a in axs_l:
        assert max(len(line) for line in a.get_title().split("\n")) <= plots.LABEL_MAX_CHARS
    _assert_same_size(axs_s[0].figure, axs_l[0].figure)
    tr_s = plots.plot_trace(_judge_idata(short))
    tr_l = plots.plot_trace(_judge_idata(long_))
    _assert_same_size(tr_s[0, 0].figure, tr_l[0, 0].figure)
    pv_s = plots.plot_posterior_vs_grid(_judge_idata(short), judge="b")
    pv_l = plots.plot_posterior_vs_grid(_judge_idata(long_), judge=LONG)
    assert len(pv_l[0].get_title()) < 60
    _assert_same_size(pv_s[0].figure, pv_l[0].figure)


def test_long_judge_name_does_not_widen_the_delta_s_plots(tmp_path):
    sim = simulate_round_robin(8, eps=0.1, random_seed=0)
    frame = sim.data.to_frame()
    figs = []
    for name in ("j", LONG):
        data = load_comparisons(frame.assign(judge=name), judge="judge")
        fit = DeltaSFit(n_subsets=20, random_seed=0, cache_dir=tmp_path).fit(data)
        fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), layout="constrained")
        plots.plot_delta_s_curve(fit, ax=axes[0])
        plots.plot_misfit_curve(fit, ax=axes[1], mark={"src-" + LONG: 0.1})
        figs.append(fig)
        title = axes[0].get_title()
        assert len(title) < 70
    _assert_same_size(*figs)


def test_bidi_controls_in_plot_labels_are_shown_visibly():
    items = ["a\u202eb", "c\u2067d", "e\x00f"]
    ax = plots.plot_strength_forest(_strength_idata(items))
    labels = {t.get_text() for t in ax.get_yticklabels()}
    assert labels == {"a<U+202E>b", "c<U+2067>d", "e<U+0000>f"}
    axs = plots.plot_rank(_judge_idata(["g\u202ex", "h"]))
    titles = " ".join(a.get_title() for a in axs)
    assert "\u202e" not in titles and "<U+202E>" in titles


def test_label_helper_truncates_with_an_ellipsis_and_keeps_short_labels():
    assert plots.short_label("short id") == "short id"
    t = plots.short_label("abc" + LONG + "xyz")
    assert len(t) == plots.LABEL_MAX_CHARS and t.count("…") == 1
    assert t.startswith("abc") and t.endswith("xyz")
    assert plots.short_label("a\tb\nc") == "a b c"
    assert plots.short_label("x" * 40) == "x" * 40
    assert len(plots.short_label("x" * 41)) == 40


# ============================================================================ the report end to end
class _FakeModel:
    """A model whose ``fit`` makes a posterior instantly (no PyMC compile, no sampling)."""

    def __init__(self, spec: str = "positional", **settings):
        self.spec = spec

    def fit(self, data, method="nuts", random_seed=None, **kwargs):
        rng = np.random.default_rng(random_seed)
        n, n_j = data.n_items, data.n_judges
        self.method_ = method
        self.idata_ = az.from_dict(
            posterior={
                "eps_plus": rng.beta(10, 60, (2, 100, n_j)),
                "eps_minus": rng.beta(20, 60, (2, 100, n_j)),
                "strength": np.linspace(1.5, -1.5, n) + rng.normal(0, 0.3, (2, 100, n)),
            },
            coords={"item": list(data.items), "judge": list(data.judges)},
            dims={"strength": ["item"], "eps_plus": ["judge"], "eps_minus": ["judge"]},
            sample_stats={"diverging": np.zeros((2, 100), dtype=bool)},
        )
        return self


def _png_sizes(html: str) -> list[tuple[int, int]]:
    import base64

    sizes = []
    for b64 in re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html):
        head = base64.b64decode(b64[:40])
        sizes.append((int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")))
    return sizes


@pytest.mark.slow
def test_report_with_a_3000_char_id_and_a_bidi_judge_keeps_figures_small(monkeypatch):
    """The issue saw an 18,796-pixel-wide figure and a raw U+202E in the HTML."""
    from bayes_pairwise import pymc_models
    from bayes_pairwise.report import build_report

    long_id = "item-" + LONG + "-end"
    frames = []
    for k, judge in enumerate(["evil\u202etxt.exe", "j2"]):
        f = simulate_round_robin(6, eps=0.15, random_seed=k).frame.copy()
        f["first"] = f["first"].replace("t002", long_id)
        f["second"] = f["second"].replace("t002", long_id)
        f["judge"] = judge
        frames.append(f)
    data = load_comparisons(pd.concat(frames, ignore_index=True), judge="judge", repeat="repeat")
    monkeypatch.setattr(
        pymc_models, "get_model", lambda name, **kw: _FakeModel(name, **kw), raising=False
    )
    html = build_report(
        data, random_seed=0, progress=False, grid_kwargs={"n_subsets": 20}, ppc_draws=20
    ).render()
    assert "\u202e" not in html
    assert "evil&lt;U+202E&gt;txt.exe" in html
    assert long_id in html  # the full id is in the tables
    sizes = _png_sizes(html)
    assert len(sizes) >= 5
    widths = [w for w, _ in sizes]
    assert max(widths) < 2000, widths  # 110 dpi × at most ~13 in; the issue saw 18,796 px
