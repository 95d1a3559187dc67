#!/usr/bin/env python3
"""check-modules.py [ROOT]: the module graph of src/, tools/, bench/ and examples/ and the
rules between their layers.

A module is a header with its source file (src/lazy/donation.h + donation.cc = one node);
an edge is an #include of another module's header from any file of one module. A public
header (include/seam/tensor.h) has no source file of its own: an include of it is an edge
to each module whose source file implements it (includes it first), so a cycle through the
public API is found too; a private header of that implementation (PRIVATE_HEADERS) is part
of the same module. Fails (exit 1) on
  - any cycle between modules (each one printed, module by module), and
  - any include that points up: a layer may include only the layers listed for it in
    LAYERS below (docs/architecture.md, "Layers").
It also checks the front end's one path through the seam: in src/lazy and src/nn, only
src/lazy/step_runner.cc calls the four crossings of ComputationClient (TransferToDevice,
Compile, ExecuteComputation / ExecuteReplicated, TransferFromDevice) or reaches the compile
cache (Runtime::compile_cache), and only the Runtime (src/lazy/runtime.cc) opens the
process's cache (GetCompileCache); and that on the framework side of the seam (src/runtime) only the
PJRT client (pjrt_computation_client*, split over several files) and the loader (pjrt_api.*)
include the plugin ABI header (../shared/DESIGN.md, "Rules that keep the house simple").
tools/, bench/ and examples/ sit above src/: examples use the public API only, and no file
outside tests/ includes a file of tests/. Run by ctest as `module_check`.
"""
import os
import re
import sys

# Layer (a folder under src/, or a public header folder) -> what it may include.
# "seam/..." is the public API under include/seam; "seam/c" is the plugin ABI header.
LAYERS = {
    "src/base": [],
    "src/ir": ["src/base"],
    # StableHLO text to and from seam's IR (docs/stablehlo.md).
    "src/stablehlo": ["src/base", "src/ir"],
    "src/abi": ["src/base", "src/ir", "seam/c"],
    "src/data": ["src/base", "seam"],
    "src/checkpoint": ["src/base", "src/ir", "src/lazy", "seam"],
    "src/plugins/common": ["src/base", "src/ir", "src/abi", "seam/c"],
    # The CPU plugin and the conformance suite read and write the compile options, a
    # serialized xla.CompileOptionsProto (src/proto/compile_options.proto).
    "src/plugins/cpu": ["src/base", "src/ir", "src/stablehlo", "src/abi", "src/plugins/common",
                        "src/proto", "seam/c"],
    # The reference plugin reads StableHLO text too (format "mlir", src/stablehlo/read.h).
    "src/plugins/reference": ["src/base", "src/ir", "src/stablehlo", "src/abi",
                              "src/plugins/common", "seam/c"],
    "src/conformance": ["src/base", "src/ir", "src/stablehlo", "src/abi", "src/runtime", "src/proto",
                        "seam/c"],
    # The coordinator's gRPC code: the runtime includes the generated headers, built from
    # src/proto/*.proto into libseam_proto.so and included as "proto/<name>.pb.h".
    "src/proto": [],
    # The runtime, split by job (docs/architecture.md, "The runtime's libraries"). A folder
    # is its own layer: "src/runtime" is the interface (the seam, the client registry,
    # metrics, trace) and allows none of its sub-folders.
    "src/runtime": ["src/base", "src/ir"],
    # The coordinator (client and service), the key-value store, the job's settings.
    "src/runtime/distributed": ["src/base", "src/proto"],
    # The PJRT client: the only framework code that includes the plugin ABI (below).
    "src/runtime/pjrt": ["src/base", "src/ir", "src/stablehlo", "src/abi", "src/proto", "seam/c",
                         "src/runtime", "src/runtime/distributed"],
    # The remote client, and the server that only `seam serve` links.
    "src/runtime/remote": ["src/base", "src/ir", "src/proto", "src/runtime",
                           "src/runtime/distributed"],
    "src/runtime/serve": ["src/base", "src/ir", "src/proto", "src/runtime", "src/runtime/remote"],
    # The process's client: registers the clients above and creates the one chosen.
    "src/runtime/process": ["src/base", "src/runtime", "src/runtime/pjrt", "src/runtime/remote",
                            "src/runtime/distributed"],
    # The one place that knows both the runtime and the CPU plugin: it registers the plugin
    # as PJRT_DEVICE=CPU's in-process client in programs that link the target `seam`.
    "src/in_process": ["src/runtime/pjrt", "src/plugins/cpu", "seam/c"],
    # The front end reaches the seam, the process's client and the job's settings; never a
    # client's implementation nor the server.
    "src/lazy": ["src/base", "src/ir", "src/runtime", "src/runtime/process",
                 "src/runtime/distributed", "seam"],
    "src/nn": ["src/base", "src/ir", "src/lazy", "seam"],
    # What tests and benchmarks share (built with the tests, never installed): a plugin's C
    # table seen from C++, processes, a server started for a test.
    "src/testing": ["src/base", "src/ir", "src/abi", "src/proto", "seam/c"],
    # Above src/: the command line, the benchmarks (which may reach internals to time them)
    # and the examples (a user's programs: the public API only). None includes tests/.
    "tools": ["src", "seam", "seam/c"],
    "bench": ["src", "seam", "seam/c", "examples"],
    "examples": ["seam"],
}
# Cycles found and not yet broken, each exactly as found: a new cycle, or a change to one of
# these, fails the check. None today: the last one (include/seam/tensor.h's implementation
# calling the step machinery, whose fast_shape and replicated reached seam::Tensor through
# tensor_internal.h) was broken by src/lazy/node_ops.h, the node-level operations that know
# no Tensor.
KNOWN_CYCLES = set()

# Private headers of a public header's implementation (declaring what the files implementing
# it share, on the public types): part of that public header's module, not modules of their
# own, so a module the implementation includes (the step machinery) cannot include one
# without a cycle through the public API.
PRIVATE_HEADERS = {
    "src/lazy/tensor_internal.h": "seam/tensor.h",
}

SCANNED = ("src", "tools", "bench", "examples")

# Any other folder src/plugins/<name> is a plugin (a copy of src/plugins/null, for one) and
# needs no entry above: it may include what a plugin built outside the tree gets from the
# installed kit (cmake/SeamPackage.cmake), nothing else of the framework.
PLUGIN_DEFAULT = ["src/base", "src/ir", "src/abi", "src/plugins/common", "seam/c"]

INCLUDE = re.compile(r'^\s*#\s*include\s+"((?:src|seam|proto|tools|bench|examples|tests)/[^"]+)"',
                     re.M)

# The front end's calls that only the step runner may make.
RUNNER = "src/lazy/step_runner.cc"
RUNNER_ONLY = re.compile(r'(?:\.|->)(TransferToDevice|Compile|ExecuteComputation|ExecuteReplicated|'
                         r'TransferFromDevice|compile_cache)\s*\(')
# The process's compile cache is opened by the front end's Runtime only.
RUNTIME = "src/lazy/runtime.cc"
RUNTIME_ONLY = re.compile(r'\bGetCompileCache\s*\(')
FRONT_END = ("src/lazy/", "src/nn/")

# On the framework side, the files that may include the plugin ABI header (seam/c/...).
ABI_SIDE = "src/runtime/"
ABI_USERS = re.compile(r'^(pjrt_api|pjrt_computation_client(_[a-z_]+)?)\.(h|cc)$')


def strip_comments(text):
    """The text without // and /* */ comments (a crossing named in a comment is fine)."""
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    return re.sub(r'//[^\n]*', '', text)


def layer_of(path):
    """The LAYERS key a src/..., tools/..., bench/..., examples/... or seam/... path belongs to
    (longest match)."""
    best = None
    for layer in LAYERS:
        if path.startswith(layer + "/") and (best is None or len(layer) > len(best)):
            best = layer
    plugin = re.match(r"(src/plugins/[^/]+)/", path)
    if best is None and plugin:
        best = plugin.group(1)
    return best


def allowed(from_layer, to_path):
    if to_path.startswith("proto/"):
        # Generated from src/proto/<name>.proto (the build tree's gen/proto/).
        to_path = "src/" + to_path
    # A path inside a layer belongs to the deepest one (src/runtime/pjrt/x.h is
    # src/runtime/pjrt's, not src/runtime's), so allowing a folder never allows its
    # sub-folders.
    to_layer = layer_of(to_path)
    if to_layer == from_layer:
        return True
    for target in LAYERS.get(from_layer, PLUGIN_DEFAULT):
        if target in ("seam",):
            # The public API headers (include/seam/*.h), not the ABI folder seam/c.
            if to_path.startswith("seam/") and not to_path.startswith("seam/c/"):
                return True
        elif to_layer is not None:
            # "src" (for tools/ and bench/, above everything) allows every layer of src/.
            if to_layer == target or (target == "src" and to_layer.startswith("src/")):
                return True
        elif to_path.startswith(target + "/") or to_path == target + ".h":
            return True
    return False


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    os.chdir(root)
    edges = {}
    problems = []
    texts = {}
    for top in SCANNED:
        for dirpath, _, files in os.walk(top):
            for name in sorted(files):
                if name.endswith((".h", ".cc", ".c")):
                    path = os.path.join(dirpath, name)
                    with open(path, encoding="utf-8") as f:
                        texts[path] = f.read()
    implementers = public_header_implementers(texts)
    for path in sorted(texts):
        text = texts[path]
        name = os.path.basename(path)
        if True:
            module = module_of_file(path, implementers)
            edges.setdefault(module, set())
            layer = layer_of(path)
            if path.startswith(FRONT_END) and path != RUNNER and module != "src/lazy/compile_cache":
                for call in RUNNER_ONLY.finditer(strip_comments(text)):
                    problems.append(f"{path}: calls {call.group(0).strip('.->(').strip()}, "
                                    f"which only {RUNNER} may (the one path through the seam)")
            if path.startswith(FRONT_END) and path != RUNTIME and module != "src/lazy/compile_cache":
                for call in RUNTIME_ONLY.finditer(strip_comments(text)):
                    problems.append(f"{path}: calls {call.group(0).strip('(').strip()}, "
                                    f"which only {RUNTIME} may (the runtime owns the cache)")
            for target in INCLUDE.findall(text):
                if (target.startswith("seam/c/") and path.startswith(ABI_SIDE)
                        and not ABI_USERS.match(name)):
                    problems.append(f"{path}: includes {target}; in {ABI_SIDE} only "
                                    "pjrt_api.* and pjrt_computation_client*.* may (the seam)")
                if layer is None:
                    problems.append(f"{path}: folder has no entry in LAYERS")
                elif not allowed(layer, target):
                    problems.append(f"{path}: includes {target}, which {layer} may not use")
                for other in modules_of(target, implementers):
                    if other != module:
                        edges[module].add(other)
    cycles = strongly_connected(edges)
    for component in cycles:
        if frozenset(component) in KNOWN_CYCLES:
            print(f"check-modules: known cycle (to break, docs/architecture.md \"Layers\"): "
                  + " -> ".join(cycle_path(component, edges)))
            continue
        problems.append(f"module cycle among {', '.join(component)}; for example "
                        + " -> ".join(cycle_path(component, edges)))
    for known in KNOWN_CYCLES - {frozenset(c) for c in cycles}:
        problems.append(f"the known cycle among {', '.join(sorted(known))} is gone (or changed): "
                        "remove it from KNOWN_CYCLES")
    modules = len(edges)
    links = sum(len(v) for v in edges.values())
    if problems:
        for p in sorted(set(problems)):
            print(p)
        print(f"check-modules: {len(set(problems))} problem(s) in {modules} modules")
        return 1
    print(f"check-modules: {modules} modules, {links} edges, no cycle, no upward include, "
          f"every crossing of the front end in {RUNNER}, the ABI header only in the PJRT "
          "client and its loader")
    return 0


FIRST_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def public_header_implementers(texts):
    """Source file -> the public header ("seam/tensor.h") it implements: a file of src/ with
    no header of its own whose first include is that header. Every file implementing one
    public header is one module, named after the header."""
    result = {}
    for path, text in texts.items():
        if not (path.startswith("src/") and path.endswith(".cc")):
            continue
        if os.path.splitext(path)[0] + ".h" in texts:
            continue
        first = FIRST_INCLUDE.search(text)
        if first and first.group(1).startswith("seam/") and not first.group(1).startswith("seam/c/"):
            result[path] = first.group(1)
    return result


def module_of_file(path, implementers):
    if path in PRIVATE_HEADERS:
        return PRIVATE_HEADERS[path]
    return implementers.get(path, os.path.splitext(path)[0])


def modules_of(target, implementers):
    """The modules an #include of `target` makes an edge to: a file's own module, or the
    module of a public header's implementation (none for a header only included)."""
    if target in PRIVATE_HEADERS:
        return {PRIVATE_HEADERS[target]}
    if target.startswith(("src/", "tools/", "bench/", "examples/")):
        return {os.path.splitext(target)[0]}
    if target in set(implementers.values()):
        return {target}
    return set()


def strongly_connected(edges):
    """Tarjan's algorithm, iterative; returns the components with more than one module."""
    index, low, on_stack, stack, result = {}, {}, set(), [], []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    result.append(sorted(component))
    return result


def cycle_path(component, edges):
    """One cycle through the component's first module, for the message."""
    members = set(component)
    start = component[0]
    parent = {start: None}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for nxt in sorted(edges.get(node, ())):
            if nxt == start:
                path = [node]
                while parent[path[-1]] is not None:
                    path.append(parent[path[-1]])
                return list(reversed(path)) + [start]
            if nxt in members and nxt not in parent:
                parent[nxt] = node
                queue.append(nxt)
    return component


if __name__ == "__main__":
    sys.exit(main())
