#!/bin/sh
# symbols_test.sh NM LIBPATRT.a LIBPATRT.so
# Both libraries must define no external symbol but patc_*: any other name (arena_new,
# sb_puts, ...) would collide with a user's own in a static link, or interpose on it in a
# dynamic one. Nothing is exempt: the toolchain adds no global definitions to the
# partially linked libpatrt.a, and the version script (patrt.map) makes the linker's
# own (_init, _fini, ...) local in libpatrt.so.
set -eu
nm=$1 a=$2 so=$3
status=0
check() { # what nm-output
    bad=$(printf '%s\n' "$2" | awk 'NF >= 3 && $3 !~ /^patc_/ { print "  " $3 " (" $2 ")" }')
    good=$(printf '%s\n' "$2" | awk 'NF >= 3 && $3 ~ /^patc_/' | wc -l)
    if [ -n "$bad" ]; then
        echo "$1 exports symbols without the patc_ prefix:"
        printf '%s\n' "$bad"
        status=1
    elif [ "$good" -lt 40 ]; then
        echo "$1 exports only $good patc_ symbols: the check read nothing useful"
        status=1
    else
        echo "$1: $good symbols, all patc_*"
    fi
}
check "$a" "$("$nm" -g --defined-only "$a")"
check "$so" "$("$nm" -g --defined-only "$so")"
check "$so (dynamic)" "$("$nm" -D --defined-only "$so")"
exit $status
