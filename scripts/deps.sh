#!/usr/bin/env bash
# Install what the build needs and a fresh Debian machine with the CUDA toolkit lacks:
# flex, bison, Check (with pkg-config), ninja, valgrind, Python's venv and its headers. Idempotent and
# quiet when everything is there.
set -euo pipefail
need=()
command -v flex >/dev/null 2>&1 || need+=(flex)
command -v bison >/dev/null 2>&1 || need+=(bison)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
pkg-config --exists check 2>/dev/null || need+=(check)
command -v ninja >/dev/null 2>&1 || need+=(ninja-build)
command -v valgrind >/dev/null 2>&1 || need+=(valgrind)
command -v cmake >/dev/null 2>&1 || need+=(cmake)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need+=(python3-venv) # scripts/python_test.sh
# Python.h: pip install ./python builds the C fast path (patc._fast) only where it finds the headers, and
# its tests skip without it
python3 -c 'import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
  >/dev/null 2>&1 || need+=(python3-dev)
if ((${#need[@]})); then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "installing: ${need[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "note: add /usr/local/cuda/bin to PATH" >&2
fi
