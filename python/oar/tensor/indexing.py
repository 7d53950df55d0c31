"""Tensor.__getitem__ / __setitem__ with NumPy-style indices, built from oar ops.

Basic indices (ints, slices, Ellipsis, None) give views; integer-array and bool-mask indices
gather through index_tensor. Assignment with autograd goes through a PyLayer so gradients
flow to both the tensor and the assigned value.
"""
import numpy as np

from .. import _C
from ..autograd import PyLayer
from ..framework.mode import is_symbolic
from .creation import to_tensor

Tensor = _C.Tensor

__all__ = ["newaxis", "getitem", "setitem", "iterate"]

newaxis = None  # paddle.newaxis: x[:, newaxis] inserts a dim, as x[:, None]


def _symbolic(t):
    """Whether t stands for a value of a static program being built (it has no data yet)."""
    return is_symbolic(t)


def _to_index_tensor(v):
    if isinstance(v, Tensor):
        return v
    arr = np.asarray(v)
    if arr.dtype.kind not in "biu":
        raise IndexError(f"only integers, slices, Ellipsis, None, bool and integer arrays are valid "
                         f"indices, got an array of {arr.dtype}")
    return _C._from_array(np.ascontiguousarray(arr if arr.dtype.kind == "b" else arr.astype(np.int64)), True)


def _expand(x, item):
    """Normalised list of index items, one per input dim after None was turned into unsqueeze."""
    if not isinstance(item, tuple):
        item = (item,)
    items = []
    for it in item:
        if isinstance(it, (list, np.ndarray)) or (isinstance(it, Tensor) and (it.ndim > 0 or it.dtype.name == "bool")):
            items.append(_to_index_tensor(it))
        elif isinstance(it, Tensor):
            items.append(int(it.item()))
        elif isinstance(it, (bool, np.bool_)):
            items.append(_to_index_tensor(np.array(it)))
        elif isinstance(it, (int, np.integer)):
            items.append(int(it))
        elif it is None or it is Ellipsis or isinstance(it, slice):
            items.append(it)
        else:
            raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), None and integer or "
                             f"boolean tensors are valid indices (got {type(it).__name__})")
    consumed = sum(it.ndim if isinstance(it, Tensor) and it.dtype.name == "bool" else
                   0 if (it is None or it is Ellipsis) else 1 for it in items)
    if sum(it is Ellipsis for it in items) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > x.ndim:
        raise IndexError(f"too many indices for tensor: tensor is {x.ndim}-dimensional, but {consumed} were indexed")
    out = []
    for it in items:
        if it is Ellipsis:
            out.extend([slice(None)] * (x.ndim - consumed))
        else:
            out.append(it)
    if not any(it is Ellipsis for it in items):
        out.extend([slice(None)] * (x.ndim - consumed))
    # None -> unsqueeze at that position, then a full slice there.
    none_pos = []
    pos = 0
    final = []
    for it in out:
        if it is None:
            none_pos.append(pos)
            final.append(slice(None))
            pos += 1
        elif isinstance(it, Tensor) and it.dtype.name == "bool":
            # A k-dim mask becomes k integer index tensors (its nonzero coordinates).
            if it.ndim > 0 and _symbolic(it):
                # A program value: its coordinates are an op too (their count is -1 until it runs).
                final.extend(_C.unbind(_C.nonzero_coords(it), 1))
                pos += it.ndim
                continue
            nz = np.nonzero(it.numpy())
            if it.ndim == 0:
                none_pos.append(pos)
                final.append(_C._from_array(np.array([0] if bool(it.numpy()) else [], dtype=np.int64), True))
                pos += 1
                continue
            for k, coords in enumerate(nz):
                final.append(_C._from_array(coords.astype(np.int64), True))
            pos += it.ndim
        else:
            final.append(it)
            pos += 1
    if none_pos:
        x = _C.unsqueeze(x, none_pos)
    return x, final


_END = 2 ** 62  # "to the end" for a dim whose size is known only when a program runs


def getitem(x, item):
    x, items = _expand(x, item)
    axes, starts, ends, strides, int_axes, adv = [], [], [], [], [], []
    late_ints = []  # (dim, index) on dims of unknown size: checked when the program runs
    for dim, it in enumerate(items):
        n = x.shape[dim]
        if n < 0 and isinstance(it, int):
            late_ints.append((dim, it))
            int_axes.append(dim)
            continue
        if n < 0 and isinstance(it, slice):
            # A program value's dim of unknown size: strided_slice resolves negative and open
            # bounds against the real size at run time.
            step = 1 if it.step is None else it.step
            if step == 0:
                raise ValueError("slice step cannot be zero")
            start = it.start if it.start is not None else (0 if step > 0 else _END)
            stop = it.stop if it.stop is not None else (_END if step > 0 else -_END)
            if (start, stop, step) != (0, _END, 1):
                axes.append(dim); starts.append(start); ends.append(stop); strides.append(step)
            continue
        if isinstance(it, int):
            if it < -n or it >= n:
                raise IndexError(f"index {it} is out of bounds for axis {dim} with size {n}; "
                                 f"it should be in the range [{-n}, {n})")
            it = it % n
            axes.append(dim); starts.append(it); ends.append(it + 1); strides.append(1)
            int_axes.append(dim)
        elif isinstance(it, slice):
            if it.step == 0:
                raise ValueError("slice step cannot be zero")
            start, stop, step = it.indices(n)
            if (start, stop, step) == (0, n, 1):
                continue
            if step < 0 and stop < 0:
                stop = -n - 1  # "before element 0" for a negative step
            if step < 0 and start < 0:
                start, stop = 0, 0  # empty selection
            axes.append(dim); starts.append(start); ends.append(stop); strides.append(step)
        else:
            adv.append((dim, it))
    y = _C.strided_slice(x, axes, starts, ends, strides) if axes else x
    for dim, it in late_ints:  # index_select checks the bounds (and takes negatives) at run time
        y = _C.index_select(y, to_tensor([it], dtype="int64"), dim)
    if adv:
        adv_dims = [d for d, _ in adv]
        others = [d for d in range(y.ndim) if d not in adv_dims]
        perm = adv_dims + others
        z = _C.transpose(y, perm) if perm != list(range(y.ndim)) else y
        z = _C.index_tensor(z, [t for _, t in adv])
        k = z.ndim - len(others)  # dims produced by the advanced indices
        consecutive = adv_dims == list(range(adv_dims[0], adv_dims[0] + len(adv_dims)))
        # Int-indexed dims are squeezed below; track where the others went.
        new_pos = {d: k + i for i, d in enumerate(others)}
        if consecutive and adv_dims[0] > 0:
            before = [d for d in others if d < adv_dims[0]]
            order = [new_pos[d] for d in before] + list(range(k)) + [new_pos[d] for d in others if d > adv_dims[0]]
            z = _C.transpose(z, order)
            new_pos = {}
            pos = 0
            for d in before:
                new_pos[d] = pos; pos += 1
            pos += k
            for d in others:
                if d > adv_dims[0]:
                    new_pos[d] = pos; pos += 1
        sq = [new_pos[d] for d in int_axes]
        return _C.squeeze(z, sq) if sq else z
    return _C.squeeze(y, int_axes) if int_axes else y


class _SetItem:
    """out = x with out[item] = value, differentiable in x and value."""

    @staticmethod
    def apply(x, item, value):

        class SetItemLayer(PyLayer):
            @staticmethod
            def forward(ctx, x, value):
                out = x.clone()
                _assign_no_grad(out, item, value)
                ctx.value_shape = value.shape
                return out

            @staticmethod
            def backward(ctx, grad):
                gx = grad.clone()
                _assign_no_grad(gx, item, _C.zeros([], grad.dtype))
                gv = getitem(grad, item)
                gv = _reduce_to_shape(gv, ctx.value_shape)
                return gx, gv

        return SetItemLayer.apply(x, value)


def _reduce_to_shape(g, shape):
    """Sum g over broadcast dims so that it has `shape` (used by setitem's backward)."""
    shape = list(shape)
    if list(g.shape) == shape:
        return g
    lead = g.ndim - len(shape)
    axes = [i for i in range(g.ndim) if i < lead or (shape[i - lead] == 1 and g.shape[i] != 1)]
    if axes:
        g = _C.sum(g, axes, None, True)
    return _C.reshape_exact(g, shape)


def _assign_no_grad(x, item, value):
    prev = _C.is_grad_enabled()
    _C._set_grad_enabled(False)
    try:
        x2, items = _expand(x, item)
        if any(isinstance(it, Tensor) for it in items):
            view = getitem(x, item)  # shape of the target region
            if not isinstance(value, Tensor):
                value = _C.full([], value, x.dtype)
            idx_value = _C.cast(value, x.dtype) if value.dtype != x.dtype else value
            idx_value = _C.broadcast_to(idx_value, view.shape) if list(idx_value.shape) != view.shape else idx_value
            # Write through index_put on the leading advanced dims after a transpose-free path:
            # only pure advanced indexing over leading dims is supported here.
            adv = [it for it in items if isinstance(it, Tensor)]
            lead_ok = all(isinstance(it, Tensor) for it in items[:len(adv)]) and all(
                isinstance(it, slice) and it == slice(None) for it in items[len(adv):])
            if not lead_ok or x2 is not x and x2.ndim != x.ndim:
                raise NotImplementedError("assignment with integer-array indices mixed with slices or "
                                          "ints is not supported yet; index the leading dimensions only")
            r = _C.index_put(x, adv, idx_value, False)
            x.copy_(r)
        else:
            view = getitem(x, item)
            if not isinstance(value, Tensor):
                value = _C.full([], value, x.dtype)
            view.copy_(value)
    finally:
        _C._set_grad_enabled(prev)


def setitem(x, item, value):
    if not isinstance(value, Tensor):
        value = _C._from_array(np.asarray(value, dtype=None), True) if isinstance(value, (list, np.ndarray)) else value
    needs_grad = _C.is_grad_enabled() and (not x.stop_gradient or (isinstance(value, Tensor) and not value.stop_gradient))
    if needs_grad:
        if x.is_leaf and not x.stop_gradient:
            raise ValueError("__setitem__: Leaf Tensor that doesn't stop gradient can't use inplace strategy.")
        if not isinstance(value, Tensor):
            value = _C.full([], value, x.dtype)
        if value.dtype != x.dtype:
            value = _C.cast(value, x.dtype)
        r = _SetItem.apply(x, item, value)
        _C._assign_inplace(x, r)
        return
    if isinstance(value, Tensor) and value.dtype != x.dtype:
        value = _C.cast(value, x.dtype)
    _assign_no_grad(x, item, value)


def iterate(self):
    """iter(x) (Tensor.__iter__): x[0], x[1], ... along the first dim."""
    return (self[i] for i in range(len(self)))
