"""paddle.DataParallel: data-parallel training over a process group. Each rank runs the model on
its share of the batch; during backward, gradients are averaged across ranks in buckets, each
bucket's all-reduce starting (asynchronously) as soon as its last gradient is ready, so the
communication overlaps the rest of backward; the pass ends by waiting for them (an autograd
end-of-backward callback) and writing the averages into .grad."""
import contextlib

from .. import _C
from ..autograd import no_grad
from ..nn.layer.layers import Layer
from . import collective

__all__ = ["DataParallel"]


class DataParallel(Layer):
    """Wraps `layers` for data-parallel training (paddle.DataParallel).

    At construction every rank takes rank 0's parameters and buffers (broadcast), so all start
    equal. After each ``loss.backward()`` every trainable parameter's ``.grad`` holds the average,
    over the group's ranks, of the ranks' gradients: an optimizer step then keeps the replicas
    equal. Inside ``no_sync()`` gradients only accumulate locally; the first backward after it
    averages the accumulated gradients.

    Args:
        layers (Layer): The model.
        strategy: Unused (Paddle's legacy argument). Default: None.
        comm_buffer_size (int, optional): Bucket size in MB. Default: 25.
        last_comm_buffer_size (int, optional): Size in MB of the first bucket to be reduced (the
            last parameters' gradients are ready first). Default: 1.
        find_unused_parameters (bool, optional): Allow parameters that get no gradient in a pass
            (their gradient counts as zero). Default: False (such a parameter is an error).
        group (Group, optional): The process group. Default: None (every rank).
    """

    def __init__(self, layers, strategy=None, comm_buffer_size=25, last_comm_buffer_size=1,
                 find_unused_parameters=False, group=None):
        super().__init__()
        if not isinstance(layers, Layer):
            raise TypeError(f"DataParallel: layers must be a Layer, but got {type(layers).__name__}")
        for name, value in (("comm_buffer_size", comm_buffer_size), ("last_comm_buffer_size", last_comm_buffer_size)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ValueError(f"DataParallel: {name} must be a positive number of MB, got {value!r}")
        self._layers = layers
        self.group = group
        self.find_unused_parameters = bool(find_unused_parameters)
        self._grad_sync = True
        self._world = collective.get_world_size(group)
        g = collective._group(group)
        self._params = [p for p in layers.parameters() if not p.stop_gradient]
        if self._world > 1:
            with no_grad():
                for t in list(layers.parameters()) + [b for b in layers.buffers() if b is not None]:
                    collective.broadcast(t, src=g.ranks[0], group=group)
        self._buckets = self._make_buckets(comm_buffer_size, last_comm_buffer_size)
        self._bucket_of = {id(p): k for k, bucket in enumerate(self._buckets) for p in bucket}
        self._pass = None  # the state of the backward pass now running
        for p in self._params:
            p.register_hook(self._hook_for(p))

    def _make_buckets(self, size_mb, first_mb):
        # Reverse order: backward produces the last layers' gradients first.
        buckets, current, filled = [], [], 0
        limit = first_mb * 2 ** 20
        for p in reversed(self._params):
            current.append(p)
            filled += p.numel() * p.element_size()
            if filled >= limit:
                buckets.append(current)
                current, filled, limit = [], 0, size_mb * 2 ** 20
        if current:
            buckets.append(current)
        return buckets

    # ---- during backward ----
    def _hook_for(self, p):
        def hook(grad):
            if self._grad_sync and self._world > 1:
                self._ready(p, grad)
            return grad
        return hook

    def _ready(self, p, grad):
        state = self._pass
        if state is None:
            state = self._pass = {"totals": {}, "launched": 0, "tasks": []}
            _C._queue_backward_callback(self._finish)
        # What .grad will hold once the engine accumulates this gradient.
        state["totals"][id(p)] = grad if p.grad is None else p.grad + grad
        self._launch_ready(state)

    def _launch_ready(self, state, fill_missing=False):
        # Buckets go out in index order on every rank (the group runs collectives in call order).
        while state["launched"] < len(self._buckets):
            bucket = self._buckets[state["launched"]]
            totals = state["totals"]
            if not fill_missing and any(id(p) not in totals for p in bucket):
                return
            parts = [totals[id(p)] if id(p) in totals else _C.zeros_like(p) for p in bucket]
            flat = _C.concat([_C.reshape(t, [-1]) for t in parts], 0)
            state["tasks"].append((bucket, flat, collective.all_reduce(flat, sync_op=False, group=self.group)))
            state["launched"] += 1

    def _finish(self):
        state, self._pass = self._pass, None
        missing = [p for p in self._params if id(p) not in state["totals"]]
        if missing and not self.find_unused_parameters:
            names = {id(v): k for k, v in self._layers.named_parameters()}
            raise RuntimeError("DataParallel: parameters got no gradient in this backward pass: "
                               f"{[names.get(id(p), '?') for p in missing][:8]}; pass "
                               "find_unused_parameters=True if some parameters are unused in some steps")
        self._launch_ready(state, fill_missing=True)
        with no_grad():
            for bucket, flat, task in state["tasks"]:
                task.wait()
                offset = 0
                for p in bucket:
                    n = p.numel()
                    avg = _C.scale(_C.reshape(flat[offset:offset + n], p.shape), 1.0 / self._world, 0.0, True)
                    offset += n
                    if p.grad is None:
                        p.grad = avg
                    else:
                        p.grad.copy_(avg, False)

    # ---- the Layer face ----
    def forward(self, *inputs, **kwargs):
        return self._layers(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Gradients of the backward passes inside only accumulate locally (no communication)."""
        saved, self._grad_sync = self._grad_sync, False
        try:
            yield
        finally:
            self._grad_sync = saved

    def state_dict(self, *args, **kwargs):
        return self._layers.state_dict(*args, **kwargs)

    def set_state_dict(self, state_dict, *args, **kwargs):
        return self._layers.set_state_dict(state_dict, *args, **kwargs)

    set_dict = set_state_dict
    load_dict = set_state_dict
