#!/usr/bin/env bash
# Every user error has a location, except those that truly have none (issue 14, item 5).
# Scans the compiler's sources (run from the repository root) for positionless reports:
#   - each diag_error_nopos call must be one of the allowed messages below, which are
#     about the command line or a whole file, never about a construct in the source;
#   - no diag_error may be given an empty span ((Span){0}, a zeroed Span variable).
# A new positionless error fails this test: give it the span of the construct at fault
# (Expr and Ast nodes carry `sp`, views and binders too), or, if it truly has no
# source position, add its message here.
set -u
allowed=(
  "lang/parse.c:'%s' is too large"                              # a whole file
  "lang/parse.c:cannot read '%s': %s"                           # a missing or unreadable file
  "lang/parse.c:'%s' is larger than "                           # a whole file over the size cap
  "lang/parse.c:out of memory reading '%s'"                     # the scanner of a whole file
  "compiler/driver.c:no kernel named '%s' in this program"      # --kernel
  "compiler/driver.c:-D %s: no %skernel has a nat parameter"    # -D
  "compiler/driver.c:cannot read '%s': %s"                      # a missing or unreadable file
)
fail=0 n=0
while IFS=: read -r file line text; do
  n=$((n+1))
  msg=$(printf '%s' "$text" | sed -n 's/.*diag_error_nopos([^"]*"\([^"]*\)".*/\1/p')
  ok=0
  for a in "${allowed[@]}"; do
    [ "${a%%:*}" = "$file" ] && [ -n "$msg" ] && case "$msg" in "${a#*:}"*) ok=1 ;; esac
  done
  if [ "$ok" = 0 ]; then echo "FAIL $file:$line: positionless error not in the allow-list: $text"; fail=$((fail+1)); fi
done < <(grep -rn --include='*.c' --include='*.l' --include='*.y' 'diag_error_nopos(' lang compiler codegen | grep -v 'void diag_error_nopos')
while IFS= read -r hit; do
  echo "FAIL $hit: a diagnostic with an empty span"; fail=$((fail+1))
done < <(grep -rnE --include='*.c' --include='*.l' --include='*.y' 'diag_(error|error2|note)\([^,]*, *\(Span\) *\{ *0? *\}' lang compiler codegen)
# the scan itself must see the calls it checks
if [ "$n" -lt 5 ]; then echo "FAIL: found only $n diag_error_nopos calls; is this run from the repository root?"; fail=$((fail+1)); fi
echo "diag_scan: $n positionless calls checked, $fail failed"
[ "$fail" = 0 ]
