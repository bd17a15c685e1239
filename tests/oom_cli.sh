#!/usr/bin/env bash
# Memory running out in the patc command: PATC_FAULT_ALLOC=N makes libpatrt's N-th
# allocation fail (N+ : that one and every one after it), for N = 1 .. LIMIT, through
# --emit-cuda, run --cpu and a rejected program. Each run either ends as the run with
# no failure did (same exit status, same stdout and stderr: no silent change) or exits
# 1 with "out of memory" on stderr; never a signal, an internal error or a sanitizer
# report. The last runs of each sweep must reach no failure (LIMIT is past the end). A
# sweep ends after 50 allocations in a row that changed nothing (N past the run's last
# allocation): before its last failing allocation no sweep has had two such in a row
# (the last were near N = 294, 430 and 126), and the 700 of every sweep took 35 s.
#   usage: [OOM_CLI_STEP=K] oom_cli.sh PATC SOURCE_DIR
set -u
PATC=$1
cd "$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/scale.rise" <<'EOF'
kernel scale = nFun(n =>
  fun(n.f32)(xs => xs |> mapGlobal(fun(x => x * 2.0f))))
EOF
cat > "$tmp/bad.rise" <<'EOF'
kernel bad = nFun(n =>
  fun(n.f32)(xs => xs |> split(32) |> mapGlobal(fun(x => x * 2.0f)) |> join))
EOF
LIMIT=${OOM_CLI_LIMIT:-700}
# every STEP-th N (the sanitizer build's runs are slow; the API's sweep, test_oom.c,
# covers every allocation there)
STEP=${OOM_CLI_STEP:-1}
fail=0
runs=0

# sweep NAME ARGS...: the reference run, then every N, alone and sticky
sweep() {
    local name=$1
    shift
    PATC_CACHE_DIR="$tmp/cache" "$PATC" "$@" > "$tmp/ref.out" 2> "$tmp/ref.err"
    local ref_rc=$?
    local mode n rc clean
    for mode in "" "+"; do
        clean=0
        for n in $(seq 1 "$STEP" "$LIMIT"); do
            PATC_FAULT_ALLOC="$n$mode" PATC_CACHE_DIR="$tmp/cache" "$PATC" "$@" > "$tmp/o.out" 2> "$tmp/o.err"
            rc=$?
            runs=$((runs + 1))
            if grep -q -e "internal error" -e "Sanitizer" -e "runtime error:" "$tmp/o.err"; then
                echo "FAIL $name N=$n$mode: $(head -3 "$tmp/o.err")"
                fail=$((fail + 1))
            elif [ $rc = "$ref_rc" ] && cmp -s "$tmp/o.out" "$tmp/ref.out" && cmp -s "$tmp/o.err" "$tmp/ref.err"; then
                clean=$((clean + 1))
                [ $((clean * STEP)) -ge 50 ] && break
                continue
            elif [ $rc = 1 ] && grep -q "out of memory" "$tmp/o.err"; then
                clean=0
                continue
            else
                echo "FAIL $name N=$n$mode: exit $rc (the run without failures: $ref_rc)"
                head -3 "$tmp/o.err"
                fail=$((fail + 1))
            fi
            clean=0
        done
        if [ $((clean * STEP)) -lt 20 ]; then
            echo "FAIL $name$mode: allocations still failed near N=$LIMIT: raise OOM_CLI_LIMIT"
            fail=$((fail + 1))
        fi
    done
}

sweep emit-cuda --emit-cuda "$tmp/scale.rise"
sweep run-cpu run "$tmp/scale.rise" --kernel scale -D n=1000 --input random --cpu
sweep rejected --emit-cuda "$tmp/bad.rise"
echo "oom_cli: $runs runs, $fail failed"
[ $fail = 0 ]
