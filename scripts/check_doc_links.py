#!/usr/bin/env python3
"""Check that the docs point at things that exist.

    scripts/check_doc_links.py [PAGE...]

Without PAGE: README.md and every Markdown file under docs/. For each page:

- every relative Markdown link or image, `[text](path#anchor)`, names a file or folder that
  exists (relative to the page), and its anchor, if any, a heading of the page it names;
- every repository path in backticks (a word that starts with a top-level folder of the
  repository, such as `models/stokes/stokes.cpp`, `scripts/`, `core/*.hpp` or
  `models/x/y.{hpp,cpp}`) exists. The lab journal (docs/journal/) records files as they were
  when it was written, so its backticked paths are not checked; its links are.

Exit 1 with one line per broken reference. Python 3 standard library only.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOP = sorted(d for d in os.listdir(ROOT) if os.path.isdir(os.path.join(ROOT, d))
             and not d.startswith(".") and not d.startswith("build"))
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE = re.compile(r"(`+)(.+?)\1", re.S)
FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M)
PATH = re.compile(r"(?<![\w./-])(?:%s)/(?:[^\s`'\"()<>,;{}]|\{[^{}\s]*\})*"
                  % "|".join(map(re.escape, TOP)))
PLACEHOLDER = re.compile(r"^[A-Z][A-Z_]*$")


def anchors(path):
    """GitHub's anchors of a Markdown page's headings."""
    with open(path, encoding="utf-8") as f:
        text = FENCE.sub("", f.read())
    out = set()
    for title in re.findall(r"^#{1,6}\s+(.*?)\s*#*\s*$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
        base, n = slug, 1
        while slug in out:
            slug, n = f"{base}-{n}", n + 1
        out.add(slug)
    return out


def braces(path):
    """models/x/y.{hpp,cpp} -> [models/x/y.hpp, models/x/y.cpp]."""
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    return [p for alt in m.group(1).split(",") for p in
            braces(path[:m.start()] + alt + path[m.end():])]


def path_exists(word):
    word = word.rstrip(".:")
    if any(PLACEHOLDER.match(part) for part in word.split("/")) or "..." in word:
        return True
    for candidate in braces(word):
        full = os.path.join(ROOT, candidate)
        if not glob.glob(full) and not glob.glob(full + ".*"):  # io/json_text: the module
            return False
    return True


def check(page):
    with open(page, encoding="utf-8") as f:
        text = f.read()
    here, problems = os.path.dirname(page), []
    where = os.path.relpath(page, ROOT)
    prose = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    for m in LINK.finditer(CODE.sub(lambda c: " " * len(c.group(0)), prose)):
        target = m.group(1)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            continue  # http:, https:, mailto:
        name, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(here, name)) if name else page
        line = text.count("\n", 0, m.start()) + 1
        if not os.path.exists(full):
            problems.append(f"{where}:{line}: link to {target}: no such file")
        elif anchor and full.endswith(".md") and anchor not in anchors(full):
            problems.append(f"{where}:{line}: link to {target}: no heading '{anchor}' there")
    if os.path.join("docs", "journal") not in where:
        for m in CODE.finditer(text):
            for word in PATH.findall(m.group(2)):
                if not path_exists(word):
                    line = text.count("\n", 0, m.start()) + 1
                    problems.append(f"{where}:{line}: `{word}`: no such path in the repository")
    return problems


def main(argv):
    pages = argv[1:]
    if not pages:
        pages = [os.path.join(ROOT, "README.md")]
        for base, _, files in os.walk(os.path.join(ROOT, "docs")):
            pages += [os.path.join(base, f) for f in sorted(files) if f.endswith(".md")]
    problems = [p for page in sorted(pages) for p in check(os.path.abspath(page))]
    print("\n".join(problems) if problems else f"{len(pages)} pages: every link and path exists")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
