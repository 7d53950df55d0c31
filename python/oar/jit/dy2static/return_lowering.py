"""Rewrite `return` statements nested in control flow so that the function has a single exit.

A branch body becomes a nested function, so a `return` inside it cannot leave the user's function.
Two steps, both exact under plain Python semantics:
1. a `return v` inside a loop becomes `_oar_return_value = v; _oar_return_flag = True; break`, and
   after that loop comes `if _oar_return_flag: return _oar_return_value` (which step 1 lowers again
   when that loop sits in another loop);
2. an `if` holding a `return` takes the statements that follow it into each of its branches (they
   run only on paths that did not return), and every `return v` becomes `_oar_return_value = v`;
   the function ends with one `return _oar_return_value`.
Returns inside `try`/`with` are left alone (moving code into them would change which exceptions
they catch); their `if`s and loops stay Python statements.
"""
import ast
import copy

from .ast_build import RETURN_FLAG, RETURN_VALUE, assign, call_jst, const, located, name
from .name_analysis import walk_scope

_LOOPS = (ast.For, ast.While)


def _returns(nodes):
    return [n for n in walk_scope(nodes) if isinstance(n, ast.Return)]


def _is_nested(fdef):
    """Whether some `return` is inside a compound statement (else nothing needs lowering)."""
    top = {id(s) for s in fdef.body if isinstance(s, ast.Return)}
    return any(id(r) not in top for r in _returns(fdef.body))


def _under_try_or_with(fdef):
    for node in walk_scope(fdef.body):
        if isinstance(node, (ast.Try, ast.With, ast.AsyncWith, ast.AsyncFor)) and _returns(node):
            return True
    return False


def _returned(ret):
    return ret.value if ret.value is not None else const(None)


def _lower_loop_returns(stmts, in_loop):
    out = []
    for stmt in stmts:
        if isinstance(stmt, ast.Return) and in_loop:
            out.extend(located([assign(RETURN_VALUE, _returned(stmt)),
                                assign(RETURN_FLAG, const(True)), ast.Break()], stmt))
        elif isinstance(stmt, _LOOPS):
            had = bool(_returns(stmt.body))
            stmt.body = _lower_loop_returns(stmt.body, True)
            stmt.orelse = _lower_loop_returns(stmt.orelse, in_loop)
            out.append(stmt)
            if had:
                exit_ = located(ast.If(test=name(RETURN_FLAG),
                                       body=[ast.Return(value=name(RETURN_VALUE))],
                                       orelse=[]), stmt)
                out.extend(_lower_loop_returns([exit_], in_loop))
        elif isinstance(stmt, ast.If):
            stmt.body = _lower_loop_returns(stmt.body, in_loop)
            stmt.orelse = _lower_loop_returns(stmt.orelse, in_loop)
            out.append(stmt)
        else:
            out.append(stmt)
    return out


def _lower_if_returns(stmts, end):
    """Statements where every path assigns RETURN_VALUE instead of returning."""
    out = []
    for i, stmt in enumerate(stmts):
        if isinstance(stmt, ast.Return):
            out.append(located(assign(RETURN_VALUE, _returned(stmt)), stmt))
            return out                           # what follows a return never runs
        if isinstance(stmt, ast.If) and _returns(stmt):
            rest = stmts[i + 1:]
            stmt.body = _lower_if_returns(stmt.body + copy.deepcopy(rest), end)
            stmt.orelse = _lower_if_returns(stmt.orelse + copy.deepcopy(rest), end)
            out.append(stmt)
            return out
        out.append(stmt)
    out.append(located(assign(RETURN_VALUE, const(None)), end))
    return out


def lower_returns(fdef):
    """Rewrite `fdef` in place; False when its returns must stay (inside try/with)."""
    if not _is_nested(fdef):
        return True
    if _under_try_or_with(fdef):
        return False
    first = fdef.body[0]
    init = located([assign(RETURN_FLAG, const(False)),
                    assign(RETURN_VALUE, call_jst("UndefinedVar", const(RETURN_VALUE)))], first)
    body = _lower_loop_returns(fdef.body, False)
    last = fdef.body[-1]
    body = _lower_if_returns(body, last)
    fdef.body = init + body + [located(ast.Return(value=name(RETURN_VALUE)), last)]
    return True
