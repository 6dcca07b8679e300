"""``ntpcheck verify --figures DIR``: each claim's figure as a small PNG, and ``DIR/index.json``.

The figures are the report's (:func:`.reportmd.report_items`, :mod:`.claimfigure`), written
without the report around them, for a documentation page or a paper's appendix: one file per
claim that has a figure, named after the claim (``lemma-1.png``, ``cor-1-k-5.png``), stored with
a palette of at most :data:`COLOURS` colours (about a quarter of the report's bytes; the figures
use the eight Okabe-Ito colours, black, greys and their light bands, so nothing a reader needs is
lost).  ``index.json`` lists every claim in run order with its verdict, its caption and its file
(``null`` where no tested instance left data to draw, with the report's sentence saying why), so
a page can be generated from it (:mod:`.docs_pages`).  ``DIR`` must be new or empty, as the
report's: nothing already there is overwritten or deleted (:func:`ntpcheck.common.atomic.published_directory`).
"""

from __future__ import annotations

import io
import json
import os

from ntpcheck.common.atomic import atomic_write_bytes, atomic_write_text, published_directory

__all__ = ["COLOURS", "INDEX", "figure_png", "small_png", "write_figures"]

#: Colours kept in a written figure's palette.
COLOURS = 64
#: The index written beside the figures.
INDEX = "index.json"


def small_png(png: bytes, colours: int = COLOURS) -> bytes:
    """``png`` re-encoded with a palette of at most ``colours`` colours (Pillow, which matplotlib needs).

    Examples
    --------
    >>> from PIL import Image
    >>> buf = io.BytesIO(); Image.new("RGBA", (40, 20), (0, 114, 178, 255)).save(buf, format="PNG")
    >>> small = small_png(buf.getvalue())
    >>> Image.open(io.BytesIO(small)).mode, Image.open(io.BytesIO(small)).size
    ('P', (40, 20))
    """
    from PIL import Image

    return _palette_png(Image.open(io.BytesIO(png)), colours)


def _palette_png(image, colours: int) -> bytes:
    """``image`` (Pillow) as PNG bytes with a palette of at most ``colours`` colours."""
    buf = io.BytesIO()
    image.convert("RGB").quantize(colors=colours).save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def figure_png(fig, colours: int = COLOURS) -> bytes:
    """``fig`` (a claim's figure) drawn once, in the report's style, and encoded once with a palette
    of at most ``colours`` colours: the pixels of :func:`small_png` of the report's PNG
    (:func:`.figstyle.png`), without encoding that PNG and decoding it again.

    Examples
    --------
    >>> from ntpcheck.app.report.figstyle import new_figure, png
    >>> fig, axes = new_figure(ncols=1, height=2.5)
    >>> _ = axes[0, 0].plot([0, 1], [1, 0])
    >>> from PIL import Image
    >>> pixels = lambda b: Image.open(io.BytesIO(b)).convert("RGB").tobytes()
    >>> pixels(figure_png(fig)) == pixels(small_png(png(fig)))
    True
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image

    from .figstyle import styled

    previous = fig.canvas
    try:
        with styled():
            canvas = FigureCanvasAgg(fig)
            canvas.draw()
            image = Image.frombuffer("RGBA", canvas.get_width_height(physical=True), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
            return _palette_png(image, colours)
    finally:
        fig.set_canvas(previous)  # the figure keeps no image buffer (about 2 MB each)


def write_figures(out_dir: str, results: list, paper: str | None = None) -> int:
    """Write each result's figure and ``INDEX`` into ``out_dir`` (new or empty); the number of figures."""
    from .reportmd import report_items

    items = report_items(results, encode=False)  # each figure encoded once, with its palette
    entries, n = [], 0
    with published_directory(out_dir) as staging:  # all at once, as the report
        for it in items:
            r = it.result
            entry = {"claim": r.claim.name, "verdict": r.verdict.value, "caption": it.caption, "file": None}
            if it.figure is not None:
                entry["file"] = os.path.basename(it.plot)
                atomic_write_bytes(os.path.join(staging, entry["file"]), figure_png(it.figure))
                n += 1
            entries.append(entry)
        atomic_write_text(os.path.join(staging, INDEX),
                          json.dumps({"schema_version": 1, "paper": paper, "figures": entries}, indent=1, ensure_ascii=False) + "\n")
    return n
