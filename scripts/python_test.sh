#!/usr/bin/env bash
# The Python package's tests: a fresh virtual environment, `pip install ./python` (which
# builds libpatrt with the project's CMake through scikit-build-core, both from PyPI)
# with numpy and pytest, then pytest on python/tests: the CPU interpreter's tests, and
# the GPU tests, which skip themselves without PyTorch and a GPU (tests/gpu/all.sh
# section w runs them on the GPU machine), and test_fakedriver.py, the GPU path's host
# side against tests/fakecuda (built by scripts/test.sh). Needs python3 with venv
# (scripts/deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 -m venv "$dir/venv"
"$dir/venv/bin/pip" install -q --disable-pip-version-check ./python numpy pytest
# the GPU path's host side against tests/fakecuda's stand-in driver, where the build has it
fake=$PWD/build/runtime/fakecuda/libcuda.so.1
[ -f "$fake" ] && export PATC_FAKECUDA=$fake
export PATC_CACHE_DIR=$dir/cache
# from python/tests, so that `import patc` is the installed package
cd python/tests
"$dir/venv/bin/python" -m pytest -q -p no:cacheprovider .
