"""Every number the report shows in two places is the same number (issue 9).

One report of a real log with ties (the bundled PRD data: two judges, 20 questions, ties modelled,
positional model by MAP) is rendered once. The HTML is parsed with the standard library and every
judge's error rates, tie rate, classical estimates with their intervals, verdict and gap are
looked up wherever the report prints them: the headline table, the verdict boxes, the classical
estimates table, the MAP estimates table, the figure captions (Δ_S fits, P(R_m, TO), predictive
checks), the predictive-check table and the two cross-check tables; the values drawn in the
headline's judge forest, the per-judge densities and the P(R_m, TO) panels are recorded as the
report passes them to the plotting functions. Each must print as the CrossCheck's own value
rounded as displayed (three decimals). :func:`inconsistencies` is tested on perturbed copies of
the page, so a checker that looks nowhere would fail.
"""

from __future__ import annotations

import io
import math
import re
import time
from html.parser import HTMLParser
from typing import Any

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import bayes_pairwise as bp
from bayes_pairwise import plots
from bayes_pairwise.crosscheck import (
    METHOD_GRID,
    METHOD_GRID_SPLIT,
    METHOD_GRID_SUM,
    METHOD_MOMENTS,
    METHOD_MOMENTS_DECIDED,
    METHOD_SCOM,
    METHOD_TIES,
    SYMBOLS,
)
from bayes_pairwise.data import load_comparisons
from bayes_pairwise.datasets import load_frame
from bayes_pairwise.report import build_report

pytest.importorskip("pymc")

JUDGES = ["claude", "gpt4"]
N_CONTEXTS = 20
SHORT = {
    METHOD_MOMENTS: "moments",
    METHOD_TIES: "observed",
    METHOD_SCOM: "S_com closed form",
    "Δ_S grid (2-D), sum": "Δ_S 2-D grid",
    "Δ_S grid (1-D)": "Δ_S grid",
}


# ============================================================================ parsing
class _Page(HTMLParser):
    """Tables (caption, header, rows of cell texts), boxes, figure captions, list items and
    paragraphs of a report, each tagged with its section (``<summary>``) and ``<h3>``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[dict[str, Any]] = []
        self.blocks: list[dict[str, str]] = []  # kind: box / figcaption / li / p
        self.section = "Answer"
        self.heading = ""
        self._text: list[str] | None = None
        self._kind = ""
        self._caption = ""
        self._table: dict[str, Any] | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._in_head = False
        self._div_depth = 0
        self._box_depth = -1

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table":
            self._table = {
                "caption": self._caption,
                "section": self.section,
                "heading": self.heading,
                "header": None,
                "rows": [],
            }
            self._caption = ""
        elif tag == "thead" and self._table is not None:
            self._in_head = True
        elif tag == "tr" and self._table is not None:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "div":
            self._div_depth += 1
            if "box" in (a.get("class") or "").split() and self._text is None:
                self._text, self._kind, self._box_depth = [], "box", self._div_depth
        elif tag in ("figcaption", "li", "p", "summary", "h2", "h3") and self._text is None:
            self._text, self._kind = [], tag
        elif tag == "br" and self._text is not None:
            self._text.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(re.sub(r"\s+", " ", "".join(self._cell)).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table is not None:
            if self._in_head:
                if self._table["header"] is None:
                    self._table["header"] = self._row
            else:
                self._table["rows"].append(self._row)
            self._row = None
        elif tag == "thead":
            self._in_head = False
        elif tag == "table" and self._table is not None:
            self.tables.append(self._table)
            self._table = None
        elif tag == "div":
            if self._kind == "box" and self._div_depth == self._box_depth:
                self._close()
            self._div_depth -= 1
        elif tag == self._kind and self._text is not None:
            self._close()

    def _close(self) -> None:
        text = re.sub(r"\s+", " ", "".join(self._text or [])).strip()
        kind, self._text, self._kind = self._kind, None, ""
        if kind in ("summary", "h2"):
            self.section, self.heading = text, ""
        elif kind == "h3":
            self.heading = text
        else:
            self.blocks.append(
                {"kind": kind, "text": text, "section": self.section, "heading": self.heading}
            )
            if kind == "p":
                self._caption = text

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        elif self._text is not None:
            self._text.append(data)


def parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    page.close()
    return page


def table(page: _Page, *, section: str, header: str, caption: str = "") -> list[dict[str, str]]:
    """Rows (header -> cell) of the one table of ``section`` with ``header`` among its columns."""
    found = [
        t
        for t in page.tables
        if t["section"].startswith(section)
        and t["header"]
        and header in t["header"]
        and caption in t["caption"]
    ]
    assert len(found) == 1, f"{len(found)} tables in {section!r} with column {header!r}"
    t = found[0]
    return [dict(zip(t["header"], r, strict=False)) for r in t["rows"]]


def blocks(page: _Page, kind: str, *, section: str | None = None) -> list[str]:
    return [
        b["text"]
        for b in page.blocks
        if b["kind"] == kind and (section is None or b["section"].startswith(section))
    ]


# ============================================================================ expected values
def f3(x: Any) -> str:
    """The report's number format: three decimals, an en dash for a missing value."""
    x = float(x)
    return f"{x:.3f}" if math.isfinite(x) else "–"


def iv(est: Any, lo: Any = math.nan, hi: Any = math.nan) -> str:
    """``0.123 [0.100, 0.150]``, or the point alone when there is no interval."""
    if not math.isfinite(float(est)):
        return "–"
    if math.isfinite(float(lo)) and math.isfinite(float(hi)):
        return f"{f3(est)} [{f3(lo)}, {f3(hi)}]"
    return f3(est)


def _row(cc: Any, quantity: str, judge: str, method: str) -> Any:
    t = cc.table
    sel = t[(t.quantity == quantity) & (t.judge == judge) & (t.method == method)]
    assert len(sel) == 1, f"{len(sel)} cross-check rows for {quantity}, {judge}, {method}"
    return sel.iloc[0]


def _model_label(cc: Any) -> str:
    return next(m for m in cc.table.method[cc.table.role == "model"].unique())


# ============================================================================ the checker
def inconsistencies(html: str, cc: Any, drawn: dict[str, list[Any]] | None = None) -> list[str]:
    """Every place where the report prints a judge's number differently from the CrossCheck.

    Returns one line per mismatch: ``place: shown 'x', expected 'y'``.
    """
    page = parse(html)
    bad: list[str] = []

    def same(place: str, shown: Any, expected: Any) -> None:
        if str(shown) != str(expected):
            bad.append(f"{place}: shown {shown!r}, expected {expected!r}")

    model = _model_label(cc)
    head = cc.headline()
    head_html = {
        r["judge"]: r for r in table(page, section="Answer", header="verdict", caption="Per judge")
    }
    agree_html = {
        (r["judge"], r["quantity"], r["classical"]): r
        for r in table(page, section="Cross-check", header="overlap")
    }
    table_html = {
        (r["quantity"], r["judge"], r["method"]): r
        for r in table(page, section="Cross-check", header="interval")
    }
    classical_html = {
        r[""]: r for r in table(page, section="Classical", header="n_pairs_both_orders")
    }
    map_html = {r[""]: r for r in table(page, section="Bayesian", header="mean")}
    coverage_html = {r[""]: r for r in table(page, section="Data", header="ties kept")}
    ppc_html = {
        (r["judge"], r["statistic"]): r for r in table(page, section="Bayesian", header="p_value")
    }
    boxes = blocks(page, "box", section="Answer")
    captions = blocks(page, "figcaption")

    for j in cc.verdicts.judge:
        hrow = head.set_index("judge").loc[j]
        v = cc.verdicts.set_index("judge").loc[j]
        shown = head_html.get(j, {})
        # ---- verdict and gap: headline table, verdict box
        same(f"headline verdict {j}", shown.get("verdict"), v.verdict)
        same(f"headline gap {j}", shown.get("gap"), f3(v.gap))
        box = [b for b in boxes if b.startswith(f"{j}: ")]
        same(f"number of verdict boxes for {j}", len(box), 1)
        box = box[0] if box else ""
        same(
            f"verdict word in the box of {j}", box[len(j) + 2 :].split(" ")[0], v.verdict.split()[0]
        )
        if v.verdict == "DISAGREE":
            same(f"gap in the box of {j}", f"largest gap {f3(v.gap)}" in box, True)
        # ---- every primary comparison: the headline's two cells against everything else
        ag = cc.agreement[(cc.agreement.judge == j) & cc.agreement.primary]
        # a rate two methods compare (ε₊ + ε₋: the moments and the 2-D grid) has one classical
        # cell in the headline, that of one of them (the deciding one: the largest gap)
        cells = {
            q: {
                f"{iv(r.classical_estimate, r.classical_lower, r.classical_upper)} "
                f"({SHORT.get(r.classical, r.classical)})"
                for r in rows.itertuples(index=False)
            }
            for q, rows in ag.groupby("quantity")
        }
        for a in ag.itertuples(index=False):
            sym = SYMBOLS.get(a.quantity, a.quantity)
            short = SHORT.get(a.classical, a.classical)
            m_txt = iv(a.posterior_mean, a.posterior_lower, a.posterior_upper)
            c_txt = iv(a.classical_estimate, a.classical_lower, a.classical_upper)
            own = f"{c_txt} ({short})"
            # the CrossCheck's own strings
            col = cc.estimate_column(sym)
            same(f"cc.headline {col} {j}", hrow[col], m_txt)
            cell = hrow[f"{sym} classical"]
            if len(cells[a.quantity]) == 1:
                same(f"cc.headline {sym} classical {j}", cell, own)
            else:
                same(f"cc.headline {sym} classical {j}, one of", cell in cells[a.quantity], True)
            # headline table
            same(f"headline table {col} {j}", shown.get(col), m_txt)
            same(f"headline table {sym} classical {j}", shown.get(f"{sym} classical"), cell)
            # verdict box
            same(
                f"verdict box {sym} {j}",
                f"{sym} {m_txt} vs {short} {c_txt}" in box,
                True,
            )
            # cross-check: agreement table
            r = agree_html.get((j, a.quantity, a.classical), {})
            same(
                f"agreement table {a.quantity} {j} classical",
                r.get("classical_estimate"),
                f3(a.classical_estimate),
            )
            same(
                f"agreement table {a.quantity} {j} lower",
                r.get("classical_lower"),
                f3(a.classical_lower),
            )
            same(
                f"agreement table {a.quantity} {j} upper",
                r.get("classical_upper"),
                f3(a.classical_upper),
            )
            same(
                f"agreement table {a.quantity} {j} posterior",
                r.get("posterior_mean"),
                f3(a.posterior_mean),
            )
            same(f"agreement table {a.quantity} {j} gap", r.get("gap"), f3(a.gap))
            # cross-check: every estimate side by side (classical row and model row)
            r = table_html.get((a.quantity, j, a.classical), {})
            same(
                f"estimates table {a.quantity} {j} {short}",
                r.get("estimate"),
                f3(a.classical_estimate),
            )
            same(
                f"estimates table {a.quantity} {j} {short} lower",
                r.get("lower"),
                f3(a.classical_lower),
            )
            same(
                f"estimates table {a.quantity} {j} {short} upper",
                r.get("upper"),
                f3(a.classical_upper),
            )
            r = table_html.get((a.quantity, j, model), {})
            same(
                f"estimates table {a.quantity} {j} {model}", r.get("estimate"), f3(a.posterior_mean)
            )
            if a.quantity == "eps_sum":  # derived (ε₊ + ε₋): no row of the MAP or classical table
                continue
            # MAP estimates table
            same(
                f"MAP table {a.quantity}[{j}]",
                map_html.get(f"{a.quantity}[{j}]", {}).get("mean"),
                f3(a.posterior_mean),
            )
            # classical estimates table: every column of this quantity (ε₊ (moments) [94%], or
            # a bare eps_plus) must show the headline's classical number
            crow = classical_html.get(j, {})
            # the column of the headline's method: "ε₊ (moments) [94%]", "ε₊ (moments, pairs
            # decided in both orders) [94%]" (ties that depend on position), or a bare eps_plus
            label = SHORT.get(a.classical, a.classical)
            cols = [
                c
                for c in crow
                if c == a.quantity
                or re.fullmatch(rf"{re.escape(sym)}( \[.*\])?", c)
                or re.fullmatch(rf"{re.escape(sym)} \({re.escape(label)}\)( \[.*\])?", c)
            ]
            if a.quantity != "tie_rate" or cc.data.n_ties:
                same(f"classical table has {sym} for {j}", bool(cols), True)
            for c in cols:
                same(f"classical table {c!r} {j}", crow[c].split(" [")[0], f3(a.classical_estimate))
                if "[" in crow[c]:
                    same(f"classical table {c!r} {j}", crow[c], c_txt)
        # ---- ε from S_com: classical table and the estimates table
        s = _row(cc, "eps", j, METHOD_SCOM)
        crow = classical_html.get(j, {})
        cols = [c for c in crow if c in ("eps_scom", "ε (S_com)") or c.startswith("ε (S_com) [")]
        same(f"classical table has ε (S_com) for {j}", bool(cols), True)
        for c in cols:
            same(f"classical table {c!r} {j}", crow[c].split(" [")[0], f3(s.estimate))
        same(
            f"estimates table eps {j} S_com",
            table_html.get(("eps", j, METHOD_SCOM), {}).get("estimate"),
            f3(s.estimate),
        )
        # ---- S_com and r₁: classical table, the S_com row's note, the predictive checks
        s_com = crow.get("s_com")
        same(f"S_com in the note of {j}", f"S_com = {s_com};" in s.note, True)
        same(
            f"observed S_com in the PPC table {j}",
            ppc_html.get((j, "s_com"), {}).get("observed"),
            s_com,
        )
        same(
            f"observed r₁ in the PPC table {j}",
            ppc_html.get((j, "first_position_rate"), {}).get("observed"),
            crow.get("r1"),
        )
        # ---- ties: coverage table, the tie row's note, classical table's verdict count
        k = int(np.sum(cc.data.for_judge(j).outcome == 0.5))
        same(f"ties kept {j}", coverage_html.get(j, {}).get("ties kept"), str(k))
        same(f"verdicts {j}", coverage_html.get(j, {}).get("verdicts"), crow.get("n_verdicts"))
        if k:
            t = _row(cc, "tie_rate", j, METHOD_TIES)
            same(f"tie note {j}", t.note, f"{k} of {crow.get('n_verdicts')} verdicts")
        # ---- Δ_S figure captions against the estimates table
        for method, pattern in (
            (
                METHOD_GRID,
                rf"Judge {re.escape(j)}: Δ_S–n curve with the synthetic curve at ε̂ = ([\d.]+)",
            ),
            (METHOD_GRID_SUM, rf"Judge {re.escape(j)}: 2-D Δ_S misfit .*?sum ε₊ \+ ε₋ ≈ ([\d.]+)"),
        ):
            q = "eps" if method == METHOD_GRID else "eps_sum"
            rows = cc.table[
                (cc.table.judge == j)
                & (cc.table.quantity == q)
                & cc.table.method.str.startswith(method)
            ]
            hits = [m.group(1) for c in captions if (m := re.search(pattern, c))]
            if len(rows):
                same(f"{method} caption {j}", hits, [f3(rows.estimate.iloc[0])])
                same(
                    f"{method} estimates table {j}",
                    table_html.get((q, j, rows.method.iloc[0]), {}).get("estimate"),
                    f3(rows.estimate.iloc[0]),
                )
        split = cc.table[(cc.table.judge == j) & cc.table.method.str.startswith(METHOD_GRID_SPLIT)]
        if len(split):
            e = split.set_index("quantity").estimate
            hits = [
                m.groups()
                for c in captions
                if (
                    m := re.search(
                        rf"Judge {re.escape(j)}: 2-D .*split by the first-position rate: "
                        r"\((-?[\d.]+), (-?[\d.]+)\)",
                        c,
                    )
                )
            ]
            same(f"2-D split caption {j}", hits, [(f3(e["eps_plus"]), f3(e["eps_minus"]))])
        # ---- predictive checks: caption p-values against the table
        cap = [c for c in captions if c.startswith(f"Judge {j}: posterior predictive checks")]
        same(f"number of PPC captions {j}", len(cap), 1)
        pv = (
            dict(re.findall(r"(\w+) ([\d.]+|–)(?=[,( ])", cap[0].split("P(rep = obs):")[1]))
            if cap
            else {}
        )
        for (jj, stat), r in ppc_html.items():
            if jj == j:
                same(f"PPC p-value {stat} {j}: caption vs table", pv.get(stat), r["p_value"])
        for w in blocks(page, "box", section="Bayesian"):
            for stat, p in re.findall(rf"(\w+) for {re.escape(j)} \(p = ([\d.]+)\)", w):
                same(
                    f"PPC warning p-value {stat} {j}", p, ppc_html.get((j, stat), {}).get("p_value")
                )
        # ---- P(R_m, TO): the rates named in the caption are the headline's classical values
        prm = [c for c in captions if c.startswith("P(R_m, TO)")]
        same("number of P(R_m, TO) captions", len(prm), 1)
        # the moments the verdict rests on: on the pairs decided in both orders where this
        # judge's ties depend on the better text's position (PRD gpt4), else rescaled
        basis = _moments_basis(cc, j)
        label = "moments" if basis == METHOD_MOMENTS else basis
        m = re.search(
            rf"{re.escape(j)}: ε₊ (-?[\d.]+), ε₋ (-?[\d.]+) \({re.escape(label)}\)",
            prm[0] if prm else "",
        )
        same(
            f"P(R_m, TO) caption rates {j}",
            m.groups() if m else None,
            (
                f3(_row(cc, "eps_plus", j, basis).estimate),
                f3(_row(cc, "eps_minus", j, basis).estimate),
            ),
        )
    # ---- totals: ties found / modelled
    n_ties = int(np.sum(cc.data.outcome == 0.5))
    same(
        "ties found (data bullets)",
        any(f"ties: {n_ties} found" in li for li in blocks(page, "li")),
        True,
    )
    if cc.tie_handling.get(next(iter(cc.fits)), {}).get("handling") == "model":
        same(
            "ties modelled (Bayesian box)",
            any(f"{n_ties} tie(s) modelled" in b for b in blocks(page, "box", section="Bayesian")),
            True,
        )
    # ---- the figures: what the report handed to the plotting functions
    if drawn is not None:
        bad.extend(_drawn_inconsistencies(cc, drawn))
    return bad


def _moments_basis(cc: Any, j: str) -> str:
    """The moments the verdict rests on for judge ``j``: on the pairs decided in both orders
    where its ties depend on the better text's position (PRD gpt4), else the rescaled ones."""
    decided = (cc.table.judge == j) & (cc.table.method == METHOD_MOMENTS_DECIDED)
    return METHOD_MOMENTS_DECIDED if decided.any() else METHOD_MOMENTS


def _drawn_inconsistencies(cc: Any, drawn: dict[str, list[Any]]) -> list[str]:
    """The tables the report handed to the plotting functions (``data=``: the cross-check's
    own numbers) against the headline's."""
    bad = []
    judges = list(cc.verdicts.judge)
    # the headline's judge forest: hollow squares at the headline's classical estimates
    forests = drawn.get("plot_judge_forest", [])
    if len(forests) != 1:
        bad.append(f"judge forest drawn {len(forests)} times")
    for kw in forests:
        cl = kw["data"]
        cl = cl[cl.source == "classical"]
        for j in judges:
            for q in ("eps_plus", "eps_minus"):
                want = f3(_row(cc, q, j, _moments_basis(cc, j)).estimate)
                got = [f3(x) for x in cl[(cl.judge == j) & (cl.variable == q)]["mean"]]
                if got != [want]:
                    bad.append(f"judge forest classical {q} {j}: drawn {got}, expected {want}")
    # the per-judge densities: the dashed lines at the cross-check's classical values
    for j in judges:
        calls = [
            kw
            for kw in drawn.get("plot_posterior_vs_grid", [])
            if set(kw["data"].judge.dropna().astype(str)) == {j}
        ]
        if len(calls) != 1:
            bad.append(f"densities of {j} drawn {len(calls)} times")
            continue
        df = calls[0]["data"]
        df = df[df.kind == "classical"]
        for q in ("eps_plus", "eps_minus"):
            for method in (METHOD_MOMENTS,):
                want = f3(_row(cc, q, j, method).estimate)
                got = [f3(x) for x in df[(df.variable == q) & (df.source == method)].estimate]
                if got != [want]:
                    bad.append(f"density line {q} {j} ({method}): drawn {got}, expected {want}")
    # P(R_m, TO): each panel at the headline's moment estimates (a rate below 0 is a probability
    # of 0 for the curve)
    panels = drawn.get("plot_correct_score", [])
    for j in judges:
        want = {
            q: f3(max(_row(cc, q, j, _moments_basis(cc, j)).estimate, 0.0))
            for q in ("eps_plus", "eps_minus")
        }
        got = [
            {q: f3(kw["data"].attrs[q]) for q in want}
            for kw in panels
            if str(kw.get("title", "")).startswith(plots.short_label(j) + ":")
        ]
        if got != [want]:
            bad.append(f"P(R_m, TO) panel of {j}: drawn {got}, expected {want}")
    return bad


# ============================================================================ the report
_PNG = (  # a 1×1 PNG: the figures are drawn, only their encoding is skipped (~10 s)
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f"
    b"\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00"
    b"\x00\x00\x00IEND\xaeB`\x82"
)


@pytest.fixture(scope="module")
def rendered() -> tuple[str, Any, dict[str, list[Any]], float]:
    """(HTML, CrossCheck, plotting calls, seconds) of one MAP report on PRD with ties."""
    from matplotlib.figure import Figure

    t0 = time.perf_counter()
    frame = load_frame("prd_vicuna80")
    contexts = sorted(frame["context"].unique())[:N_CONTEXTS]
    frame = frame[frame["judge"].isin(JUDGES) & frame["context"].isin(contexts)]
    data = load_comparisons(
        frame, judge="judge", context="context", ties="model", source_name="PRD, 20 questions"
    )
    drawn: dict[str, list[Any]] = {}
    mp = pytest.MonkeyPatch()

    def record(name: str, keys: tuple[str, ...]) -> None:
        real = getattr(plots, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            call = dict(kwargs)
            if keys:
                call["classical"] = args[len(keys) :]
            drawn.setdefault(name, []).append(call)
            return real(*args, **kwargs)

        mp.setattr(plots, name, wrapper)

    def tiny_png(self: Any, fname: Any, *args: Any, **kwargs: Any) -> None:
        assert isinstance(fname, io.BytesIO)
        fname.write(_PNG)

    try:
        record("plot_judge_forest", ())
        record("plot_posterior_vs_grid", ("idata",))
        record("plot_correct_score", ())
        mp.setattr(Figure, "savefig", tiny_png)
        cc = bp.crosscheck(
            data,
            models=("positional",),
            method="map",
            random_seed=0,
            ppc=True,
            ppc_draws=100,
            grid_kwargs={"n_subsets": 20},
        )
        html = build_report(cc, progress=False).render()
    finally:
        mp.undo()
    return html, cc, drawn, time.perf_counter() - t0


def test_the_settings_give_the_replicates_the_checks_drew(rendered):
    """The cross-check asked for 100 replicates; the settings table said the report's own
    default, 1000, beside captions that said 100."""
    page, cc, _, _ = rendered
    cell = page.split("<td>posterior predictive replicates</td>")[1].split("</td>")[0]
    assert cc.settings["ppc_draws"] == 100
    assert cell.strip() == "<td>100"


def test_the_report_covers_what_is_checked(rendered):
    _, cc, _, _ = rendered  # (its wall time is not asserted: no clocks in the default suite)
    assert cc.data.n_judges == 2 and cc.data.n_ties > 0
    assert cc.tie_handling["positional"]["handling"] == "model"
    head = cc.headline()
    # the headline compares the tie rate, ε₊ and ε₋ of both judges
    # a MAP fit: the model columns say so
    assert {"tie rate MAP", "ε₊ MAP", "ε₋ MAP", "ε₊ classical"} <= set(head.columns)
    assert cc.estimate_column("ε₊") == "ε₊ MAP"
    # tie rate, ε₊, ε₋ and ε₊ + ε₋: the moments' sum and, its synthetic tables holding the
    # judge's ties, the 2-D Δ_S sum (gpt4's ties break the rescaling: its sum's basis is the
    # pairs decided in both orders alone)
    primary = cc.agreement[cc.agreement.primary]
    assert len(primary) == 9
    sums = primary[primary.quantity == "eps_sum"].groupby("judge").classical.apply(set)
    assert sums["claude"] == {"Δ_S grid (2-D), sum", "moments (S_com, r₁)"}
    assert sums["gpt4"] == {"moments, pairs decided in both orders"}
    assert "Δ_S grid (2-D) sum split by r₁" in set(cc.table.method)


def test_every_number_shown_twice_is_the_same(rendered):
    html, cc, drawn, _ = rendered
    bad = inconsistencies(html, cc, drawn)
    assert not bad, "\n".join(bad)


def test_classical_table_is_on_the_headline_scale(rendered):
    """The classical estimates section used to print the ties-half moments (ε₊ 0.194 where the
    headline said 0.152 for claude): now the same intervals as the headline."""
    html, cc, _, _ = rendered
    rows = {r[""]: r for r in table(parse(html), section="Classical", header="n_pairs_both_orders")}
    for j in cc.verdicts.judge:
        r = _row(cc, "eps_plus", j, METHOD_MOMENTS)
        assert rows[j]["ε₊ (moments) [94%]"] == iv(r.estimate, r.lower, r.upper)
    intro = [p for p in blocks(parse(html), "p", section="Classical") if p.startswith("S_com is")]
    assert len(intro) == 1 and "Intervals are 94% normal" in intro[0]


def _perturb(html: str, anchor: str, old: str, new: str) -> str:
    """Change the first ``old`` after ``anchor`` (both must occur)."""
    i = html.index(anchor)
    k = html.index(old, i)
    return html[:k] + new + html[k + len(old) :]


def _bump(x: str) -> str:
    return f"{float(x) + 0.001:.3f}"


@pytest.mark.parametrize(
    "place",
    [
        "headline",
        "verdict box",
        "agreement table",
        "estimates table",
        "MAP table",
        "classical table",
        "PPC caption",
        "tie count",
    ],
)
def test_the_checker_catches_one_changed_number(rendered, place):
    html, cc, _, _ = rendered
    j = cc.verdicts.judge.iloc[0]
    a = cc.agreement[(cc.agreement.judge == j) & (cc.agreement.quantity == "eps_plus")]
    a = a[a.primary].iloc[0]
    est = f3(a.classical_estimate)
    post = f3(a.posterior_mean)
    if place == "headline":
        bad = _perturb(html, "<th>verdict</th>", f"<td>{est} [", f"<td>{_bump(est)} [")
    elif place == "verdict box":
        bad = _perturb(html, f'<div class="box ok">{j}: ', f"ε₊ {post} vs", f"ε₊ {_bump(post)} vs")
    elif place == "agreement table":
        bad = _perturb(html, "<th>overlap</th>", f"<td>{est}</td>", f"<td>{_bump(est)}</td>")
    elif place == "estimates table":
        bad = _perturb(html, "<th>interval</th>", f"<td>{post}</td>", f"<td>{_bump(post)}</td>")
    elif place == "MAP table":
        bad = _perturb(
            html, f"<th>eps_plus[{j}]</th>", f"<td>{post}</td>", f"<td>{_bump(post)}</td>"
        )
    elif place == "classical table":
        bad = _perturb(html, "<th>n_pairs_both_orders</th>", f"<td>{est} [", f"<td>{_bump(est)} [")
    elif place == "PPC caption":
        p = parse(html)
        row = next(
            r
            for r in table(p, section="Bayesian", header="p_value")
            if r["judge"] == j and r["statistic"] == "s_com"
        )
        bad = _perturb(
            html,
            f"<figcaption>Judge {j}: posterior predictive",
            f"s_com {row['p_value']}",
            f"s_com {_bump(row['p_value'])}",
        )
    else:
        k = int(np.sum(cc.data.for_judge(j).outcome == 0.5))
        bad = _perturb(html, "<th>ties kept</th>", f"<td>{k}</td>", f"<td>{k + 1}</td>")
    assert bad != html
    assert inconsistencies(html, cc) == []
    found = inconsistencies(bad, cc)
    assert len(found) >= 1, place


def test_the_classical_caption_names_every_judge_whose_ties_move_the_basis(rendered):
    """The decided-pairs rows appear for every judge whose ties break the tie-share rescaling
    (their ties depend on the better text's position, or come in pairs); the caption names each
    with its reason — it used to name only the first kind."""
    import html as html_lib

    page, cc, _, _ = rendered
    moved = {j: c for j, c in cc.classical.tie_position.items() if c.rescaling_fails}
    assert moved, "the PRD excerpt should have a judge whose ties break the rescaling"
    assert "what their verdict rests on (and what `estimate` answers with)" in page
    for j, c in moved.items():
        assert html_lib.escape(f"{j}: {c.reason()}") in page
    # each such judge's decided moments carry their own edge flag, beside the rescaled ones'
    col = "moments_at_boundary (pairs decided in both orders)"
    rows = {r[""]: r for r in table(parse(page), section="Classical", header=col)}
    for j, r in rows.items():
        assert r[col] == (str(moved[j].at_boundary) if j in moved else "–"), j
