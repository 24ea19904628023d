"""MkDocs hook: render Sphinx cross-reference roles left in numpydoc docstrings as code.

``:class:`~bayes_pairwise.data.Comparisons``` becomes ``Comparisons`` in code font (the tilde
keeps only the last component, as Sphinx does).
"""

from __future__ import annotations

import re

_ROLE = re.compile(r":(?:class|func|meth|attr|data|mod|obj|exc|py:\w+):<code>(~?)([^<]*)</code>")


def _sub(m: re.Match[str]) -> str:
    target = m.group(2)
    if m.group(1) == "~":
        target = target.rsplit(".", 1)[-1]
    return f"<code>{target}</code>"


def on_page_content(html: str, **kwargs: object) -> str:
    """Replace role markup in the rendered page."""
    return _ROLE.sub(_sub, html)
