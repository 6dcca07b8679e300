"""``verify --instances DIR``: every distinct tested instance of every claim, as a file that replays.

What a ``holds`` rests on, for a reader to audit: per claim a folder (its test id), in it one
text file per instance distinct up to the claim's symmetries, in draw order, each with the
header that ``ntpcheck verify --dataset FILE --claims NAME`` reads back (the claim, the
training parameters its setup chose, the embeddings) and a comment with the instance's
verdict, slack and detail; and ``index.jsonl``, one JSON line per file: ``claim``, ``file``,
``verdict``, ``slack``, ``instance`` (sizes and parameters).  The directory must be new or
empty (checked before any work, as ``--report``'s).
"""

from __future__ import annotations

import json
import math
import os

from ntpcheck.common.atomic import atomic_write_text, published_directory

__all__ = ["write_instances"]


def _rows(result):
    """The rows of ``result`` with an instance, one per key (the first drawn), shrunk counterexamples too."""
    seen = set()
    for row in result.per_instance:
        if row.source is None or row.key in seen:
            continue
        seen.add(row.key)
        yield row


def write_instances(directory: str, results) -> int:
    """Write every claim's distinct tested instances under ``directory`` (module docstring); the number written."""
    from ntpcheck.properties.framework.runner import instance_text

    with published_directory(directory) as staging:
        index, n = [], 0
        for r in results:
            rows = list(_rows(r))
            if not rows:
                continue
            folder = os.path.join(staging, r.claim.key)
            os.makedirs(folder, exist_ok=True)
            for k, row in enumerate(rows, 1):
                slack = row.slack if math.isfinite(row.slack) else None
                what = f"{row.verdict.value}" + (f" (slack {slack:.6g})" if slack is not None else "") + (": " + row.detail if row.detail else "")
                name = f"{k:04d}.txt"
                atomic_write_text(os.path.join(folder, name), instance_text(r.claim, row.source, what))
                index.append({"claim": r.claim.name, "file": f"{r.claim.key}/{name}", "verdict": row.verdict.value, "slack": slack,
                              "shrunk": bool(row.shrunk), "instance": dict(row.instance or {})})
                n += 1
        atomic_write_text(os.path.join(staging, "index.jsonl"), "".join(json.dumps(line, allow_nan=False) + "\n" for line in index))
    return n
