r"""A tiny builder for self-contained HTML pages: every string escaped, images embedded.

The report must open offline and must never execute user-supplied text, so this module is the
only place that writes markup: text goes through :func:`esc` (:func:`html.escape`, then every
invisible character made visible), tables through ``DataFrame.to_html(escape=True)`` and the same
visibility pass, and figures become ``data:image/png;base64`` URIs.

Invisible characters are shown as ``<U+XXXX>`` text: bidirectional controls (U+202A–U+202E,
U+2066–U+2069, U+200E, U+200F, U+061C) would otherwise reorder what the reader sees (an id
``abc\u202etxt.exe`` displays as ``abcexe.txt``), and C0/C1 controls (but tab and newline),
zero-width and other format characters, line/paragraph separators and lone surrogates would be
invisible or break the file's encoding. Zero-width (non-)joiners are kept: scripts and emoji need
them.
"""

from __future__ import annotations

import base64
import html
import io
import re
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d1d1f;
background:#fafafa;line-height:1.45}
main{max-width:1150px;margin:0 auto;padding:1.5rem 2rem 4rem}
h1{font-size:1.8rem;margin-bottom:.2rem}h2{margin-top:2.4rem;border-bottom:2px solid #ddd;
padding-bottom:.2rem}h3{margin-top:1.6rem}
.sub{color:#666;margin-top:0}
table{border-collapse:collapse;margin:.6rem 0 1rem;font-size:.88rem;background:#fff;
display:block;max-width:100%;overflow-x:auto}
th,td{border:1px solid #ddd;padding:.25rem .55rem;text-align:right}
th{background:#f0f0f3}td:first-child,th:first-child{text-align:left}
.fail{background:#fde2e1}.pass{background:#e3f6e5}
.box{border-left:4px solid #888;background:#fff;padding:.6rem 1rem;margin:.8rem 0}
.warn{border-color:#d97706;background:#fff7e6}.ok{border-color:#15803d;background:#effaf1}
.bad{border-color:#b91c1c;background:#fdecec}.note{border-color:#2563eb;background:#eef4ff}
figure{margin:1rem 0;background:#fff;padding:.5rem;border:1px solid #e5e5e5}
figure img{max-width:100%;height:auto}figcaption{color:#555;font-size:.9rem}
nav ul{columns:2;font-size:.92rem}nav ul ul{columns:1;font-size:.85rem;margin:0 0 .2rem}
code{background:#f1f1f4;padding:0 .25rem}
details{margin:.8rem 0;background:#fff;border:1px solid #e5e5e5;padding:.3rem .8rem}
summary{font-size:1.25rem;font-weight:600;cursor:pointer;padding:.3rem 0}
"""


#: Bidirectional formatting characters: embeddings/overrides, isolates, marks (LRM, RLM, ALM).
BIDI_CONTROLS = frozenset(
    [chr(c) for c in range(0x202A, 0x202F)]
    + [chr(c) for c in range(0x2066, 0x206A)]
    + ["\u200e", "\u200f", "\u061c"]
)

# bidi controls, C0 controls but tab/newline, DEL and C1 controls, soft hyphen, Mongolian vowel
# separator, zero-width space, line/paragraph separators, word joiner and invisible operators,
# deprecated format characters, BOM, interlinear annotation, lone surrogates
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b\u200e\u200f"
    "\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff]"
)


def visible(text: str, *, escaped: bool = False) -> str:
    r"""Replace every invisible or direction-changing character by a visible ``<U+XXXX>``.

    Parameters
    ----------
    text : str
    escaped : bool
        The text is already HTML-escaped: write the marker as ``&lt;U+XXXX&gt;``.

    Examples
    --------
    >>> visible("abc\u202etxt.exe")
    'abc<U+202E>txt.exe'
    >>> visible("a\x00b\tc", escaped=True)
    'a&lt;U+0000&gt;b\tc'
    """
    fmt = "&lt;U+{:04X}&gt;" if escaped else "<U+{:04X}>"
    return _INVISIBLE.sub(lambda m: fmt.format(ord(m.group())), text)


def esc(text: Any) -> str:
    r"""Escape any value for HTML text or attribute context; invisible characters made visible.

    Examples
    --------
    >>> esc("<script>alert(1)</script> & co")
    '&lt;script&gt;alert(1)&lt;/script&gt; &amp; co'
    >>> esc("gpt\u202e4")
    'gpt&lt;U+202E&gt;4'
    """
    return visible(html.escape(str(text), quote=True), escaped=True)


def figure_to_data_uri(fig: Any, *, dpi: int = 110) -> str:
    """Render a Matplotlib figure to a ``data:image/png;base64,…`` URI (and close it)."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    # a figure with a layout engine is already laid out: "tight" would draw it twice (measured:
    # a third of the report's time went to drawing figures)
    tight = "tight" if fig.get_layout_engine() is None else None
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches=tight)
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _contents(toc: list[tuple[str, str, int]]) -> str:
    """The list items of a page's contents: each level-2 entry with the level-3 entries after
    it as a nested list.

    Examples
    --------
    >>> _contents([("s1", "A", 2), ("s2", "a1", 3), ("s3", "B", 2)])
    '<li><a href="#s1">A</a><ul><li><a href="#s2">a1</a></li></ul></li><li><a href="#s3">B</a></li>'
    """
    out: list[str] = []
    sub: list[str] = []

    def close() -> None:
        if out:
            out[-1] += (f"<ul>{''.join(sub)}</ul>" if sub else "") + "</li>"
        sub.clear()

    for a, t, level in toc:
        item = f'<a href="#{a}">{esc(t)}</a>'
        if level == 3 and out:
            sub.append(f"<li>{item}</li>")
        else:
            close()
            out.append(f"<li>{item}")
    close()
    return "".join(out)


@dataclass
class HtmlPage:
    """Accumulates escaped blocks and renders one self-contained page.

    Examples
    --------
    >>> page = HtmlPage("Judge <b> report")
    >>> page.paragraph("item <script>")
    >>> "<script>" in page.render()
    False
    """

    title: str
    subtitle: str = ""
    blocks: list[str] = field(default_factory=list)
    #: (anchor, text, level) of each heading in the contents: level 2 at the top, level 3
    #: (a judge's section, a table's) nested under the level 2 before it
    toc: list[tuple[str, str, int]] = field(default_factory=list)
    #: what the page renders (the report's CrossCheck), for callers that print it too
    source: Any = None

    def heading(self, text: str, level: int = 2) -> None:
        """Add a heading (levels 2 and 3 go into the table of contents, 3 nested in 2)."""
        anchor = f"s{len(self.toc) + 1}"
        if level in (2, 3):
            self.toc.append((anchor, text, level))
            self.blocks.append(f'<h{level} id="{anchor}">{esc(text)}</h{level}>')
        else:
            self.blocks.append(f"<h{level}>{esc(text)}</h{level}>")

    def paragraph(self, text: str) -> None:
        """Add a paragraph of plain (escaped) text."""
        self.blocks.append(f"<p>{esc(text)}</p>")

    def box(self, text: str, kind: str = "note", title: str | None = None) -> None:
        """Add a coloured call-out: ``kind`` in note / ok / warn / bad."""
        head = f"<strong>{esc(title)}</strong><br>" if title else ""
        self.blocks.append(f'<div class="box {esc(kind)}">{head}{esc(text)}</div>')

    def bullets(self, items: list[str]) -> None:
        """Add a bulleted list of plain (escaped) text."""
        self.blocks.append("<ul>" + "".join(f"<li>{esc(i)}</li>" for i in items) + "</ul>")

    def table(
        self,
        df: pd.DataFrame,
        *,
        caption: str | None = None,
        float_format: str = "{:.3f}",
        index: bool = True,
        flag_column: str | None = None,
    ) -> None:
        """Add a DataFrame as an escaped HTML table; rows where ``flag_column`` is False are red."""
        fmt = {
            c: (lambda v, f=float_format: f.format(v) if isinstance(v, float) else str(v))
            for c in df.columns
        }
        body = df.to_html(escape=True, index=index, formatters=fmt, border=0, na_rep="–")
        if flag_column is not None and flag_column in df.columns:
            # colour whole rows by the flag: re-render row by row
            rows = []
            head = df.iloc[:0].to_html(escape=True, index=index, border=0)
            head = head.split("<tbody>")[0]
            for k in range(len(df)):
                part = df.iloc[[k]].to_html(
                    escape=True, index=index, formatters=fmt, border=0, na_rep="–"
                )
                tr = part.split("<tbody>")[1].split("</tbody>")[0]
                cls = "pass" if bool(df[flag_column].iloc[k]) else "fail"
                rows.append(tr.replace("<tr>", f'<tr class="{cls}">', 1))
            body = head + "<tbody>" + "".join(rows) + "</tbody></table>"
        cap = f"<p><em>{esc(caption)}</em></p>" if caption else ""
        self.blocks.append(cap + visible(body, escaped=True))  # to_html escapes only <, >, &

    def figure(self, fig: Any, caption: str = "") -> None:
        """Embed a Matplotlib figure as a PNG data URI (the figure is closed)."""
        uri = figure_to_data_uri(fig)
        self.blocks.append(
            f'<figure><img alt="{esc(caption)}" src="{uri}">'
            f"<figcaption>{esc(caption)}</figcaption></figure>"
        )

    def open_details(self, summary: str, *, open_: bool = False) -> None:
        """Start a collapsible section (``<details>``: no JavaScript); close it with
        :meth:`close_details`. It goes into the table of contents."""
        anchor = f"s{len(self.toc) + 1}"
        self.toc.append((anchor, summary, 2))
        flag = " open" if open_ else ""
        self.blocks.append(f'<details id="{anchor}"{flag}><summary>{esc(summary)}</summary>')

    def close_details(self) -> None:
        """End the section started by :meth:`open_details`."""
        self.blocks.append("</details>")

    def preformatted(self, text: str) -> None:
        """Add preformatted (escaped) text."""
        self.blocks.append(f"<pre>{esc(text)}</pre>")

    def render(self) -> str:
        """The whole page as one string (no external references).

        A last pass makes any invisible character that reached a block visible (the markup
        written here has none, so the pass changes user text only).
        """
        toc = _contents(self.toc)
        sub = f'<p class="sub">{esc(self.subtitle)}</p>' if self.subtitle else ""
        page = (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{esc(self.title)}</title><style>{_CSS}</style></head><body><main>"
            f"<h1>{esc(self.title)}</h1>{sub}"
            f"<nav><details><summary>Contents</summary><ul>{toc}</ul></details></nav>"
            + "\n".join(self.blocks)
            + "</main></body></html>\n"
        )
        return visible(page, escaped=True)
