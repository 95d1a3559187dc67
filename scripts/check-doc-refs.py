#!/usr/bin/env python3
"""Checks that every reference to a section of a Markdown file names a heading that exists.

A reference is a Markdown path followed by a quoted section name, as the tree writes them:
  BENCHMARKS.md, then the section's name in double quotes, after a comma, a space or an
  opening parenthesis.
The quoted text must be the start of a heading (any level) of that file, or of a paragraph
or list item led by a bold name; a name wrapped over two lines of a comment is joined
first. CHANGELOG.md is history and is not checked; files outside the tree are skipped. Files are searched under src/, include/, tools/,
bench/, examples/, tests/, scripts/, docs/, cmake/ and the top-level Markdown files.
Exit status 1 with one line per dangling reference. Usage: check-doc-refs.py [ROOT]
(default: the tree this script is in). Markdown links to anchors ([text](#a),
[text](file.md#a)) are checked against the headings' anchors too.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else __file__).resolve()
if len(sys.argv) <= 1:
    ROOT = ROOT.parent.parent
DIRS = ["src", "include", "tools", "bench", "examples", "tests", "scripts", "docs", "cmake"]
SUFFIXES = {".md", ".cc", ".h", ".c", ".def", ".py", ".sh", ".txt", ".cmake", ".proto", ".in"}
# A path ending in .md, an optional comma, space or parenthesis, then a quoted name.
REF = re.compile(r'((?:[\w.-]+/)*[\w.-]+\.md)(?:,?\s+\(?|\s*\()"([^"\n]{2,100})"')
# A Markdown link to an anchor: [text](#anchor) or [text](file.md#anchor).
ANCHOR = re.compile(r"\]\(((?:[\w.-]+/)*[\w.-]+\.md)?#([\w-]+)\)")
# Line breaks inside comments: a newline, indentation and a comment marker.
WRAP = re.compile(r"\s*\n\s*(?://+|#+|\*)?\s*")


def headings(path, cache={}):
    if path not in cache:
        names = []
        in_fence = False
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("```"):
                in_fence = not in_fence
            elif not in_fence and line.startswith("#"):
                names.append(line.lstrip("#").strip())
            elif not in_fence:
                # A paragraph or list item led by a bold name is a section too.
                item = re.sub(r"^\s*(?:[-*]|\d+\.)\s+", "", line)
                if item.startswith("**"):
                    names.append(item.replace("**", "").strip())
        cache[path] = names
    return cache[path]


def slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"[^\w\- ]", "", heading.lower().replace("`", ""))
    return text.replace(" ", "-")


def resolve(source, target):
    """The Markdown file a reference in `source` means: relative to the source's folder,
    then to the root, then by its file name anywhere under docs/ or the root."""
    for base in (source.parent, ROOT, ROOT / "docs"):
        candidate = (base / target).resolve()
        if candidate.is_file() and ROOT in candidate.parents:
            return candidate
    return None


def sources():
    for name in sorted(ROOT.glob("*.md")):
        if name.name != "CHANGELOG.md":
            yield name
    for d in DIRS:
        for path in sorted((ROOT / d).rglob("*")):
            if path.is_file() and path.suffix in SUFFIXES and path != pathlib.Path(__file__).resolve():
                yield path


def main():
    bad = []
    checked = 0
    for path in sources():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if "check-doc-refs: fixtures" in text[:600]:
            continue  # a test of this script, whose references are meant to dangle
        joined = WRAP.sub(" ", text)
        for m in REF.finditer(joined):
            target, name = m.group(1), m.group(2).strip()
            md = resolve(path, target)
            if md is None:
                continue  # a file outside the tree (upstream's, a user's)
            checked += 1
            if not any(h.startswith(name) for h in headings(md)):
                bad.append(f"{path.relative_to(ROOT)}: {target} has no section \"{name}\"")
        if path.suffix == ".md":
            for m in ANCHOR.finditer(text):
                md = resolve(path, m.group(1)) if m.group(1) else path
                if md is None:
                    continue
                checked += 1
                anchors = {slug(h) for h in headings(md)}
                if m.group(2) not in anchors:
                    bad.append(f"{path.relative_to(ROOT)}: link to #{m.group(2)} in "
                               f"{md.relative_to(ROOT)}: no such heading")
    for line in bad:
        print(line)
    print(f"check-doc-refs: {checked} section references, {len(bad)} dangling")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
