"""Small constructors for the AST nodes the transformer generates, and the generated names.

Generated names start with `_oar_` so that they cannot meet a user's name by accident; every
generated node takes the source location of the user's statement it replaces.
"""
import ast

JST = "_oar_jst"                        # the runtime converters, a closure cell of the function
RETURN_FLAG = "_oar_return_flag"        # set when a `return` inside a loop ran
RETURN_VALUE = "_oar_return_value"      # what the function returns


def name(id_, store=False):
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def jst_attr(attr):
    return ast.Attribute(value=name(JST), attr=attr, ctx=ast.Load())


def call_jst(attr, *args):
    return ast.Call(func=jst_attr(attr), args=list(args), keywords=[])


def const(value):
    return ast.Constant(value=value)


def assign(target, value):
    return ast.Assign(targets=[name(target, store=True)], value=value)


def tuple_of(names, store=False):
    return ast.Tuple(elts=[name(n, store) for n in names], ctx=ast.Store() if store else ast.Load())


def not_(expr):
    return ast.UnaryOp(op=ast.Not(), operand=expr)


def function(fname, params, body, declared=None):
    """`def fname(params): body` with `global`/`nonlocal` lines for the names in `declared`."""
    head = []
    for kind, cls in (("global", ast.Global), ("nonlocal", ast.Nonlocal)):
        names = sorted(n for n, k in (declared or {}).items() if k == kind)
        if names:
            head.append(cls(names=names))
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    return ast.FunctionDef(name=fname, args=args, body=head + (body or [ast.Pass()]),
                           decorator_list=[], returns=None, type_comment=None)


def lambda_(expr):
    args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                         kwarg=None, defaults=[])
    return ast.Lambda(args=args, body=expr)


def located(nodes, where):
    """Give generated `nodes` (a node or list) the location of `where`, recursively.

    They end on `where`'s first line: Python 3.11 puts a method call on the line where its
    callee expression ends, and a multi-line span would point tracebacks at the wrong line.
    """
    one_line = where.end_lineno == where.lineno
    for node in nodes if isinstance(nodes, list) else [nodes]:
        for sub in ast.walk(node):
            if "lineno" in sub._attributes and getattr(sub, "lineno", None) is None:
                sub.lineno, sub.col_offset = where.lineno, where.col_offset
                sub.end_lineno = where.lineno
                sub.end_col_offset = where.end_col_offset if one_line else where.col_offset
    return nodes
