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


def _check_pred(api, pred):
    if mode.is_symbolic(pred) or isinstance(pred, _C.Tensor):
        if pred.dtype != "bool":
            raise TypeError(f"{api}: each pred must be a bool tensor, got {pred.dtype}")
        if pred.size not in (1, -1):
            raise TypeError(f"{api}: each pred must hold one value, got shape {pred.shape}")
        return
    if not isinstance(pred, bool):
        raise TypeError(f"{api}: each pred must be a bool tensor (or a Python bool), got {type(pred).__name__}")


def _chain(pairs, default):
    """cond(p0, f0, lambda: cond(p1, f1, ... default)): the first true pred's function runs."""
    pred, fn = pairs[0]
    rest = pairs[1:]
    other = default if not rest else (lambda: _chain(rest, default))
    return cond(pred, fn, other)


def case(pred_fn_pairs, default=None, name=None):
    """Runs the function of the first (pred, fn) pair whose pred is true, else default()
    (paddle.static.nn.case); with default None, the last pair's function is the default. With
    program values as preds it records nested IR `cond`s (every function must return the same
    structure of tensors with the same dtypes and shapes).

    Args:
        pred_fn_pairs (list|tuple): (pred, fn) pairs: pred a bool tensor with one element, fn a
            callable taking no arguments.
        default (callable, optional): Run when no pred is true. Default: None.
        name (str, optional): Unused. Default: None.

    Returns:
        The tensors the chosen function returns.

    Examples:
        >>> import oar, numpy as np
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('x', [1], 'float32')
        ...     out = oar.static.nn.case([(x < 0.0, lambda: x * 0.0), (x < 10.0, lambda: x * 2.0)],
        ...                              default=lambda: x * 3.0)
        >>> exe = oar.static.Executor()
        >>> print([float(exe.run(main, feed={'x': np.array([v], 'float32')}, fetch_list=[out])[0][0])
        ...        for v in (-1.0, 2.0, 20.0)])
        [-0.0, 4.0, 60.0]
        >>> oar.disable_static()
    """
    if not isinstance(pred_fn_pairs, (list, tuple)):
        raise TypeError(f"case: pred_fn_pairs must be a list or tuple, but received "
                        f"{type(pred_fn_pairs).__name__}")
    if len(pred_fn_pairs) == 0:
        raise ValueError("case: pred_fn_pairs must not be empty")
    pairs = []
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"case: each element of pred_fn_pairs must be a tuple of 2 (pred, fn), got {pair!r}")
        pred, fn = pair
        _check_pred("case", pred)
        if not callable(fn):
            raise TypeError(f"case: the fn of each pair must be callable, got {type(fn).__name__}")
        pairs.append((pred, fn))
    if default is None:
        default = pairs[-1][1]
        pairs = pairs[:-1]
        if not pairs:
            return default()
    elif not callable(default):
        raise TypeError(f"case: default must be callable, got {type(default).__name__}")
    return _chain(pairs, default)


def switch_case(branch_index, branch_fns, default=None, name=None):
    """Runs the branch function whose index equals branch_index, else default()
    (paddle.static.nn.switch_case); with default None, the branch of the largest index is the
    default. With a program value as branch_index it records nested IR `cond`s.

    Args:
        branch_index (Tensor): An int32 or int64 tensor with one element.
        branch_fns (dict|list|tuple): {index: fn}, a list of (index, fn) pairs, or a list of
            functions (indexed 0, 1, ...).
        default (callable, optional): Run when no index matches. Default: None.
        name (str, optional): Unused. Default: None.

    Returns:
        The tensors the chosen function returns.

    Examples:
        >>> import oar, numpy as np
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     i = oar.static.data('i', [1], 'int64')
        ...     out = oar.static.nn.switch_case(i, {1: lambda: oar.full([1], 10.0), 2: lambda: oar.full([1], 20.0)},
        ...                                     default=lambda: oar.full([1], -1.0))
        >>> exe = oar.static.Executor()
        >>> print([float(exe.run(main, feed={'i': np.array([v])}, fetch_list=[out])[0][0]) for v in (1, 2, 7)])
        [10.0, 20.0, -1.0]
        >>> oar.disable_static()
    """
    from ... import full
    if not isinstance(branch_index, _C.Tensor):
        raise TypeError(f"switch_case: branch_index must be a Tensor, but received {type(branch_index).__name__}")
    if branch_index.dtype not in ("int32", "int64", "uint8"):
        raise TypeError(f"switch_case: branch_index must be int32, int64 or uint8, got {branch_index.dtype}")
    if branch_index.size not in (1, -1):
        raise TypeError(f"switch_case: branch_index must hold one value, got shape {branch_index.shape}")
    if isinstance(branch_fns, dict):
        items = list(branch_fns.items())
    elif isinstance(branch_fns, (list, tuple)):
        if all(callable(f) for f in branch_fns):
            items = list(enumerate(branch_fns))
        else:
            items = []
            for item in branch_fns:
                if not isinstance(item, tuple) or len(item) != 2:
                    raise TypeError(f"switch_case: each element of branch_fns must be a tuple of 2 (index, fn), "
                                    f"got {item!r}")
                items.append(item)
    else:
        raise TypeError(f"switch_case: branch_fns must be a dict, list or tuple, but received "
                        f"{type(branch_fns).__name__}")
    if not items:
        raise ValueError("switch_case: branch_fns must not be empty")
    seen = set()
    for index, fn in items:
        if not isinstance(index, int) or isinstance(index, bool):
            raise TypeError(f"switch_case: each branch index must be an int, got {type(index).__name__}")
        if index in seen:
            raise ValueError(f"switch_case: the branch index {index} appears more than once")
        seen.add(index)
        if not callable(fn):
            raise TypeError(f"switch_case: the fn of branch {index} must be callable, got {type(fn).__name__}")
    items.sort(key=lambda kv: kv[0])
    if default is None:
        default = items[-1][1]
        items = items[:-1]
        if not items:
            return default()
    elif not callable(default):
        raise TypeError(f"switch_case: default must be callable, got {type(default).__name__}")
    if not mode.is_symbolic(branch_index):
        value = int(branch_index.reshape([-1])[0].item())
        return dict(items).get(value, default)()
    pairs = [((branch_index.reshape([-1])[0] == full([], k, branch_index.dtype)), fn) for k, fn in items]
    return _chain(pairs, default)
