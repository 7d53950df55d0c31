"""oar.nn, as paddle.nn: Layer and its containers, the layer classes, initializers and functional."""
from . import functional, initializer  # noqa: F401
from ..framework.param_attr import ParamAttr  # noqa: F401
from ..framework.parameter import Parameter  # noqa: F401
from .layer.layers import Layer  # noqa: F401
from .layer.container import Sequential, LayerList, LayerDict, ParameterList, ParameterDict  # noqa: F401

# PyTorch spellings that Paddle 3 also accepts.
Module, ModuleList, ModuleDict = Layer, LayerList, LayerDict

# Recurrent layers.
from .layer.rnn import (  # noqa: F401
    RNNCellBase, SimpleRNNCell, LSTMCell, GRUCell, RNN, BiRNN, SimpleRNN, LSTM, GRU,
)
