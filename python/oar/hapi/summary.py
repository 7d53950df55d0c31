"""oar.summary, as paddle.summary: one row per layer (input shapes, output shape, own parameter count)
from a forward pass on zeros, then totals and memory estimates."""
import numpy as np

from .. import _C
from ..framework import dtype as D

_LINE = 75
_ROW = "{:^15} {:^20} {:^20} {:^15}"


def _shape_list(value):
    if isinstance(value, _C.Tensor):
        return list(value.shape)
    if isinstance(value, (list, tuple)):
        return [_shape_list(v) for v in value]
    return []


def _numel(shape):
    if shape and isinstance(shape[0], list):
        return sum(_numel(s) for s in shape)
    return int(np.prod(shape)) if shape else 0


def _is_container(layer):
    from ..nn import LayerList, Sequential
    return isinstance(layer, (Sequential, LayerList))


def _make_inputs(input_size, dtypes):
    """Zero tensors for every shape in input_size (a tuple, a list of tuples, or InputSpecs); an
    unknown (None or -1) batch dimension becomes 1."""
    def is_shape(s):
        return isinstance(s, (list, tuple)) and all(isinstance(d, (int, np.integer)) or d is None for d in s)

    def build(size, dtype):
        if hasattr(size, "shape") and not isinstance(size, (list, tuple)):  # an InputSpec
            dtype, size = getattr(size, "dtype", dtype), size.shape
        if not is_shape(size):
            raise ValueError(f"summary: 'input_size' must be a shape, a list of shapes or InputSpecs, "
                             f"but got {size!r}")
        shape = [1 if (d is None or d == -1) else int(d) for d in size]
        return _C.zeros(shape, D.convert_dtype(dtype or "float32"))

    if is_shape(input_size) or hasattr(input_size, "shape"):
        sizes = [input_size]
    elif isinstance(input_size, (list, tuple)):
        sizes = list(input_size)
    else:
        raise ValueError(f"summary: 'input_size' must be a shape, a list of shapes or InputSpecs, but got "
                         f"{input_size!r}")
    if dtypes is None or isinstance(dtypes, (str, D.dtype)):
        dtypes = [dtypes] * len(sizes)
    if len(dtypes) != len(sizes):
        raise ValueError(f"summary: got {len(sizes)} input sizes but {len(dtypes)} dtypes")
    return [build(s, d) for s, d in zip(sizes, dtypes)]


def summary(net, input_size=None, dtypes=None, input=None):
    """Prints the table and returns {'total_params': ..., 'trainable_params': ...}."""
    from ..autograd import no_grad
    if input is None and input_size is None:
        raise ValueError("summary: give either 'input_size' or 'input'")
    if input is not None:
        inputs = list(input) if isinstance(input, (list, tuple)) else [input]
    else:
        inputs = _make_inputs(input_size, dtypes)

    rows, hooks = [], []

    def record(layer, layer_inputs, output):
        own = [p for p in layer._parameters.values() if p is not None]
        rows.append({
            "key": f"{type(layer).__name__}-{int(layer.full_name().rsplit('_', 1)[-1]) + 1}",
            "input": [_shape_list(x) for x in layer_inputs],
            "output": _shape_list(output),
            "params": sum(p.size for p in own),
            "trainable": sum(p.size for p in own if not p.stop_gradient),
        })

    for layer in net.sublayers():
        if not _is_container(layer):
            hooks.append(layer.register_forward_post_hook(record))
    if not list(net.children()):
        hooks.append(net.register_forward_post_hook(record))
    was_training = net.training
    net.eval()
    try:
        with no_grad():
            net(*inputs)
    finally:
        for h in hooks:
            h.remove()
        if was_training:
            net.train()

    total = sum(r["params"] for r in rows)
    trainable = sum(r["trainable"] for r in rows)
    lines = ["-" * _LINE, _ROW.format("Layer (type)", "Input Shape", "Output Shape", "Param #"), "=" * _LINE]
    for r in rows:
        lines.append(_ROW.format(r["key"], str(r["input"]), str(r["output"]), f"{r['params']:,}"))
    input_mb = sum(x.size for x in inputs) * 4.0 / 1024 ** 2
    activations_mb = 2.0 * sum(_numel(r["output"]) for r in rows) * 4.0 / 1024 ** 2
    params_mb = total * 4.0 / 1024 ** 2
    lines += ["=" * _LINE, f"Total params: {total:,}", f"Trainable params: {trainable:,}",
              f"Non-trainable params: {total - trainable:,}", "-" * _LINE,
              f"Input size (MB): {input_mb:.2f}", f"Forward/backward pass size (MB): {activations_mb:.2f}",
              f"Params size (MB): {params_mb:.2f}",
              f"Estimated Total Size (MB): {input_mb + activations_mb + params_mb:.2f}", "-" * _LINE]
    print("\n".join(lines))
    return {"total_params": np.int64(total), "trainable_params": np.int64(trainable)}
