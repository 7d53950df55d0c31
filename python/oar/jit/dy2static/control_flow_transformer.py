"""Turn `if`/`while`/`for` statements and `and`/`or`/`not`/ternary expressions into converter calls.

Runs after return and break/continue lowering, innermost statements first. Each branch or loop
body becomes a nested function over the variables it assigns (taking their current values,
returning their new ones); the runtime converter (`runtime_*.py`) runs it as plain Python when the
predicate is a Python value or an eager tensor and builds IR control flow when it is symbolic:

    if x.mean() > 0:            def _oar_if_true_0(y):          def _oar_if_false_0(y):
        y = x + 1         ->        y = x + 1; return (y,)          y = x - 1; return (y,)
    else:                       (y,) = _oar_jst.convert_ifelse(x.mean() > 0, _oar_if_true_0,
        y = x - 1                   _oar_if_false_0, (y,), ('y',), ...)

A statement that cannot become a function (it holds a `return`/`break`/`continue` the lowering had
to leave, a `yield`, a `del`) stays a Python statement whose test goes through
`python_condition`, which raises Dy2StaticError naming the line if the test is symbolic.
Calls become `_oar_jst.convert_call(f)(...)`, so user functions they reach are converted too;
`x.shape` becomes `_oar_jst.convert_shape(x)` (unknown dims of a symbolic tensor as tensors).
"""
import ast
import itertools

from . import ast_build as b
from .name_analysis import assigned_names, outside_mutations, walk_scope

_STAY_PYTHON_CALLS = {"super", "locals", "globals", "vars", "eval", "exec", "print", "isinstance",
                      "issubclass", "len", "type", "getattr", "setattr", "hasattr", "id",
                      "range", "zip", "enumerate", "list", "tuple", "dict", "set", "int",
                      "float", "bool", "str", "min", "max", "abs", "sum", "any", "all", "iter",
                      "next", "callable", "repr", "sorted", "reversed", "map", "filter"}
# Branch and body functions the transformer defines: they are not variables to carry.
_GENERATED_FUNCTIONS = ("_oar_if_true_", "_oar_if_false_", "_oar_while_cond_", "_oar_while_body_",
                        "_oar_for_body_")
_NO_LAMBDA = (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)


def _why_not_convertible(stmts, kind):
    """(what, fix) when `stmts` cannot become a nested function, else None."""
    for node in walk_scope(stmts):
        if isinstance(node, ast.Return):
            return (f"a `return` inside this `{kind}` could not be rewritten (the function also "
                    "returns from inside a try/with block)",
                    "Move returns out of try/with blocks (assign the result to a variable and "
                    "return it after the block)")
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
            return (f"`yield`/`await` inside this `{kind}`",
                    "Generators and coroutines cannot be converted; return values instead")
        if isinstance(node, ast.Delete) and any(isinstance(t, ast.Name) for t in node.targets):
            return (f"`del` of a variable inside this `{kind}`",
                    "Assign None to the variable instead of deleting it")
    for node in walk_scope(stmts, into_loops=False):
        if isinstance(node, (ast.Break, ast.Continue)):
            return (f"a `break`/`continue` inside a try/with block in this `{kind}`",
                    "Move the break/continue out of the try/with block")
    return None


class ControlFlowTransformer(ast.NodeTransformer):
    def __init__(self, filename, declared):
        self.filename = filename
        self.declared = declared          # global/nonlocal names of the function: not outputs
        self.carried = set()              # names generated functions take: need an initial value
        self._ids = itertools.count()

    # ---- helpers -------------------------------------------------------------------------------
    def _site(self, node, kind):
        return b.const((self.filename, node.lineno, kind))

    def _outputs(self, stmts):
        names = [n for n in assigned_names(stmts)
                 if n not in self.declared and not n.startswith(_GENERATED_FUNCTIONS)]
        self.carried.update(names)
        return names

    def _body_function(self, fname, params, body, outputs, lead=()):
        ret = ast.Return(value=b.tuple_of(outputs))
        return b.function(fname, list(lead) + params, list(body) + [ret], self.declared)

    def _mutations(self, stmts, names):
        return b.const(tuple(outside_mutations(stmts, set(names))))

    def _bind(self, names, call, where):
        if names:
            stmt = ast.Assign(targets=[b.tuple_of(names, store=True)], value=call)
        else:
            stmt = ast.Expr(value=call)
        return b.located(stmt, where)

    def _python_statement(self, node, test_field, kind, reason):
        what, fix = reason
        guarded = b.call_jst("python_condition", getattr(node, test_field),
                             self._site(node, kind), b.const(what), b.const(fix))
        setattr(node, test_field, ast.copy_location(guarded, getattr(node, test_field)))
        return node

    def _emit(self, node, stmts):
        for stmt in stmts:
            b.located(stmt, node)
        return [ast.fix_missing_locations(s) for s in stmts]

    # ---- statements ----------------------------------------------------------------------------
    def visit_If(self, node):
        self.generic_visit(node)
        reason = _why_not_convertible(node.body + node.orelse, "if")
        if reason:
            return self._python_statement(node, "test", "if", reason)
        n = next(self._ids)
        names = self._outputs(node.body + node.orelse)
        in_true, in_false = set(assigned_names(node.body)), set(assigned_names(node.orelse))
        both = b.const(tuple(v in in_true and v in in_false for v in names))
        t_fn = self._body_function(f"_oar_if_true_{n}", names, node.body, names)
        f_fn = self._body_function(f"_oar_if_false_{n}", names, node.orelse, names)
        call = b.call_jst("convert_ifelse", node.test, b.name(t_fn.name), b.name(f_fn.name),
                          b.tuple_of(names), b.const(tuple(names)), both,
                          self._site(node, "if"),
                          self._mutations(node.body + node.orelse, names))
        return self._emit(node, [t_fn, f_fn, self._bind(names, call, node.test)])

    def visit_While(self, node):
        self.generic_visit(node)
        reason = _why_not_convertible(node.body, "while") or (
            ("an `else` clause on a loop whose break could not be lowered",
             "Use a flag variable instead of the loop's else clause") if node.orelse else None)
        if reason:
            return self._python_statement(node, "test", "while", reason)
        n = next(self._ids)
        names = self._outputs(node.body)
        cond = b.function(f"_oar_while_cond_{n}", names, [ast.Return(value=node.test)],
                          self.declared)
        body = self._body_function(f"_oar_while_body_{n}", names, node.body, names)
        call = b.call_jst("convert_while_loop", b.name(cond.name), b.name(body.name),
                          b.tuple_of(names), b.const(tuple(names)), self._site(node, "while"),
                          self._mutations(node.body, names))
        return self._emit(node, [cond, body, self._bind(names, call, node.test)])

    def visit_For(self, node):
        self.generic_visit(node)
        reason = _why_not_convertible(node.body, "for") or (
            ("an `else` clause on a loop whose break could not be lowered",
             "Use a flag variable instead of the loop's else clause") if node.orelse else None)
        if reason:
            return self._python_statement(node, "iter", "for", reason)
        n = next(self._ids)
        names = self._outputs([node.target] + node.body)
        item = f"_oar_item_{n}"
        bind_target = ast.Assign(targets=[node.target], value=b.name(item))
        body = self._body_function(f"_oar_for_body_{n}", names, [bind_target] + node.body,
                                   names, lead=[item])
        iterable = node.iter
        if (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name)
                and iterable.func.id == "range" and not iterable.keywords
                and 1 <= len(iterable.args) <= 3):
            iterable = ast.copy_location(b.call_jst("convert_range", *iterable.args), iterable)
        brk = getattr(node, "_oar_break_flag", None)
        call = b.call_jst("convert_for", iterable, b.name(body.name), b.tuple_of(names),
                          b.const(tuple(names)), b.const(brk), self._site(node, "for"),
                          self._mutations(node.body, names))
        return self._emit(node, [body, self._bind(names, call, node.iter)])

    def visit_Assert(self, node):
        self.generic_visit(node)
        return self._python_statement(node, "test", "assert", (
            "a static program has no assertion op yet",
            "Check the condition eagerly before calling the converted function, or remove "
            "the assert"))

    def visit_FunctionDef(self, node):
        return node                      # nested scopes are converted when they are called

    visit_AsyncFunctionDef = visit_ClassDef = visit_AsyncFor = visit_FunctionDef

    # ---- expressions ---------------------------------------------------------------------------
    @staticmethod
    def _lambda_safe(node):
        return not any(isinstance(n, _NO_LAMBDA) for n in ast.walk(node))

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        if not self._lambda_safe(node):
            return node
        conv = "convert_logical_and" if isinstance(node.op, ast.And) else "convert_logical_or"
        acc = node.values[0]
        for value in node.values[1:]:
            acc = b.call_jst(conv, b.lambda_(acc), b.lambda_(value))
        return ast.fix_missing_locations(b.located(acc, node))

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, ast.Not):
            return node
        return ast.fix_missing_locations(
            b.located(b.call_jst("convert_logical_not", node.operand), node))

    def visit_IfExp(self, node):
        self.generic_visit(node)
        if not self._lambda_safe(node):
            return node
        call = b.call_jst("convert_ifexp", node.test, b.lambda_(node.body),
                          b.lambda_(node.orelse), self._site(node, "conditional expression"))
        return ast.fix_missing_locations(b.located(call, node))

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr == "shape" and isinstance(node.ctx, ast.Load) and not (
                isinstance(node.value, ast.Name) and node.value.id in ("oar", "paddle", b.JST)):
            return ast.copy_location(
                b.call_jst("convert_shape", node.value, self._site(node, "shape")), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and func.id == "locals" and not node.args:
            # the generated names are no locals of the user's function
            return ast.copy_location(b.call_jst("user_locals", node), node)
        if isinstance(func, ast.Name) and (func.id in _STAY_PYTHON_CALLS or
                                           func.id.startswith("_oar_")):
            return node
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
                func.value.id == b.JST:
            return node
        node.func = ast.fix_missing_locations(b.located(b.call_jst("convert_call", func), func))
        return node
