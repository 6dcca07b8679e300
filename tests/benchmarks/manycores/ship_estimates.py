"""Write the placement estimates a built-in paper ships (its package's ``claim-seconds.json``).

    python tests/benchmarks/manycores/ship_estimates.py            # run, then write (about 15 min on 2 cores)
    python tests/benchmarks/manycores/ship_estimates.py --from DIR # write from DIR/claim-seconds.json

Runs ``ntpcheck verify --workers 1`` for each built-in paper under the default and the thorough
profile, seed 0, with ``NTPCHECK_CACHE_DIR`` a scratch folder (your own estimates are left as they
are), then writes each paper's ``{profile: {claim: seconds or [seconds of each shard]}}`` beside its
``PAPER`` (a sharded claim's seconds summed).  A first run on workers places its tasks by these (:mod:`ntpcheck.app.scaleout.claim_seconds`);
they never change a result, and only their ratios matter.  Regenerate after adding claims.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

PAPERS = {"huang2024": "properties/huang2024", "thrampoulidis2024": "properties/thrampoulidis2024"}
PROFILES = ("default", "thorough")
ROOT = Path(__file__).resolve().parents[3]


def measure(folder: str) -> None:
    """Each paper and profile's one-worker run, two at a time (one per core; only the ratios between
    claims matter), each with a cache folder of its own (two runs writing one file could lose one's
    seconds), merged into ``folder/claim-seconds.json``."""
    runs = [(p, prof) for p in PAPERS for prof in PROFILES]
    procs: list = []
    for p, prof in runs:
        if len(procs) == 2:
            procs.pop(0).wait()
        env = {**os.environ, "NTPCHECK_CACHE_DIR": os.path.join(folder, f"{p}-{prof}")}
        procs.append(subprocess.Popen([sys.executable, "-m", "ntpcheck", "verify", "--paper", p, "--profile", prof,
                                       "--workers", "1", "--json", os.devnull], env=env, stdout=subprocess.DEVNULL))
    for proc in procs:
        proc.wait()
    merged: dict = {}
    for p, prof in runs:
        doc = json.loads((Path(folder) / f"{p}-{prof}" / "claim-seconds.json").read_text(encoding="utf-8"))
        merged.setdefault(p, {})[prof] = doc[p][prof]
    (Path(folder) / "claim-seconds.json").write_text(json.dumps(merged), encoding="utf-8")


def write(folder: str) -> None:
    """Each paper's ``{profile: {claim: seconds}}`` from ``folder/claim-seconds.json``, a sharded
    claim's seconds summed: a one-worker run's shard seconds reflect the evidence earlier claims of
    the same strategy left in the process, and replayed worse than a quarter of the claim's each
    (:mod:`ntpcheck.app.scaleout.claim_seconds`)."""
    doc = json.loads((Path(folder) / "claim-seconds.json").read_text(encoding="utf-8"))
    for name, where in PAPERS.items():
        entry = {prof: doc[name][prof] for prof in PROFILES if prof in doc.get(name, {})}
        rounded = {prof: {c: round(sum(s) if isinstance(s, list) else s, 2) for c, s in sorted(claims.items())}
                   for prof, claims in entry.items()}
        out = ROOT / where / "claim-seconds.json"
        out.write_text(json.dumps(rounded, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {out} ({', '.join(f'{p}: {len(c)} claims' for p, c in rounded.items())})")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--from", dest="folder", help="a folder whose claim-seconds.json to ship (no runs)")
    args = ap.parse_args()
    if args.folder:
        write(args.folder)
    else:
        with tempfile.TemporaryDirectory() as d:
            measure(d)
            write(d)
