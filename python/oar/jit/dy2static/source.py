"""A function's AST as the user wrote it, with the line and column numbers of its file."""
import ast
import inspect
import textwrap

from .errors import Dy2StaticError


def function_ast(fn):
    """The `def` of `fn` (decorators removed), located in `fn`'s file."""
    code = fn.__code__
    try:
        # the code object, not fn: inspect follows __wrapped__ to another function's source
        lines, first = inspect.getsourcelines(code)
    except (OSError, TypeError) as e:
        raise Dy2StaticError(
            (code.co_filename, code.co_firstlineno),
            f"the source of {fn.__qualname__} is not available ({e})",
            "Define the function in a .py file (functions typed at an interactive prompt or "
            "built with exec cannot be converted)") from None
    source = "".join(lines)
    dedented = textwrap.dedent(source)
    indent = len(lines[0]) - len(lines[0].lstrip()) if lines[0].strip() else 0
    tree = ast.parse(dedented)
    fdef = tree.body[0]
    if not isinstance(fdef, (ast.FunctionDef, ast.AsyncFunctionDef)) or fdef.name != code.co_name:
        raise Dy2StaticError((code.co_filename, first), f"{fn.__qualname__} is not a def statement",
                             "Convert functions defined with `def`")
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) is not None:
            node.lineno += first - 1
            node.col_offset += indent
        if getattr(node, "end_lineno", None) is not None:
            node.end_lineno += first - 1
            node.end_col_offset += indent
    fdef.decorator_list = []
    return fdef


class PrivateNameMangling(ast.NodeTransformer):
    """Mangle `__name` as the class body did: the converted method is compiled outside it."""

    def __init__(self, class_name):
        self.prefix = "_" + class_name.lstrip("_")

    def _mangle(self, name):
        if name.startswith("__") and not name.endswith("__") and "." not in name:
            return self.prefix + name
        return name

    def visit_Attribute(self, node):
        self.generic_visit(node)
        node.attr = self._mangle(node.attr)
        return node

    def visit_Name(self, node):
        node.id = self._mangle(node.id)
        return node


def owning_class_name(fn):
    """The name of the class a method was defined in, from its qualified name, or None."""
    parts = fn.__qualname__.split(".")
    if len(parts) >= 2 and parts[-2] != "<locals>":
        return parts[-2]
    return None


class ExplicitSuper(ast.NodeTransformer):
    """`super()` -> `super(__class__, self)`: the zero-argument form reads the first argument of
    the frame that calls it, which inside a generated branch function is not `self`."""

    def __init__(self, first_param):
        self.first_param = first_param

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args \
                and not node.keywords:
            node.args = [ast.copy_location(ast.Name(id="__class__", ctx=ast.Load()), node),
                         ast.copy_location(ast.Name(id=self.first_param, ctx=ast.Load()), node)]
        return node

    def visit_FunctionDef(self, node):
        return node                      # a nested def has its own first argument

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef
