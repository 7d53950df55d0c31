"""What a piece of a function's AST assigns, contains and mutates, within one Python scope.

Nested functions, lambdas, classes and comprehensions are scopes of their own: their insides are
not looked at (a nested `def` is itself a name its scope assigns).
"""
import ast

_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
                  ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def walk_scope(nodes, into_loops=True):
    """Yield every node under `nodes` (a node or a list) that belongs to the same scope.

    into_loops=False stops at loop bodies too (their `break`/`continue` are theirs), but still
    visits a loop's iterable/test and its `else` clause, which belong to the enclosing loop.
    """
    stack = list(nodes) if isinstance(nodes, list) else [nodes]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _NESTED_SCOPES):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stack.extend(node.decorator_list)
            continue
        if not into_loops and isinstance(node, _LOOPS):
            stack.extend([node.test] if isinstance(node, ast.While) else [node.target, node.iter])
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def assigned_names(nodes):
    """Names bound in this scope by `nodes` (and still bound after them), in source order."""
    found = {}
    for node in walk_scope(nodes):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found.setdefault(node.id, (node.lineno, node.col_offset))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.setdefault(node.name, (node.lineno, node.col_offset))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                name = alias.asname or alias.name.split(".")[0]
                found.setdefault(name, (node.lineno, node.col_offset))
        # `except E as e` is not one: Python unbinds `e` when the handler ends
    return sorted(found, key=found.get)


def declared_outside(nodes):
    """Names a `global` or `nonlocal` statement in this scope declares, with the kind."""
    out = {}
    for node in walk_scope(nodes):
        if isinstance(node, ast.Global):
            out.update((n, "global") for n in node.names)
        elif isinstance(node, ast.Nonlocal):
            out.update((n, "nonlocal") for n in node.names)
    return out


def first_of(nodes, types, into_loops=True):
    """The first (in source order) node of one of `types` in this scope, or None."""
    hits = [n for n in walk_scope(nodes, into_loops) if isinstance(n, types)]
    return min(hits, key=lambda n: (n.lineno, n.col_offset)) if hits else None


def outside_mutations(nodes, local_names):
    """Assignments to attributes or items of objects the code did not create itself.

    `o.a = v` / `o[k] = v` / `del o.a` where `o` is not among `local_names` (the names the code
    assigns) change state outside a branch; a tensor-dependent branch cannot do that.
    """
    hits = []
    for node in walk_scope(nodes):
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(
                node.ctx, (ast.Store, ast.Del)):
            base = node.value
            while isinstance(base, (ast.Attribute, ast.Subscript)):
                base = base.value
            if not (isinstance(base, ast.Name) and base.id in local_names):
                hits.append((ast.unparse(node), node.lineno))
    return sorted(hits, key=lambda h: h[1])
