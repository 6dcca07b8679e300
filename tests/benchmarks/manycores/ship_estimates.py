"""Write the placement estimates a built-in paper ships (its package's ``claim-seconds.json``).

    python tests/benchmarks/manycores/ship_estimates.py            # run, then write (about 15 min on 2 cores)
    python tests/benchmarks/manycores/ship_estimates.py --from DIR # write from DIR/claim-seconds.json

Runs ``ntpcheck verify --workers 1`` for each built-in paper under the default and the thorough
profile, seed 0, with ``NTPCHECK_CACHE_DIR`` a scratch folder (your own estimates are left as they
are), then writes each paper's ``{profile: {claim: seconds or [seconds of each shard]}}`` beside its
``PAPER``.  A first run on workers places its tasks by these (:mod:`ntpcheck.app.scaleout.claim_seconds`);
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
    env = {**os.environ, "NTPCHECK_CACHE_DIR": folder}
    runs = [[sys.executable, "-m", "ntpcheck", "verify", "--paper", p, "--profile", prof, "--workers", "1",
             "--json", os.devnull] for p in PAPERS for prof in PROFILES]
    procs: list = []
    for argv in runs:  # two at a time, one per core (only the ratios between claims matter)
        if len(procs) == 2:
            procs.pop(0).wait()
        procs.append(subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL))
    for p in procs:
        p.wait()


def write(folder: str) -> None:
    doc = json.loads((Path(folder) / "claim-seconds.json").read_text(encoding="utf-8"))
    for name, where in PAPERS.items():
        entry = {prof: doc[name][prof] for prof in PROFILES if prof in doc.get(name, {})}
        rounded = {prof: {c: [round(x, 2) for x in s] if isinstance(s, list) else round(s, 2)
                          for c, s in sorted(claims.items())} for prof, claims in entry.items()}
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
