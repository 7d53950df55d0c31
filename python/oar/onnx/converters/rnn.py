"""rnn_layer (one layer and direction of oar.nn.SimpleRNN/LSTM/GRU) as ONNX RNN, LSTM or GRU.

oar keeps Paddle's gate order: LSTM [input, forget, cell, output], GRU [reset, update, new];
ONNX wants LSTM [input, output, forget, cell] and GRU [update, reset, hidden], with a direction
axis in front of every weight, and [W_b, R_b] as one bias. oar's GRU applies the reset gate to
the hidden projection with its bias (Paddle's, and cuDNN's): ONNX's linear_before_reset=1.
"""
import numpy as np

from ..graph import Unsupported
from .registry import converts

# mode -> (ONNX operator, gate count, oar gate block for each ONNX gate block, extra attrs)
_MODES = {
    "LSTM": ("LSTM", 4, [0, 3, 1, 2], {}),
    "GRU": ("GRU", 3, [1, 0, 2], {"linear_before_reset": 1}),
    "RNN_TANH": ("RNN", 1, [0], {"activations": ["Tanh"]}),
    "RNN_RELU": ("RNN", 1, [0], {"activations": ["Relu"]}),
}


def _reordered(ctx, slot, gates, order, what):
    array = ctx.array(slot)
    if array is None:
        raise Unsupported(f"{ctx.op.where()}: its {what} is computed by the program; only weights "
                          "(parameters) convert to an ONNX recurrent op")
    blocks = np.split(np.asarray(array), gates, axis=0)
    return np.concatenate([blocks[k] for k in order], axis=0)[None]


@converts("rnn_layer")
def rnn_layer(ctx):
    mode = ctx.attr("mode")
    if mode not in _MODES:
        raise Unsupported(f"{ctx.op.where()}: mode '{mode}' has no ONNX recurrent op")
    if ctx.has(8):
        raise Unsupported(f"{ctx.op.where()}: a projected LSTM (proj_size) has no ONNX form")
    if ctx.used(3):
        raise Unsupported(f"{ctx.op.where()}: its reserve (kept for the backward) is read")
    op_type, gates, order, attrs = _MODES[mode]
    hidden = ctx.shape(1)[0] // gates
    dtype = np.asarray(ctx.array(1)).dtype if ctx.array(1) is not None else np.float32
    w = ctx.const(_reordered(ctx, 1, gates, order, "weight_ih"), "W")
    r = ctx.const(_reordered(ctx, 2, gates, order, "weight_hh"), "R")
    biases = [_reordered(ctx, s, gates, order, "bias")[0] if ctx.has(s)
              else np.zeros(gates * hidden, dtype=dtype) for s in (3, 4)]
    b = ctx.const(np.concatenate(biases)[None], "B")
    seq = ctx.cast(ctx.inp(7), "int32") if ctx.has(7) else ""
    h0 = ctx.unsqueeze(ctx.inp(5), [0])
    ins = [ctx.inp(0), w, r, b, seq, h0]
    if mode == "LSTM":
        ins.append(ctx.unsqueeze(ctx.inp(6), [0]) if ctx.has(6) else "")
    n_out = 3 if mode == "LSTM" else 2
    outs = ctx.node(op_type, ins, n_out, hidden_size=hidden,
                    direction="reverse" if ctx.attr("is_reverse") else "forward", **attrs)
    ctx.squeeze(outs[0], [1], [ctx.out(0)])          # Y [T, 1, B, H] -> [T, B, H]
    for k in range(1, n_out):
        if ctx.used(k):
            ctx.squeeze(outs[k], [0], [ctx.out(k)])  # Y_h, Y_c [1, B, H] -> [B, H]
