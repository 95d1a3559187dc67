#!/usr/bin/env python3
"""Regenerates tests/unit/abi_layout.golden from the ABI header.

Run it only for a deliberate layout change (new functions appended, a version bump noted
in docs/abi.md); the golden list exists to catch the accidental ones. It compiles a small
program listing every field and size that tests/unit/abi_layout_test.cc checks.
"""
import os
import re
import subprocess
import tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
test = open(os.path.join(root, "tests/unit/abi_layout_test.cc")).read()
fields = re.findall(r"^  FIELD\((\w+)\);", test, re.M)
sizes = re.findall(r"^  SIZE\((\w+)\);", test, re.M)

lines = ['#include <cstdio>', '#include "seam/c/pjrt_c_api.h"',
         '#include "seam/c/pjrt_c_api_profiler.h"', "int main() {"]
for f in fields:
    lines.append(f'  std::printf("PJRT_Api.{f} %zu\\n", (size_t)offsetof(PJRT_Api, {f}));')
for s in sizes:
    lines.append(f'  std::printf("{s}_STRUCT_SIZE %zu\\n", (size_t){s}_STRUCT_SIZE);')
lines.append("}")

with tempfile.TemporaryDirectory() as tmp:
    src, exe = os.path.join(tmp, "gen.cc"), os.path.join(tmp, "gen")
    open(src, "w").write("\n".join(lines) + "\n")
    subprocess.check_call(["g++", "-std=c++20", "-I", os.path.join(root, "include"), src, "-o", exe])
    body = subprocess.check_output([exe]).decode()

header = """# The plugin ABI's layout on x86-64 Linux (LP64): byte offsets of the PJRT_Api fields and
# the <Struct>_STRUCT_SIZE constants. tests/unit/abi_layout_test.cc compares the header
# against this list. Regenerate (scripts/update-abi-golden.py) only for a deliberate change,
# together with a version bump noted in docs/abi.md.
"""
open(os.path.join(root, "tests/unit/abi_layout.golden"), "w").write(header + body)
