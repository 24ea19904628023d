"""Render the first screen of a ``bayes-pairwise report`` HTML file to PNG.

The documentation's screenshots of the report (``docs/src/img/report_first_screen_*.png``)
are made with this script. It uses **WeasyPrint** (an HTML/CSS layout engine, no JavaScript)
and **PyMuPDF** (to rasterise WeasyPrint's PDF) because the machine the docs are built on
has no headless Chromium and cannot download one. The report is self-contained HTML with
inline CSS and base64 PNG figures and uses no JavaScript, so a CSS renderer lays it out as a
browser would, up to the caveats below.

How it works: the report is laid out on one page 1280 CSS px wide (the viewport width of the
screenshot) and one screen taller than the part shown (800 CSS px a screen), with
``@page { margin: 0 }``; the first screen is the top 1280 × 800 px of that page. Laying out
more than is shown keeps WeasyPrint from moving a table row or box that straddles the 800 px
line onto the next page, which would leave a blank band at the bottom of the screenshot that a
browser never shows.

Run it from a separate virtual environment (WeasyPrint and PyMuPDF are *not* dependencies of
bayes_pairwise, and this file is not part of the package, the tests or the wheel)::

    python -m venv /tmp/shot
    /tmp/shot/bin/pip install weasyprint pymupdf pillow
    bayes-pairwise report prd_vicuna80 --map --out /tmp/shots/prd_map.html  # project venv
    /tmp/shot/bin/python docs/make_screenshots.py /tmp/shots/prd_map.html \\
        docs/src/img/report_first_screen_map.png

Options: ``--scale 1.5`` rasterises at 1.5 device pixels per CSS px (default 1);
``--full PATH`` also writes the first three screens stacked as one long PNG;
``--max-kb`` (default 400) reduces the PNG to a 256-colour palette if the lossless PNG is
larger.

Rendering caveats (WeasyPrint 70 against a browser; each checked on a test page):

* ``<details>``: WeasyPrint has no closed state and draws every ``<details>`` open. The page
  stylesheet hides the content of a ``<details>`` without ``open``, so the report's "Contents"
  box is collapsed as in a browser, but its disclosure triangle (▸) is not drawn.
* Fonts: the report asks for ``system-ui``; WeasyPrint takes fontconfig's sans-serif (DejaVu
  Sans on the docs machine), which is wider than most browsers' system font, so table cells
  wrap a little earlier than in Chrome.
* ``table { display: block; overflow-x: auto }``: a browser gives a table wider than the
  1150 px column a horizontal scroll bar inside the column; WeasyPrint draws it past the
  column and cuts it at the page's right edge. The headline table fits the column, so the
  first screen is not affected.
* No scroll bars, hover states or ``cursor`` styles are drawn.
"""

from __future__ import annotations

import argparse
import io
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image

VIEWPORT_WIDTH = 1280  # CSS px
VIEWPORT_HEIGHT = 800  # CSS px
PT_PER_PX = 72 / 96  # a CSS px is 1/96 in; PDF units are 1/72 in


def render_pdf(html_path: Path, screens: int) -> bytes:
    """Lay the report out on one page ``VIEWPORT_WIDTH`` wide and ``screens`` screens tall."""
    import weasyprint

    page_css = weasyprint.CSS(
        string=(
            f"@page {{ size: {VIEWPORT_WIDTH}px {VIEWPORT_HEIGHT * screens}px; margin: 0 }}"
            # the body background fills the page, as a browser's canvas does
            "html { background: #fafafa }"
            # WeasyPrint draws every <details> open; hide a closed one's content as a
            # browser does
            "details:not([open]) > :not(summary) { display: none }"
        )
    )
    doc = weasyprint.HTML(filename=str(html_path)).render(stylesheets=[page_css])
    return doc.write_pdf()


def rasterise(pdf: bytes, screens: int, scale: float) -> Image.Image:
    """Rasterise the top ``screens`` screens of page 1 to a PIL image."""
    import pymupdf
    from PIL import Image

    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        page = doc[0]
        clip = pymupdf.Rect(0, 0, VIEWPORT_WIDTH * PT_PER_PX, VIEWPORT_HEIGHT * screens * PT_PER_PX)
        zoom = scale / PT_PER_PX
        pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), clip=clip, alpha=False)
        return Image.open(io.BytesIO(pix.tobytes("png"))).convert("RGB")


def save_png(image: Image.Image, path: Path, max_kb: float) -> int:
    """Save ``image`` as an optimised PNG, as a 256-colour palette if it is over ``max_kb``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, optimize=True)
    if path.stat().st_size > max_kb * 1024:
        from PIL import Image

        image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
            path, optimize=True
        )
    return path.stat().st_size


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("html", type=Path, help="report HTML file")
    parser.add_argument("out", type=Path, help="PNG of the first 1280×800 screen")
    parser.add_argument("--scale", type=float, default=1.0, help="device px per CSS px")
    parser.add_argument("--full", type=Path, help="also write the first 3 screens stacked")
    parser.add_argument("--max-kb", type=float, default=400.0, help="PNG size limit")
    args = parser.parse_args(argv)

    screens = 3 if args.full else 1
    # one screen more is laid out than is shown, so that a block straddling the last shown
    # screen's lower edge is cut there, as in a browser, instead of being moved off the page
    image = rasterise(render_pdf(args.html, screens + 1), screens, args.scale)
    first = image.crop((0, 0, image.width, round(VIEWPORT_HEIGHT * args.scale)))
    size = save_png(first, args.out, args.max_kb)
    print(f"{args.out}: {first.width}×{first.height} px, {size / 1024:.0f} KB")
    if args.full:
        size = save_png(image, args.full, args.max_kb * 3)
        print(f"{args.full}: {image.width}×{image.height} px, {size / 1024:.0f} KB")


if __name__ == "__main__":
    main()
