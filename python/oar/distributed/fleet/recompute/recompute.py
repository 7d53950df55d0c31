"""Activation recomputation (paddle.distributed.fleet.recompute): a block's forward runs without
recording a graph, so none of its intermediate activations are kept; backward runs the block again
with the graph on, from its saved inputs (and, with preserve_rng_state, the random state the first
run saw, so dropout draws the same mask) and backpropagates through that second run.

Two implementations, as Paddle's:

- reentrant (use_reentrant=True, the default): a PyLayer over the block's tensor inputs; its
  backward runs ``oar.autograd.backward`` on the recomputed outputs, which accumulates the
  gradients of the parameters the block uses directly into their ``.grad`` and hands the inputs'
  gradients back to the engine. Outputs need grad only when an input does.
- non-reentrant (use_reentrant=False): the PyLayer's inputs are also the trainable parameters of
  the layers the block calls (recorded while the first run goes, through nn.Layer's call
  observers), and backward computes every gradient with ``oar.autograd.grad`` and returns them to
  the engine. Outputs need grad when an input or a parameter does, and keyword-only arguments are
  accepted.
"""
import contextlib
import inspect
import logging
import random

import numpy as np

from .... import _C
from ....autograd.py_layer import PyLayer
from ....framework import random as _random

__all__ = ["recompute", "recompute_sequential"]

logger = logging.getLogger("oar.distributed.fleet.recompute")


def _is_tensor(x):
    return isinstance(x, _C.Tensor)


def check_recompute_necessary(inputs):
    """Warns (as Paddle's logger does) when no input of a recompute block needs a gradient."""
    flags = []
    for x in inputs:
        if _is_tensor(x):
            flags.append(x.stop_gradient)
        elif type(x) is tuple:
            flags.extend(t.stop_gradient for t in x if _is_tensor(t))
    if all(flags):
        logger.warning("[Recompute]: None of the inputs to current recompute block need grad, therefore there is "
                       "NO need to recompute this block in backward !")


class _CustomStatesManager:
    """A user-supplied pair get_state() / set_state(state) for random state that oar does not
    know of (saved with the forward's rng state and restored for the recomputation)."""

    def __init__(self):
        self.custom_get_state_func = None
        self.custom_set_state_func = None

    def set_custom_get_state_func(self, custom_get_state_func):
        assert self.custom_get_state_func is None, "The custom_state_manager does not support duplicate settings."
        self.custom_get_state_func = custom_get_state_func

    def set_custom_set_state_func(self, custom_set_state_func):
        assert self.custom_set_state_func is None, "The custom_state_manager does not support duplicate settings."
        self.custom_set_state_func = custom_set_state_func


custom_state_manager = _CustomStatesManager()


def _custom_funcs():
    m = custom_state_manager
    if m.custom_get_state_func is None:
        assert m.custom_set_state_func is None
        return (lambda x=None: None), (lambda x=None: None)
    return m.custom_get_state_func, m.custom_set_state_func


class _RngSnapshot:
    """oar's generator, NumPy's and Python's random states (and the custom state), taken now."""

    def __init__(self, get_custom):
        self.oar = _random.get_rng_state()
        self.numpy = np.random.get_state()
        self.python = random.getstate()
        self.custom = get_custom()

    @contextlib.contextmanager
    def restored(self, get_custom, set_custom):
        saved = _RngSnapshot(get_custom)
        _random.set_rng_state(self.oar)
        np.random.set_state(self.numpy)
        random.setstate(self.python)
        if self.custom is not None:
            set_custom(self.custom)
        try:
            yield
        finally:
            _random.set_rng_state(saved.oar)
            np.random.set_state(saved.numpy)
            random.setstate(saved.python)
            if self.custom is not None:
                set_custom(saved.custom)


@contextlib.contextmanager
def _amp_as(state):
    saved = _C._amp_state()
    _C._amp_set_state(*state)
    try:
        yield
    finally:
        _C._amp_set_state(*saved)


def _is_float(t):
    from ....tensor.attribute import is_floating_point
    return is_floating_point(t)


def _detach(t):
    d = t.detach()
    d.stop_gradient = t.stop_gradient
    return d


class _Packed:
    """The block's arguments split into the tensors the PyLayer sees (flat) and the rest; tuples
    of tensors are opened (Paddle passes them whole)."""

    def __init__(self, args, kwargs, strict):
        self.layout = []   # per positional arg: ("t", i) | ("tuple", [i...]) | ("c", value)
        self.kw_layout = {}
        self.tensors = []
        for a in args:
            self.layout.append(self._place(a, strict))
        for k, v in kwargs.items():
            self.kw_layout[k] = self._place(v, strict)

    def _place(self, a, strict):
        if _is_tensor(a):
            self.tensors.append(a)
            return ("t", len(self.tensors) - 1)
        if type(a) is tuple and a:
            is_t = [_is_tensor(x) for x in a]
            if all(is_t):
                sg = [x.stop_gradient for x in a]
                if strict and any(sg) and not all(sg):
                    raise ValueError("Recompute receive a tuple containing tensor holds different stop gradient.")
                idx = []
                for x in a:
                    self.tensors.append(x)
                    idx.append(len(self.tensors) - 1)
                return ("tuple", idx)
            if any(is_t) and strict:
                raise ValueError("Recompute receive a tuple containing tensor and non-tensor at same time.")
        return ("c", a)

    def rebuild(self, tensors):
        def one(slot):
            kind, v = slot
            if kind == "t":
                return tensors[v]
            if kind == "tuple":
                return tuple(tensors[i] for i in v)
            return v
        return [one(s) for s in self.layout], {k: one(s) for k, s in self.kw_layout.items()}


def _tensor_outputs(outputs):
    return [outputs] if _is_tensor(outputs) else [o for o in outputs if _is_tensor(o)] \
        if isinstance(outputs, (list, tuple)) else []


class _Recompute(PyLayer):
    """forward(ctx, run, *tensors): run() under no_grad; backward re-runs it with grad."""

    @staticmethod
    def forward(ctx, run, *tensors):
        ctx.run = run
        ctx.save_for_backward(*tensors)
        out = run.first(tensors)
        run.first = None   # (the non-reentrant run's closure holds the outputs: no cycle through the node)
        return out

    @staticmethod
    def backward(ctx, *grads):
        return ctx.run.again(ctx.saved_tensor(), grads)


class _Run:
    """One recompute call: the function, its packed arguments and the state to recompute in."""

    def __init__(self, function, packed, preserve, reentrant, n_inputs):
        self.function = function
        self.packed = packed
        self.preserve = preserve
        self.reentrant = reentrant
        self.n_inputs = n_inputs     # tensors that are the block's arguments (the rest: parameters)
        self.get_custom, self.set_custom = _custom_funcs()
        self.rng = None
        self.amp = _C._amp_state()
        self.kwargs = {}

    def _call(self, tensors):
        args, kwargs = self.packed.rebuild(list(tensors[:self.n_inputs]))
        return self.function(*args, **kwargs, **self.kwargs)

    def first(self, tensors):
        if self.preserve:
            self.rng = _RngSnapshot(self.get_custom)
        return self._call(tensors)   # PyLayer.apply runs forward with grad off

    def again(self, saved, grads):
        inputs = [_detach(t) for t in saved[:self.n_inputs]]
        params = list(saved[self.n_inputs:])
        rng = self.rng.restored(self.get_custom, self.set_custom) if self.preserve else contextlib.nullcontext()
        prev = _C.is_grad_enabled()
        _C._set_grad_enabled(True)
        try:
            with rng, _amp_as(self.amp):
                outputs = self._call(inputs + params)
        finally:
            _C._set_grad_enabled(prev)
        outs = (outputs,) if _is_tensor(outputs) else tuple(outputs)
        if len(outs) != len(grads):
            raise RuntimeError(f"recompute: the block returned {len(outs)} outputs but {len(grads)} of them are "
                               "tensors: every output of a recomputed block must be a Tensor")
        with_grad = [(o, g) for o, g in zip(outs, grads) if _is_tensor(o) and not o.stop_gradient]
        if not with_grad:
            raise RuntimeError("none of output has requires_grad=True, this recompute() is not necessary")
        ys, gs = [o for o, _ in with_grad], [g for _, g in with_grad]
        if self.reentrant:
            from .... import autograd
            with _amp_as(("O0",) + tuple(self.amp[1:])):
                autograd.backward(ys, gs)
            return tuple(t.grad if not t.stop_gradient else None for t in inputs)
        wanted = [t for t in inputs + params if not t.stop_gradient]
        got = iter(_C._grad(ys, wanted, gs, False, False, True)) if wanted else iter(())
        return tuple(next(got) if not t.stop_gradient else None for t in inputs + params)


def _bind_positional(function, args, kwargs):
    """Paddle's reentrant recompute passes everything positionally: the signature orders the
    keyword arguments; keyword-only parameters cannot be passed that way."""
    from ....nn import Layer
    sig = inspect.signature(function.forward if isinstance(function, Layer) else function)
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    out = []
    for value, param in zip(bound.arguments.values(), sig.parameters.values()):
        if param.kind == param.VAR_POSITIONAL:
            out.extend(value)
        elif param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
            out.append(value)
        elif param.kind == param.VAR_KEYWORD:
            out.extend(value.values())
        elif param.kind == param.KEYWORD_ONLY:
            raise ValueError("Currently, keyword-only arguments are not supported when you want to send kwargs(dict "
                             "parameter) to function with use_reentrant=True.")
    return out


def _reached_parameters(function, packed):
    """Runs nothing: returns a recorder whose `params` are the trainable parameters of every layer
    called while it is active (plus the function's own, if it is a layer or a layer's method)."""
    from ....nn import Layer
    from ....nn.layer import layers as _layers

    class Recorder:
        def __init__(self):
            self.layers = []
            owner = function if isinstance(function, Layer) else getattr(function, "__self__", None)
            if isinstance(owner, Layer):
                self.layers.append(owner)

        def __call__(self, layer):
            self.layers.append(layer)

        def __enter__(self):
            _layers._call_observers.append(self)
            return self

        def __exit__(self, *exc):
            _layers._call_observers.remove(self)

        def params(self):
            seen = {id(t) for t in packed.tensors}
            out = []
            for layer in self.layers:
                for p in layer.parameters():
                    if id(p) not in seen and not p.stop_gradient:
                        seen.add(id(p))
                        out.append(p)
            return out
    return Recorder()


def recompute(function, *args, **kwargs):
    """Recomputes a block's intermediate activations in backward instead of keeping them: the
    block runs without a graph in forward, and backward runs it again (from its inputs, in the
    random state of the first run) to backpropagate. Gradients equal those of a plain run.

    Args:
        function (Layer|callable): The block.
        *args: Its inputs.
        **kwargs: Its keyword arguments, and ``preserve_rng_state`` (bool, default True: restore
            the first run's random state for the recomputation, so dropout repeats its mask) and
            ``use_reentrant`` (bool, default True: the PyLayer implementation; False: the one that
            also feeds the block's parameters through the node and accepts keyword-only arguments).

    Returns:
        The block's output.

    Examples:
        >>> import oar
        >>> from oar.distributed.fleet.utils import recompute
        >>> block = oar.nn.Sequential(oar.nn.Linear(4, 4), oar.nn.ReLU(), oar.nn.Linear(4, 1))
        >>> x = oar.randn([2, 4])
        >>> x.stop_gradient = False
        >>> y = recompute(block, x)
        >>> y.sum().backward()
        >>> print(x.grad.shape, block[0].weight.grad.shape)
        [2, 4] [4, 4]
    """
    preserve = kwargs.pop("preserve_rng_state", True)
    use_reentrant = kwargs.pop("use_reentrant", True)
    from ....framework import mode
    if not mode.in_dynamic_mode():
        return function(*args, **kwargs)   # a static program keeps what its executor decides
    if _C.is_grad_enabled():
        check_recompute_necessary(list(args) + list(kwargs.values()))
    if use_reentrant:
        kwargs.pop("offload_indices", None)   # offloading to host memory: activations are on the host already
        flat = _bind_positional(function, args, kwargs)
        packed = _Packed(flat, {}, strict=True)
        run = _Run(function, packed, preserve, True, len(packed.tensors))
        return _Recompute.apply(run, *packed.tensors)
    packed = _Packed(args, kwargs, strict=False)
    recorder = _reached_parameters(function, packed)
    run = _Run(function, packed, preserve, False, len(packed.tensors))
    # The first run happens inside apply; the layers it calls are recorded, and the parameters
    # found become inputs of the node. apply sees the tensors it is given before forward runs, so
    # the block runs once here (without a graph) to learn them, and that output is the result.
    with recorder:
        prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)
        try:
            if preserve:
                run.rng = _RngSnapshot(run.get_custom)
            outputs = run._call(packed.tensors)
        finally:
            _C._set_grad_enabled(prev)
    params = recorder.params()
    run.first = lambda tensors: outputs
    return _Recompute.apply(run, *(packed.tensors + params))


def recompute_sequential(ctx, functions, *args, **kwargs):
    """Recompute for a Sequential model: its layers are cut into ``ctx['segments']`` chunks; every
    chunk but the last is recomputed, the last runs normally. As in Paddle, a chunk's output is
    passed to the next chunk unpacked (``*output``): with two or more segments only a batch of one
    goes through (and comes out without its batch axis); larger ones raise TypeError.

    Args:
        ctx (dict): ``segments`` (int, default 1) and ``preserve_rng_state`` (bool, default True).
        functions (Sequential|list): The layers.
        *args: The inputs of the first layer.
        **kwargs: Keyword arguments of every recomputed chunk.

    Returns:
        The output of the last layer.

    Examples:
        >>> import oar
        >>> from oar.incubate.distributed.fleet import recompute_sequential
        >>> model = oar.nn.Sequential(oar.nn.Linear(10, 10), oar.nn.Linear(10, 2))
        >>> x = oar.ones([8, 10])
        >>> x.stop_gradient = False
        >>> print(recompute_sequential({"segments": 1}, model, x).shape)
        [8, 2]
    """
    from ....nn import Sequential
    segments = ctx.get("segments", 1)
    preserve = ctx.get("preserve_rng_state", True)
    if isinstance(functions, Sequential):
        functions = list(functions.children())

    def run(begin, end):
        def do_run(x):
            for i in range(begin, end + 1):
                x = functions[i](x)
            return x
        return do_run

    # As Paddle: a chunk's output is passed on unpacked (``*output``), so with two or more segments
    # a Tensor output is spread over its first axis (a batch of one runs, anything else is a
    # TypeError from the next chunk).
    size = len(functions) // segments
    end = -1
    for begin in range(0, size * (segments - 1), size):
        end = begin + size - 1
        args = recompute(run(begin, end), *args, preserve_rng_state=preserve, **kwargs)
    return run(end + 1, len(functions) - 1)(*args)


class _HybridRun(_Run):
    """recompute_hybrid's run: the saved inputs may be kept as this rank's 1/nranks of their
    elements (partition) and gathered over the model-parallel group again in backward."""

    def __init__(self, function, packed, mp_group, partition):
        super().__init__(function, packed, True, True, len(packed.tensors))
        self.mp_group = mp_group
        self.partition = partition and mp_group.nranks > 1
        self.shapes = []

    def split(self, t):
        n, r = self.mp_group.nranks, self.mp_group.rank
        numel = int(np.prod(t.shape)) if t.shape else 1
        assert numel != 0, "can't recompute zero element"
        assert numel % n == 0, f"The capacity of the activation ({numel}) cannot be divisible by mp_degree({n})"
        part = numel // n
        return t.detach().flatten()[part * r: part * (r + 1)].clone()

    def merge(self, part, shape):
        from ... import collective
        pieces = []
        collective.all_gather(pieces, part, group=self.mp_group)
        return _C.concat(pieces, 0).reshape(shape)

    def again(self, saved, grads):
        if self.partition:
            saved = [self.merge(p, s) for p, s in zip(saved, self.shapes)]
        return super().again(saved, grads)


class _HybridRecompute(PyLayer):
    @staticmethod
    def forward(ctx, run, *tensors):
        ctx.run = run
        out = run.first(tensors)
        run.first = None
        if run.partition:
            run.shapes = [list(t.shape) for t in tensors]
            kept = []
            for t in tensors:
                p = run.split(t)
                p.stop_gradient = t.stop_gradient
                kept.append(p)
            ctx.save_for_backward(*kept)
        else:
            ctx.save_for_backward(*tensors)
        return out

    @staticmethod
    def backward(ctx, *grads):
        return ctx.run.again(ctx.saved_tensor(), grads)


def recompute_hybrid(ctx, function, *args, **kwargs):
    """Recompute for hybrid-parallel models (as recompute, always restoring the random state):
    ``ctx['mp_group']`` is the model-parallel group; with ``ctx['partition']`` each rank keeps only
    its 1/nranks of every saved input (gathered again in backward); ``ctx['offload']`` moves them
    to host memory (where oar keeps them already). As Paddle, it runs only on an accelerator or a
    custom device: on the CPU place it raises AssertionError.

    Args:
        ctx (dict): ``mp_group`` (Group, required), ``offload`` and ``partition`` (bool, default False).
        function (Layer|callable): The block.
        *args: Its inputs (tensors or other values).
        **kwargs: Its keyword arguments.

    Returns:
        The block's output (a tuple with several outputs; the non-float tensors among them stop
        gradient).

    Examples:
        >>> import oar
        >>> from oar.incubate.distributed.fleet import recompute_hybrid
        >>> try:
        ...     recompute_hybrid({}, oar.nn.Linear(2, 2), oar.ones([1, 2]))
        ... except AssertionError as e:
        ...     print(e)
        ctx must contains mp_group and mp_group can not be None.
    """
    mp_group = ctx.get("mp_group", None)
    assert mp_group is not None, "ctx must contains mp_group and mp_group can not be None."
    offload = ctx.get("offload", False)
    partition = ctx.get("partition", False)
    if _C.is_grad_enabled():
        check_recompute_necessary(args)
    from .... import device as _device
    cur = _device.get_device()
    assert cur.startswith(("gpu:", "xpu:")) or cur.split(":")[0] in _device.get_all_custom_device_type(), \
        f"Recompute with RNG is not support current device: {cur}."
    del offload   # host memory is where oar keeps activations
    packed = _Packed(args, {}, strict=False)
    run = _HybridRun(function, packed, mp_group, partition)
    run.kwargs = kwargs   # passed as they are to both runs, as Paddle's ctx.kwargs
    out = _HybridRecompute.apply(run, *packed.tensors)
    outs = [out] if _is_tensor(out) else list(out)
    if len(outs) == 1:
        return outs[0]
    for o in outs:
        if _is_tensor(o) and not _is_float(o):
            o.stop_gradient = True
    return tuple(outs)
