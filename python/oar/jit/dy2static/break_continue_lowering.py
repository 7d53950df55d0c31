"""Rewrite `break`/`continue` into flags, so that a loop body can become a function.

In a loop whose body holds `break` or `continue` (its own, not a nested loop's):
- `break` -> `_oar_break_N = True`, `continue` -> `_oar_continue_N = True`;
- the statements after one that may set a flag are wrapped in `if not (flags): ...`;
- `_oar_continue_N = False` opens each iteration, `_oar_break_N = False` precedes the loop, a
  `while` tests `not _oar_break_N and (test)` (Python never evaluates the test after a break), and
  a `for` stops when the converter sees the break flag set;
- the loop's `else:` clause runs after the loop under `if not _oar_break_N:`.
Flags inside `try`/`with` are left alone (the loop then stays a Python loop).
"""
import ast
import itertools

from .ast_build import assign, const, located, name, not_
from .name_analysis import walk_scope

_LOOPS = (ast.For, ast.While)
_counter = itertools.count()


def _own_jumps(loop):
    return [n for n in walk_scope(loop.body, into_loops=False)
            if isinstance(n, (ast.Break, ast.Continue))]


def _jump_in_try(loop):
    for node in walk_scope(loop.body, into_loops=False):
        if isinstance(node, (ast.Try, ast.With, ast.AsyncWith)) and any(
                isinstance(n, (ast.Break, ast.Continue))
                for n in walk_scope(node, into_loops=False)):
            return True
    return False


def _guard(stmts, brk, cnt):
    """Replace jumps in `stmts`; skip what follows a statement that may have jumped."""
    out = []
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, ast.Break):
            out.append(located(assign(brk, const(True)), stmt))
            return out
        if isinstance(stmt, ast.Continue):
            out.append(located(assign(cnt, const(True)), stmt))
            return out
        if isinstance(stmt, ast.If) and any(isinstance(n, (ast.Break, ast.Continue))
                                            for n in walk_scope(stmt, into_loops=False)):
            stmt.body = _guard(stmt.body, brk, cnt)
            stmt.orelse = _guard(stmt.orelse, brk, cnt)
            out.append(stmt)
            rest = stmts[i + 1:]
            if rest:
                flags = [name(f) for f in (brk, cnt) if f]
                test = flags[0] if len(flags) == 1 else ast.BoolOp(op=ast.Or(), values=flags)
                out.append(located(ast.If(test=not_(test), body=_guard(rest, brk, cnt),
                                          orelse=[]), rest[0]))
            return out
        out.append(stmt)
    return out


def lower_loop(loop):
    """Lower `loop`'s own jumps; returns the statements that replace it, or None to keep it.

    The break flag's name, when there is one, is stored on the loop as `_oar_break_flag`.
    """
    jumps = _own_jumps(loop)
    if not jumps and loop.orelse:                # no break: the else clause always runs after
        after, loop.orelse = loop.orelse, []
        loop._oar_break_flag = None
        return [loop] + after
    if not jumps or _jump_in_try(loop):
        return None
    n = next(_counter)
    brk = f"_oar_break_{n}" if any(isinstance(j, ast.Break) for j in jumps) else None
    cnt = f"_oar_continue_{n}" if any(isinstance(j, ast.Continue) for j in jumps) else None
    body = _guard(loop.body, brk, cnt)
    if cnt:
        body = [located(assign(cnt, const(False)), loop.body[0])] + body
    loop.body = body
    before, after = [], []
    if brk:
        before.append(located(assign(brk, const(False)), loop))
        if isinstance(loop, ast.While):
            loop.test = ast.copy_location(
                ast.BoolOp(op=ast.And(), values=[not_(name(brk)), loop.test]), loop.test)
        if loop.orelse:
            after.append(located(ast.If(test=not_(name(brk)), body=loop.orelse, orelse=[]),
                                 loop.orelse[0]))
            loop.orelse = []
    elif loop.orelse:
        after, loop.orelse = loop.orelse, []
    loop._oar_break_flag = brk
    return before + [loop] + after


class BreakContinueLowering(ast.NodeTransformer):
    """Applies `lower_loop` to every loop of one scope, innermost first."""

    def _loop(self, node):
        self.generic_visit(node)
        replaced = lower_loop(node)
        if replaced is None:
            return node
        located(replaced, node)
        return replaced

    visit_For = visit_While = _loop

    def visit_FunctionDef(self, node):
        return node                      # nested scopes are converted when they are called

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef
