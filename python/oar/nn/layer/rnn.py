"""Recurrent layers, as paddle.nn: the cells (SimpleRNNCell, LSTMCell, GRUCell), the wrappers
that run any cell over time (RNN, BiRNN) and the multi-layer networks (SimpleRNN, LSTM, GRU).

The networks run one fused C++ op per layer and direction (_C.rnn_layer: the input projection of
all steps as one GEMM, the time loop and its gates in C++, backward through time in C++). The
wrappers keep Paddle's Python time loop, which works for any cell.
"""
import math

from ... import _C
from ...framework.dtype import get_default_dtype
from ...tensor.manipulation import split, unstack
from .. import functional as F
from .. import initializer as I
from .layers import Layer
from .container import LayerList

_BIDIRECTIONAL = ("bidirectional", "bidirect")


# ---- nested structures of states (tuples/lists of tensors) -----------------------------------
def _flatten(x):
    if isinstance(x, (list, tuple)):
        out = []
        for v in x:
            out.extend(_flatten(v))
        return out
    return [x]


def _map(fn, *structs):
    first = structs[0]
    if isinstance(first, (list, tuple)):
        return type(first)(_map(fn, *parts) for parts in zip(*structs))
    return fn(*structs)


def _is_shape(s):
    return isinstance(s, (list, tuple)) and all(isinstance(v, int) for v in s)


def _map_shapes(fn, shapes):
    if _is_shape(shapes):
        return fn(shapes)
    return type(shapes)(_map_shapes(fn, s) for s in shapes)


# ---- cells -------------------------------------------------------------------------------------
def _check_hidden(layer, hidden_size):
    if hidden_size <= 0:
        raise ValueError(f"hidden_size of {type(layer).__name__} must be greater than 0, but now "
                         f"equals to {hidden_size}")


def _cell_parameter(layer, shape, attr, is_bias, std):
    """Paddle's rule: attr=False still makes the parameter, constant (1 for weights, 0 for
    biases) and frozen; otherwise Uniform(-std, std) unless attr names an initializer."""
    if attr is not False:
        return layer.create_parameter(shape, attr, is_bias=is_bias,
                                      default_initializer=I.Uniform(-std, std))
    p = layer.create_parameter(shape, None, is_bias=is_bias,
                               default_initializer=I.Constant(0.0 if is_bias else 1.0))
    p.stop_gradient = True
    return p


class RNNCellBase(Layer):
    """Base class of the recurrent cells: a cell maps ``(inputs, states)`` to
    ``(outputs, new_states)`` for one time step; RNN and BiRNN run it over a sequence.

    Subclasses define ``forward(inputs, states)`` and the ``state_shape`` property (the shape of
    each state without the batch dimension, nested like the states).

    Examples:
        >>> import oar
        >>> class Accumulate(oar.nn.RNNCellBase):
        ...     def forward(self, inputs, states=None):
        ...         if states is None:
        ...             states = self.get_initial_states(inputs, self.state_shape)
        ...         new = states + inputs
        ...         return new, new
        ...     @property
        ...     def state_shape(self):
        ...         return [2]
        >>> outputs, final = oar.nn.RNN(Accumulate())(oar.ones([1, 3, 2]))
        >>> print(final)
        Tensor(shape=[1, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[3., 3.]])
    """

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0.0, batch_dim_idx=0):
        """States filled with ``init_value``, the batch size taken from ``batch_ref``.

        Args:
            batch_ref (Tensor|list): A tensor (or nest of them, the first is used) holding the batch.
            shape (list|tuple, optional): Shape(s) of the states without the batch dimension (a
                leading -1 stands for it); None uses ``state_shape``. Default: None.
            dtype (str, optional): Data type(s); None uses ``state_dtype`` or the default dtype.
                Default: None.
            init_value (float, optional): The fill value. Default: 0.0.
            batch_dim_idx (int, optional): The batch dimension of batch_ref. Default: 0.

        Returns:
            Tensor|list: the states, nested as ``shape``.
        """
        batch_ref = _flatten(batch_ref)[0]
        shapes = self.state_shape if shape is None else shape
        if dtype is None:
            try:
                dtype = self.state_dtype
            except NotImplementedError:
                dtype = get_default_dtype()
        batch = batch_ref.shape[batch_dim_idx]
        flat_dtypes = _flatten(dtype) if isinstance(dtype, (list, tuple)) else [dtype]

        def full(s, dt):
            s = list(s) if s[0] == -1 else [-1, *s]
            s[0] = batch
            return _C.full(s, init_value, dt)

        if len(flat_dtypes) == 1:
            return _map_shapes(lambda s: full(s, flat_dtypes[0]), shapes)
        it = iter(flat_dtypes)
        return _map_shapes(lambda s: full(s, next(it)), shapes)

    @property
    def state_shape(self):
        raise NotImplementedError("Please add implementation for `state_shape` in the used cell.")

    @property
    def state_dtype(self):
        raise NotImplementedError("Please add implementation for `state_dtype` in the used cell.")


class SimpleRNNCell(RNNCellBase):
    """Elman RNN cell: ``h = act(x @ weight_ih^T + bias_ih + h_prev @ weight_hh^T + bias_hh)``.

    Args:
        input_size (int): Size of each input feature vector.
        hidden_size (int): Size of the hidden state.
        activation (str, optional): 'tanh' or 'relu'. Default: 'tanh'.
        weight_ih_attr (ParamAttr|bool, optional): Attribute of weight_ih; False makes it a frozen
            constant. Default: None.
        weight_hh_attr (ParamAttr|bool, optional): Attribute of weight_hh. Default: None.
        bias_ih_attr (ParamAttr|bool, optional): Attribute of bias_ih; False makes it a frozen
            zero. Default: None.
        bias_hh_attr (ParamAttr|bool, optional): Attribute of bias_hh. Default: None.
        name (str, optional): Layer name; usually left unset. Default: None.

    All weights and biases start as Uniform(-1 / sqrt(hidden_size), 1 / sqrt(hidden_size)). weight_ih is [hidden_size, input_size], weight_hh [hidden_size, hidden_size].

    Call:
        ``forward(inputs, states=None)``: inputs [batch, input_size], states [batch, hidden_size]
        (zeros if None). Returns ``(outputs, new_states)``, both the new hidden state.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> cell = oar.nn.SimpleRNNCell(16, 32)
        >>> y, h = cell(oar.randn([4, 16]))
        >>> print(y.shape, h.shape)
        [4, 32] [4, 32]
    """

    def __init__(self, input_size, hidden_size, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        _check_hidden(self, hidden_size)
        std = 1.0 / math.sqrt(hidden_size)
        self.weight_ih = _cell_parameter(self, (hidden_size, input_size), weight_ih_attr, False, std)
        self.weight_hh = _cell_parameter(self, (hidden_size, hidden_size), weight_hh_attr, False, std)
        self.bias_ih = _cell_parameter(self, (hidden_size,), bias_ih_attr, True, std)
        self.bias_hh = _cell_parameter(self, (hidden_size,), bias_hh_attr, True, std)
        self.input_size = input_size
        self.hidden_size = hidden_size
        if activation not in ("tanh", "relu"):
            raise ValueError(f"activation for SimpleRNNCell should be tanh or relu, but get {activation}")
        self.activation = activation
        self._activation_fn = _C.tanh if activation == "tanh" else F.relu

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        i2h = _C.matmul(inputs, self.weight_ih, transpose_y=True)
        if self.bias_ih is not None:
            i2h = i2h + self.bias_ih
        h2h = _C.matmul(states, self.weight_hh, transpose_y=True)
        if self.bias_hh is not None:
            h2h = h2h + self.bias_hh
        h = self._activation_fn(i2h + h2h)
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.activation != "tanh":
            s += f", activation={self.activation}"
        return s


class LSTMCell(RNNCellBase):
    """Long short-term memory cell, gates in Paddle's order i, f, g, o:
    ``c = f * c_prev + i * g``, ``h = o * tanh(c)`` (then ``h @ weight_ho`` when proj_size > 0),
    with i, f, o sigmoid gates and g the tanh cell candidate, each computed from
    ``x @ weight_ih^T + bias_ih + h_prev @ weight_hh^T + bias_hh``.

    Args:
        input_size (int): Size of each input feature vector.
        hidden_size (int): Size of the cell state.
        weight_ih_attr (ParamAttr|bool, optional): Attribute of weight_ih; False makes it a frozen
            constant. Default: None.
        weight_hh_attr (ParamAttr|bool, optional): Attribute of weight_hh. Default: None.
        bias_ih_attr (ParamAttr|bool, optional): Attribute of bias_ih; False makes it a frozen
            zero. Default: None.
        bias_hh_attr (ParamAttr|bool, optional): Attribute of bias_hh. Default: None.
        proj_size (int, optional): If > 0, the hidden state is projected to this size.
            Default: 0.
        name (str, optional): Layer name; usually left unset. Default: None.

    All weights and biases start as Uniform(-1 / sqrt(hidden_size), 1 / sqrt(hidden_size)).

    Call:
        ``forward(inputs, states=None)``: inputs [batch, input_size], states ``(h, c)`` (zeros if
        None). Returns ``(h, (h, c))``.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> cell = oar.nn.LSTMCell(16, 32)
        >>> y, (h, c) = cell(oar.randn([4, 16]))
        >>> print(y.shape, h.shape, c.shape)
        [4, 32] [4, 32] [4, 32]
    """

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None):
        super().__init__()
        _check_hidden(self, hidden_size)
        if proj_size < 0:
            raise ValueError(f"proj_size of {type(self).__name__} must be greater than 0, but now "
                             f"equals to {hidden_size}")
        if proj_size >= hidden_size:
            raise ValueError("proj_size must be smaller than hidden_size")
        std = 1.0 / math.sqrt(hidden_size)
        G = 4 * hidden_size
        self.weight_ih = _cell_parameter(self, (G, input_size), weight_ih_attr, False, std)
        self.weight_hh = _cell_parameter(self, (G, proj_size or hidden_size), weight_hh_attr, False, std)
        self.bias_ih = _cell_parameter(self, (G,), bias_ih_attr, True, std)
        self.bias_hh = _cell_parameter(self, (G,), bias_hh_attr, True, std)
        self.proj_size = proj_size
        if proj_size > 0:
            self.weight_ho = self.create_parameter((hidden_size, proj_size), weight_hh_attr,
                                                   default_initializer=I.Uniform(-std, std))
        self.hidden_size = hidden_size
        self.input_size = input_size

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        pre_hidden, pre_cell = states
        gates = _C.matmul(inputs, self.weight_ih, transpose_y=True)
        if self.bias_ih is not None:
            gates = gates + self.bias_ih
        gates = gates + _C.matmul(pre_hidden, self.weight_hh, transpose_y=True)
        if self.bias_hh is not None:
            gates = gates + self.bias_hh
        i, f, g, o = split(gates, 4, -1)
        i, f, o = F.sigmoid(i), F.sigmoid(f), F.sigmoid(o)
        c = f * pre_cell + i * _C.tanh(g)
        h = o * _C.tanh(c)
        if self.proj_size > 0:
            h = _C.matmul(h, self.weight_ho)
        return h, (h, c)

    @property
    def state_shape(self):
        # As Paddle 3.3 (which lists the hidden size first even when projected).
        return ((self.hidden_size,), (self.proj_size or self.hidden_size,))

    def extra_repr(self):
        return f"{self.input_size}, {self.hidden_size}"


class GRUCell(RNNCellBase):
    """Gated recurrent unit cell, gates in Paddle's order r, z, c:
    ``r, z = sigmoid(...)``, ``c = tanh(x_c + r * (h_prev @ weight_hc^T + bias_hc))``,
    ``h = (h_prev - c) * z + c``; the reset gate scales the hidden projection after the matmul.

    Args:
        input_size (int): Size of each input feature vector.
        hidden_size (int): Size of the hidden state.
        weight_ih_attr (ParamAttr|bool, optional): Attribute of weight_ih; False makes it a frozen
            constant. Default: None.
        weight_hh_attr (ParamAttr|bool, optional): Attribute of weight_hh. Default: None.
        bias_ih_attr (ParamAttr|bool, optional): Attribute of bias_ih; False makes it a frozen
            zero. Default: None.
        bias_hh_attr (ParamAttr|bool, optional): Attribute of bias_hh. Default: None.
        name (str, optional): Layer name; usually left unset. Default: None.

    All weights and biases start as Uniform(-1 / sqrt(hidden_size), 1 / sqrt(hidden_size)).

    Call:
        ``forward(inputs, states=None)``: inputs [batch, input_size], states [batch, hidden_size]
        (zeros if None). Returns ``(h, h)``.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> cell = oar.nn.GRUCell(16, 32)
        >>> y, h = cell(oar.randn([4, 16]))
        >>> print(y.shape, h.shape)
        [4, 32] [4, 32]
    """

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        _check_hidden(self, hidden_size)
        std = 1.0 / math.sqrt(hidden_size)
        G = 3 * hidden_size
        self.weight_ih = _cell_parameter(self, (G, input_size), weight_ih_attr, False, std)
        self.weight_hh = _cell_parameter(self, (G, hidden_size), weight_hh_attr, False, std)
        self.bias_ih = _cell_parameter(self, (G,), bias_ih_attr, True, std)
        self.bias_hh = _cell_parameter(self, (G,), bias_hh_attr, True, std)
        self.hidden_size = hidden_size
        self.input_size = input_size

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        pre_hidden = states
        x_gates = _C.matmul(inputs, self.weight_ih, transpose_y=True)
        if self.bias_ih is not None:
            x_gates = x_gates + self.bias_ih
        h_gates = _C.matmul(pre_hidden, self.weight_hh, transpose_y=True)
        if self.bias_hh is not None:
            h_gates = h_gates + self.bias_hh
        x_r, x_z, x_c = split(x_gates, 3, 1)
        h_r, h_z, h_c = split(h_gates, 3, 1)
        r = F.sigmoid(x_r + h_r)
        z = F.sigmoid(x_z + h_z)
        c = _C.tanh(x_c + r * h_c)
        h = (pre_hidden - c) * z + c
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self):
        return f"{self.input_size}, {self.hidden_size}"


# ---- running a cell over time (any cell; Python time loop as Paddle's dygraph rnn) -----------
def _zero_states(inputs, batch_index, lead, sizes):
    """Zero initial states [lead, batch, size] for each size, batch being inputs' dim batch_index.
    A program with a dynamic batch (its shape holds -1, or a tensor under dy2static) cannot make
    them with full(): they are shaped from the input when the program runs."""
    batch = inputs.shape[batch_index]
    if isinstance(batch, int) and batch >= 0:
        return tuple(_C.full([lead, batch, size], 0.0, inputs.dtype) for size in sizes)
    other = [d for d in range(inputs.ndim) if d != batch_index]
    one = _C.slice(inputs, other, [0] * len(other), [1] * len(other))  # [B, 1, 1] or [1, B, 1]
    zero = _C.full_like(one, 0.0)
    if batch_index == 0:
        zero = _C.transpose(zero, [1, 0, 2])
    return tuple(_C.expand(zero, [lead, -1, size]) for size in sizes)


def _swap_batch_time(x):
    return _C.transpose(x, [1, 0, *range(2, x.ndim)])


def _run_cell(cell, inputs, initial_states=None, sequence_length=None, time_major=False,
              is_reverse=False, **kwargs):
    """Steps `cell` over the time axis. With sequence_length, a padded step keeps the previous
    states (its output is still computed, as in Paddle's loop)."""
    time_axis = 0 if time_major else 1
    steps = _flatten(inputs)[0].shape[time_axis]
    if initial_states is None:
        initial_states = cell.get_initial_states(batch_ref=inputs, batch_dim_idx=1 if time_major else 0)
    if not time_major:
        inputs = _map(_swap_batch_time, inputs)
    mask = None
    if sequence_length is not None:
        mask = _C.transpose(F.sequence_mask(sequence_length, maxlen=steps,
                                            dtype=_flatten(inputs)[0].dtype), [1, 0])
    if is_reverse:
        inputs = _map(lambda x: _C.flip(x, [0]), inputs)
        if mask is not None:
            mask = _C.flip(mask, [0])
    states = initial_states
    outputs = None
    new_states = states
    for i in range(steps):
        step_inputs = _map(lambda x: x[i], inputs)
        step_outputs, new_states = cell(step_inputs, states, **kwargs)
        if mask is not None:
            m = _C.unsqueeze(mask[i], [-1])
            new_states = _map(lambda old, new: old * (1.0 - m) + new * m, states, new_states)
        states = new_states
        if outputs is None:
            outputs = _map(lambda x: [x], step_outputs)
        else:
            _map(lambda x, acc: acc.append(x), step_outputs, outputs)

    def finish(acc):
        out = _C.stack(acc, time_axis)
        return _C.flip(out, [time_axis]) if is_reverse else out

    if outputs is None:
        raise ValueError("RNN: the input has no time steps (time dimension is 0)")
    final_outputs = _map_lists(finish, outputs)
    return final_outputs, new_states


def _map_lists(fn, struct):
    """Applies fn to each innermost list of tensors (the per-step output accumulators)."""
    if isinstance(struct, list) and (not struct or not isinstance(struct[0], (list, tuple))):
        return fn(struct)
    return type(struct)(_map_lists(fn, s) for s in struct)


class RNN(Layer):
    """Runs a recurrent cell over the time steps of a sequence.

    Args:
        cell (RNNCellBase): The cell run at every step.
        is_reverse (bool, optional): Run from the last step to the first. Default: False.
        time_major (bool, optional): Inputs are [time, batch, ...] instead of [batch, time, ...].
            Default: False.

    Call:
        ``forward(inputs, initial_states=None, sequence_length=None, **kwargs)``: inputs
        [batch, time, ...]; initial_states as the cell takes them (zeros if None);
        sequence_length [batch]: steps past a sequence's length keep its state; kwargs go to the
        cell. Returns ``(outputs, final_states)``, outputs stacked along the time axis.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> rnn = oar.nn.RNN(oar.nn.GRUCell(16, 32))
        >>> outputs, final = rnn(oar.randn([4, 5, 16]))
        >>> print(outputs.shape, final.shape)
        [4, 5, 32] [4, 32]
    """

    def __init__(self, cell, is_reverse=False, time_major=False):
        super().__init__()
        self.cell = cell
        if not hasattr(self.cell, "call"):
            self.cell.call = self.cell.forward
        self.is_reverse = is_reverse
        self.time_major = time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        return _run_cell(self.cell, inputs, initial_states, sequence_length, self.time_major,
                         self.is_reverse, **kwargs)


class BiRNN(Layer):
    """Runs one cell forwards and another backwards over a sequence and concatenates their outputs.

    Args:
        cell_fw (RNNCellBase): The forward cell.
        cell_bw (RNNCellBase): The backward cell.
        time_major (bool, optional): Inputs are [time, batch, ...] instead of [batch, time, ...].
            Default: False.

    Call:
        ``forward(inputs, initial_states=None, sequence_length=None, **kwargs)``: initial_states
        is a pair (forward, backward) or None. Returns ``(outputs, (final_fw, final_bw))``,
        outputs concatenated along the last axis.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> birnn = oar.nn.BiRNN(oar.nn.GRUCell(16, 32), oar.nn.GRUCell(16, 32))
        >>> outputs, (final_fw, final_bw) = birnn(oar.randn([4, 5, 16]))
        >>> print(outputs.shape, final_fw.shape)
        [4, 5, 64] [4, 32]
    """

    def __init__(self, cell_fw, cell_bw, time_major=False):
        super().__init__()
        self.cell_fw = cell_fw
        self.cell_bw = cell_bw
        if cell_fw.input_size != cell_bw.input_size:
            raise ValueError(f"input size of forward cell({cell_fw.input_size}) does not equals"
                             f"that of backward cell({cell_bw.input_size})")
        for cell in (self.cell_fw, self.cell_bw):
            if not hasattr(cell, "call"):
                cell.call = cell.forward
        self.time_major = time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        if isinstance(initial_states, (list, tuple)):
            if len(initial_states) != 2:
                raise ValueError("BiRNN: length of initial_states should be 2 when it is a list/tuple, "
                                 f"got {len(initial_states)}")
            states_fw, states_bw = initial_states
        else:
            states_fw = states_bw = initial_states
        out_fw, st_fw = _run_cell(self.cell_fw, inputs, states_fw, sequence_length, self.time_major,
                                  False, **kwargs)
        out_bw, st_bw = _run_cell(self.cell_bw, inputs, states_bw, sequence_length, self.time_major,
                                  True, **kwargs)
        outputs = _map(lambda a, b: _C.concat([a, b], -1), out_fw, out_bw)
        return outputs, (st_fw, st_bw)


# ---- multi-layer networks over the fused kernel ------------------------------------------------
def _split_states(states, bidirectional, components):
    """[L*D, B, C] (or a tuple of them) -> per layer (and per direction) cell states."""
    if components == 1:
        parts = unstack(states, 0)
        return parts if not bidirectional else list(zip(parts[::2], parts[1::2]))
    per = list(zip(*[unstack(s, 0) for s in states]))
    return per if not bidirectional else list(zip(per[::2], per[1::2]))


def _concat_states(states, components):
    flat = _flatten(states)
    if components == 1:
        return _C.stack(flat, 0)
    return tuple(_C.stack(flat[i::components], 0) for i in range(components))


class RNNBase(LayerList):
    """Shared body of SimpleRNN, LSTM and GRU: num_layers of RNN/BiRNN-wrapped cells, whose
    parameters are also exposed as weight_ih_l{k}[_reverse] etc. (Paddle's state dict names)."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.dropout = dropout
        self.num_directions = 2 if direction in _BIDIRECTIONAL else 1
        self.time_major = time_major
        self.num_layers = num_layers
        self.state_components = 2 if mode == "LSTM" else 1
        kwargs = {"weight_ih_attr": weight_ih_attr, "weight_hh_attr": weight_hh_attr,
                  "bias_ih_attr": bias_ih_attr, "bias_hh_attr": bias_hh_attr}
        self.proj_size = proj_size
        if proj_size > 0 and mode != "LSTM":
            raise ValueError(f"{type(self).__name__}: proj_size is only supported by LSTM, got mode {mode}")
        if mode == "LSTM":
            cell_cls = LSTMCell
            kwargs["proj_size"] = proj_size
        elif mode == "GRU":
            cell_cls = GRUCell
        elif mode == "RNN_RELU":
            cell_cls, kwargs["activation"] = SimpleRNNCell, "relu"
        elif mode == "RNN_TANH":
            cell_cls, kwargs["activation"] = SimpleRNNCell, "tanh"
        else:
            cell_cls, kwargs["activation"] = SimpleRNNCell, self.activation
        in_size = proj_size or hidden_size
        if direction == "forward":
            self.append(RNN(cell_cls(input_size, hidden_size, **kwargs), False, time_major))
            for _ in range(1, num_layers):
                self.append(RNN(cell_cls(in_size, hidden_size, **kwargs), False, time_major))
        elif direction in _BIDIRECTIONAL:
            self.append(BiRNN(cell_cls(input_size, hidden_size, **kwargs),
                              cell_cls(input_size, hidden_size, **kwargs), time_major))
            for _ in range(1, num_layers):
                self.append(BiRNN(cell_cls(2 * in_size, hidden_size, **kwargs),
                                  cell_cls(2 * in_size, hidden_size, **kwargs), time_major))
        else:
            raise ValueError("direction should be forward or bidirect (or bidirectional), "
                             f"received direction = {direction}")
        # The aliases, named in Paddle's order and zipped with the parameters in creation order
        # (as Paddle does, so the state dict names match Paddle's, projected LSTMs included).
        names = []
        for layer in range(num_layers):
            for d in range(self.num_directions):
                suffix = "_reverse" if d == 1 else ""
                names.extend(["weight_ih_l{}{}", "weight_hh_l{}{}"])
                if bias_ih_attr is not False:
                    names.append("bias_ih_l{}{}")
                if bias_hh_attr is not False:
                    names.append("bias_hh_l{}{}")
                names = [n.format(layer, suffix) for n in names]
        for name, param in zip(names, self.parameters()):
            setattr(self, name, param)

    def flatten_parameters(self):
        """Paddle packs the parameters for cuDNN; on CPU there is nothing to do."""

    def _cells(self, layer):
        sub = self[layer]
        return [sub.cell] if self.num_directions == 1 else [sub.cell_fw, sub.cell_bw]

    def forward(self, inputs, initial_states=None, sequence_length=None):
        batch_index = 1 if self.time_major else 0
        if inputs.ndim != 3:
            raise ValueError(f"{type(self).__name__}: the input must be 3-D "
                             f"({'[time, batch, input_size]' if self.time_major else '[batch, time, input_size]'}), "
                             f"got shape {list(inputs.shape)}")
        if initial_states is None:
            sizes = (self.proj_size or self.hidden_size, self.hidden_size)[:self.state_components]
            initial_states = _zero_states(inputs, batch_index, self.num_layers * self.num_directions, sizes)
        elif isinstance(initial_states, _C.Tensor):
            initial_states = [initial_states]
        if self.state_components == 1 and isinstance(initial_states, (list, tuple)):
            if len(initial_states) != 1:
                raise ValueError(f"{type(self).__name__}: initial_states must be one tensor, got "
                                 f"{len(initial_states)}")
            initial_states = initial_states[0]
        elif self.state_components == 2 and (not isinstance(initial_states, (list, tuple))
                                             or len(initial_states) != 2):
            raise ValueError("LSTM: initial_states must be a tuple (h, c)")
        if self.proj_size > 0 and sequence_length is not None:
            # Paddle runs projected LSTMs through its Python loop, whose masking differs from
            # the fused op's (padded steps still produce outputs): follow it exactly.
            return self._cell_loop(inputs, initial_states, sequence_length)
        return self._fused(inputs, initial_states, sequence_length)

    def _cell_loop(self, inputs, initial_states, sequence_length):
        states = _split_states(initial_states, self.num_directions == 2, self.state_components)
        finals = []
        for i, layer in enumerate(self):
            if i > 0:
                inputs = F.dropout(inputs, self.dropout, training=self.training, mode="upscale_in_train")
            outputs, final = layer(inputs, states[i], sequence_length)
            finals.append(final)
            inputs = outputs
        return outputs, _concat_states(finals, self.state_components)

    def _fused(self, inputs, initial_states, sequence_length):
        lstm = self.state_components == 2
        h_all = initial_states[0] if lstm else initial_states
        c_all = initial_states[1] if lstm else None
        x = inputs if self.time_major else _swap_batch_time(inputs)
        mode = self.mode if self.mode in ("LSTM", "GRU", "RNN_RELU", "RNN_TANH") else \
            ("RNN_RELU" if self.activation == "relu" else "RNN_TANH")
        last_h, last_c = [], []
        for layer in range(self.num_layers):
            if layer > 0 and self.dropout > 0:
                x = F.dropout(x, self.dropout, training=self.training, mode="upscale_in_train")
            outs = []
            for d, cell in enumerate(self._cells(layer)):
                k = layer * self.num_directions + d
                out, h, c, _ = _C.rnn_layer(
                    x, cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh, h_all[k],
                    c_all[k] if lstm else None, sequence_length,
                    getattr(cell, "weight_ho", None) if lstm else None, mode, d == 1)
                outs.append(out)
                last_h.append(h)
                last_c.append(c)
            x = outs[0] if len(outs) == 1 else _C.concat(outs, -1)
        outputs = x if self.time_major else _swap_batch_time(x)
        final_h = _C.stack(last_h, 0)
        return outputs, ((final_h, _C.stack(last_c, 0)) if lstm else final_h)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.time_major is not False:
            s += f", time_major={self.time_major}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        return s


class SimpleRNN(RNNBase):
    """Multi-layer Elman RNN over a sequence, in one or both directions.

    Each layer computes ``h_t = act(x_t @ W_ih^T + b_ih + h_{t-1} @ W_hh^T + b_hh)``.

    Args:
        input_size (int): Size of each input feature vector.
        hidden_size (int): Size of the hidden state.
        num_layers (int, optional): Number of stacked layers. Default: 1.
        direction (str, optional): 'forward', or 'bidirect' (also 'bidirectional') to run a second
            layer backwards and concatenate the outputs. Default: 'forward'.
        time_major (bool, optional): Inputs are [time, batch, ...] instead of [batch, time, ...].
            Default: False.
        dropout (float, optional): Dropout probability on the outputs of every layer but the last.
            Default: 0.0.
        activation (str, optional): 'tanh' or 'relu'. Default: 'tanh'.
        weight_ih_attr (ParamAttr|bool, optional): Attribute of weight_ih; False makes it a frozen
            constant. Default: None.
        weight_hh_attr (ParamAttr|bool, optional): Attribute of weight_hh. Default: None.
        bias_ih_attr (ParamAttr|bool, optional): Attribute of bias_ih; False makes it a frozen
            zero. Default: None.
        bias_hh_attr (ParamAttr|bool, optional): Attribute of bias_hh. Default: None.
        name (str, optional): Layer name; usually left unset. Default: None.

    All weights and biases start as Uniform(-1 / sqrt(hidden_size), 1 / sqrt(hidden_size)).

    Call:
        ``forward(inputs, initial_states=None, sequence_length=None)``: inputs
        [batch, time, input_size]; initial_states [L, batch, hidden_size]
        (zeros if None); sequence_length [batch] int: steps past a sequence's length keep its
        state. Returns ``(outputs, final_states)``: outputs
        [batch, time, num_directions * hidden_size] and final_states [L, batch, hidden_size], where
        L = num_layers * num_directions.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> rnn = oar.nn.SimpleRNN(16, 32, num_layers=2)
        >>> outputs, final = rnn(oar.randn([4, 5, 16]))
        >>> print(outputs.shape, final.shape)
        [4, 5, 32] [2, 4, 32]
    """

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward", time_major=False,
                 dropout=0.0, activation="tanh", weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        if activation == "tanh":
            mode = "RNN_TANH"
        elif activation == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown activation '{activation}'")
        self.activation = activation
        super().__init__(mode, input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)


class LSTM(RNNBase):
    """Multi-layer LSTM over a sequence, in one or both directions.

    Each layer runs an LSTMCell (see there for the gates) over the time steps.

    Args:
        input_size (int): Size of each input feature vector.
        hidden_size (int): Size of the hidden state.
        num_layers (int, optional): Number of stacked layers. Default: 1.
        direction (str, optional): 'forward', or 'bidirect' (also 'bidirectional') to run a second
            layer backwards and concatenate the outputs. Default: 'forward'.
        time_major (bool, optional): Inputs are [time, batch, ...] instead of [batch, time, ...].
            Default: False.
        dropout (float, optional): Dropout probability on the outputs of every layer but the last.
            Default: 0.0.
        weight_ih_attr (ParamAttr|bool, optional): Attribute of weight_ih; False makes it a frozen
            constant. Default: None.
        weight_hh_attr (ParamAttr|bool, optional): Attribute of weight_hh. Default: None.
        bias_ih_attr (ParamAttr|bool, optional): Attribute of bias_ih; False makes it a frozen
            zero. Default: None.
        bias_hh_attr (ParamAttr|bool, optional): Attribute of bias_hh. Default: None.
        proj_size (int, optional): If > 0, the hidden state is projected to this size (h is
            then [L, batch, proj_size]). Default: 0.
        name (str, optional): Layer name; usually left unset. Default: None.

    All weights and biases start as Uniform(-1 / sqrt(hidden_size), 1 / sqrt(hidden_size)).

    Call:
        ``forward(inputs, initial_states=None, sequence_length=None)``: inputs
        [batch, time, input_size]; initial_states (h, c), each [L, batch, hidden_size]
        (zeros if None); sequence_length [batch] int: steps past a sequence's length keep its
        state. Returns ``(outputs, final_states)``: outputs
        [batch, time, num_directions * hidden_size] and final_states (h, c), where
        L = num_layers * num_directions.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> lstm = oar.nn.LSTM(16, 32, num_layers=2, direction="bidirect")
        >>> outputs, (h, c) = lstm(oar.randn([4, 5, 16]))
        >>> print(outputs.shape, h.shape, c.shape)
        [4, 5, 64] [4, 4, 32] [4, 4, 32]
    """

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward", time_major=False,
                 dropout=0.0, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, proj_size=0, name=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, proj_size)


class GRU(RNNBase):
    """Multi-layer GRU over a sequence, in one or both directions.

    Each layer runs a GRUCell (see there for the gates) over the time steps.

    Args:
        input_size (int): Size of each input feature vector.
        hidden_size (int): Size of the hidden state.
        num_layers (int, optional): Number of stacked layers. Default: 1.
        direction (str, optional): 'forward', or 'bidirect' (also 'bidirectional') to run a second
            layer backwards and concatenate the outputs. Default: 'forward'.
        time_major (bool, optional): Inputs are [time, batch, ...] instead of [batch, time, ...].
            Default: False.
        dropout (float, optional): Dropout probability on the outputs of every layer but the last.
            Default: 0.0.
        weight_ih_attr (ParamAttr|bool, optional): Attribute of weight_ih; False makes it a frozen
            constant. Default: None.
        weight_hh_attr (ParamAttr|bool, optional): Attribute of weight_hh. Default: None.
        bias_ih_attr (ParamAttr|bool, optional): Attribute of bias_ih; False makes it a frozen
            zero. Default: None.
        bias_hh_attr (ParamAttr|bool, optional): Attribute of bias_hh. Default: None.
        name (str, optional): Layer name; usually left unset. Default: None.

    All weights and biases start as Uniform(-1 / sqrt(hidden_size), 1 / sqrt(hidden_size)).

    Call:
        ``forward(inputs, initial_states=None, sequence_length=None)``: inputs
        [batch, time, input_size]; initial_states [L, batch, hidden_size]
        (zeros if None); sequence_length [batch] int: steps past a sequence's length keep its
        state. Returns ``(outputs, final_states)``: outputs
        [batch, time, num_directions * hidden_size] and final_states [L, batch, hidden_size], where
        L = num_layers * num_directions.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> gru = oar.nn.GRU(16, 32)
        >>> outputs, final = gru(oar.randn([4, 5, 16]), sequence_length=oar.to_tensor([5, 3, 2, 5]))
        >>> print(outputs.shape, final.shape)
        [4, 5, 32] [1, 4, 32]
    """

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward", time_major=False,
                 dropout=0.0, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, name=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
