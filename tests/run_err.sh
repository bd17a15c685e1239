#!/bin/sh
# Golden syntax-error tests: run from the repository root as
#   tests/run_err.sh PROGRAM [--update]
# PROGRAM is called as `PROGRAM tests/err/x.rise`; it must exit 1 and print exactly
# tests/err/x.err on stderr. With --update the .err files are rewritten instead.
prog=$1
fail=0
n=0
for src in tests/err/*.rise; do
    exp=${src%.rise}.err
    n=$((n + 1))
    "$prog" "$src" >/dev/null 2>/tmp/patc_err_$$.txt
    rc=$?
    if [ "$2" = --update ]; then cp /tmp/patc_err_$$.txt "$exp"; continue; fi
    if [ $rc -ne 1 ]; then echo "FAIL $src: exit status $rc, expected 1"; fail=$((fail + 1)); continue; fi
    if ! cmp -s /tmp/patc_err_$$.txt "$exp"; then
        echo "FAIL $src:"; diff "$exp" /tmp/patc_err_$$.txt | head -20; fail=$((fail + 1))
    fi
done
rm -f /tmp/patc_err_$$.txt
echo "$((n - fail))/$n error tests passed"
[ $fail -eq 0 ]
