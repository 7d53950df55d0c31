"""Activations (paddle.nn.functional): the generated C++ ops under Paddle's names and arguments."""
from ... import _C

__all__ = ["relu", "relu6", "leaky_relu", "elu", "gelu", "silu", "sigmoid", "hardsigmoid",
           "hardswish", "softplus", "tanh", "softmax", "log_softmax", "relu_", "softmax_"]

relu = _C.relu
relu6 = _C.relu6
leaky_relu = _C.leaky_relu
elu = _C.elu
gelu = _C.gelu
silu = _C.silu
sigmoid = _C.sigmoid
hardsigmoid = _C.hardsigmoid
hardswish = _C.hardswish
softplus = _C.softplus
tanh = _C.tanh
softmax = _C.softmax
log_softmax = _C.log_softmax
relu_ = _C.relu_
softmax_ = _C.softmax_
