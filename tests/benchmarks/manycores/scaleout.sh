#!/bin/bash
# Issue 43: `ntpcheck verify --profile thorough` (or $PROFILE) on N workers against one, on a machine with N cores.
#
#   bash tests/benchmarks/manycores/scaleout.sh 16 OUTDIR
#
# (PROFILE=quick, and the core of the one-worker run other than 2 through CORES="0 1", try it on a
# small machine.)  Sized for a 15-minute lease whose commands may run 10 minutes: about 530 s for
# the first paper on a 16-core machine like the fifth round's, whose one-worker thorough run took
# 397.8 s.  P2=1 adds the second paper (its 16-worker run, and its one-worker run beside the first
# paper's on another core, stopped at the deadline: a lower bound, as its one-worker run takes
# longer than a lease allows: 418 s was 38 of its 55 claims in the fifth round).
# Needs ntpcheck installed with the dask extra, and N free cores (at least 4).  Runs from a scratch folder:
#   0. every module a worker and this client import, compiled to bytecode once (a `pip install
#      --no-compile`, a fresh --target, or PYTHONDONTWRITEBYTECODE=1 leaves the cluster's start to
#      compile Dask and cvxpy in two processes at once: the cluster was up 4.0-4.8 s after launch
#      instead of 1.5-2.3 s on the 2-core machine, tests/benchmarks/manycores/start_phases.py, issue
#      43's sixth round; the fifth round's 7.7 s start on 16 cores paid that);
#   1. the quick profile in one process (numba compiles its kernels once);
#   2. PROBE=1 (the default): the machine's own slowdown with N busy cores, N copies of one claim
#      side by side against one alone (contention.py: no Dask, nothing shared; about 15 s);
#   3. the thorough profile on N workers, alone on the machine: a first run (no estimates of its
#      own: the paper's shipped ones, or with KEEP=1 a copy of your claim-seconds.json, which is left
#      as it was), then again with the seconds its first run kept (p1wN, the figure compared with one
#      worker); the estimates never change a result;
#   4. the thorough profile with --workers 1, alone (with P2=1, beside the second paper's), pinned to
#      a core of its own with one BLAS and numba thread, stopped (SIGINT: the finished claims are
#      written) at DEADLINE seconds after the start (default 572, for a 600 s command);
# then prints each pair's walls, whether the JSON is the same apart from timings, and the overhead
# (claims' seconds summed on the workers over the same sum in one process).  Issue 43's fifth round
# ran an earlier version on the lent 16-core machine (docs/guides/cluster.md), with the project's
# versions of cvxpy, Dask and Hypothesis carried there as wheels.
set -u
N=${1:?number of workers}; OUT=${2:?output folder}; DEADLINE=${DEADLINE:-572}; PROFILE=${PROFILE:-thorough}; P2=${P2:-0}
read -r C1 C2 <<< "${CORES:-2 3}"
T0=$(date +%s.%N); HERE=$(cd "$(dirname "$0")" && pwd)
el() { awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }
log() { echo "[$(el) s] $*"; }
export PYTHONUNBUFFERED=1
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd); RUN=$(mktemp -d); mkdir -p "$RUN/cw"
KEPT=$(python3 -c "from ntpcheck.app.scaleout.claim_seconds import cache_path as p; print(p() or '')")
[ "${KEEP:-0}" = 1 ] && [ -n "$KEPT" ] && [ -f "$KEPT" ] && cp "$KEPT" "$RUN/cw/"
export NTPCHECK_CACHE_DIR=$RUN/cw  # your own estimates are never written here
cd "$RUN"
nproc; lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|NUMA node\(s\)|MHz"; lscpu -e=CPU,CORE,SOCKET,NODE > "$OUT/lscpu-e.txt" 2>&1
python3 -c "import sys, numpy, numba, cvxpy, dask, hypothesis; print(sys.version.split()[0], 'numpy', numpy.__version__, 'numba', numba.__version__, 'cvxpy', cvxpy.__version__, 'dask', dask.__version__, 'hypothesis', hypothesis.__version__)"
NT="python3 -m ntpcheck"
env -u PYTHONDONTWRITEBYTECODE python3 -c "import ntpcheck.app.scaleout.worker_warmup, ntpcheck.app.cli.verify, distributed"
python3 -c "import cvxpy, distributed, importlib.util as u; print('bytecode:', all(u.cache_from_source(m.__file__) and __import__('os').path.exists(u.cache_from_source(m.__file__)) for m in (cvxpy, distributed)))"
NTPCHECK_CACHE_DIR=$RUN/cq $NT verify --profile quick --workers 1 --json q1.json > q1.err 2>&1 &  # no estimates kept for the runs below
[ "$P2" = 1 ] && NTPCHECK_CACHE_DIR=$RUN/cq2 $NT verify --paper thrampoulidis2024 --profile quick --workers 1 --json q2.json > q2.err 2>&1 &
wait; log "numba warm"
if [ "${PROBE:-1}" = 1 ]; then
  python3 "$HERE/contention.py" "$OUT/contention.json" "$N" -- verify --claims "${PROBE_CLAIMS:-Thm. 2 [attention, c_0 = 1, general data]}" --profile default
  log "contention probed"
fi
timed() { local name=$1; shift; local s=$(date +%s.%N); "$@" --json "$OUT/$name.json" > "$name.out" 2> "$name.err"; local rc=$?
          echo "$name rc=$rc wall=$(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN{printf "%.2f", b-a}') s" | tee -a "$OUT/walls.txt"; }
timed p1w$N-first $NT verify --profile "$PROFILE" --workers "$N"
timed p1w$N $NT verify --profile "$PROFILE" --workers "$N"
[ "$P2" = 1 ] && timed p2w$N $NT verify --paper thrampoulidis2024 --profile "$PROFILE" --workers "$N"
left=$(awk -v a="$T0" -v b="$(date +%s.%N)" -v d="$DEADLINE" 'BEGIN{printf "%d", d-(b-a)}')
[ "$left" -gt 0 ] || { echo "no time left for the one-worker runs (DEADLINE=$DEADLINE)"; exit 1; }
log "one worker, $left s left"
ONE="env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 NUMBA_NUM_THREADS=1"
(NTPCHECK_CACHE_DIR=$RUN/c1 timed p1w1 timeout -s INT -k 20 "$left" taskset -c "$C1" $ONE $NT verify --profile "$PROFILE" --workers 1) &
[ "$P2" = 1 ] && (NTPCHECK_CACHE_DIR=$RUN/c2 timed p2w1 timeout -s INT -k 20 "$left" taskset -c "$C2" $ONE $NT verify --paper thrampoulidis2024 --profile "$PROFILE" --workers 1) &
wait
python3 - "$OUT" "$N" <<'PY'
import json, sys
out, n = sys.argv[1], sys.argv[2]
def same(doc):
    doc = {k: v for k, v in doc.items() if k != "executor"}
    doc["claims"] = [{k: v for k, v in r.items() if k not in ("seconds", "instances_per_second")} for r in doc["claims"]]
    return doc
for p in ("p1", "p2"):
    try:
        a, b = (json.load(open(f"{out}/{p}w{w}.json")) for w in ("1", n))
    except (OSError, ValueError) as e:  # the second paper runs with P2=1 only
        print(p, "not run" if p == "p2" and isinstance(e, FileNotFoundError) else f"missing: {e}"); continue
    sa, sb = sum(c["seconds"] for c in a["claims"]), sum(c["seconds"] for c in b["claims"])
    print(p, "same JSON:", same(a) == same(b), "complete:", a.get("complete"), b.get("complete"),
          "claims", len(a["claims"]), f"seconds summed: one process {sa:.1f}, workers {sb:.1f}, overhead {sb / sa:.3f}")
PY
tar czf "$OUT/logs.tgz" *.err *.out; log end
