"""Program (paddle.static.Program): a static graph in oar's IR, with the tracer that records
into it, the concrete tensors it captured (weights, constants) and, for training programs, the
optimizer updates that follow each run."""
import contextlib

from .. import _C
from ..framework import mode

_ir = _C._ir


class Program:
    """A static program: the ops recorded while static mode is on (oar.enable_static()) inside
    oar.static.program_guard, run by oar.static.Executor. clone(for_test=True) makes the inference
    copy, num_ops() counts the ops and str(program) prints them.

    Args:
        _ir_program (optional): Internal; leave it out to make an empty program.

    Examples:
        >>> import oar
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     x = oar.static.data('x', [None, 2], 'float32')
        ...     y = x * 2.0 + 1.0
        >>> print(main.num_ops() > 0)
        True
        >>> oar.disable_static()
    """

    def __init__(self, _ir_program=None):
        self._program = _ir_program if _ir_program is not None else _ir.Program()
        self._tracer = _ir.Tracer(self._program)
        self._tracer.set_location_provider(mode.user_location)
        self._sources = []            # programs this one was cloned from (their captured tensors)
        self._optimize_hooks = []     # (optimizer, [(parameter, grad value)]) applied after each run
        self._after_run = []          # _AfterRun entries, see _add_after_run
        self._created_parameters = []  # Parameters made while building it (kept alive)
        self._for_test = False
        self.random_seed = 0

    # ---- contents ----
    def __str__(self):
        return str(self._program)

    __repr__ = __str__

    def to_string(self, throw_on_error=False, with_details=False):
        return str(self._program)

    def num_ops(self):
        return self._program.num_ops()

    def _op_names(self):
        return self._program.op_names()

    def _parameters(self):
        """{name: tensor} of every concrete tensor this program (or its origin) reads."""
        from ..framework.parameter import find_parameter
        out = {}
        for src in self._sources:
            out.update(src._parameters())
        for name, t in self._tracer.captured().items():
            p = find_parameter(t)
            out[name] = t if p is None else p
        return out

    # ---- state written back after each run ----
    # Paddle's programs write persistable variables in place (assign(x, output=var), counters,
    # metric accumulators, moving averages); an oar program is a pure function of its inputs and
    # captured tensors, so such writes are recorded here and done by Executor.run after the
    # program has run: it fetches each entry's program `values` with the user's fetches and the
    # gradients, then calls `fn(*fetched)` in eager mode, without gradient, in the order the
    # entries were added. An entry added after k optimizers were attached (minimize) runs after
    # the first k optimizer updates, so it sees the parameters those updates wrote, as the ops
    # appended after minimize do in Paddle. `optimize=True` marks an entry as part of training
    # (a moving-average update): clone(for_test=True) leaves it out, as it leaves out the
    # optimizer updates.
    def _add_after_run(self, values, fn, optimize=False):
        self._after_run.append(_AfterRun(len(self._optimize_hooks), list(values), fn, optimize))

    def _write_back(self, tensor, value, optimize=False):
        """After each run, copy the program value `value` into the concrete tensor `tensor` (which
        the program may capture: the next run reads the new value)."""
        if list(value.shape) != list(tensor.shape) and all(d >= 0 for d in value.shape):
            raise ValueError(f"write back: the value's shape {list(value.shape)} differs from the "
                             f"tensor's shape {list(tensor.shape)}")

        def copy(v):
            from ..framework.place import move_in_place
            move_in_place(tensor, _C._place_of(v))
            tensor.copy_(_C.cast(v, tensor.dtype) if v.dtype != tensor.dtype else v, False)
        self._add_after_run([value], copy, optimize)

    def all_parameters(self):
        """The trainable parameters the program reads (paddle.static.Program.all_parameters)."""
        from ..framework.parameter import Parameter
        # Those made while building it (used or not, as in Paddle's global block) in creation
        # order, then the other captured ones.
        params = list(self._created_parameters)
        seen = {p._impl_id for p in params}
        for t in self._parameters().values():
            if isinstance(t, Parameter) and t._impl_id not in seen:
                params.append(t)
                seen.add(t._impl_id)
        return params

    def global_block(self):
        return _Block(self)

    @property
    def blocks(self):
        return [_Block(self)]

    def verify(self):
        self._program.verify()

    # ---- copies ----
    def clone(self, for_test=False):
        """A copy (same values in the same order, sharing the weights). for_test=True switches
        every op with a `training` attribute (dropout, batch_norm, ...) to inference and drops
        the optimizer updates, as Paddle's clone(for_test=True)."""
        p = Program(_ir.Program.parse(str(self._program)))
        p._sources = [self]
        p.random_seed = self.random_seed
        if for_test:
            p._program.set_attribute_everywhere("training", False)
            p._for_test = True
        else:
            p._optimize_hooks = list(self._optimize_hooks)
        p._after_run = [e for e in self._after_run if not (for_test and e.optimize)]
        return p


class _AfterRun:
    """One write after each run (Program._add_after_run): after the first `after` optimizer
    updates, fn(*fetched values) in eager mode."""

    __slots__ = ("after", "values", "fn", "optimize")

    def __init__(self, after, values, fn, optimize):
        self.after, self.values, self.fn, self.optimize = after, values, fn, optimize


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _C.Tensor) and mode.is_symbolic(obj)


class Variable(metaclass=_VariableMeta):
    """The type of a static program's values (paddle.static.Variable): what oar.static.data and
    the ops on it return in static mode. It is a type to test with, ``isinstance(x, Variable)``
    (true for program values, false for eager tensors); values are made by static.data and ops,
    not by calling Variable.

    Examples:
        >>> import oar
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('x', [None, 2], 'float32')
        ...     print(isinstance(x, oar.static.Variable), isinstance(x * 2.0, oar.static.Variable))
        True True
        >>> oar.disable_static()
        >>> print(isinstance(oar.ones([2]), oar.static.Variable))
        False
    """

    def __new__(cls, *args, **kwargs):
        raise TypeError("Variable: program values are made by oar.static.data and the ops on it, "
                        "not by calling Variable(); use it with isinstance")


class _Block:
    """The program's top block, as far as Paddle scripts read it."""

    def __init__(self, program):
        self.program = program

    @property
    def ops(self):
        return self.program._op_names()

    def all_parameters(self):
        return self.program.all_parameters()


_default = {"main": Program(), "startup": Program()}


def default_main_program():
    """The program that ops are recorded into in static mode: the main program of the
    innermost program_guard, else the global default.

    Returns:
        Program: the current main program.

    Examples:
        >>> import oar
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     print(oar.static.default_main_program() is main)
        True
        >>> oar.disable_static()
    """
    return _default["main"]


def default_startup_program():
    """The startup program (parameter initialization): that of the innermost program_guard, else
    the global default.

    Returns:
        Program: the current startup program.

    Examples:
        >>> import oar
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     print(oar.static.default_startup_program() is startup)
        True
        >>> oar.disable_static()
    """
    return _default["startup"]


@contextlib.contextmanager
def program_guard(main_program, startup_program=None):
    """Ops inside record into main_program (paddle.static.program_guard)."""
    if not isinstance(main_program, Program):
        raise TypeError(f"program_guard: main_program must be a Program, but received "
                        f"{type(main_program).__name__}")
    if startup_program is not None and not isinstance(startup_program, Program):
        raise TypeError(f"program_guard: startup_program must be a Program, but received "
                        f"{type(startup_program).__name__}")
    saved = dict(_default)
    _default["main"] = main_program
    if startup_program is not None:
        _default["startup"] = startup_program
    try:
        if mode.in_static_mode():
            with mode.tracing(main_program._tracer):
                yield
        else:
            yield
    finally:
        _default.update(saved)


def current_tracer(api):
    """The tracer that ops record into now; raises when static mode is off."""
    tracer = mode._state["tracer"]
    if tracer is None:
        raise RuntimeError(f"{api} only works in static mode: call oar.enable_static() first "
                           f"(or use it inside oar.jit.to_static)")
    return tracer


def data(name, shape, dtype=None, lod_level=0):
    """An input of the current main program (paddle.static.data): None or -1 marks a dim that
    is known only when the program runs."""
    from ..framework.dtype import get_default_dtype, convert_dtype
    tracer = current_tracer("oar.static.data")
    if not isinstance(name, str):
        raise TypeError(f"static.data: name must be a str, but received {type(name).__name__}")
    if isinstance(shape, int):
        shape = [shape]
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"static.data: shape must be a list or tuple, but received {type(shape).__name__}")
    dims = []
    for d in shape:
        if d is None:
            d = -1
        if not isinstance(d, int) or d < -1:
            raise ValueError(f"static.data: each dim of shape must be a non-negative int, -1 or None, got {shape}")
        dims.append(int(d))
    if name in tracer.program.input_names():
        raise ValueError(f"static.data: the program already has an input named '{name}'")
    dt = convert_dtype(dtype if dtype is not None else get_default_dtype())
    value = tracer.data(name, dt, dims)
    value.name = name   # as Paddle's data Value (fleet's datasets name their slots by it)
    return value
