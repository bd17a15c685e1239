#!/usr/bin/env python3
"""Every fix a diagnostic suggests compiles when followed (issue 33, item 6).

Usage (from the repository root): tests/suggest_test.py PATC

Each error golden's program (tests/err/*.rise) is compiled and its message read:
  - a literal replacement is applied automatically and the result must compile:
      "unknown name 'a'; did you mean 'b'?"         a -> b at the error's line:col
      "integer literal where T is expected; write V" the literal at line:col -> V
      hint.c's "e.g. with -D a=1 -D b=2 the program compiles"  those -D added
  - otherwise tests/suggest/NAME.rise is the program with the suggestion followed by
    hand: its header names the error golden (-- fixes: NAME) and quotes the suggestion
    (-- suggestion: TEXT), which the error must still contain; it must compile.
An error golden whose message suggests something (SUGGESTS below) with neither is a
failure, unless NO_FIX lists it with the reason. Fixed programs compile with
`patc -I patterns --emit-cuda` and the golden's -D arguments.
"""
import os, re, subprocess, sys, tempfile

patc = sys.argv[1]
SUGGESTS = re.compile(r"did you mean|; write |\bwrite \w|\buse |materialise|store it|make it the kernel|pad the array|"
                      r"annotate|give (it|the block)|in place of|choose sizes|`[^`']+`|-D \w+=\d+ the program compiles", re.I)
# error goldens that suggest something with no fix here, and why
NO_FIX = {}

def args_of(path):
    first = open(path, errors="replace").readline()
    return first[len("-- golden-args: "):].split() if first.startswith("-- golden-args: ") else []

def run(path, extra=()):
    p = subprocess.run([patc, "-I", "patterns", "--emit-cuda", *args_of(path), *extra, path],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace")
    return p.returncode, p.stderr

def first_error(err, path):
    m = re.search(r"^%s:(\d+):(\d+): error: (.*)$" % re.escape(path), err, re.M)
    return (int(m.group(1)), int(m.group(2)), m.group(3)) if m else None

def replaced(path, line, col, old, new):
    lines = open(path, errors="replace").read().split("\n")
    s = lines[line - 1]
    if s[col - 1:col - 1 + len(old)] != old:
        return None
    lines[line - 1] = s[:col - 1] + new + s[col - 1 + len(old):]
    return "\n".join(lines)

fails, passes = [], 0
def check(ok, what):
    global passes
    if ok: passes += 1
    else: fails.append(what)

manual = {}
for f in sorted(os.listdir("tests/suggest")):
    if not f.endswith(".rise"): continue
    head = open(os.path.join("tests/suggest", f)).read().split("\n")
    name = next((l[len("-- fixes: "):].strip() for l in head if l.startswith("-- fixes: ")), None)
    sugg = next((l[len("-- suggestion: "):].strip() for l in head if l.startswith("-- suggestion: ")), None)
    if not name or not sugg:
        fails.append("tests/suggest/%s: no '-- fixes:' or '-- suggestion:' line" % f)
        continue
    manual[name] = (os.path.join("tests/suggest", f), sugg)

norm = lambda s: " ".join(s.split())
with tempfile.TemporaryDirectory() as tmp:
    for f in sorted(os.listdir("tests/err")):
        if not f.endswith(".rise"): continue
        name, path = f[:-5], os.path.join("tests/err", f)
        rc, err = run(path)
        if rc != 1:
            check(False, "%s: exit %d, expected 1 (an error)" % (path, rc)); continue
        e = first_error(err, path)
        fixed_src = fixed_args = None
        m = re.search(r"unknown name '([^']+)'; did you mean '([^']+)'\?", err)
        if m and e:
            fixed_src = replaced(path, e[0], e[1], m.group(1), m.group(2))
        m = re.search(r"integer literal where \w+ is expected; write (\S+)$", err, re.M)
        if m and e:
            lit = re.match(r"\d+", open(path, errors="replace").read().split("\n")[e[0] - 1][e[1] - 1:])
            fixed_src = lit and replaced(path, e[0], e[1], lit.group(0), m.group(1))
        m = re.search(r"e\.g\. with ((?:-D \w+=\d+ )+)the program compiles", err)
        if m:
            fixed_src, fixed_args = open(path, errors="replace").read(), m.group(1).split()
        if fixed_src is not None:
            t = os.path.join(tmp, f)  # the same directory depth is not needed: -I patterns
            open(t, "w").write(fixed_src)
            rc2, err2 = run(t, fixed_args or ())
            check(rc2 == 0, "%s: the suggestion applied automatically does not compile:\n%s" % (path, err2))
            continue
        if name in manual:
            fx, sugg = manual.pop(name)
            check(norm(sugg) in norm(err), "%s: its message no longer suggests %r (%s)" % (path, sugg, fx))
            rc2, err2 = run(fx)
            check(rc2 == 0, "%s: the fixed program does not compile:\n%s" % (fx, err2))
            continue
        if SUGGESTS.search(err.split("\n")[0]) and name not in NO_FIX:
            check(False, "%s suggests a fix, and no test follows it (add tests/suggest/%s.rise):\n%s"
                  % (path, name, err.split("\n")[0]))
for name in manual:
    fails.append("tests/suggest: %s fixes tests/err/%s.rise, which does not exist" % (manual[name][0], name))
for x in fails: print("FAIL " + x)
print("suggest_test: %d passed, %d failed" % (passes, len(fails)))
sys.exit(1 if fails else 0)
