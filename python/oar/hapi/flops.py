"""oar.flops, as paddle.flops: counts the multiply-accumulates of a forward pass per leaf layer with
Paddle's counting rules (conv: output elements x (in/groups x kernel + bias); linear: output
elements x in_features; batch norm in eval: 2 per element; average pools: 1 per output (adaptive:
kernel + 1); activations, dropout and other layers: 0 unless custom_ops says otherwise)."""
import math

import numpy as np

from .. import _C


def _conv(layer, inputs, output):
    kernel = math.prod(layer.weight.shape[2:])
    bias = 1 if layer.bias is not None else 0
    return int(output.size * (inputs[0].shape[1] / layer._groups * kernel + bias))


def _linear(layer, inputs, output):
    return layer.weight.shape[0] * output.size


def _batch_norm(layer, inputs, output):
    return 0 if layer.training else 2 * inputs[0].size


def _avg_pool(layer, inputs, output):
    return output.size


def _adaptive_avg_pool(layer, inputs, output):
    kernel = np.array(inputs[0].shape[2:]) // np.array(output.shape[2:])
    return int((int(np.prod(kernel)) + 1) * output.size)


def _elements(layer, inputs, output):
    return inputs[0].size


def _zero(layer, inputs, output):
    return 0


def _counters():
    from .. import nn
    table = {nn.Conv1D: _conv, nn.Conv2D: _conv, nn.Conv3D: _conv, nn.Conv1DTranspose: _conv,
             nn.Conv2DTranspose: _conv, nn.Conv3DTranspose: _conv, nn.BatchNorm2D: _batch_norm,
             nn.BatchNorm: _batch_norm, nn.Linear: _linear, nn.Dropout: _zero, nn.AvgPool1D: _avg_pool,
             nn.AvgPool2D: _avg_pool, nn.AvgPool3D: _avg_pool, nn.AdaptiveAvgPool1D: _adaptive_avg_pool,
             nn.AdaptiveAvgPool2D: _adaptive_avg_pool, nn.AdaptiveAvgPool3D: _adaptive_avg_pool}
    for name, rule in (("ReLU", _zero), ("ReLU6", _zero), ("LeakyReLU", _elements)):
        if hasattr(nn, name):
            table[getattr(nn, name)] = rule
    return table


def _table(rows):
    """Paddle's bordered table: cells centred by str.center (its odd-margin rule, not format's ^),
    one space of margin each side."""
    header = ["Layer Name", "Input Shape", "Output Shape", "Params", "Flops"]
    cells = [[str(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) + 2 for i, h in enumerate(header)] if cells else \
        [len(h) + 2 for h in header]
    border = "+" + "+".join("-" * w for w in widths) + "+"
    def line(values):
        return "|" + "|".join(str(v).center(w) for v, w in zip(values, widths)) + "|"
    return "\n".join([border, line(header), border] + [line(r) for r in cells] + [border])


def flops(net, input_size, custom_ops=None, print_detail=False):
    """Returns the total FLOPs of net on one input of `input_size`; prints per-layer rows when asked."""
    from ..autograd import no_grad
    from ..nn import Layer
    if not isinstance(net, Layer):
        raise TypeError(f"flops: 'net' must be an oar.nn.Layer, but got {type(net).__name__}")
    custom_ops = custom_ops or {}
    counters = _counters()
    results, hooks, announced = {}, [], set()

    def attach(layer):
        if list(layer.children()):
            return
        kind = type(layer)
        rule = custom_ops.get(kind) or counters.get(kind)
        if kind not in announced:
            announced.add(kind)
            if kind in custom_ops:
                print(f"Customize Function has been applied to {kind}")
            elif rule is not None:
                print(f"{kind}'s flops has been counted")
            else:
                print(f"Cannot find suitable count function for {kind}. Treat it as zero FLOPs.")

        def count(layer, inputs, output):
            if kind in custom_ops:
                # A Paddle-style custom counter adds to layer.total_ops.
                layer.__dict__["total_ops"] = 0
                custom_ops[kind](layer, inputs, output)
                ops = int(layer.__dict__.pop("total_ops"))
            else:
                ops = rule(layer, inputs, output) if rule is not None else 0
            params = sum(p.size for p in layer.parameters())
            results[id(layer)] = (list(inputs[0].shape), list(output.shape), params, abs(int(ops)))
        hooks.append(layer.register_forward_post_hook(count))

    was_training = net.training
    net.eval()
    net.apply(attach)
    try:
        with no_grad():
            net(_C.randn(list(input_size)))
    finally:
        for h in hooks:
            h.remove()
        if was_training:
            net.train()
    rows = []
    for layer in net.sublayers(include_self=True):
        if id(layer) in results:
            rows.append([layer.full_name(), *results[id(layer)]])
    total_ops = sum(r[4] for r in rows)
    total_params = sum(r[3] for r in rows)
    if print_detail:
        print(_table(rows))
    print(f"Total Flops: {total_ops}     Total Params: {total_params}")
    return total_ops
