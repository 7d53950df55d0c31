"""oar.autograd.PyLayer: custom differentiable functions written in Python."""
import atexit

from .. import _C

# Before modules are torn down, the graph's PyLayer nodes let go of their backward functions:
# a node reaches its PyLayer class's module, which may hold an output that holds the node (a
# cycle through C++ that the collector cannot break; see python/src/autograd_bind.cc).
atexit.register(_C._pylayer_release_all)


# The (pack_hook, unpack_hook) pair of the innermost saved_tensors_hooks block, or None.
_saved_tensors_hooks = [None]


class saved_tensors_hooks:
    """A with block whose pack/unpack hooks transform the tensors that PyLayer contexts save for
    backward (paddle.autograd.saved_tensors_hooks).

    Inside the block, PyLayerContext.save_for_backward calls pack_hook(tensor) on each Tensor it
    is given and keeps what the hook returns instead of the tensor; saved_tensor() (in backward,
    inside the block or not) calls unpack_hook(packed) on each kept value, every time it is called,
    and returns those tensors. Non-tensor values given to save_for_backward (None, numbers) are kept
    as they are. Only one pair of hooks may be active at a time: a nested block raises ValueError.

    Which saved tensors the hooks see: those of PyLayer.save_for_backward only. The built-in
    operators' own saved inputs and outputs live in oar's C++ autograd nodes and are not passed
    to the hooks (Paddle passes those too).

    Args:
        pack_hook (Callable[[Tensor], Any]): Called with each tensor as it is saved; its result is
            kept instead of the tensor.
        unpack_hook (Callable[[Any], Tensor]): Called with a kept value when backward reads it; must
            return a Tensor (None is passed through).

    Examples:
        >>> import oar
        >>> from oar.autograd import PyLayer
        >>> class Mul(PyLayer):
        ...     @staticmethod
        ...     def forward(ctx, a, b):
        ...         ctx.save_for_backward(a, b)
        ...         return a * b
        ...     @staticmethod
        ...     def backward(ctx, dy):
        ...         a, b = ctx.saved_tensor()
        ...         return dy * b, dy * a
        >>> a = oar.ones([2]); a.stop_gradient = False
        >>> b = oar.full([2], 2.0); b.stop_gradient = False
        >>> with oar.autograd.saved_tensors_hooks(lambda t: t.numpy(), lambda v: oar.to_tensor(v)):
        ...     y = Mul.apply(a, b)
        >>> y.sum().backward()
        >>> print(a.grad.numpy(), b.grad.numpy())
        [2. 2.] [1. 1.]
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if _saved_tensors_hooks[0] is not None:
            raise ValueError("oar.autograd.saved_tensors_hooks: only one pair of hooks is allowed at a time; "
                             "a saved_tensors_hooks block is already active")
        _saved_tensors_hooks[0] = (self.pack_hook, self.unpack_hook)

    def __exit__(self, *exc):
        _saved_tensors_hooks[0] = None
        return False


class _Packed:
    """A saved tensor as pack_hook returned it, with the unpack_hook that gives it back."""
    __slots__ = ("value", "unpack")

    def __init__(self, value, unpack):
        self.value, self.unpack = value, unpack


def _unpack(item):
    if not isinstance(item, _Packed):
        return item
    out = item.unpack(item.value)
    if out is not None and not isinstance(out, _C.Tensor):
        raise ValueError(f"saved_tensors_hooks: unpack_hook must return a Tensor, but it returned "
                         f"{type(out).__name__}")
    return out


class PyLayerContext:
    def __init__(self):
        self._saved = ()
        self.needs_input_grad = ()
        self._non_differentiable = ()
        self._materialize_grads = True

    def save_for_backward(self, *tensors):
        hooks = _saved_tensors_hooks[0]
        if hooks is not None:
            pack, unpack = hooks
            tensors = tuple(_Packed(pack(t), unpack) if isinstance(t, _C.Tensor) else t for t in tensors)
        self._saved = tensors

    def saved_tensor(self):
        return tuple(_unpack(s) for s in self._saved)

    # PyTorch spelling, for ported code.
    @property
    def saved_tensors(self):
        return self.saved_tensor()

    def mark_not_inplace(self, *args):
        pass

    def mark_non_differentiable(self, *tensors):
        """These outputs get stop_gradient=True; backward receives zeros for them (None without
        materialized gradients)."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        """False: backward receives None, not zeros, for the outputs that got no gradient."""
        self._materialize_grads = bool(value)


def _detach_output(saved, outs):
    """A saved output (or a packed value that is the output itself) without its history."""
    if isinstance(saved, _Packed):
        if isinstance(saved.value, _C.Tensor) and any(saved.value._is_same(o) for o in outs):
            saved.value = saved.value.detach()
        return saved
    if isinstance(saved, _C.Tensor) and any(saved._is_same(o) for o in outs):
        return saved.detach()
    return saved


def _mark_arrival(arrived, i):
    """A gradient hook that records that output i received a gradient (and leaves it as it is)."""
    def hook(grad):
        arrived[i] = True
    return hook


class PyLayer:
    """Subclass with static forward(ctx, *args) and backward(ctx, *grads); call .apply()."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("PyLayer subclasses must implement forward(ctx, ...)")

    @staticmethod
    def backward(ctx, *args):
        raise NotImplementedError("PyLayer subclasses must implement backward(ctx, ...)")

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = PyLayerContext()
        inputs = [a for a in args if isinstance(a, _C.Tensor)]
        ctx.needs_input_grad = tuple(not t.stop_gradient for t in inputs)
        prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)
        try:
            result = cls.forward(ctx, *args, **kwargs)
        finally:
            _C._set_grad_enabled(prev)
        outs = [result] if isinstance(result, _C.Tensor) else [r for r in result if isinstance(r, _C.Tensor)]
        # The outputs marked non-differentiable, by position (before aliases get fresh handles). ctx
        # drops them: kept, they would hold the node that holds ctx (see ctx._saved below).
        marked = [any(isinstance(t, _C.Tensor) and o._is_same(t) for t in ctx._non_differentiable)
                  for o in outs]
        ctx._non_differentiable = ()
        # Outputs that alias inputs get fresh handles so that history attaches to them only.
        outs_fixed = [o.detach() if any(o._is_same(i) for i in inputs) else o for o in outs]
        if any(a is not b for a, b in zip(outs_fixed, outs)):
            if isinstance(result, _C.Tensor):
                result = outs_fixed[0]
            else:
                it = iter(outs_fixed)
                result = type(result)(next(it) if isinstance(r, _C.Tensor) else r for r in result)
            outs = outs_fixed

        # Which outputs received a gradient in this backward pass. The engine fills the others with
        # zeros before calling backward; a hook on an output runs only for a gradient that arrived.
        arrived = [False] * len(outs)

        def run_backward(*grads):
            if not ctx._materialize_grads:
                grads = tuple(g if got else None for g, got in zip(grads, arrived))
                arrived[:] = [False] * len(arrived)
            return cls.backward(ctx, *grads)

        if _C._pylayer_connect(run_backward, cls.__name__, inputs, outs):
            for i, o in enumerate(outs):
                if marked[i]:
                    o.stop_gradient = True  # cut from the graph: no gradient arrives through it
                elif not ctx._materialize_grads:
                    o._register_hook(_mark_arrival(arrived, i))
            # The node now holds run_backward -> ctx: an output saved in ctx would hold the node
            # through its own history, a cycle through C++ that Python's collector cannot see.
            # ctx keeps a handle on the output's memory without the history instead.
            ctx._saved = tuple(_detach_output(s, outs) for s in ctx._saved)
        return result
