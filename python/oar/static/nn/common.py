"""Layers as functions for static programs (paddle.static.nn.fc, conv2d, batch_norm, ...): each
creates its weights with values now (as the matching nn layer does) and records its ops."""
from ...framework import mode
from ..program import current_tracer


def _act(out, act):
    if act is None:
        return out
    from ...nn import functional as F
    fn = getattr(F, act, None)
    if fn is None:
        raise ValueError(f"unknown activation '{act}'")
    return fn(out)


def _layer(api, make):
    current_tracer(api)
    with mode.eager():
        return make()


def fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None, name=None):
    """A fully connected layer over x flattened from num_flatten_dims (paddle.static.nn.fc)."""
    from ... import nn
    import oar
    if not isinstance(size, int) or size <= 0:
        raise ValueError(f"fc: size must be a positive int, got {size!r}")
    xs = x if isinstance(x, (list, tuple)) else [x]
    outs = []
    for xi in xs:
        if not 1 <= num_flatten_dims < xi.ndim:
            raise ValueError(f"fc: num_flatten_dims must be in [1, {xi.ndim - 1}], got {num_flatten_dims}")
        in_features = 1
        for d in xi.shape[num_flatten_dims:]:
            if d < 0:
                raise ValueError(f"fc: the dims of x after num_flatten_dims must be known, x has shape {xi.shape}")
            in_features *= d
        layer = _layer("fc", lambda: nn.Linear(in_features, size, weight_attr=weight_attr,
                                                 bias_attr=bias_attr if len(outs) == 0 else False))
        flat = oar.flatten(xi, start_axis=num_flatten_dims) if xi.ndim > num_flatten_dims + 1 else xi
        outs.append(layer(flat))
    out = outs[0]
    for o in outs[1:]:
        out = out + o
    return _act(out, activation)


def conv2d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None, param_attr=None,
           bias_attr=None, use_cudnn=True, act=None, name=None, data_format="NCHW"):
    """A 2-D convolution layer (paddle.static.nn.conv2d): makes its filter and bias (as
    oar.nn.Conv2D, with values now) and records the convolution, then `act` if given."""
    from ... import nn
    channels = input.shape[1 if data_format == "NCHW" else 3]
    if channels < 0:
        raise ValueError(f"conv2d: the channel dim of input must be known, input has shape {input.shape}")
    layer = _layer("conv2d", lambda: nn.Conv2D(channels, num_filters, filter_size, stride=stride, padding=padding,
                                               dilation=dilation, groups=groups or 1, weight_attr=param_attr,
                                               bias_attr=bias_attr, data_format=data_format))
    return _act(layer(input), act)


def batch_norm(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None, bias_attr=None,
               data_layout="NCHW", in_place=False, name=None, moving_mean_name=None, moving_variance_name=None,
               do_model_average_for_mean_and_var=True, use_global_stats=False):
    """Batch normalization layer (paddle.static.nn.batch_norm): makes its scale, bias and
    running statistics (as oar.nn.BatchNorm) and records the normalization; in training runs
    the running statistics are updated in place."""
    from ... import nn
    channels = input.shape[1 if data_layout in ("NCHW", "NCL", "NC") else -1]
    if channels < 0:
        raise ValueError(f"batch_norm: the channel dim of input must be known, input has shape {input.shape}")
    layer = _layer("batch_norm", lambda: nn.BatchNorm(channels, momentum=momentum, epsilon=epsilon,
                                                      param_attr=param_attr, bias_attr=bias_attr,
                                                      data_layout=data_layout, is_test=is_test,
                                                      use_global_stats=use_global_stats))
    return _act(layer(input), act)


def layer_norm(input, scale=True, shift=True, begin_norm_axis=1, epsilon=1e-05, param_attr=None,
               bias_attr=None, act=None, name=None):
    """Layer normalization over the dims from begin_norm_axis (paddle.static.nn.layer_norm),
    with an optional scale and shift (as oar.nn.LayerNorm)."""
    from ... import nn
    shape = input.shape[begin_norm_axis:]
    if any(d < 0 for d in shape):
        raise ValueError(f"layer_norm: the normalized dims must be known, input has shape {input.shape}")
    layer = _layer("layer_norm", lambda: nn.LayerNorm(shape, epsilon=epsilon,
                                                      weight_attr=param_attr if scale else False,
                                                      bias_attr=bias_attr if shift else False))
    return _act(layer(input), act)


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None, param_attr=None,
              dtype="float32"):
    """An embedding lookup layer (paddle.static.nn.embedding): makes the table [size[0],
    size[1]] (as oar.nn.Embedding) and records the lookup of `input`'s ids."""
    from ... import nn
    layer = _layer("embedding", lambda: nn.Embedding(size[0], size[1], padding_idx=padding_idx,
                                                     weight_attr=param_attr))
    return layer(input)


# ---- layers that make their parameters directly, named as Paddle's static layers name them
# ("<layer>_<n>.w_<k>" / ".b_<k>") ----

def _check_attr(api, attr):
    from ..misc import WeightNormParamAttr
    if isinstance(attr, WeightNormParamAttr):
        raise TypeError(f"{api}: weight normalization (WeightNormParamAttr) is not supported by static "
                        f"programs; use oar.nn.utils.weight_norm on a layer instead")


def _param(api, prefix, attr, shape, dtype, is_bias=False, default_initializer=None):
    """A parameter `<prefix>.w_<k>` (`.b_<k>` for a bias) made now, with values; None for attr=False."""
    from ...framework.param_attr import ParamAttr
    from ...nn.initializer.initializer import make_parameter
    _check_attr(api, attr)
    attr = ParamAttr._to_attr(attr)
    if attr is False:
        return None
    return make_parameter(shape, dtype, attr, is_bias, default_initializer, prefix + (".b" if is_bias else ".w"))


def _prefix(api, layer_type):
    from ...utils import unique_name
    current_tracer(api)
    return unique_name.generate(layer_type)


def _known(api, x, dims, what):
    for d in dims:
        if x.shape[d] < 0:
            raise ValueError(f"{api}: the {what} of the input must be known, the input has shape {x.shape}")


def _ntuple(v, n, api, arg):
    if isinstance(v, int):
        return [v] * n
    if isinstance(v, (list, tuple)) and len(v) == n and all(isinstance(i, int) for i in v):
        return list(v)
    raise ValueError(f"{api}: '{arg}' must be an int or a list of {n} ints, got {v!r}")


def _float_dtype(api, x):
    if x.dtype not in ("float32", "float64", "float16", "bfloat16"):
        raise TypeError(f"{api}: the input must be float16, bfloat16, float32 or float64, got {x.dtype}")
    return x.dtype


def _conv_nd_transpose(api, input, num_filters, output_size, filter_size, padding, stride, dilation, groups,
                       param_attr, bias_attr, act, data_format, nd):
    from ...nn import functional as F
    from ...nn.initializer import Normal
    import math
    if data_format not in (("NCHW", "NHWC") if nd == 2 else ("NCDHW", "NDHWC")):
        raise ValueError(f"{api}: data_format must be {'NCHW or NHWC' if nd == 2 else 'NCDHW or NDHWC'}, "
                         f"got {data_format!r}")
    if input.ndim != nd + 2:
        raise ValueError(f"{api}: the input must be {nd + 2}-D, got shape {input.shape}")
    dtype = _float_dtype(api, input)
    channel_last = data_format[-1] == "C"
    cdim = input.ndim - 1 if channel_last else 1
    spatial = list(range(1, 1 + nd)) if channel_last else list(range(2, 2 + nd))
    _known(api, input, [cdim], "channel dim")
    channels = input.shape[cdim]
    groups = 1 if groups is None else groups
    if not isinstance(groups, int) or groups <= 0 or channels % groups:
        raise ValueError(f"{api}: groups must be a positive int dividing the {channels} input channels, got {groups}")
    stride = _ntuple(stride, nd, api, "stride")
    dilation = _ntuple(dilation, nd, api, "dilation")
    transposed = output_size is not None or filter_size is None or api.endswith("transpose")
    if filter_size is None:
        if output_size is None:
            raise ValueError(f"{api}: output_size must be set when filter_size is None")
        if isinstance(padding, str):
            raise ValueError(f"{api}: filter_size must be set when padding is {padding!r}")
        out = _ntuple(output_size, nd, api, "output_size")
        pad = _ntuple(padding, nd, api, "padding") if not (isinstance(padding, (list, tuple))
                                                            and len(padding) == 2 * nd) else None
        pairs = [(p, p) for p in pad] if pad is not None else [(padding[2 * i], padding[2 * i + 1]) for i in range(nd)]
        _known(api, input, spatial, "spatial dims")
        filter_size = [(out[i] - (input.shape[spatial[i]] - 1) * stride[i] + pairs[i][0] + pairs[i][1] - 1)
                       // dilation[i] + 1 for i in range(nd)]
    filter_size = _ntuple(filter_size, nd, api, "filter_size")
    prefix = _prefix(api, api.split(".")[-1])
    if transposed:
        wshape = [channels, num_filters // groups] + filter_size
        init = None
    else:
        wshape = [num_filters, channels // groups] + filter_size
        init = Normal(0.0, math.sqrt(2.0 / (math.prod(filter_size) * channels)))
    with mode.eager():
        w = _param(api, prefix, param_attr, wshape, dtype, default_initializer=init)
        b = _param(api, prefix, bias_attr, [num_filters], dtype, is_bias=True)
    if transposed:
        fn = F.conv2d_transpose if nd == 2 else F.conv3d_transpose
        out = fn(input, w, b, stride=stride, padding=padding, dilation=dilation, groups=groups,
                 output_size=output_size, data_format=data_format)
    else:
        out = F.conv3d(input, w, b, stride=stride, padding=padding, dilation=dilation, groups=groups,
                       data_format=data_format)
    return _act(out, act)


def conv2d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0, stride=1, dilation=1,
                     groups=None, param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
                     data_format="NCHW"):
    """A 2-D transposed convolution layer (paddle.static.nn.conv2d_transpose): makes its filter
    ``conv2d_transpose_<n>.w_0`` [C_in, num_filters / groups, KH, KW] and bias ``.b_0``
    [num_filters] and records the convolution. filter_size may be left out when output_size is
    given: it is then the filter that makes that output size.

    Args:
        input (Tensor): [N, C, H, W] (or NHWC), float32 or float64.
        num_filters (int): Output channels.
        output_size (int|list, optional): The output's spatial size. Default: None.
        filter_size (int|list, optional): The filter's spatial size. Default: None.
        padding (int|list|str, optional): As in oar.nn.functional.conv2d_transpose. Default: 0.
        stride (int|list, optional): Default: 1.
        dilation (int|list, optional): Default: 1.
        groups (int, optional): Default: None (1).
        param_attr (ParamAttr, optional): The filter's attribute. Default: None.
        bias_attr (ParamAttr|bool, optional): The bias's attribute; False: no bias. Default: None.
        use_cudnn (bool, optional): Unused. Default: True.
        act (str, optional): An activation applied to the result. Default: None.
        name (str, optional): Unused. Default: None.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.

    Returns:
        Tensor: [N, num_filters, H_out, W_out] (in the input's layout).

    Examples:
        >>> import oar
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     x = oar.static.data('x', [2, 4, 5, 5], 'float32')
        ...     y = oar.static.nn.conv2d_transpose(x, 3, filter_size=3)
        >>> print(y.shape)
        [2, 3, 7, 7]
        >>> oar.disable_static()
    """
    return _conv_nd_transpose("conv2d_transpose", input, num_filters, output_size, filter_size, padding, stride,
                              dilation, groups, param_attr, bias_attr, act, data_format, 2)


def conv3d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None, param_attr=None,
           bias_attr=None, use_cudnn=True, act=None, name=None, data_format="NCDHW"):
    """A 3-D convolution layer (paddle.static.nn.conv3d): makes its filter ``conv3d_<n>.w_0``
    [num_filters, C / groups, KD, KH, KW] (normal, std sqrt(2 / (KD * KH * KW * C))) and bias
    ``.b_0`` [num_filters], and records the convolution.

    Args:
        input (Tensor): [N, C, D, H, W] (or NDHWC), float32 or float64.
        num_filters (int): Output channels.
        filter_size (int|list): The filter's spatial size.
        stride, padding, dilation, groups: As in oar.nn.functional.conv3d (groups None: 1).
        param_attr (ParamAttr, optional): The filter's attribute. Default: None.
        bias_attr (ParamAttr|bool, optional): The bias's attribute; False: no bias. Default: None.
        use_cudnn (bool, optional): Unused. Default: True.
        act (str, optional): An activation applied to the result. Default: None.
        name (str, optional): Unused. Default: None.
        data_format (str, optional): 'NCDHW' or 'NDHWC'. Default: 'NCDHW'.

    Returns:
        Tensor: [N, num_filters, D_out, H_out, W_out] (in the input's layout).

    Examples:
        >>> import oar
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     x = oar.static.data('x', [2, 4, 3, 5, 5], 'float32')
        ...     y = oar.static.nn.conv3d(x, 3, 3)
        >>> print(y.shape)
        [2, 3, 1, 3, 3]
        >>> oar.disable_static()
    """
    if filter_size is None:
        raise ValueError("conv3d: filter_size must be set")
    return _conv_nd_transpose("conv3d", input, num_filters, None, filter_size, padding, stride, dilation, groups,
                              param_attr, bias_attr, act, data_format, 3)


def conv3d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0, stride=1, dilation=1,
                     groups=None, param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
                     data_format="NCDHW"):
    """A 3-D transposed convolution layer (paddle.static.nn.conv3d_transpose): makes its filter
    ``conv3d_transpose_<n>.w_0`` [C_in, num_filters / groups, KD, KH, KW] and bias ``.b_0``
    and records the convolution; filter_size may be left out when output_size is given.

    Args:
        input (Tensor): [N, C, D, H, W] (or NDHWC), float32 or float64.
        num_filters (int): Output channels.
        output_size (int|list, optional): The output's spatial size. Default: None.
        filter_size (int|list, optional): The filter's spatial size. Default: None.
        padding, stride, dilation, groups: As in oar.nn.functional.conv3d_transpose.
        param_attr (ParamAttr, optional): The filter's attribute. Default: None.
        bias_attr (ParamAttr|bool, optional): The bias's attribute; False: no bias. Default: None.
        use_cudnn (bool, optional): Unused. Default: True.
        act (str, optional): An activation applied to the result. Default: None.
        name (str, optional): Unused. Default: None.
        data_format (str, optional): 'NCDHW' or 'NDHWC'. Default: 'NCDHW'.

    Returns:
        Tensor: [N, num_filters, D_out, H_out, W_out] (in the input's layout).

    Examples:
        >>> import oar
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     x = oar.static.data('x', [2, 4, 3, 5, 5], 'float32')
        ...     y = oar.static.nn.conv3d_transpose(x, 3, filter_size=2)
        >>> print(y.shape)
        [2, 3, 4, 6, 6]
        >>> oar.disable_static()
    """
    return _conv_nd_transpose("conv3d_transpose", input, num_filters, output_size, filter_size, padding, stride,
                              dilation, groups, param_attr, bias_attr, act, data_format, 3)


def group_norm(input, groups, epsilon=1e-05, param_attr=None, bias_attr=None, act=None, data_layout="NCHW",
               name=None):
    """Group normalization (paddle.static.nn.group_norm). As Paddle's static layer, the scale
    ``group_norm_<n>.w_0`` (ones) and bias ``.b_0`` (zeros), both [C], are made only when
    param_attr / bias_attr are given (a ParamAttr or True); None makes none.

    Args:
        input (Tensor): [N, C, ...] (NCHW) or [N, ..., C] (NHWC), at least 2-D.
        groups (int): How many groups the channels form.
        epsilon (float, optional): Added to the variance. Default: 1e-05.
        param_attr (ParamAttr|bool, optional): The scale's attribute. Default: None (no scale).
        bias_attr (ParamAttr|bool, optional): The bias's attribute. Default: None (no bias).
        act (str, optional): An activation applied to the result. Default: None.
        data_layout (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.
        name (str, optional): Unused. Default: None.

    Returns:
        Tensor: the input's shape and dtype.

    Examples:
        >>> import oar
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     x = oar.static.data('x', [2, 4, 3, 3], 'float32')
        ...     y = oar.static.nn.group_norm(x, 2)
        >>> print(y.shape)
        [2, 4, 3, 3]
        >>> oar.disable_static()
    """
    from ...nn import functional as F
    from ...nn.initializer import Constant
    dtype = _float_dtype("group_norm", input)
    if input.ndim < 2:
        raise ValueError(f"group_norm: the input must be at least 2-D, got shape {input.shape}")
    if data_layout not in ("NCHW", "NHWC"):
        raise ValueError(f"group_norm: data_layout must be 'NCHW' or 'NHWC', got {data_layout!r}")
    cdim = 1 if data_layout == "NCHW" else input.ndim - 1
    _known("group_norm", input, [cdim], "channel dim")
    prefix = _prefix("group_norm", "group_norm")
    c = input.shape[cdim]
    with mode.eager():
        w = _param("group_norm", prefix, param_attr, [c], dtype, default_initializer=Constant(1.0)) \
            if param_attr else None
        b = _param("group_norm", prefix, bias_attr, [c], dtype, is_bias=True) if bias_attr else None
    fmt = {True: "NCHW", False: "NHWC"}[data_layout == "NCHW"]
    if input.ndim != 4:
        fmt = {3: "NCL", 5: "NCDHW", 2: "NCL"}.get(input.ndim, fmt) if data_layout == "NCHW" else \
            {3: "NLC", 5: "NDHWC"}.get(input.ndim, fmt)
    x = input.unsqueeze(-1) if input.ndim == 2 else input
    out = F.group_norm(x, groups, epsilon=epsilon, weight=w, bias=b, data_format=fmt)
    if input.ndim == 2:
        out = out.squeeze(-1)
    return _act(out, act)


def instance_norm(input, epsilon=1e-05, param_attr=None, bias_attr=None, name=None):
    """Instance normalization over each sample's channel (paddle.static.nn.instance_norm). As
    Paddle's static layer, the scale ``instance_norm_<n>.w_0`` (ones) and bias ``.b_0`` (zeros),
    [C], are made only when both param_attr and bias_attr are given (ParamAttr or True); with
    None there are none, and False for one needs False for the other.

    Args:
        input (Tensor): [N, C, ...], 2-D to 5-D.
        epsilon (float, optional): Added to the variance. Default: 1e-05.
        param_attr (ParamAttr|bool, optional): The scale's attribute. Default: None.
        bias_attr (ParamAttr|bool, optional): The bias's attribute. Default: None.
        name (str, optional): Unused. Default: None.

    Returns:
        Tensor: the input's shape and dtype.

    Examples:
        >>> import oar
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     x = oar.static.data('x', [2, 4, 3, 3], 'float32')
        ...     y = oar.static.nn.instance_norm(x)
        >>> print(y.shape)
        [2, 4, 3, 3]
        >>> oar.disable_static()
    """
    from ...nn import functional as F
    from ...nn.initializer import Constant
    if param_attr is False and bias_attr is not False:
        raise AssertionError("param_attr and bias_attr must be set to False at the same time in instance_norm")
    dtype = _float_dtype("instance_norm", input)
    if not 2 <= input.ndim <= 5:
        raise ValueError(f"instance_norm: expected 2D or 3D or 4D or 5D input (got {input.ndim}D input, "
                         f"input shape is: {input.shape})")
    _known("instance_norm", input, [1], "channel dim")
    prefix = _prefix("instance_norm", "instance_norm")
    c = input.shape[1]
    w = b = None
    if param_attr and bias_attr:
        with mode.eager():
            w = _param("instance_norm", prefix, param_attr, [c], dtype, default_initializer=Constant(1.0))
            b = _param("instance_norm", prefix, bias_attr, [c], dtype, is_bias=True)
    x = input.unsqueeze(-1) if input.ndim == 2 else input
    out = F.instance_norm(x, weight=w, bias=b, eps=epsilon)
    return out.squeeze(-1) if input.ndim == 2 else out


def prelu(x, mode, param_attr=None, data_format="NCHW", name=None):
    """Parametric ReLU (paddle.static.nn.prelu): x where x > 0, alpha * x elsewhere, with the
    slope parameter ``prelu_<n>.w_0`` (0.25) of shape [1] (mode 'all'), one per channel
    ([1, C, 1, ...] in NCHW, [1, ..., C] channel-last: mode 'channel'), or one per element
    ([1] + x.shape[1:]: mode 'element').

    Args:
        x (Tensor): The input, float32 or float64.
        mode (str): 'all', 'channel' or 'element'.
        param_attr (ParamAttr, optional): The slope's attribute. Default: None.
        data_format (str, optional): 'NCHW'/'NCL'/'NCDHW' or channel-last. Default: 'NCHW'.
        name (str, optional): Unused. Default: None.

    Returns:
        Tensor: x's shape and dtype.

    Examples:
        >>> import oar, numpy as np
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     x = oar.static.data('x', [1, 2], 'float32')
        ...     y = oar.static.nn.prelu(x, 'all')
        >>> exe = oar.static.Executor()
        >>> print(exe.run(main, feed={'x': np.array([[-4., 2.]], 'float32')}, fetch_list=[y])[0])
        [[-1.  2.]]
        >>> oar.disable_static()
    """
    from ... import maximum, minimum, zeros_like
    from ...nn.initializer import Constant
    if mode not in ("all", "channel", "element"):
        raise ValueError("prelu: mode should be one of all, channel, element.")
    dtype = _float_dtype("prelu", x)
    if mode == "all":
        shape = [1]
    elif mode == "channel":
        if x.ndim < 2:
            raise ValueError(f"prelu: the input must be at least 2-D in mode 'channel', got shape {x.shape}")
        if data_format not in ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
            raise ValueError(f"prelu: data_format must be one of NC, NCL, NCHW, NCDHW, NLC, NHWC, NDHWC, "
                             f"got {data_format!r}")
        cdim = 1 if data_format[1] == "C" else x.ndim - 1
        _known("prelu", x, [cdim], "channel dim")
        shape = [1] * x.ndim
        shape[cdim] = x.shape[cdim]
    else:
        if x.ndim < 1 or any(d < 0 for d in x.shape[1:]):
            raise ValueError(f"prelu: in mode 'element' the dims after the first must be known, got {x.shape}")
        shape = [1] + list(x.shape[1:])
    prefix = _prefix("prelu", "prelu")
    with _eager():
        alpha = _param("prelu", prefix, param_attr, shape, dtype, default_initializer=Constant(0.25))
    zero = zeros_like(x)
    return maximum(x, zero) + alpha * minimum(x, zero)


def _eager():
    return mode.eager()


def bilinear_tensor_product(x, y, size, act=None, name=None, param_attr=None, bias_attr=None):
    """out[:, k] = x W_k y^T + b_k (paddle.static.nn.bilinear_tensor_product), with the weight
    ``bilinear_tensor_product_<n>.w_0`` [size, D_x, D_y] and bias ``.b_0`` [1, size].

    Args:
        x (Tensor): [N, D_x], float32 or float64.
        y (Tensor): [N, D_y], x's dtype.
        size (int): Output width.
        act (str, optional): An activation applied to the result. Default: None.
        name (str, optional): Unused. Default: None.
        param_attr (ParamAttr, optional): The weight's attribute. Default: None.
        bias_attr (ParamAttr|bool, optional): The bias's attribute; False: no bias. Default: None.

    Returns:
        Tensor: [N, size].

    Examples:
        >>> import oar
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     x = oar.static.data('x', [2, 4], 'float32')
        ...     y = oar.static.data('y', [2, 6], 'float32')
        ...     out = oar.static.nn.bilinear_tensor_product(x, y, 3)
        >>> print(out.shape)
        [2, 3]
        >>> oar.disable_static()
    """
    from ...nn import functional as F
    dtype = _float_dtype("bilinear_tensor_product", x)
    if x.ndim != 2 or y.ndim != 2:
        raise ValueError(f"bilinear_tensor_product: x and y must be 2-D, got shapes {x.shape} and {y.shape}")
    _known("bilinear_tensor_product", x, [1], "last dim")
    _known("bilinear_tensor_product", y, [1], "last dim")
    prefix = _prefix("bilinear_tensor_product", "bilinear_tensor_product")
    with mode.eager():
        w = _param("bilinear_tensor_product", prefix, param_attr, [size, x.shape[1], y.shape[1]], dtype)
        b = _param("bilinear_tensor_product", prefix, bias_attr, [1, size], dtype, is_bias=True)
    return _act(F.bilinear(x, y, w, b), act)


def row_conv(input, future_context_size, param_attr=None, act=None):
    """Lookahead (row) convolution over time (paddle.static.nn.row_conv):
    out[:, t] = sum_{i=0..k} input[:, t + i] * w[i] (zero past the end), with the filter
    ``row_conv_<n>.w_0`` [k + 1, D], k = future_context_size.

    Args:
        input (Tensor): [N, T, D], float32 or float64.
        future_context_size (int): How many later steps each step sees.
        param_attr (ParamAttr, optional): The filter's attribute. Default: None.
        act (str, optional): An activation applied to the result. Default: None.

    Returns:
        Tensor: [N, T, D].

    Examples:
        >>> import oar
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     x = oar.static.data('x', [2, 5, 4], 'float32')
        ...     y = oar.static.nn.row_conv(x, 2)
        >>> print(y.shape)
        [2, 5, 4]
        >>> oar.disable_static()
    """
    from ...nn import functional as F
    dtype = _float_dtype("row_conv", input)
    if not isinstance(future_context_size, int) or future_context_size < 0:
        raise ValueError(f"row_conv: future_context_size must be a non-negative int, got {future_context_size!r}")
    if input.ndim != 3:
        raise ValueError(f"row_conv: the input must be 3-D [N, T, D] (oar has no LoD tensors), got shape "
                         f"{input.shape}")
    _known("row_conv", input, [2], "last dim")
    k = future_context_size
    prefix = _prefix("row_conv", "row_conv")
    with mode.eager():
        w = _param("row_conv", prefix, param_attr, [k + 1, input.shape[2]], dtype)
    padded = F.pad(input, [0, 0, 0, k, 0, 0], pad_from_left_axis=False) if k else input
    out = None
    for i in range(k + 1):
        step = padded[:, i:i - k] if i < k else padded[:, k:]
        term = step * w[i]
        out = term if out is None else out + term
    return _act(out, act)
