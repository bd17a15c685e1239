#!/usr/bin/env bash
# Golden-file tests, run from the repository root. Usage: tests/golden.sh PATC [--update]
#   examples/*.rise  ->  examples/*.cu    (patc --emit-cuda, stdout, exit 0)
#   tests/thesis/*.rise -> tests/thesis/*.cu (the same: the thesis's programs as it writes them)
#   tests/ir/*.rise  ->  tests/ir/*.ir    (patc --emit-ir, stdout, exit 0)
#   tests/err/*.rise ->  tests/err/*.err  (patc -I patterns --check, stderr, exit 1)
# A file's first line may name the options it needs: -- golden-args: -D a=1 ...
# With --update the expected files are rewritten from the current output: review the
# diff (git diff) before committing it.
set -u
patc=$1
update=${2:-}
pass=0 fail=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
check() { # source expected-file want-exit stream(1|2) args...
  local src=$1 exp=$2 want=$3 stream=$4; shift 4
  if [ "$stream" = 1 ]; then "$patc" "$@" "$src" >"$tmp" 2>/dev/null; else "$patc" "$@" "$src" 2>"$tmp" >/dev/null; fi
  local rc=$?
  [ "$update" = --update ] && cp "$tmp" "$exp"
  if [ "$rc" != "$want" ]; then echo "FAIL $src: exit status $rc, expected $want"; fail=$((fail+1)); return; fi
  if ! cmp -s "$tmp" "$exp"; then echo "FAIL $src: differs from $exp"; diff "$exp" "$tmp" | head -20; fail=$((fail+1)); return; fi
  pass=$((pass+1))
}
for f in examples/*.rise tests/thesis/*.rise; do
  # shellcheck disable=SC2046
  check "$f" "${f%.rise}.cu" 0 1 --emit-cuda $(sed -n '1s/^-- golden-args: //p' "$f")
done
for f in tests/ir/*.rise; do [ -e "$f" ] && check "$f" "${f%.rise}.ir" 0 1 --emit-ir; done
for f in tests/err/*.rise; do
  # shellcheck disable=SC2046
  check "$f" "${f%.rise}.err" 1 2 -I patterns --check $(sed -n '1s/^-- golden-args: //p' "$f")
done
echo "golden: $pass passed, $fail failed"
[ "$fail" = 0 ]
