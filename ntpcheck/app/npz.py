"""Matrices for numpy users: one ``.npz`` file, written one array at a time, atomically.

``np.savez`` needs every array at once; ``ntpcheck solve --npz`` at
|V| = 10,000 has three 800 MB matrices, so each is built only when its turn
comes (the values of ``arrays`` are functions) and dropped once written.
The file is ``np.savez``'s format (an uncompressed zip of ``.npy`` files,
no pickles), read by ``np.load``.

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

import zipfile
from collections.abc import Callable, Mapping

import numpy as np

from ntpcheck.atomic import atomic_file

__all__ = ["write_npz"]


def write_npz(path: str, arrays: Mapping[str, Callable[[], np.ndarray]]) -> None:
    """Write ``{name: make()}`` to ``path`` as ``.npz``, building each array just before it is written."""
    with atomic_file(path) as f, zipfile.ZipFile(f, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, make in arrays.items():
            with zf.open(f"{name}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asarray(make()), allow_pickle=False)
