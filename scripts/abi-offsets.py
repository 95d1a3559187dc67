#!/usr/bin/env python3
"""abi-offsets.py: the binary layout of a PJRT C API header, as a table of facts.

    scripts/abi-offsets.py [--repo R] [--path P] [--commit C] UPSTREAM_HEADER > TABLE
    scripts/abi-offsets.py --compare TABLE HEADER

The first form reads upstream's pjrt_c_api.h (OpenXLA's, never seam's own header: it
refuses a file without upstream's licence notice or with seam's marker) and writes one
row per fact: the data model, PJRT_API_MAJOR/MINOR, every struct's size and alignment,
every field's position, offset, size and type, every <Struct>_STRUCT_SIZE constant, the
PJRT_Api slots in order, every enum constant's value and every typedef. The names come
from reading the header's text (a small C preprocessor and declaration reader below);
the numbers come from the C compiler: the script writes a C file that includes the
header and prints sizeof/offsetof/values, compiles it with $CC (default cc) and runs it.

The second form computes the same facts from HEADER (which may be seam's) and prints
every difference from TABLE: facts missing from the header, facts the header has in
addition, and facts whose values differ. Where two type spellings differ, the compiler
decides (__builtin_types_compatible_p), so `struct X*` and `X*` are the same type.
Exit status: 0 no difference, 1 differences, 2 usage, input or compiler errors.

Only the Python standard library and a C compiler (GCC or Clang) are needed.
"""
import argparse
import hashlib
import os
import platform
import re
import subprocess
import sys
import tempfile

PROG = "abi-offsets.py"

# ------------------------------------------------------------------------------------
# Refusing seam's header as the source of the table

UPSTREAM_LICENCE = re.compile(r"Copyright \d{4}(?:-\d{4})? The (?:OpenXLA|TensorFlow) Authors")
SEAM_MARKER = re.compile(r"\bseam\b|\bSEAM_\w+", re.I)


def refuse_if_not_upstream(path, text):
    mark = SEAM_MARKER.search(text)
    if mark:
        line = text.count("\n", 0, mark.start()) + 1
        die(f"{path} is seam's own header (line {line} says {mark.group(0)!r}), not "
            "upstream's. The table records upstream's layout and is made only from "
            "OpenXLA's xla/pjrt/c/pjrt_c_api.h; to check a seam header against the table "
            f"run: {PROG} --compare TABLE {path}")
    if not UPSTREAM_LICENCE.search(text):
        die(f"{path} does not carry upstream's licence notice ('Copyright <year> The "
            "OpenXLA Authors' or '... The TensorFlow Authors'), so it is not upstream's "
            "pjrt_c_api.h. The table is made only from upstream's header; use --compare "
            "to check any other header against it")


def die(message, status=2):
    sys.stderr.write(f"{PROG}: {message}\n")
    sys.exit(status)


# ------------------------------------------------------------------------------------
# A small C preprocessor: comments, line splices, #define/#undef, conditionals and
# macro expansion (object-like and function-like, with ## and #). #include is not
# followed: the facts are the header's own declarations.

TOKEN = re.compile(r"""
   (?P<ws>\s+)
 | (?P<str>"(?:\\.|[^"\\\n])*")
 | (?P<chr>'(?:\\.|[^'\\\n])*')
 | (?P<num>\.?\d(?:[eEpP][+-]|[\w.])*)
 | (?P<id>[A-Za-z_]\w*)
 | (?P<op>\#\#|->|\.\.\.|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||\+\+|--|[-+*/%&|^!~<>=?:;,.(){}\[\]\#\\])
""", re.X)

COMMENT = re.compile(r'("(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\')|/\*.*?\*/|//[^\n]*', re.S)


def tokenize(text):
    tokens, pos = [], 0
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise ValueError(f"cannot read the C text at {text[pos:pos + 30]!r}")
        if m.lastgroup != "ws":
            tokens.append(m.group(0))
        pos = m.end()
    return tokens


def is_ident(tok):
    return bool(re.fullmatch(r"[A-Za-z_]\w*", tok))


def strip_comments(text):
    def repl(m):
        if m.group(1):
            return m.group(1)
        return "\n" * m.group(0).count("\n") or " "
    return COMMENT.sub(repl, text)


class Macro:
    def __init__(self, params, body):
        self.params = params  # None for an object-like macro
        self.body = body


def collect_args(tokens, i):
    """tokens[i] is '('; returns (list of argument token lists, index after ')')."""
    depth, args, cur = 0, [], []
    i += 1
    while i < len(tokens):
        t = tokens[i]
        if t in "([{":
            depth += 1
        elif t in ")]}":
            if depth == 0:
                args.append(cur)
                return args, i + 1
            depth -= 1
        elif t == "," and depth == 0:
            args.append(cur)
            cur = []
            i += 1
            continue
        cur.append(t)
        i += 1
    raise ValueError("unbalanced parentheses in a macro call")


def expand(tokens, macros, hide=frozenset()):
    out, i = [], 0
    while i < len(tokens):
        t = tokens[i]
        macro = macros.get(t) if is_ident(t) and t not in hide else None
        if macro is None:
            out.append(t)
            i += 1
            continue
        if macro.params is None:
            out.extend(expand(macro.body, macros, hide | {t}))
            i += 1
            continue
        if i + 1 >= len(tokens) or tokens[i + 1] != "(":
            out.append(t)
            i += 1
            continue
        args, after = collect_args(tokens, i + 1)
        body = substitute(macro, args, macros, hide | {t})
        out.extend(expand(body, macros, hide | {t}))
        i = after
    return out


def substitute(macro, args, macros, hide):
    params = list(macro.params)
    variadic = params and params[-1] == "..."
    if variadic:
        params[-1] = "__VA_ARGS__"
        fixed = len(params) - 1
        rest = args[fixed:]
        joined = []
        for k, a in enumerate(rest):
            if k:
                joined.append(",")
            joined.extend(a)
        args = args[:fixed] + [joined]
    if len(params) == 0 and args == [[]]:
        args = []
    if len(args) != len(params):
        raise ValueError(f"macro called with {len(args)} arguments, wants {len(params)}")
    bind = dict(zip(params, args))
    body = macro.body
    out = []
    k = 0
    while k < len(body):
        t = body[k]
        if t == "#" and k + 1 < len(body) and body[k + 1] in bind:
            text = " ".join(bind[body[k + 1]]).replace("\\", "\\\\").replace('"', '\\"')
            out.append(f'"{text}"')
            k += 2
            continue
        if t in bind:
            pasted = (k > 0 and body[k - 1] == "##") or (k + 1 < len(body) and body[k + 1] == "##")
            out.extend(bind[t] if pasted else expand(bind[t], macros, hide))
            k += 1
            continue
        out.append(t)
        k += 1
    # Token pasting.
    pasted = []
    k = 0
    while k < len(out):
        if out[k] == "##" and pasted and k + 1 < len(out):
            pasted[-1] = pasted[-1] + out[k + 1]
            k += 2
            continue
        pasted.append(out[k])
        k += 1
    return pasted


def eval_condition(tokens, macros):
    toks = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t == "defined":
            if i + 1 < len(tokens) and tokens[i + 1] == "(":
                name, i = tokens[i + 2], i + 4
            else:
                name, i = tokens[i + 1], i + 2
            toks.append("1" if name in macros else "0")
            continue
        toks.append(t)
        i += 1
    toks = expand(toks, macros)
    py = []
    for t in toks:
        if is_ident(t):
            py.append("0")
        elif t == "&&":
            py.append(" and ")
        elif t == "||":
            py.append(" or ")
        elif t == "!":
            py.append(" not ")
        elif re.fullmatch(r"\d+[uUlL]*", t):
            py.append(t.rstrip("uUlL"))
        else:
            py.append(t)
    try:
        return bool(eval("".join(py), {"__builtins__": {}}, {}))
    except Exception:
        return False


def preprocess(text):
    """Returns (expanded code tokens, macros)."""
    text = text.replace("\\\r\n", "").replace("\\\n", "")
    text = strip_comments(text)
    macros = {}
    stack = []  # entries: [active, taken, parent_active]
    code, chunk = [], []
    for line in text.split("\n"):
        stripped = line.strip()
        active = all(entry[0] for entry in stack)
        if stripped.startswith("#"):
            # Code is expanded with the macros defined where it stands.
            code.extend(expand(tokenize("\n".join(chunk)), macros))
            chunk = []
            m = re.match(r"#\s*(\w*)\s*(.*)", stripped)
            word, rest = m.group(1), m.group(2)
            if word in ("if", "ifdef", "ifndef"):
                if not active:
                    stack.append([False, True, False])
                    continue
                if word == "ifdef":
                    cond = rest.split()[0] in macros
                elif word == "ifndef":
                    cond = rest.split()[0] not in macros
                else:
                    cond = eval_condition(tokenize(rest), macros)
                stack.append([cond, cond, True])
            elif word == "elif":
                entry = stack[-1]
                if entry[2] and not entry[1] and eval_condition(tokenize(rest), macros):
                    entry[0] = entry[1] = True
                else:
                    entry[0] = False
            elif word == "else":
                entry = stack[-1]
                entry[0] = entry[2] and not entry[1]
                entry[1] = True
            elif word == "endif":
                stack.pop()
            elif not active:
                continue
            elif word == "define":
                m = re.match(r"([A-Za-z_]\w*)(\([^)]*\))?\s*(.*)", rest)
                name, params, body = m.group(1), m.group(2), m.group(3)
                if params is not None:
                    params = [p.strip() for p in params[1:-1].split(",") if p.strip()]
                macros[name] = Macro(params, tokenize(body))
            elif word == "undef":
                macros.pop(rest.split()[0], None)
            continue
        if active:
            chunk.append(line)
    code.extend(expand(tokenize("\n".join(chunk)), macros))
    return code, macros


# ------------------------------------------------------------------------------------
# Reading declarations from the expanded tokens

QUALIFIERS = {"const", "volatile", "restrict", "__restrict", "__restrict__"}
C_KEYWORDS = QUALIFIERS | {"void", "char", "short", "int", "long", "float", "double", "signed",
                           "unsigned", "struct", "union", "enum", "_Bool", "typedef", "extern",
                           "static", "inline", "__extension__", "sizeof"}


def split_top(tokens, sep):
    parts, cur, depth = [], [], 0
    for t in tokens:
        if t in "([{":
            depth += 1
        elif t in ")]}":
            depth -= 1
        if t == sep and depth == 0:
            parts.append(cur)
            cur = []
        else:
            cur.append(t)
    if cur:
        parts.append(cur)
    return parts


def matching(tokens, i):
    """Index of the bracket closing tokens[i]."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    open_, close, depth = tokens[i], pairs[tokens[i]], 0
    for k in range(i, len(tokens)):
        if tokens[k] == open_:
            depth += 1
        elif tokens[k] == close:
            depth -= 1
            if depth == 0:
                return k
    raise ValueError("unbalanced brackets")


def type_text(tokens):
    """A type's tokens as one canonical string: `const char*`, `void (*)(int* x)`."""
    out, prev = "", None
    for t in tokens:
        if t == "__extension__":
            continue
        space = bool(out)
        if t in (",", ")", "]", "*") or prev in ("(", "["):
            space = False
        elif t == "(" and prev == ")":
            space = False
        elif t == "[" and prev is not None and is_ident(prev):
            space = False
        out += (" " if space else "") + t
        prev = t
    return out


def split_declarator(tokens):
    """(name, type tokens) of a one-declarator declaration without its ';'."""
    toks = [t for t in tokens if t != "__extension__"]
    for k in range(len(toks) - 3):
        if toks[k] == "(" and toks[k + 1] == "*":
            m = k + 2
            while m < len(toks) and toks[m] in QUALIFIERS:
                m += 1
            if m + 1 < len(toks) and is_ident(toks[m]) and toks[m + 1] == ")":
                return toks[m], toks[:m] + toks[m + 1:]
    for k, t in enumerate(toks):
        if t == "(" and k > 0 and is_ident(toks[k - 1]) and toks[k - 1] not in C_KEYWORDS:
            return toks[k - 1], toks[:k - 1] + toks[k:]
    k = len(toks) - 1
    while k >= 0 and toks[k] == "]":
        depth = 0
        while k >= 0:
            if toks[k] == "]":
                depth += 1
            elif toks[k] == "[":
                depth -= 1
                if depth == 0:
                    break
            k -= 1
        k -= 1
    if k < 0 or not is_ident(toks[k]) or toks[k] in C_KEYWORDS:
        raise ValueError(f"cannot find the name declared in `{' '.join(tokens)}`")
    return toks[k], toks[:k] + toks[k + 1:]


class Header:
    def __init__(self):
        self.order = []  # ("struct"|"enum"|"typedef"|"tag", name) in header order
        self.structs = {}  # name -> {"c": C spelling, "fields": [(name, type)]}
        self.enums = {}  # name -> {"c": C spelling or None, "constants": [names]}
        self.struct_sizes = []  # struct names with a <name>_STRUCT_SIZE constant
        self.typedefs = {}  # name -> type text
        self.tags = {}  # tag -> "struct"/"union"
        self.macros = {}


def read_members(body, fields):
    for member in split_top(body, ";"):
        if not member:
            continue
        toks = [t for t in member if t != "__extension__"]
        if toks[0] in ("struct", "union") and "{" in toks[:3]:
            open_ = toks.index("{")
            close = matching(toks, open_)
            after = toks[close + 1:]
            if not after:
                read_members(toks[open_ + 1:close], fields)  # anonymous: its members are ours
                continue
            if len(after) != 1 or not is_ident(after[0]):
                raise ValueError(f"unsupported member `{' '.join(member)}`")
            fields.append((after[0], type_text(toks[:close + 1])))
            continue
        if split_top(toks, ",")[1:]:
            raise ValueError(f"one declarator per member, please: `{' '.join(member)}`")
        name, ttoks = split_declarator(toks)
        fields.append((name, type_text(ttoks)))


def read_declarations(tokens, macros):
    h = Header()
    h.macros = macros
    anonymous = 0
    for stmt in split_top(tokens, ";"):
        if not stmt:
            continue
        is_typedef = stmt[0] == "typedef"
        rest = [t for t in (stmt[1:] if is_typedef else stmt) if t != "__extension__"]
        while rest and rest[0] in QUALIFIERS:
            rest = rest[1:]
        if rest and rest[0] in ("struct", "union", "enum") and "{" in rest[:3]:
            kind = rest[0]
            tag = rest[1] if is_ident(rest[1]) else None
            open_ = rest.index("{")
            close = matching(rest, open_)
            body, after = rest[open_ + 1:close], rest[close + 1:]
            alias = after[-1] if (is_typedef and after and is_ident(after[-1])) else None
            if kind == "enum":
                if alias or tag:
                    name, c = alias or tag, alias or f"enum {tag}"
                else:
                    anonymous += 1
                    name, c = f"(anonymous enum {anonymous})", None
                consts = []
                for item in split_top(body, ","):
                    if not item:
                        continue
                    const = item[0]
                    if const.endswith("_STRUCT_SIZE"):
                        h.struct_sizes.append(const[:-len("_STRUCT_SIZE")])
                    else:
                        consts.append(const)
                if consts:
                    h.enums[name] = {"c": c, "constants": consts}
                    h.order.append(("enum", name))
                continue
            name = tag or alias
            if name is None:
                raise ValueError("a struct without a tag or a typedef name")
            fields = []
            read_members(body, fields)
            h.structs[name] = {"c": f"{kind} {tag}" if tag else alias, "fields": fields}
            h.order.append(("struct", name))
            if tag and tag not in h.tags:
                h.tags[tag] = kind
                h.order.append(("tag", tag))
            if alias:
                h.typedefs[alias] = f"{kind} {tag}" if tag else f"{kind} {{...}}"
                h.order.append(("typedef", alias))
            continue
        if is_typedef:
            name, ttoks = split_declarator(rest)
            h.typedefs[name] = type_text(ttoks)
            h.order.append(("typedef", name))
            if len(ttoks) == 2 and ttoks[0] in ("struct", "union") and ttoks[1] not in h.tags:
                h.tags[ttoks[1]] = ttoks[0]
                h.order.append(("tag", ttoks[1]))
            continue
        if len(rest) == 2 and rest[0] in ("struct", "union"):
            if rest[1] not in h.tags:
                h.tags[rest[1]] = rest[0]
                h.order.append(("tag", rest[1]))
            continue
        # Other declarations (functions, objects) are not part of the layout.
    return h


# ------------------------------------------------------------------------------------
# Asking the compiler

def c_string(s):
    s = s.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + s.replace("\n", "\\n").replace("\t", "\\t") + '"'


def first_lines(text, n=30):
    lines = text.splitlines()
    more = f"\n... ({len(lines) - n} more lines)" if len(lines) > n else ""
    return "\n".join(lines[:n]) + more


def compile_and_run(source, what):
    cc = os.environ.get("CC", "cc")
    with tempfile.TemporaryDirectory(prefix="abi-offsets-") as tmp:
        src, exe = os.path.join(tmp, "probe.c"), os.path.join(tmp, "probe")
        with open(src, "w") as f:
            f.write(source)
        built = subprocess.run([cc, "-std=gnu11", "-w", src, "-o", exe],
                               capture_output=True, text=True)
        if built.returncode != 0:
            return None, built.stderr
        ran = subprocess.run([exe], capture_output=True, text=True)
        if ran.returncode != 0:
            die(f"the {what} program failed: {ran.stderr}")
        return ran.stdout, None


def facts_of(path):
    """Returns (rows, major, minor, Header): rows are tuples of strings, in header order."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        tokens, macros = preprocess(text)
        h = read_declarations(tokens, macros)
    except (ValueError, IndexError) as e:
        die(f"cannot read {path}: {e}")
    header = os.path.abspath(path)

    lines = ["#include <stddef.h>", "#include <stdint.h>", "#include <stdio.h>",
             f"#include {c_string(header)}", "int main(void) {"]

    def emit(fmt, *args):
        call = ", ".join([c_string(fmt + "\n")] + list(args))
        lines.append(f"  printf({call});")

    emit("abi\tsizeof(void*)\t%zu", "sizeof(void*)")
    emit("abi\tsizeof(long)\t%zu", "sizeof(long)")
    emit("abi\tsizeof(int)\t%zu", "sizeof(int)")
    emit("abi\tsizeof(size_t)\t%zu", "sizeof(size_t)")
    emit("abi\talignof(int64_t)\t%zu", "__alignof__(int64_t)")
    emit("abi\tsizeof(bool)\t%zu", "sizeof(_Bool)")
    for name in ("PJRT_API_MAJOR", "PJRT_API_MINOR"):
        if name in macros:
            emit(f"version\t{name}\t%lld", f"(long long)({name})")
    slots_of = "PJRT_Api"
    sizes = set(h.struct_sizes)
    for kind, name in h.order:
        if kind == "struct":
            s = h.structs[name]
            c = s["c"]
            emit(f"struct\t{name}\tsizeof\t%zu", f"sizeof({c})")
            emit(f"struct\t{name}\talignof\t%zu", f"__alignof__({c})")
            if name in sizes:
                emit(f"struct_size\t{name}\t%lld", f"(long long)({name}_STRUCT_SIZE)")
            for index, (field, ftype) in enumerate(s["fields"]):
                emit(f"field\t{name}\t{field}\t{index}\t%zu\t%zu\t%s",
                     f"offsetof({c}, {field})", f"sizeof((({c}*)0)->{field})",
                     c_string(ftype))
            if name == slots_of:
                names = [f for f, _ in s["fields"]]
                start = names.index("pjrt_api_version") + 1 if "pjrt_api_version" in names else 3
                for slot, field in enumerate(names[start:]):
                    emit(f"slot\t{slot}\t{field}")
        elif kind == "enum":
            e = h.enums[name]
            if e["c"]:
                emit(f"enum_size\t{name}\t%zu", f"sizeof({e['c']})")
            for const in e["constants"]:
                emit(f"enum\t{name}\t{const}\t%lld", f"(long long)({const})")
        elif kind == "typedef":
            emit(f"typedef\t{name}\t%s", c_string(h.typedefs[name]))
        elif kind == "tag":
            emit(f"tag\t{name}\t{h.tags[name]}")
    for name in h.struct_sizes:
        if name not in h.structs:
            emit(f"struct_size\t{name}\t%lld", f"(long long)({name}_STRUCT_SIZE)")
    lines += ["  return 0;", "}", ""]
    out, err = compile_and_run("\n".join(lines), "layout")
    if out is None:
        die(f"the layout program for {path} did not compile:\n{first_lines(err)}")
    rows, seen = [], set()
    for line in out.splitlines():
        # A typedef repeated (legal since C11, as upstream does) gives one fact, not two.
        if line and line not in seen:
            seen.add(line)
            rows.append(tuple(line.split("\t")))
    values = {r[1]: r[2] for r in rows if r[0] == "version"}
    return rows, values.get("PJRT_API_MAJOR", "?"), values.get("PJRT_API_MINOR", "?"), h


# ------------------------------------------------------------------------------------
# Making the table

TABLE_INTRO = """\
# The PJRT C API's binary layout at one upstream version, one fact per row, made by
# scripts/abi-offsets.py from upstream's header (never from seam's own). Regenerate:
#   scripts/abi-offsets.py --repo R --commit C <upstream pjrt_c_api.h> > this file
# Check a header against it (exit 1 and one line per difference):
#   scripts/abi-offsets.py --compare this file <header>
# Rows (tab-separated):
#   abi         <what>              <value>          data model of the machine that made it
#   version     <macro>             <value>
#   struct      <name>              sizeof|alignof   <bytes>
#   struct_size <name>              <value of <name>_STRUCT_SIZE>
#   field       <struct> <field>    <position> <offset> <size> <type>
#   slot        <index>             <PJRT_Api function pointer, in order>
#   enum_size   <enum>              <bytes>
#   enum        <enum> <constant>   <value>
#   typedef     <name>              <type>
#   tag         <name>              struct|union
"""


def produce(args):
    path = args.header
    with open(path, "rb") as f:
        data = f.read()
    refuse_if_not_upstream(path, data.decode("utf-8", errors="replace"))
    rows, major, minor, h = facts_of(path)
    slots = sum(1 for r in rows if r[0] == "slot")
    cc = os.environ.get("CC", "cc")
    try:
        cc_version = subprocess.run([cc, "--version"], capture_output=True,
                                    text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        cc_version = cc
    out = [TABLE_INTRO,
           f"# repository: {args.repo}\n",
           f"# path: {args.path}\n",
           f"# commit: {args.commit}\n",
           f"# sha256: {hashlib.sha256(data).hexdigest()}\n",
           f"# major: {major}\n",
           f"# minor: {minor}\n",
           f"# slots: {slots}\n",
           f"# made on: {platform.machine()} {platform.system()}, {cc_version}\n"]
    out += ["\t".join(r) + "\n" for r in rows]
    sys.stdout.write("".join(out))


# ------------------------------------------------------------------------------------
# Comparing

def key_and_value(row):
    kind = row[0]
    if kind in ("abi", "version", "struct_size", "enum_size", "typedef", "tag"):
        return (kind, row[1]), row[2:]
    if kind in ("struct", "enum"):
        return (kind, row[1], row[2]), row[3:]
    if kind == "field":
        return (kind, row[1], row[2]), row[3:]
    if kind == "slot":
        return (kind, row[1]), row[2:]
    raise ValueError(f"unknown row kind {kind!r}")


def describe(key):
    kind = key[0]
    if kind == "field":
        return f"field {key[1]}.{key[2]}"
    if kind == "struct":
        return f"{key[2]} of struct {key[1]}"
    if kind == "enum":
        return f"enum constant {key[2]} (of {key[1]})"
    if kind == "struct_size":
        return f"{key[1]}_STRUCT_SIZE"
    if kind == "slot":
        return f"PJRT_Api slot {key[1]}"
    return f"{kind} {key[1]}"


def show(key, value):
    if key[0] == "field":
        return f"position {value[0]}, offset {value[1]}, size {value[2]}, type `{value[3]}`"
    if key[0] == "typedef":
        return f"`{value[0]}`"
    return " ".join(value)


def types_compatible(checks, header, h):
    """checks: list of (key, expression of the header's type, table's type text).
    Returns {key: True/False/None}; None where the compiler could not check it."""
    result = {}
    pending = list(checks)
    while pending:
        lines = ["#include <stdio.h>", f"#include {c_string(os.path.abspath(header))}",
                 "int main(void) {"]
        first = len(lines) + 1
        for k, (key, mine, theirs) in enumerate(pending):
            lines.append(f'  printf("{k} %d\\n", __builtin_types_compatible_p({mine}, {theirs}));')
        lines += ["  return 0;", "}", ""]
        out, err = compile_and_run("\n".join(lines), "type check")
        if out is not None:
            for line in out.splitlines():
                k, ok = line.split()
                result[pending[int(k)][0]] = ok == "1"
            break
        bad = set()
        for m in re.finditer(r"probe\.c:(\d+):\d+: error", err):
            k = int(m.group(1)) - first
            if 0 <= k < len(pending):
                bad.add(k)
        if not bad:
            die(f"the type check program did not compile:\n{first_lines(err)}")
        for k in bad:
            result[pending[k][0]] = None
        pending = [p for k, p in enumerate(pending) if k not in bad]
    return result


def compare(args):
    table_path, header = args.compare
    table = {}
    meta = {}
    with open(table_path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                m = re.match(r"#\s*(repository|commit|major|minor|sha256|slots):\s*(.*)", line)
                if m:
                    meta[m.group(1)] = m.group(2)
                continue
            if not line:
                continue
            row = tuple(line.split("\t"))
            key, value = key_and_value(row)
            table[key] = value
    if not table:
        die(f"{table_path} holds no facts")
    rows, _, _, h = facts_of(header)
    mine = {}
    for row in rows:
        key, value = key_and_value(row)
        mine[key] = value

    # Type spellings that differ go to the compiler.
    checks = []
    for key in table.keys() & mine.keys():
        if key[0] == "field" and table[key][3] != mine[key][3]:
            c = h.structs[key[1]]["c"]
            checks.append((key, f"__typeof__((({c}*)0)->{key[2]})", table[key][3]))
        elif key[0] == "typedef" and table[key][0] != mine[key][0]:
            if not table[key][0].endswith("{...}"):
                checks.append((key, key[1], table[key][0]))
    verdict = types_compatible(checks, header, h) if checks else {}

    diffs = []
    for key in table:
        if key not in mine:
            diffs.append(f"missing: {describe(key)} ({show(key, table[key])} upstream)")
            continue
        want, got = table[key], mine[key]
        if key[0] == "field":
            problems = []
            if want[0] != got[0]:
                problems.append(f"position {got[0]}, upstream {want[0]}")
            if want[1] != got[1]:
                problems.append(f"offset {got[1]}, upstream {want[1]}")
            if want[2] != got[2]:
                problems.append(f"size {got[2]}, upstream {want[2]}")
            if want[3] != got[3] and verdict.get(key) is not True:
                why = "" if verdict.get(key) is False else " (the compiler could not compare them)"
                problems.append(f"type `{got[3]}`, upstream `{want[3]}`{why}")
            if problems:
                diffs.append(f"differs: {describe(key)}: " + "; ".join(problems))
        elif key[0] == "typedef":
            if want != got and verdict.get(key) is not True:
                diffs.append(f"differs: {describe(key)}: `{got[0]}`, upstream `{want[0]}`")
        elif want != got:
            diffs.append(f"differs: {describe(key)}: {show(key, got)}, upstream {show(key, want)}")
    if not args.ignore_extra:
        for key in mine:
            if key not in table:
                diffs.append(f"extra: {describe(key)} ({show(key, mine[key])} in the header, "
                             "not upstream)")
    source = f"{meta.get('repository', '?')}@{meta.get('commit', '?')} " \
             f"(PJRT API {meta.get('major', '?')}.{meta.get('minor', '?')})"
    if diffs:
        for d in diffs:
            print(d)
        print(f"{len(diffs)} difference(s) between {header} and {table_path}, "
              f"upstream {source}")
        sys.exit(1)
    print(f"no difference: {header} matches {len(table)} facts of {table_path}, "
          f"upstream {source}")


def main():
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Layout table of upstream's PJRT C API header, or a comparison with it.")
    p.add_argument("--repo", default="openxla/xla", help="upstream repository (recorded)")
    p.add_argument("--path", default="xla/pjrt/c/pjrt_c_api.h",
                   help="path of the header in the repository (recorded)")
    p.add_argument("--commit", default="unknown", help="upstream commit (recorded)")
    p.add_argument("--compare", nargs=2, metavar=("TABLE", "HEADER"),
                   help="print every difference between TABLE and HEADER's facts")
    p.add_argument("--ignore-extra", action="store_true",
                   help="with --compare: facts the header has beyond the table are not "
                        "differences")
    p.add_argument("header", nargs="?", help="upstream's pjrt_c_api.h")
    args = p.parse_args()
    if args.compare:
        if args.header:
            p.error("--compare takes TABLE and HEADER; no other header")
        compare(args)
    elif args.header:
        produce(args)
    else:
        p.error("give upstream's header, or --compare TABLE HEADER")


if __name__ == "__main__":
    main()
