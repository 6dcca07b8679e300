"""A first run on workers (no estimates of the user's own) placed with and without the estimates
the paper ships, interleaved, each in a fresh cache folder.

    python tests/benchmarks/manycores/first_run.py [ROUNDS [WORKERS [ntpcheck verify arguments...]]]

(default: 3 rounds, 2 workers, ``verify --profile default``).  Prints each run's wall seconds, the
minimum of each kind, and whether every run wrote the same JSON apart from timings and the executor.
"Without" runs the command with :func:`ntpcheck.app.scaleout.claim_seconds.shipped` returning
nothing, as for a paper that ships no ``claim-seconds.json`` (issue 43, sixth round).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root, for the suite's helper
from tests.app.test_dask import identity  # noqa: E402 - the JSON without timings and the executor

RUN = ("import sys; from ntpcheck.app.scaleout import claim_seconds as c\n"
       "if sys.argv[1] == 'without': c.shipped = lambda paper: {}\n"
       "from ntpcheck.app.cli.cli import main; sys.exit(main(sys.argv[2:]))")


def main(rounds: int, workers: int, argv: list[str]) -> None:
    walls: dict[str, list[float]] = {"without": [], "shipped": []}
    docs = []
    for r in range(rounds):
        for kind in walls:
            with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out:
                path = Path(out) / "run.json"
                t0 = time.perf_counter()
                subprocess.run([sys.executable, "-c", RUN, kind, "verify", *argv, "--workers", str(workers), "--json", str(path)],
                               check=True, cwd=out, env={**__import__("os").environ, "NTPCHECK_CACHE_DIR": cache},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                walls[kind].append(time.perf_counter() - t0)
                docs.append(identity(json.loads(path.read_text())))
            print(f"round {r + 1} {kind}: {walls[kind][-1]:.2f} s", flush=True)
    for kind, w in walls.items():
        print(f"{kind}: min {min(w):.2f} s of {', '.join(f'{x:.2f}' for x in w)}")
    print("same JSON:", all(d == docs[0] for d in docs))


if __name__ == "__main__":
    a = sys.argv[1:]
    main(int(a[0]) if a else 3, int(a[1]) if len(a) > 1 else 2, a[2:] or ["--profile", "default"])
