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

__all__ = ["COLOURS", "INDEX", "small_png", "write_figures"]

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

    buf = io.BytesIO()
    Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=colours).save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def write_figures(out_dir: str, results: list, paper: str | None = None) -> int:
    """Write each result's figure and ``INDEX`` into ``out_dir`` (new or empty); the number of figures."""
    from .reportmd import report_items

    items = report_items(results)
    entries, n = [], 0
    with published_directory(out_dir) as staging:  # all at once, as the report
        for it in items:
            r = it.result
            entry = {"claim": r.claim.name, "verdict": r.verdict.value, "caption": it.caption, "file": None}
            if it.png:
                entry["file"] = os.path.basename(it.plot)
                atomic_write_bytes(os.path.join(staging, entry["file"]), small_png(it.png))
                n += 1
            entries.append(entry)
        atomic_write_text(os.path.join(staging, INDEX),
                          json.dumps({"schema_version": 1, "paper": paper, "figures": entries}, indent=1, ensure_ascii=False) + "\n")
    return n
