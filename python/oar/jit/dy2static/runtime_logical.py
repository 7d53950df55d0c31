"""Runtime of converted `and`, `or` and `not`.

Python semantics (short-circuit, the operand itself as the result) unless the left operand is
symbolic; then both sides are evaluated (a static program has no short-circuit) and combined with
oar.logical_and/logical_or, a Python right operand broadcast to the left one's shape.
"""
from .symbolic import is_symbolic


def _as_bool_tensor(value, like):
    import oar
    if isinstance(value, oar.Tensor):
        return value if value.dtype == oar.bool else value.astype("bool")
    return oar.full_like(like, bool(value), dtype="bool")


def convert_logical_and(lhs_fn, rhs_fn):
    lhs = lhs_fn()
    if not is_symbolic(lhs):
        return rhs_fn() if lhs else lhs
    import oar
    return oar.logical_and(_as_bool_tensor(lhs, lhs), _as_bool_tensor(rhs_fn(), lhs))


def convert_logical_or(lhs_fn, rhs_fn):
    lhs = lhs_fn()
    if not is_symbolic(lhs):
        return lhs if lhs else rhs_fn()
    import oar
    return oar.logical_or(_as_bool_tensor(lhs, lhs), _as_bool_tensor(rhs_fn(), lhs))


def convert_logical_not(value):
    if not is_symbolic(value):
        return not value
    import oar
    return oar.logical_not(_as_bool_tensor(value, value))
