"""Test helper: the tables of a rendered HTML report, with the caption printed before each."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any


class HtmlTables(HTMLParser):
    """Every <table>: the caption printed before it (``<em>``) and its rows of cell texts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[dict[str, Any]] = []
        self._em: list[str] | None = None
        self._caption = ""
        self._cell: list[str] | None = None
        self._row: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "em":
            self._em = []
        elif tag == "table":
            self.tables.append({"caption": self._caption, "rows": []})
            self._caption = ""
        elif tag == "tr" and self.tables:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "em" and self._em is not None:
            self._caption = "".join(self._em)
            self._em = None
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables[-1]["rows"].append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        for buf in (self._em, self._cell):
            if buf is not None:
                buf.append(data)
