#!/bin/bash
# Wheels for a lent many-core machine that has Python 3.12 but not this project's solvers, Dask or
# Hypothesis version (issue 43: scaleout.sh there).  Run here, in the repository's root:
#
#   bash tests/benchmarks/manycores/fetch_wheels.sh        # -> .whl/ (git-ignored: .git/info/exclude)
#
# then there, first thing in the one command (carrying .whl):
#
#   python3 -m pip install -q --no-index --no-deps --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
#     && export PYTHONPATH=/tmp/site && DEADLINE=572 bash tests/benchmarks/manycores/scaleout.sh 16 "$OUT"
#
# (no --no-compile: scaleout.sh compiles what the install did not, but a compiled install starts
# sooner).  The versions are this machine's (the ones the 2-core figures were measured with); the
# packages the lent machine's image already has (numpy, scipy, numba, networkx, matplotlib, mpmath,
# cloudpickle, msgpack, psutil, pyyaml, toolz, jinja2, click, packaging, sortedcontainers, fsspec,
# joblib) are used as they are there.
set -euo pipefail
cd "$(dirname "$0")/../../.."
grep -qx "/.whl/" .git/info/exclude 2>/dev/null || echo "/.whl/" >> .git/info/exclude
rm -rf .whl && mkdir .whl
python3 -m pip wheel -q --no-deps -w .whl .
rm -rf build ntpcheck.egg-info
# Not scs (43 MB, over the 64 MiB a call carries) nor sparsediffpy (12 MB): cvxpy imports without them
# (it lists the solvers it finds), and ntpcheck solves with CLARABEL and its own exact solvers.
PKGS="cvxpy clarabel highspy osqp qdldl cffi pycparser orjson dask distributed locket partd tblib tornado zict importlib_metadata hypothesis"
pins=$(python3 -m pip list --format=freeze 2>/dev/null | awk -F== -v want=" $PKGS " 'BEGIN{IGNORECASE=1} index(want, " " tolower($1) " ") {print $1 "==" $2}')
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --platform manylinux1_x86_64 --platform any -d .whl $pins
ls .whl | sed 's/^/  /'; du -sh .whl
