"""to_static (paddle.jit.to_static): turns a function or a Layer's forward into a program, built
once per input signature by tracing it in static mode (tensor-dependent Python control flow is
first rewritten into cond/while_loop by dy2static), then run by the C++ executor. Autograd
records through the run, so a to_static layer trains like the eager one."""
import functools
import inspect

from .. import _C
from ..framework import mode
from ..static.input_spec import InputSpec
from ..static.program import Program
from ..static.nn.control_flow import _flatten, _unflatten

_ir = _C._ir
_enabled = {"on": True}


def enable_to_static(enable_to_static_bool):
    """Globally switches to_static on or off (off: decorated functions run eagerly)."""
    if not isinstance(enable_to_static_bool, bool):
        raise TypeError(f"enable_to_static: expected a bool, got {type(enable_to_static_bool).__name__}")
    _enabled["on"] = enable_to_static_bool


def _convert(fn):
    """The dy2static form of fn (Python control flow on tensors -> IR control flow)."""
    from .dy2static import convert_function
    from .dy2static.errors import Dy2StaticError
    try:
        return convert_function(fn)
    except Dy2StaticError as e:
        if "source of" not in str(e) or "is not available" not in str(e):
            raise
        # As Paddle: without source code the function is traced as it is (Python control flow
        # then follows the values seen while tracing; tensor-dependent branches raise).
        import warnings
        warnings.warn(f"to_static: {e}; tracing it without converting its control flow", stacklevel=3)
        return fn


class ConcreteProgram:
    """One traced program: its inputs (data names), outputs, and how to rebuild the result."""

    def __init__(self, program, input_names, output_spec, fetch_indices):
        self.main_program = program
        self.input_names = input_names
        self.output_spec = output_spec
        self.fetch_indices = fetch_indices
        self._executors = {}  # place key -> the C++ executor that runs the program there

    def run(self, feeds, params):
        """Runs the program where its inputs are (the first tensor input's place; the expected
        place when there is none), recording autograd: a device model stays on its device."""
        tensors = [t for t in feeds.values() if isinstance(t, _C.Tensor)]
        place = _C._place_of(tensors[0]) if tensors else _C._get_device()
        executor = self._executors.get(place)
        if executor is None:
            executor = self._executors[place] = _ir.Executor(self.main_program._program, place)
        outs, _ = executor.run(feeds, params, self.fetch_indices, True)
        return outs

    @property
    def parameters(self):
        return list(self.main_program._parameters().values())


class StaticFunction:
    """What oar.jit.to_static returns for a function or a Layer's forward: a callable that, per
    input signature, converts the function's control flow, traces it into a static Program once and
    runs that program on later calls. On a method it binds to the instance like a function.
    dygraph_function is the original function, rollback() restores it on the layer, and
    concrete_program / get_concrete_program(*args) give the traced program. Functions whose source
    cannot be read (typed at a prompt, built with exec) are traced without control-flow conversion.

    Args:
        function (callable): The function (or unbound forward) to convert.
        input_spec (list of InputSpec, optional): The input signature; None takes it from the first
            call's arguments. Default: None.
        layer (Layer, optional): The layer the function is bound to. Default: None.
    """

    def __init__(self, function, input_spec=None, layer=None):
        self._function = function
        self._layer = layer
        self._input_spec = list(input_spec) if input_spec is not None else None
        self._cache = {}
        functools.update_wrapper(self, function)

    def __get__(self, instance, owner):
        if instance is None:
            return self
        bound = StaticFunction(self._function, self._input_spec, layer=instance)
        bound._cache = self._cache.setdefault(("bound", id(instance)), {})
        return bound

    @property
    def dygraph_function(self):
        return self._function

    def rollback(self):
        if self._layer is not None:
            self._layer.__dict__.pop("forward", None)
            return self._layer.forward
        return self._function

    def _arg_names(self, n):
        params = list(inspect.signature(self._function).parameters.values())
        if self._layer is not None and params and params[0].name == "self":
            params = params[1:]
        names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        return (names + [f"input_{i}" for i in range(len(names), n)])[:n]

    def _specs(self, args):
        """The InputSpec of each argument (None for Python values, which go into the cache key)."""
        if self._input_spec is not None and not args:
            return list(self._input_spec)
        specs = []
        for i, a in enumerate(args):
            given = self._input_spec[i] if self._input_spec and i < len(self._input_spec) else None
            if isinstance(a, _C.Tensor):
                if given is not None and isinstance(given, InputSpec):
                    specs.append(given)
                else:
                    specs.append(InputSpec(a.shape, a.dtype))
            elif isinstance(a, InputSpec):
                specs.append(a)
            else:
                specs.append(None)
        return specs

    def get_concrete_program(self, *args, **kwargs):
        return self._entry(args, kwargs)[0]

    def _entry(self, args, kwargs):
        """(the cached program for these arguments, their specs)."""
        specs = self._specs(args)
        key = (tuple((s.shape, s.dtype.name, s.name) if s is not None else ("py", repr(a))
                     for s, a in zip(specs, list(args) + [None] * (len(specs) - len(args)))),
               getattr(self._layer, "training", None))
        entry = self._cache.get(key)
        if entry is None:
            entry = self._build(specs, args, kwargs)
            self._cache[key] = entry
        return entry, specs

    @property
    def concrete_program(self):
        if not self._cache:
            if self._input_spec is None:
                raise ValueError("concrete_program: call the function once or give input_spec first")
            return self.get_concrete_program()
        return next(reversed(self._cache.values()))

    def _build(self, specs, args, kwargs):
        program = Program()
        names = self._arg_names(len(specs))
        fn = _convert(self._function)
        with mode.tracing(program._tracer):
            inputs, input_names = [], []
            for i, s in enumerate(specs):
                if s is None:
                    inputs.append(args[i])
                    continue
                name = s.name or names[i]
                x = program._tracer.data(name, s.dtype, list(s.shape))
                if not s.stop_gradient and s.dtype.name.startswith(("float", "bfloat", "complex")):
                    x.stop_gradient = False
                inputs.append(x)
                input_names.append(name)
            out = fn(self._layer, *inputs, **kwargs) if self._layer is not None else fn(*inputs, **kwargs)
            flat = []
            spec = _flatten(out, flat)
            for k, t in enumerate(flat):
                program._tracer.record("fetch", [[t]], {"name": f"output_{k}"})
        indices = _ir.output_indices(program._program)
        return ConcreteProgram(program, input_names, spec, indices)

    def __call__(self, *args, **kwargs):
        if not _enabled["on"] or mode._state["tracer"] is not None:
            # Disabled, or already inside a program being built: trace inline.
            fn = self._function
            return fn(self._layer, *args, **kwargs) if self._layer is not None else fn(*args, **kwargs)
        entry, specs = self._entry(args, kwargs)
        tensors = [a for a, s in zip(args, specs) if s is not None]
        feeds = dict(zip(entry.input_names, tensors))
        outs = entry.run(feeds, entry.main_program._parameters())
        return _unflatten(entry.output_spec, iter(outs))


def to_static(function=None, input_spec=None, build_strategy=None, backend=None, full_graph=True, **kwargs):
    """Converts a function or a Layer to a static program (paddle.jit.to_static): as a decorator
    (with or without arguments) or called on a function or Layer."""
    from ..nn import Layer

    def decorate(fn):
        if isinstance(fn, Layer):
            forward = type(fn).forward
            if isinstance(forward, StaticFunction):
                forward = forward._function
            static = StaticFunction(forward, input_spec, layer=fn)
            fn.__dict__["forward"] = static
            return fn
        if isinstance(fn, StaticFunction):
            return fn
        if not callable(fn):
            raise TypeError(f"to_static: expected a function or a Layer, got {type(fn).__name__}")
        return StaticFunction(fn, input_spec)

    if function is None:
        return decorate
    return decorate(function)


def not_to_static(func=None):
    """Marks a function to stay in Python when called from converted code."""
    if func is None:
        return not_to_static
    func._oar_not_to_static = True
    return func


def ignore_module(modules):
    """Functions of these modules are called unconverted from converted code."""
    from .dy2static import ignore_module as ignore
    ignore(modules)
