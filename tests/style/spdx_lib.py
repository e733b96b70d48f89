# SPDX-License-Identifier: GPL-2.0-or-later
"""Which license each file of the tree is under, read from debian/copyright
(DEP-5: the last Files paragraph whose pattern matches decides; '*' also
matches '/'), and whether a file carries the SPDX line that says so. Used
by tests/style/spdx.sh."""
import fnmatch
import os

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SPDX = {"GPL-2+": "GPL-2.0-or-later", "LGPL-2.1+": "LGPL-2.1-or-later"}

# Not source: prose, data and files whose format has no comment.
EXEMPT = ["*.md", "COPYING", "COPYING.LESSER", "debian/changelog", "debian/copyright", "debian/source/format",
          "tests/fuzz/corpus/*", "tests/style/bad/*", "*/py.typed", "*/package-lock.json",
          ".gitignore", "*/.gitattributes"]


def paragraphs(path=None):
    """[(patterns, license)] of the Files paragraphs, in order."""
    text = open(path or os.path.join(TOP, "debian", "copyright")).read()
    out = []
    for para in text.split("\n\n"):
        fields, key = {}, None
        for line in para.split("\n"):
            if line[:1] in (" ", "\t") and key:
                fields[key] += " " + line.strip()
            elif ":" in line:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
        if "Files" in fields:
            out.append((fields["Files"].split(), fields["License"].split()[0]))
    return out


def expected(path, paras=None):
    """The SPDX identifier debian/copyright gives @path (relative to TOP)."""
    lic = None
    for patterns, name in paras or paragraphs():
        if any(fnmatch.fnmatchcase(path, p) for p in patterns):
            lic = name
    return SPDX.get(lic, lic)


def is_source(path):
    return not any(fnmatch.fnmatchcase(path, p) for p in EXEMPT)


def spdx_of(path):
    """The identifier of the SPDX line in the first three lines, or None."""
    with open(os.path.join(TOP, path), encoding="utf-8", errors="replace") as f:
        for _ in range(3):
            line = f.readline()
            if "SPDX-License-Identifier:" in line:
                # (a JSON file carries it as a string: "//": "SPDX-...")
                return line.split("SPDX-License-Identifier:")[1].split()[0].rstrip("\",")
    return None


def has_spdx(path):
    return spdx_of(path) is not None
