"""Matrices for numpy users: one ``.npz`` file (``np.savez``'s format), written atomically.

The arrays are given as functions and built one at a time, each dropped once
it is in the archive (``ntpcheck solve --npz`` at |V| = 10,000 has three
800 MB matrices); the archive is assembled in memory and handed whole to
:func:`ntpcheck.common.atomic.atomic_write_bytes`, so the file gets every guarantee
of ntpcheck's other outputs (whole or absent, nothing of the user's lost).
The format is an uncompressed zip of ``.npy`` files without pickles, read by
``np.load``.

Examples
--------
>>> import os, tempfile
>>> p = os.path.join(tempfile.mkdtemp(), "w.npz")
>>> write_npz(p, {"w": lambda: np.eye(2), "vocab": lambda: np.array(["a", "b"])})
>>> z = np.load(p)
>>> z["w"].tolist(), z["vocab"].tolist()
([[1.0, 0.0], [0.0, 1.0]], ['a', 'b'])
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable, Mapping

import numpy as np

from ntpcheck.common.atomic import atomic_write_chunks

__all__ = ["write_npz"]


def write_npz(path: str, arrays: Mapping[str, Callable[[], np.ndarray]]) -> None:
    """Write ``{name: make()}`` to ``path`` as ``.npz``, building each array just before it is archived."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, make in arrays.items():
            with zf.open(f"{name}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asarray(make()), allow_pickle=False)
    atomic_write_chunks(path, (buf.getbuffer(),), create_dirs=False)  # its directory was checked before the run
