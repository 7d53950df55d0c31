"""A Python module with one function per custom op of a loaded library: inputs first, then
attributes, by position or by name, as Paddle's generated custom-op API."""
import os
import types

from ... import _C

_loaded = {}  # library path → its module: a library is opened once per process


def _make_op(name):
    inputs, outputs, attrs = _C._custom_op_info(name)
    # Inputs by their lower-case names (X → x), as Paddle's generated API spells them.
    input_names = [i.split("@")[0].lower() for i in inputs]
    aliases = {i.split("@")[0]: n for i, n in zip(inputs, input_names)}
    attr_names = [a.split(":")[0].strip() for a in attrs]
    params = input_names + attr_names

    def op(*args, **kwargs):
        if len(args) > len(params):
            raise TypeError(f"{name}() takes {len(params)} arguments ({', '.join(params)}), got {len(args)}")
        values = dict(zip(params, args))
        for k, v in kwargs.items():
            k = aliases.get(k, k)
            if k not in params:
                raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
            if k in values:
                raise TypeError(f"{name}() got multiple values for argument '{k}'")
            values[k] = v
        missing = [p for p, decl in zip(params, inputs + attrs) if p not in values and "@OPTIONAL" not in decl]
        if missing:
            raise TypeError(f"{name}() missing argument(s): {', '.join(missing)}")
        ins = [values.get(n) for n in input_names]
        for n, v in zip(input_names, ins):
            if v is not None and not isinstance(v, (_C.Tensor, list, tuple)):
                raise TypeError(f"{name}(): input '{n}' must be a Tensor, got {type(v).__name__}")
        outs = _C._custom_op_run(name, [list(v) if isinstance(v, tuple) else v for v in ins],
                                 [values[a] for a in attr_names])
        return outs[0] if len(outs) == 1 else outs

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Custom op {name}({', '.join(params)}) -> {', '.join(o.split('@')[0] for o in outputs)}; "
                  f"inputs {inputs}, attributes {attrs}.")
    return op


def module_from_library(name, library):
    """Opens `library` (once) and returns a module with its ops."""
    path = os.path.abspath(library)
    if path in _loaded:
        return _loaded[path]
    ops = _C._custom_op_load_library(path)
    mod = types.ModuleType(name, f"custom ops from {path}")
    mod.__file__ = path
    for op in ops:
        if not op.endswith("_grad"):
            setattr(mod, op, _make_op(op))
    _loaded[path] = mod
    return mod
