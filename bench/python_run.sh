#!/usr/bin/env bash
# python_run.sh: the Python benchmark on the GPU machine (bench/python_bench.py: patc's
# ready-made calls against torch.sum, torch.cumsum, torch.masked_select and CuPy at
# n = 2^10..2^28, a device-to-device copy as the ceiling, and the per-call overhead of a
# small kernel). PATC_WHEEL=patc-*.whl installs the wheel built on the CPU machine
# (pip wheel ./python) into a temporary folder first; without it `import patc` must work
# as it is. Results: bench/results/<date>-<gpu>-python/ (python_bench.md, .csv,
# command.txt), or --out DIR.
#   PATC_WHEEL=/path/patc-0.1.0-cp38-abi3-linux_x86_64.whl bash bench/python_run.sh [ARGS of python_bench.py]
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -n "${PATC_WHEEL:-}" ]; then
  t=$(mktemp -d)
  trap 'rm -rf "$t"' EXIT
  python3 -m pip install -q --no-deps --no-index --target "$t" "$PATC_WHEEL" || { echo "cannot install $PATC_WHEEL"; exit 3; }
  export PYTHONPATH=$t${PYTHONPATH:+:$PYTHONPATH}
fi
export PATC_CACHE_DIR=${PATC_CACHE_DIR:-$(mktemp -d)}
python3 "$HERE/python_bench.py" "$@"
