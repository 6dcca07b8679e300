"""``ntpcheck reproduce FIGURE``: a paper's figure, as a PNG and the CSV of its numbers, in ``--out``.

Nothing there is replaced unless ``--overwrite`` says so: the files a figure writes
(:func:`reproduced_files`) are looked for first, and a run that would replace one is refused
before any work, naming them (``--out`` defaults to the current folder, which holds the user's
own files).
"""

from __future__ import annotations

import io
import os
import time

from ntpcheck.common.errors import NTPCheckError

__all__ = ["reproduced_files", "run_reproduce"]


def reproduced_files(figure: str, embeddings: str | None) -> list[str]:
    """The files ``ntpcheck reproduce FIGURE`` writes into ``--out`` (``embeddings``: linear-fig345's
    ``--embeddings-reading``).

    Examples
    --------
    >>> reproduced_files("figure2", None), reproduced_files("linear-fig345", None)
    (['figure2.png', 'figure2.csv'], ['thrampoulidis_fig345_gaussian.png', 'thrampoulidis_fig345_gaussian.csv'])
    """
    stem = {"figure2": "figure2", "algorithms": "algorithms", "linear-fig12": "thrampoulidis_fig12",
            "linear-fig345": f"thrampoulidis_fig345_{embeddings or 'gaussian'}"}[figure]
    return [stem + ext for ext in ((".png", ".csv", ".json") if figure == "algorithms" else (".png", ".csv"))]


def run_reproduce(args) -> int:
    """Entry point of ``ntpcheck reproduce``: refuse to replace what ``--out`` holds (unless
    ``--overwrite``), then draw the figure and write its files."""
    t0 = time.perf_counter()
    names = reproduced_files(args.figure, args.embeddings_reading)
    there = [name for name in names if os.path.lexists(os.path.join(args.out, name))]
    if there and not args.overwrite:
        one = len(there) == 1
        raise NTPCheckError(f"reproduce --out {args.out}: {', '.join(there)} {'is' if one else 'are'} there already; "
                            f"--overwrite replaces {'it' if one else 'them'} (nothing was written)")
    if args.figure == "algorithms":
        from ntpcheck.app.report.algorithms_figure import reproduce_algorithms

        return reproduce_algorithms(args.out, args.seed, t0)
    if args.figure.startswith("linear-"):
        from ntpcheck.app.report.linear_figures import reproduce_linear

        return reproduce_linear(args.figure, args.out, args.seed, args.embeddings_reading)
    from ntpcheck.app.report.figures import csv_text, figure2, figure2_data
    from ntpcheck.common.atomic import atomic_write_bytes

    fd = figure2_data(args.seed, args.trials)
    png, csvp = (os.path.join(args.out, name) for name in names)
    atomic_write_bytes(csvp, csv_text(fd).encode())
    buf = io.BytesIO()
    figure2(fd).savefig(buf, format="png", dpi=110)
    atomic_write_bytes(png, buf.getvalue())
    print(f"wrote {png} and {csvp} ({time.perf_counter() - t0:.1f} s)")
    return 0
