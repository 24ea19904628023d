"""The stored notebook outputs read as a tutorial (issue 28): no FAILED, no developer's paths."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("[0-9]*.ipynb"))
ABSOLUTE = re.compile(r"(/work/|/home/|/root/|/Users/|/tmp/ipykernel|[A-Z]:\\\\Users)")


def _outputs(path: Path) -> str:
    nb = json.loads(path.read_text(encoding="utf-8"))
    texts = []
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            texts.append("".join(out.get("text", "")))
            for key in ("text/plain", "text/html"):
                texts.append("".join(out.get("data", {}).get(key, "")))
            texts.append("".join(out.get("traceback", [])))
    return "\n".join(texts)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_stored_outputs_have_no_failed_and_no_absolute_paths(path):
    text = _outputs(path)
    assert "FAILED" not in text
    assert not ABSOLUTE.search(text), ABSOLUTE.search(text).group(0)
