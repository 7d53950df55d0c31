"""Program ops whose kernels are Python functions: static.Print and static.nn.static_pylayer.

Each call registers one op (oar._C._register_python_op: the kernel, its result types and, for a
gradient, a "<name>_grad" op) and records it into the program; when the executor reaches it, it
calls back into Python with the GIL taken. Print's op is flagged as having side effects, so
dead-code elimination keeps it although nobody reads its result. Paddle's py_func belongs to
its old (ProgramDesc) mode: under PIR, Paddle 3's default and the only mode of oar's programs,
it refuses every program value, and so does oar's."""
import atexit
import itertools

import numpy as np

from .. import _C
from ..framework import mode

__all__ = ["Print", "py_func", "static_pylayer"]

_ids = itertools.count()
# The ops' Python callables (closures over programs and tensors) are let go before the
# interpreter tears down.
atexit.register(_C._forget_python_ops)


def _dygraph_refusal(api):
    return (f"In PaddlePaddle 2.x, we turn on dynamic graph mode by default, and '{api}()' is only supported in "
            f"static graph mode. So if you want to use this api, please call 'paddle.enable_static()' before this "
            f"api to enter static graph mode.")


def _format_data(t, summarize):
    arr = t.numpy().reshape(-1)
    if summarize is not None and summarize >= 0:
        arr = arr[:summarize]
    if arr.dtype.kind == "f":
        items = [f"{float(v):f}" for v in arr]
    elif arr.dtype.kind == "b":
        items = [str(int(v)) for v in arr]
    else:
        items = [str(v) for v in arr.tolist()]
    return "[" + " ".join(items) + "]"


def _print_tensor(t, message, summarize, name, dtype, shape, layout, lod):
    lines = ["Variable: var"] if name else []
    if message:
        lines.append(f"  - message: {message}")
    if lod:
        lines.append("  - lod: {}")
    lines.append(f"  - place: {t.place}")
    if shape:
        lines.append(f"  - shape: {list(t.shape)}")
    if layout:
        lines.append("  - layout: NCHW")
    if dtype:
        lines.append(f"  - dtype: {t.dtype.name}")
    lines.append(f"  - data: {_format_data(t, summarize)}")
    print("\n".join(lines), flush=True)


def Print(input, first_n=-1, message=None, summarize=20, print_tensor_name=True, print_tensor_type=True,
          print_tensor_shape=True, print_tensor_layout=True, print_tensor_lod=True, print_phase="both"):
    """Prints a tensor each time the program runs past this point (and its gradient in backward).

    Args:
        input (Tensor): A value of the program being built.
        first_n (int): Print only the first n times (-1: always).
        message (str, optional): A line printed with the tensor.
        summarize (int): How many elements to print (-1: all).
        print_tensor_name (bool): Print the "Variable:" line.
        print_tensor_type (bool): Print the dtype.
        print_tensor_shape (bool): Print the shape.
        print_tensor_layout (bool): Print the layout.
        print_tensor_lod (bool): Print the LoD (always empty in oar).
        print_phase (str): 'forward', 'backward' (the gradient) or 'both'.

    Returns:
        Tensor: input, passed through (use it, or not: the print runs either way).

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main, oar.static.Program()):
        ...     x = oar.static.data("x", [2], "float32")
        ...     _ = oar.static.Print(x, message="x is", print_tensor_layout=False, print_tensor_lod=False)
        >>> _ = oar.static.Executor().run(main, feed={"x": np.array([1.0, 2.0], "float32")})
        Variable: var
          - message: x is
          - place: Place(cpu)
          - shape: [2]
          - dtype: float32
          - data: [1.000000 2.000000]
        >>> oar.disable_static()
    """
    if mode.in_dynamic_mode():
        raise AssertionError(_dygraph_refusal("Print"))
    if print_phase not in ("forward", "backward", "both"):
        raise ValueError(f"Print: print_phase must be 'forward', 'backward' or 'both', got '{print_phase}'")
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"Print: input must be a Tensor, got {type(input).__name__}")
    flags = dict(summarize=summarize, name=print_tensor_name, dtype=print_tensor_type, shape=print_tensor_shape,
                 layout=print_tensor_layout, lod=print_tensor_lod)
    printed = [0]

    def forward(x):
        if print_phase != "backward" and (first_n < 0 or printed[0] < first_n):
            printed[0] += 1
            _print_tensor(x, message, **flags)
        return [x]

    def backward(x, out, dout):
        if dout is not None and print_phase != "forward":
            _print_tensor(dout, message, **flags)
        return [dout]

    name = f"print_{next(_ids)}"
    _C._register_python_op(name, ["In"], ["Out"], forward, None, backward, side_effects=True)
    return _C._custom_op_run(name, [input], [])[0]


def py_func(func, x, out, backward_func=None, skip_vars_in_backward_input=None):
    """Paddle's py_func: an op running a Python function, from Paddle's old (ProgramDesc) static
    mode. Its variables do not exist in PIR programs (Paddle 3's default, and oar's), so, as in
    Paddle 3, it raises TypeError for program values; write the function with oar ops instead,
    or use static.nn.static_pylayer for a custom gradient.

    Args:
        func (callable): The forward function.
        x (Tensor|list[Tensor]): The inputs.
        out (Tensor|list[Tensor]): The outputs' variables.
        backward_func (callable, optional): The gradient function.
        skip_vars_in_backward_input (Tensor|list[Tensor], optional): Inputs not passed to backward_func.

    Returns:
        Tensor|list[Tensor]: out (never reached with PIR values).

    Examples:
        >>> import oar
        >>> try:
        ...     oar.static.py_func(lambda a: a, oar.ones([1]), oar.ones([1]))
        ... except AssertionError as e:
        ...     print("dynamic mode:", type(e).__name__)
        dynamic mode: AssertionError
    """
    if mode.in_dynamic_mode():
        raise AssertionError(_dygraph_refusal("py_func"))
    for arg, v in (("X", x), ("Out", out)):
        values = v if isinstance(v, (list, tuple)) else [v]
        for item in values:
            if item is not None:
                raise TypeError(f"The type of '{arg}' in py_func must be (<class 'list'>, <class 'tuple'>, "
                                f"<class 'paddle.base.framework.Variable'>, <class 'NoneType'>), but received "
                                f"{type(item)} (a PIR value: py_func works in Paddle's old static mode only)")
    raise TypeError("py_func: out must name the output variables, got None")


def _trace_types(forward_fn, shapes, dtypes):
    """The (shapes, dtypes) of forward_fn's outputs for inputs of these types, by tracing it into a
    scratch program."""
    from .program import Program, data, program_guard
    scratch = Program()
    with program_guard(scratch, Program()):
        ins = [data(f"_pylayer_input_{i}", s, d) for i, (s, d) in enumerate(zip(shapes, dtypes))]
        outs = forward_fn(*ins)
    single = not isinstance(outs, (list, tuple))
    outs = [outs] if single else list(outs)
    return [list(o.shape) for o in outs], [o.dtype for o in outs], single


def static_pylayer(forward_fn, inputs, backward_fn=None, name=None):
    """A program region with a custom gradient: forward_fn(*inputs) computes the outputs, and
    backward_fn(*output_gradients) returns the inputs' gradients (as Paddle's static_pylayer).
    Both run with oar ops when the program runs.

    Args:
        forward_fn (callable): Takes the inputs, returns a Tensor or a list of Tensors.
        inputs (list[Tensor]): Values of the program being built.
        backward_fn (callable, optional): Takes one gradient per output, returns one per input
            (None: the outputs take no gradient).
        name (str, optional): Unused.

    Returns:
        Tensor|list[Tensor]: forward_fn's outputs.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main, oar.static.Program()):
        ...     x = oar.static.data("x", [-1, 2], "float32")
        ...     x.stop_gradient = False
        ...     y = oar.static.nn.static_pylayer(lambda a: a * 2.0, [x], lambda g: g * 3.0)
        ...     (dx,) = oar.static.gradients([oar.mean(y)], [x])
        >>> out = oar.static.Executor().run(main, feed={"x": np.ones([1, 2], "float32")}, fetch_list=[y, dx])
        >>> print(out[0], out[1])
        [[2. 2.]] [[1.5 1.5]]
        >>> oar.disable_static()
    """
    if mode.in_dynamic_mode():
        raise AssertionError("please use PyLayer instead of static_pylayer in dygraph mode")
    if not callable(forward_fn):
        raise TypeError(f"static_pylayer: forward_fn must be callable, got {type(forward_fn).__name__}")
    if backward_fn is not None and not callable(backward_fn):
        raise TypeError(f"static_pylayer: backward_fn must be callable, got {type(backward_fn).__name__}")
    inputs = list(inputs)
    shapes, dtypes, single = _trace_types(forward_fn, [list(t.shape) for t in inputs], [t.dtype for t in inputs])
    n_in, n_out = len(inputs), len(shapes)

    def forward(*xs):
        with mode.dynamic():
            outs = forward_fn(*xs)
        return [outs] if not isinstance(outs, (list, tuple)) else list(outs)

    def backward(*args):
        grads = list(args[n_in + n_out:])
        with mode.dynamic():
            result = backward_fn(*grads)
        result = [result] if not isinstance(result, (list, tuple)) else list(result)
        if len(result) != n_in:
            raise ValueError(f"static_pylayer: backward_fn returned {len(result)} gradients for {n_in} inputs")
        return result

    op = f"pylayer_{next(_ids)}"
    _C._register_python_op(op, [f"x{i}" for i in range(n_in)], [f"out{k}" for k in range(n_out)], forward,
                           lambda s, d: (shapes, dtypes), backward if backward_fn is not None else None)
    outs = _C._custom_op_run(op, inputs, [])
    if backward_fn is None:
        for o in outs:
            o.stop_gradient = True
    return outs[0] if single else outs
