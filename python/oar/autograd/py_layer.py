"""oar.autograd.PyLayer: custom differentiable functions written in Python."""
import atexit

from .. import _C

# Before modules are torn down, the graph's PyLayer nodes let go of their backward functions:
# a node reaches its PyLayer class's module, which may hold an output that holds the node (a
# cycle through C++ that the collector cannot break; see python/src/autograd_bind.cc).
atexit.register(_C._pylayer_release_all)


class PyLayerContext:
    def __init__(self):
        self._saved = ()
        self.needs_input_grad = ()
        self._non_differentiable = ()
        self._materialize_grads = True

    def save_for_backward(self, *tensors):
        self._saved = tensors

    def saved_tensor(self):
        return self._saved

    # PyTorch spelling, for ported code.
    @property
    def saved_tensors(self):
        return self._saved

    def mark_not_inplace(self, *args):
        pass

    def mark_non_differentiable(self, *tensors):
        """These outputs get stop_gradient=True; backward receives zeros for them (None without
        materialized gradients)."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        """False: backward receives None, not zeros, for the outputs that got no gradient."""
        self._materialize_grads = bool(value)


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
            ctx._saved = tuple(
                s.detach() if isinstance(s, _C.Tensor) and any(s._is_same(o) for o in outs) else s
                for s in ctx._saved)
        return result
