#!/usr/bin/env python3
"""doc_links.py [ROOT]: every relative link in README.md, bench/README.md and docs/*.md
points to a file or directory that exists, and a link's #anchor (in the same page or
in another .md page) to a heading of that page (GitHub's slugs). Links inside code
(fenced blocks, `inline code`) are not links and are skipped, and so are http(s):
and mailto: links. Prints each broken link as FILE:LINE: TARGET (why); exit status 1
when there is one, 0 otherwise. ctest doc_links."""
import glob
import os
import re
import sys

LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def strip_code(line, in_fence):
    """The line without inline code spans; in_fence says whether a fenced block is open."""
    if line.lstrip().startswith("```"):
        return "", not in_fence
    if in_fence:
        return "", in_fence
    return re.sub(r"`[^`]*`", "", line), in_fence


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        found, seen, in_fence = set(), {}, False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.lstrip().startswith("```"):
                    in_fence = not in_fence
                    continue
                m = None if in_fence else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
                if m:
                    base = slug(m.group(1))
                    n = seen.get(base, 0)
                    seen[base] = n + 1
                    found.add(base if n == 0 else "%s-%d" % (base, n))
        cache[path] = found
    return cache[path]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    root = os.path.abspath(root)
    pages = ["README.md", "bench/README.md"] + sorted(
        os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "*.md")))
    bad = 0
    for page in pages:
        path = os.path.join(root, page)
        in_fence = False
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
        for no, line in enumerate(lines, 1):
            text, in_fence = strip_code(line, in_fence)
            for m in LINK.finditer(text):
                target = m.group(1)
                if re.match(r"[a-z]+:", target):
                    continue
                file_part, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                why = None
                if not os.path.exists(dest):
                    why = "no such file"
                elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                    why = "no heading #%s in %s" % (anchor, os.path.relpath(dest, root))
                if why:
                    print("%s:%d: %s (%s)" % (page, no, target, why))
                    bad += 1
    print("doc_links: %d pages, %s" % (len(pages), "%d broken links" % bad if bad else "every relative link resolves"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
