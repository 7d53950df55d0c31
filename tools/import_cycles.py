#!/usr/bin/env python3
"""Finds import cycles among the modules of a Python package (default: python/oar).

Only imports that run when a module is loaded count: those at module scope, including inside
module-level if/try/with blocks and class bodies. Imports inside functions (and lambdas) run only
when the function is called, so they are not edges.

What an import is an edge to:
- `import a.b.c` -> a.b.c;
- `from a.b import c` -> a.b.c when that is a module of the package, else a.b (c is a name that
  a/b/__init__.py or a/b.py defines); relative imports are resolved against the importer first;
- importing a.b.c also runs the __init__.py of the packages a and a.b: edges too, except to the
  packages that contain the importer itself (those are always initialised, or being initialised,
  before it; counting them would put every submodule in a cycle with its package). A package
  that an import names itself (`import oar`, `from .. import Tensor`) is an edge even when it
  contains the importer: the importer reads that package's namespace, maybe half-initialised.
Modules outside the package are not nodes, nor are compiled extensions: oar._C (built by CMake,
so absent from a fresh checkout) and any *.so / *.pyd found in the package.

Prints each group of modules that import each other in a circle (a strongly connected component
of the graph) with shortest cycles covering its modules, and exits 1 if there is any, else 0.

    python tools/import_cycles.py [PACKAGE_DIR] [--verbose]
"""
import argparse
import ast
import os
import sys
from collections import deque

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_PACKAGE = os.path.join(ROOT, "python", "oar")
# Compiled extension modules of the package, by name relative to it (not always built).
EXTENSIONS = ("_C",)


def discover(package_dir):
    """({module name: file path} for every .py file under package_dir, {extension module names})."""
    package_dir = os.path.abspath(package_dir)
    base = os.path.basename(package_dir)
    modules, extensions = {}, {f"{base}.{e}" for e in EXTENSIONS}
    for dirpath, dirnames, filenames in os.walk(package_dir):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__"
                             and os.path.exists(os.path.join(dirpath, d, "__init__.py")))
        rel = os.path.relpath(dirpath, package_dir)
        parts = [base] + ([] if rel == "." else rel.split(os.sep))
        for f in sorted(filenames):
            if f.endswith((".so", ".pyd")):
                extensions.add(".".join(parts + [f.split(".")[0]]))
            if not f.endswith(".py"):
                continue
            name = ".".join(parts if f == "__init__.py" else parts + [f[:-3]])
            modules[name] = os.path.join(dirpath, f)
    return modules, extensions


def _module_scope_imports(tree):
    """Import and ImportFrom nodes that run at import time (not inside a function body)."""
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
            continue
        stack.extend(ast.iter_child_nodes(node))


def edges_of(name, path, modules, extensions=()):
    """(target module, line) for each module-scope import of module `name` that names a module of
    the package."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    is_package = os.path.basename(path) == "__init__.py"
    out = []
    for node in _module_scope_imports(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    out.append((alias.name, node.lineno))
            continue
        if node.level:
            anchor = name.split(".")
            if not is_package:
                anchor = anchor[:-1]
            anchor = anchor[:len(anchor) - (node.level - 1)]
            base = ".".join(anchor + ([node.module] if node.module else []))
        else:
            base = node.module
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            if sub in extensions:
                continue
            if sub in modules:
                out.append((sub, node.lineno))
            elif base in modules:
                out.append((base, node.lineno))
    return out


def _packages_of(name):
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def build_graph(modules, extensions=()):
    graph = {m: {} for m in modules}
    for name, path in modules.items():
        own = set(_packages_of(name))
        if os.path.basename(path) == "__init__.py":
            own.add(name)
        for target, line in edges_of(name, path, modules, extensions):
            if target != name:
                graph[name].setdefault(target, line)
            for t in _packages_of(target):
                if t not in own and t in modules:
                    graph[name].setdefault(t, line)
    return graph


def strongly_connected(graph):
    """Tarjan's algorithm (iterative): the components with more than one module."""
    index, low, on_stack, stack, comps = {}, {}, set(), [], []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))
    return sorted(comps)


def shortest_cycle(graph, start, members):
    """A shortest cycle through `start` inside the component `members` (breadth-first)."""
    prev = {start: None}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(graph[v]):
            if w not in members:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return path[::-1] + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return None


def find_cycles(package_dir):
    """(graph, modules, components, cycles): cycles are shortest cycles, one per module of each
    component that is not already on a listed cycle of that component."""
    modules, extensions = discover(package_dir)
    graph = build_graph(modules, extensions)
    comps = strongly_connected(graph)
    cycles = []
    for comp in comps:
        members, covered = set(comp), set()
        for m in comp:
            if m in covered:
                continue
            cyc = shortest_cycle(graph, m, members)
            if cyc:
                covered.update(cyc)
                cycles.append(cyc)
    return graph, modules, comps, cycles


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("package_dir", nargs="?", default=DEFAULT_PACKAGE)
    ap.add_argument("--verbose", action="store_true", help="also list the import lines of each cycle")
    args = ap.parse_args(argv)
    graph, modules, comps, cycles = find_cycles(args.package_dir)
    if not comps:
        print(f"no import cycles among {len(modules)} modules of {args.package_dir}")
        return 0
    print(f"{len(comps)} group(s) of modules import each other in a circle "
          f"({sum(map(len, comps))} modules):")
    for comp in comps:
        print(f"\n{len(comp)} modules: " + ", ".join(comp))
        for cyc in cycles:
            if cyc[0] not in comp:
                continue
            print("  cycle: " + " -> ".join(cyc))
            if args.verbose:
                for a, b in zip(cyc, cyc[1:]):
                    print(f"    {os.path.relpath(modules[a], ROOT)}:{graph[a][b]} imports {b}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
