# SPDX-License-Identifier: GPL-2.0-or-later
"""Links in the project's Markdown lead somewhere.

Usage: links.py FILE.md...   (paths relative to the top of the tree)

For each file, every inline link [text](target) and reference definition
[label]: target outside code: a relative target must be a file or folder
of the tree, and a #fragment must be the slug of a heading of the target
(GitHub's rule: lower case, punctuation dropped, spaces to hyphens, -N
for repeats). Every path in backquotes that starts with a top-level
folder of the tree (docs/..., tests/..., include/pcp/...) must exist too,
so a moved or renamed file cannot leave a stale mention. Links to other
sites are counted, not fetched (no network in CI). Prints one line per
problem, then "links: N files, L links, P paths, E external, K bad".
Exit status 1 if anything is bad.
"""
import os
import re
import sys

FENCE = re.compile(r"^\s*(```|~~~)")
INLINE = re.compile(r"(?<!\!)\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s+(\S+)")
CODE = re.compile(r"`([^`\n]+)`")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
PATHLIKE = re.compile(r"^[A-Za-z0-9_.+-]+(/[A-Za-z0-9_.+-]*)+$")


def slug(text):
    text = re.sub(r"`|\*\*|__", "", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def headings(path, cache={}):
    if path not in cache:
        seen, out, fenced = {}, set(), False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if FENCE.match(line):
                    fenced = not fenced
                    continue
                m = None if fenced else HEADING.match(line)
                if m:
                    s = slug(m.group(2))
                    n = seen.get(s, 0)
                    seen[s] = n + 1
                    out.add(s if n == 0 else "%s-%d" % (s, n))
                    for a in re.findall(r'<a (?:name|id)="([^"]+)"', line):
                        out.add(a)
        cache[path] = out
    return cache[path]


def prose_lines(path):
    """(number, text) of the lines outside fenced code blocks."""
    fenced = False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
            elif not fenced:
                yield n, line


def main(files):
    top_dirs = {d for d in os.listdir(".") if os.path.isdir(d) and d not in ("build", ".git")}
    bad = links = paths = external = 0

    def problem(f, n, msg):
        nonlocal bad
        bad += 1
        print("%s:%d: %s" % (f, n, msg))

    for f in files:
        base = os.path.dirname(f)
        for n, line in prose_lines(f):
            targets = INLINE.findall(line) + IMAGE.findall(line)
            m = REFDEF.match(line)
            if m:
                targets.append(m.group(1))
            for t in targets:
                t = t.strip("<>")
                links += 1
                if re.match(r"^[a-z][a-z0-9+.-]*:", t):
                    external += 1
                    continue
                path, _, frag = t.partition("#")
                dest = os.path.normpath(os.path.join(base, path)) if path else f
                if not os.path.exists(dest):
                    problem(f, n, "link to %s: no such file" % t)
                    continue
                if frag and dest.endswith(".md") and frag not in headings(dest):
                    problem(f, n, "link to %s: %s has no heading #%s" % (t, dest, frag))
            for code in CODE.findall(INLINE.sub("", line)):
                tok = code.strip()
                if not PATHLIKE.match(tok) or tok.split("/")[0] not in top_dirs:
                    continue
                paths += 1
                if not os.path.exists(tok.rstrip("/")):
                    problem(f, n, "`%s`: no such file in the tree" % tok)
    print("links: %d files, %d links, %d paths, %d external, %d bad"
          % (len(files), links, paths, external, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
