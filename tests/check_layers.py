#!/usr/bin/env python3
"""The layer order of DESIGN.md ("Layout") as the includes have it.

Reads every `#include "harness/..."`, `"benches/..."` and `"kernels/..."` in harness/, benches/
and kernels/, and fails on an include from a layer to one it may not use, or on a cycle among
the files. Prints each offence as `file:line: layer -> layer (header)`; exits 1 if there is one.
"""
import os
import re
import sys

# What each layer may include (its own files always). Only cli may use run and cli.
MAY_USE = {
    "model": set(),
    "analysis": {"model"},
    "report": {"analysis", "model"},
    "system": {"model"},
    "core": {"system", "model"},
    "run": {"core", "system", "report", "analysis", "model"},
    "cli": {"run", "core", "system", "report", "analysis", "model"},
    "benches": {"core", "system", "model", "kernels"},
    "kernels": {"core", "system", "model"},
}
# Cycles between the components of one layer that are still to be broken: a new one fails, and so
# does one of these once it is gone, so that the list stays true.
KNOWN_COMPONENT_CYCLES = {
    "harness/analysis/compare -> harness/analysis/judgeable -> harness/analysis/compare",
    "harness/analysis/baseline -> harness/analysis/compare -> harness/analysis/tolerances -> harness/analysis/baseline",
    "harness/analysis/check -> harness/analysis/check_health -> harness/analysis/check",
    "harness/report/chart_bars -> harness/report/chart_data -> harness/report/chart_bars",
    "harness/report/chart_lines -> harness/report/svg_chart -> harness/report/chart_lines",
    "harness/system/nvml -> harness/system/nvml_symbols -> harness/system/nvml",
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"((?:harness|benches|kernels)/[^"]+)"')
SOURCE = (".h", ".hpp", ".cuh", ".cpp", ".cu")


def layer_of(path):
    parts = path.split("/")
    if parts[0] == "harness":
        return parts[1] if len(parts) > 2 else None
    return parts[0]


def component_of(path, includes):
    """The header a source file implements: its own (state.cpp: state.h), or the header its name
    extends (context_json.cpp: context.h) where it includes that; else the file stands alone."""
    stem = os.path.splitext(path)[0]
    if path.endswith((".cpp", ".cu")):
        for _, header in includes.get(path, []):
            base = os.path.splitext(header)[0]
            if stem == base or stem.startswith(base + "_"):
                return base
    return stem


def read_includes(root):
    includes = {}
    for top in ("harness", "benches", "kernels"):
        for folder, _, names in os.walk(os.path.join(root, top)):
            for name in names:
                if not name.endswith(SOURCE):
                    continue
                full = os.path.join(folder, name)
                rel = os.path.relpath(full, root).replace(os.sep, "/")
                with open(full, encoding="utf-8", errors="replace") as f:
                    includes[rel] = [(n, m.group(1)) for n, line in enumerate(f, 1) if (m := INCLUDE.match(line))]
    return includes


def layer_offences(includes):
    out = []
    for path, found in sorted(includes.items()):
        source = layer_of(path)
        for line, header in found:
            target = layer_of(header)
            if source is None or target is None or source == target:
                continue
            if source not in MAY_USE:
                out.append(f"{path}:{line}: {source} is no known layer")
            elif target not in MAY_USE[source]:
                out.append(f"{path}:{line}: {source} -> {target} ({header})")
    return out


def cycles(includes):
    """Cycles among layers and among components (a header and its sources: context.h with
    context.cpp and context_json.cpp is one), an include path that leads back to where it began."""
    out = []
    graph = {}
    for path, found in includes.items():
        source = layer_of(path)
        for _, header in found:
            target = layer_of(header)
            if source and target and source != target:
                graph.setdefault(source, set()).add(target)
    components = {}
    for path, found in includes.items():
        edges = components.setdefault(component_of(path, includes), set())
        edges.update(component_of(h, includes) for _, h in found if h in includes)
    for edges_of in components.items():
        edges_of[1].discard(edges_of[0])
    for name, edges in (("layer", graph), ("component", components)):
        state = {}

        def visit(node, stack):
            state[node] = 1
            stack.append(node)
            for nxt in sorted(edges.get(node, ())):
                if state.get(nxt) == 1:
                    loop = stack[stack.index(nxt):]
                    first = loop.index(min(loop))  # one spelling per cycle, wherever the walk met it
                    loop = loop[first:] + loop[:first]
                    out.append((name, " -> ".join(loop + [loop[0]])))
                elif nxt not in state:
                    visit(nxt, stack)
            stack.pop()
            state[node] = 2

        for node in sorted(edges):
            if node not in state:
                visit(node, [])
    return out


def main():
    if len(sys.argv) != 2:
        print("usage: check_layers.py SOURCE_DIR", file=sys.stderr)
        return 2
    includes = read_includes(sys.argv[1])
    found = cycles(includes)
    known = {path for name, path in found if name == "component" and path in KNOWN_COMPONENT_CYCLES}
    problems = layer_offences(includes)
    problems += [f"{name} cycle: {path}" for name, path in found if path not in known]
    problems += [f"component cycle no longer there (take it off KNOWN_COMPONENT_CYCLES): {path}"
                 for path in sorted(KNOWN_COMPONENT_CYCLES - known)]
    for p in problems:
        print(p)
    print(f"{len(includes)} files, {sum(len(v) for v in includes.values())} includes, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
