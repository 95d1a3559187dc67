#!/usr/bin/env python3
"""Fails when a `switch` over ops in src/ has a `default:` label.

A switch over ir::Op must list every op (the generated labels of src/ir/op_cases.inc
help), so that a new row of src/ir/ops.def without a case is a compile error (-Wswitch
under -Werror) instead of a silent fall into `default:` (docs/adding-an-op.md).

Heuristic: a switch is "over ops" when its subject is `op`, ends in `.op` or `->op`, or
names an ir::Op expression (`Op(`, `_op`, `op()`), or when its labels are `Op::k...`;
switches over dtypes, combiners, effects and other enums are not looked at. Usage: check-op-switches.py [ROOT] (default: the
repository this script lives in).
"""
import pathlib
import re
import sys

SUBJECT = re.compile(r"\bswitch\s*\(")
OP_LABEL = re.compile(r"\bcase\s+(::)?(seam::)?(ir::)?Op::k\w+\s*:")
OP_SUBJECT = re.compile(r"^(\w+(\.|->))*(op|\w+_op|op\(\))$|(^|\W)(ir::)?Op\b")


def subject_at(text, start):
    """The text between the parentheses of the switch whose `(` is at text[start]."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1:i], i + 1
    return "", len(text)


def body_at(text, start):
    """The braces of the switch body from its `{` at or after start, with nested switch
    bodies blanked out (they are checked on their own)."""
    open_brace = text.find("{", start)
    if open_brace < 0:
        return ""
    depth = 0
    for i in range(open_brace, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                body = text[open_brace + 1:i]
                break
    else:
        return ""
    # Blank nested switches so that their labels count for them only.
    out, pos = [], 0
    for m in SUBJECT.finditer(body):
        if m.start() < pos:
            continue
        _, after = subject_at(body, m.end() - 1)
        inner = body.find("{", after)
        depth, end = 0, len(body)
        for i in range(inner, len(body)):
            if body[i] == "{":
                depth += 1
            elif body[i] == "}":
                depth -= 1
                if depth == 0:
                    end = i + 1
                    break
        out.append(body[pos:m.start()])
        pos = end
    out.append(body[pos:])
    return "".join(out)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group()), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent)
    failures = []
    for path in sorted((root / "src").rglob("*")):
        if path.suffix not in (".cc", ".h", ".inc") or not path.is_file():
            continue
        text = strip_comments(path.read_text(encoding="utf-8", errors="replace"))
        for m in SUBJECT.finditer(text):
            subject, after = subject_at(text, m.end() - 1)
            subject = subject.strip()
            body = body_at(text, after)
            if not OP_SUBJECT.search(subject) and not OP_LABEL.search(body):
                continue
            if re.search(r"\bdefault\s*:", body):
                line = text.count("\n", 0, m.start()) + 1
                failures.append(f"{path.relative_to(root)}:{line}: switch ({subject}) has a "
                                "`default:`; list the ops (src/ir/op_cases.inc) instead")
    for f in failures:
        print(f)
    if failures:
        print(f"{len(failures)} switch(es) over ops with `default:` (docs/adding-an-op.md)")
        return 1
    print("no `default:` in a switch over ops")
    return 0


if __name__ == "__main__":
    sys.exit(main())
