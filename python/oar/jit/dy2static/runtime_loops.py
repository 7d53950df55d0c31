"""Runtime of converted `while` and `for` loops.

Python or eager conditions/iterables run the loop in Python, exactly as the original statement.
A symbolic `while` condition, a `range` with a symbolic bound, or a symbolic tensor iterated over
its first dimension build `oar.static.nn.while_loop` over the variables the body assigns.
As in Paddle, a condition that is Python at first and symbolic later (a break under a
tensor-dependent `if` in a Python loop) is an error: the loop has already been unrolled.
"""
from .ast_build import RETURN_VALUE
from .errors import Dy2StaticError, site_text
from .runtime_ifelse import check_no_outside_mutation
from .symbolic import bool_predicate, is_symbolic, static_nn
from .undefined import UndefinedVar, is_undefined

_SCALAR_DTYPES = ((bool, "bool"), (int, "int64"), (float, "float32"))


class SymbolicRange:
    """`range(start, stop, step)` where a bound is symbolic (step is a Python int)."""

    def __init__(self, start, stop, step):
        self.start, self.stop, self.step = start, stop, step


def convert_range(*args):
    """`range(*args)`, or a SymbolicRange when a bound is symbolic."""
    if not any(is_symbolic(a) for a in args):
        return range(*args)
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (tuple(args) + (1,))[:3]
    if is_symbolic(step) or not isinstance(step, int) or step == 0:
        raise ValueError(f"range() over a tensor needs a nonzero Python int step, got {step!r}")
    return SymbolicRange(start, stop, step)


def _loop_value(value, name, site):
    """A carried variable's initial value as while_loop takes it (Python scalars as tensors)."""
    import oar
    if isinstance(value, oar.Tensor):
        return value
    for pytype, dtype in _SCALAR_DTYPES:
        if type(value) is pytype:
            return oar.full([], value, dtype=dtype)
    if isinstance(value, (list, dict, set, tuple)):
        raise Dy2StaticError(
            site, f"variable '{name}' is a Python {type(value).__name__} that changes inside "
                  f"a loop depending on a tensor; its length cannot depend on the tensor",
            "Collect the values in a tensor (oar.concat/oar.stack) or build the "
            f"{type(value).__name__} outside the loop")
    return value


def _like(value, loop_value):
    import oar
    if isinstance(loop_value, oar.Tensor) and type(value) in (bool, int, float):
        return oar.full([], value, dtype=loop_value.dtype)
    return value


def _symbolic_loop(cond, body, init, names, site, mutations, prefix=()):
    """while_loop over the defined variables of `init`; `prefix` are extra leading loop values
    handed to `cond`/`body` as they are (the counter of a symbolic `for`)."""
    check_no_outside_mutation(site, mutations, "loop")
    if RETURN_VALUE in names and is_undefined(init[names.index(RETURN_VALUE)]):
        raise Dy2StaticError(
            site, f"`return` inside a `{site[2]}` loop that depends on a tensor",
            "Assign the result to a variable, `break` out of the loop and return after it")
    carried = [i for i, v in enumerate(init) if not is_undefined(v)]
    start = list(prefix) + [_loop_value(init[i], names[i], site) for i in carried]
    k = len(prefix)

    def full(values):
        out = [UndefinedVar(n) for n in names]     # first assigned inside the body
        for i, v in zip(carried, values[k:]):
            out[i] = v
        return out

    def cond_fn(*values):
        return bool_predicate(cond(*values[:k], *full(values)))

    def body_fn(*values):
        head, out = body(*values[:k], *full(values))
        for i in carried:
            if is_undefined(out[i]):
                raise Dy2StaticError(
                    site, f"variable '{names[i]}' has no value at the end of the body of this "
                          f"tensor-dependent `{site[2]}` loop", f"Give '{names[i]}' a value "
                    "on every path through the loop body")
        # a Python scalar assigned in the body joins the loop as a tensor of its variable's dtype
        return list(head) + [_like(out[i], start[k + j]) for j, i in enumerate(carried)]

    try:
        result = list(static_nn().while_loop(cond_fn, body_fn, start))
    except (TypeError, ValueError) as e:
        if not isinstance(e, Dy2StaticError):
            carried_names = ["loop counter"] * k + [names[i] for i in carried]
            e.add_note(f"while building the tensor-dependent `{site[2]}` loop at "
                       f"{site_text(site)}, whose loop variables are, in order: "
                       f"{', '.join(carried_names)}")
        raise
    new = [UndefinedVar(n, f"it is first assigned inside the tensor-dependent `{site[2]}` loop "
                           f"at {site_text(site)}; give it a value before the loop to use it "
                           f"after") for n in names]
    for i, v in zip(carried, result[k:]):
        new[i] = v
    return tuple(new)


def convert_while_loop(cond, body, init, names, site, mutations=()):
    """The values of `names` after `while cond(...): body(...)`."""
    values = tuple(init)
    first = True
    while True:
        pred = cond(*values)
        if is_symbolic(pred):
            if not first:
                raise Dy2StaticError(
                    site, "the condition of this `while` was a Python value and became a tensor "
                          "inside the loop (a variable or a break set under a tensor condition)",
                    "Make the condition a tensor before the loop starts (e.g. start a counter "
                    "with oar.full([], 0, 'int64')), so that the whole loop becomes static")
            return _symbolic_loop(lambda *v: cond(*v), lambda *v: ((), body(*v)), values,
                                  names, site, mutations)
        if not pred:
            return values
        values = body(*values)
        first = False


def convert_for(iterable, body, init, names, break_flag, site, mutations=()):
    """The values of `names` after `for item in iterable: body(item, ...)`."""
    brk = names.index(break_flag) if break_flag else None
    if isinstance(iterable, SymbolicRange) or is_symbolic(iterable):
        return _symbolic_for(iterable, body, init, names, brk, site, mutations)
    values = tuple(init)
    for item in iterable:
        values = body(item, *values)
        if brk is not None:
            if is_symbolic(values[brk]):
                raise Dy2StaticError(
                    site, f"this `for` over a Python {type(iterable).__name__} breaks on a "
                          "tensor condition; the number of iterations cannot depend on a tensor "
                          "in a Python loop",
                    "Loop over a tensor or over range() of a tensor (e.g. range(oar.shape(x)[0]))"
                    ", or use a while loop whose condition is a tensor")
            if values[brk]:
                break
    return values


def _symbolic_for(iterable, body, init, names, brk, site, mutations):
    import oar
    if isinstance(iterable, SymbolicRange):
        start, stop, step = iterable.start, iterable.stop, iterable.step
        item_at = (lambda i: i)
    else:
        start, step = 0, 1
        stop = iterable.shape[0]
        if stop is None or stop < 0:
            stop = oar.shape(iterable)[0]
        # a gather, not iterable[i]: indexing reads a symbolic index's value
        item_at = (lambda i: oar.squeeze(oar.gather(iterable, i.reshape([1]), axis=0), axis=0))
    dtype = stop.dtype if isinstance(stop, oar.Tensor) else "int64"   # compare like with like
    counter = start if is_symbolic(start) else oar.full([], start, dtype=dtype)

    def cond(i, *values):
        more = i < stop if step > 0 else i > stop
        if brk is not None:
            more = oar.logical_and(more, oar.logical_not(values[brk]))
        return more

    def step_body(i, *values):
        return (i + step,), body(item_at(i), *values)

    return _symbolic_loop(cond, step_body, init, names, site, mutations, prefix=(counter,))
