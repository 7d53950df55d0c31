"""cond and while_loop (paddle.static.nn): IR control flow when the predicate is a value of the
program being built; plain Python control flow otherwise (dynamic mode, Python bools)."""
from ... import _C
from ...framework import mode

_ir = _C._ir


def _flatten(x, out):
    """Tensors of a nested list/tuple/dict into `out`; returns the structure with slots."""
    if isinstance(x, _C.Tensor):
        out.append(x)
        return ("T",)
    if isinstance(x, (list, tuple)):
        return (type(x), [_flatten(v, out) for v in x])
    if isinstance(x, dict):
        return (dict, {k: _flatten(v, out) for k, v in x.items()})
    return ("V", x)


def _unflatten(spec, it):
    if spec[0] == "T":
        return next(it)
    if spec[0] == "V":
        return spec[1]
    if spec[0] is dict:
        return {k: _unflatten(v, it) for k, v in spec[1].items()}
    return spec[0](_unflatten(v, it) for v in spec[1])


def _same_structure(a, b):
    if a[0] != b[0]:
        return False
    if a[0] == "T":
        return True
    if a[0] == "V":
        return a[1] == b[1]
    if a[0] is dict:
        return a[1].keys() == b[1].keys() and all(_same_structure(a[1][k], b[1][k]) for k in a[1])
    return len(a[1]) == len(b[1]) and all(_same_structure(x, y) for x, y in zip(a[1], b[1]))


def cond(pred, true_fn=None, false_fn=None, name=None, return_names=None):
    """Runs true_fn() if pred else false_fn() (paddle.static.nn.cond). With a program value as
    pred, both branches are recorded into an IR `cond`; they must return the same structure of
    tensors with the same dtypes and shapes (Python values in it must be equal)."""
    if true_fn is not None and not callable(true_fn):
        raise TypeError(f"cond: true_fn must be callable, but received {type(true_fn).__name__}")
    if false_fn is not None and not callable(false_fn):
        raise TypeError(f"cond: false_fn must be callable, but received {type(false_fn).__name__}")
    if not mode.is_symbolic(pred):
        if isinstance(pred, _C.Tensor):
            if pred.size != 1:
                raise ValueError(f"cond: pred must hold one value, but its shape is {pred.shape}")
            pred = bool(pred.item())
        fn = true_fn if pred else false_fn
        return None if fn is None else fn()
    if pred.dtype != "bool" or pred.size not in (1, -1):
        raise TypeError(f"cond: pred must be a bool tensor with one element, got {pred.dtype} {pred.shape}")
    specs = {}

    def branch(key, fn):
        def run():
            out = []
            specs[key] = _flatten(None if fn is None else fn(), out)
            if key == "false" and not _same_structure(specs["true"], specs["false"]):
                raise ValueError("cond: true_fn and false_fn must return the same structure (the same nesting "
                                 "of lists/tuples/dicts, tensors in the same places, equal Python values)")
            return out
        return run

    tracer = mode._state["tracer"]
    results = tracer.cond(pred, branch("true", true_fn), branch("false", false_fn))
    return _unflatten(specs["true"], iter(results))


def while_loop(cond, body, loop_vars, is_test=False, name=None):
    """while cond(*loop_vars): loop_vars = body(*loop_vars) (paddle.static.nn.while_loop). With
    program values the loop is an IR `while_loop`; each loop variable keeps its dtype and shape."""
    if not callable(cond):
        raise TypeError("while_loop: cond must be callable")
    if not callable(body):
        raise TypeError("while_loop: body must be callable")
    if not isinstance(loop_vars, (list, tuple)) or len(loop_vars) == 0:
        raise ValueError("while_loop: loop_vars must be a non-empty list or tuple")
    flat = []
    spec = _flatten(list(loop_vars), flat)
    if not any(mode.is_symbolic(v) for v in flat):
        vals = list(loop_vars)
        keep = cond(*vals)
        while bool(keep.item() if isinstance(keep, _C.Tensor) else keep):
            out = body(*vals)
            vals = list(out) if isinstance(out, (list, tuple)) else [out]
            if len(vals) != len(loop_vars):
                raise ValueError(f"while_loop: body returned {len(vals)} values for {len(loop_vars)} loop_vars")
            keep = cond(*vals)
        return vals
    tracer = mode._state["tracer"]

    def cond_fn(vs):
        c = cond(*_unflatten(spec, iter(vs)))
        if not mode.is_symbolic(c):
            raise TypeError("while_loop: cond must return a bool tensor computed from the loop variables")
        return c

    def body_fn(vs):
        out = body(*_unflatten(spec, iter(vs)))
        out = list(out) if isinstance(out, (list, tuple)) else [out]
        got = []
        ospec = _flatten(out, got)
        if not _same_structure(ospec, spec):
            raise ValueError("while_loop: body must return the loop variables' structure (same count, "
                             "tensors in the same places)")
        return got

    results = tracer.while_loop(flat, cond_fn, body_fn)
    return _unflatten(spec, iter(results))
