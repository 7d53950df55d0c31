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
    """A fully connected layer (paddle.static.nn.fc): each input x_i, flattened from
    num_flatten_dims to a matrix, is multiplied by its own weight ``fc_<n>.w_<i>``
    [in_features_i, size]; the products are summed, the bias ``fc_<n>.b_0`` [size] is added, then
    `activation`.

    Args:
        x (Tensor|list[Tensor]): One input or a list of them, float32 or float64.
        size (int): The output width.
        num_flatten_dims (int, optional): The dims before it are kept, the rest flattened. Default: 1.
        weight_attr (ParamAttr, optional): The weights' attribute. Default: None.
        bias_attr (ParamAttr|bool, optional): The bias's attribute; False: no bias. Default: None.
        activation (str, optional): An activation applied to the result. Default: None.
        name (str, optional): Unused. Default: None.

    Returns:
        Tensor: x's leading num_flatten_dims dims followed by size.

    Examples:
        >>> import oar
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('x', [None, 2, 3], 'float32')
        ...     y = oar.static.nn.fc(x, 4, num_flatten_dims=2)
        >>> print(y.shape, [p.shape for p in main.all_parameters()])
        [-1, 2, 4] [[3, 4], [4]]
        >>> oar.disable_static()
    """
    import oar
    if not isinstance(size, int) or size <= 0:
        raise ValueError(f"fc: size must be a positive int, got {size!r}")
    xs = x if isinstance(x, (list, tuple)) else [x]
    prefix = _prefix("fc", "fc")
    out = None
    for xi in xs:
        dtype = _float_dtype("fc", xi)
        if not 1 <= num_flatten_dims < xi.ndim:
            raise ValueError(f"fc: num_flatten_dims must be in [1, {xi.ndim - 1}], got {num_flatten_dims}")
        in_features = 1
        for d in xi.shape[num_flatten_dims:]:
            if d < 0:
                raise ValueError(f"fc: the dims of x after num_flatten_dims must be known, x has shape {xi.shape}")
            in_features *= d
        with mode.eager():
            w = _param("fc", prefix, weight_attr, [in_features, size], dtype)
        flat = oar.flatten(xi, start_axis=num_flatten_dims) if xi.ndim > num_flatten_dims + 1 else xi
        term = oar.matmul(flat, w)
        out = term if out is None else out + term
    with mode.eager():
        b = _param("fc", prefix, bias_attr, [size], xs[0].dtype, is_bias=True)
    if b is not None:
        out = out + b
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


def _static_only(api):
    """Paddle's @static_only check (an AssertionError in dynamic mode)."""
    if mode.in_dynamic_mode():
        raise AssertionError(f"In PaddlePaddle 2.x, we turn on dynamic graph mode by default, and '{api}()' is "
                             f"only supported in static graph mode. So if you want to use this api, please call "
                             f"'paddle.enable_static()' before this api to enter static graph mode.")


def _unique(layer_type):
    """'<layer_type>_<n>' without requiring static mode (for layers Paddle also runs eagerly)."""
    from ...utils import unique_name
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


def spectral_norm(weight, dim=0, power_iters=1, eps=1e-12, name=None):
    """Spectral normalization of a weight (paddle.static.nn.spectral_norm): weight / sigma,
    sigma the largest singular value of W, the weight as an [H, W] matrix (dim `dim` first, the
    rest flattened), estimated by power iteration from the vectors ``spectral_norm_<n>.w_0``
    (u, [H]) and ``.w_1`` (v, [W]), both normal(0, 1) and stop_gradient. Each run does
    power_iters rounds of v = W^T u / (|W^T u| + eps), u = W v / (|W v| + eps) from the stored
    u, v (which, as in Paddle's static mode, are not written back), then sigma = u^T W v. The
    gradient treats u and v as constants.

    Args:
        weight (Tensor): A 2-D to 5-D weight, float32 or float64.
        dim (int, optional): 0 (fc weights) or 1 (conv weights). Default: 0.
        power_iters (int, optional): Power iterations per run. Default: 1.
        eps (float, optional): Added to the norms. Default: 1e-12.
        name (str, optional): Unused. Default: None.

    Returns:
        Tensor: weight's shape and dtype.

    Examples:
        >>> import oar
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.utils.unique_name.guard(), oar.static.program_guard(main):
        ...     weight = oar.static.data('weight', [2, 8, 32, 32], 'float32')
        ...     x = oar.static.nn.spectral_norm(weight, dim=1, power_iters=2)
        >>> print(x.shape, [(p.name, p.shape) for p in main.all_parameters()])
        [2, 8, 32, 32] [('spectral_norm_0.w_0', [8]), ('spectral_norm_0.w_1', [2048])]
        >>> oar.disable_static()
    """
    import math
    import oar
    from ... import _C
    from ...nn.initializer import Normal
    if not isinstance(weight, _C.Tensor):
        raise TypeError(f"spectral_norm: weight must be a Tensor, but received {type(weight).__name__}")
    if weight.dtype not in ("float32", "float64"):
        raise TypeError(f"The data type of 'weight' in spectral_norm must be ['float32', 'float64'], but "
                        f"received {weight.dtype}.")
    for arg, value, typ in (("dim", dim, int), ("power_iters", power_iters, int), ("eps", eps, float)):
        if not isinstance(value, typ) or isinstance(value, bool):
            raise TypeError(f"The type of '{arg}' in spectral_norm must be {typ}, but received {type(value)}.")
    assert 0 not in weight.shape, "Any dimension of input cannot be equal to 0."
    if dim not in (0, 1):
        raise ValueError(f"The input `dim` must be 0 (if weight in fc) or 1 (if weight in conv), but received "
                         f"dim={dim}")
    if weight.ndim < 2:
        raise ValueError(f"spectral_norm: weight must be at least 2-D, got shape {weight.shape}")
    _known("spectral_norm", weight, range(weight.ndim), "dims")
    h = weight.shape[dim]
    w = math.prod(weight.shape) // h
    prefix = _unique("spectral_norm")
    with mode.eager():
        u = _param("spectral_norm", prefix, None, [h], weight.dtype, default_initializer=Normal(0.0, 1.0))
        v = _param("spectral_norm", prefix, None, [w], weight.dtype, default_initializer=Normal(0.0, 1.0))
        u.stop_gradient = True
        v.stop_gradient = True
    mat = weight if dim == 0 else oar.transpose(weight, [dim] + [d for d in range(weight.ndim) if d != dim])
    mat = oar.reshape(mat, [h, w])
    const = mat.detach()
    uu, vv = u, v
    for _ in range(power_iters):
        vv = oar.matmul(const, uu, transpose_x=True)
        vv = vv / (oar.sqrt(oar.sum(vv * vv)) + eps)
        uu = oar.matmul(const, vv)
        uu = uu / (oar.sqrt(oar.sum(uu * uu)) + eps)
    sigma = oar.sum(uu.detach() * oar.matmul(mat, vv.detach()))
    return weight / sigma


def sparse_embedding(input, size, padding_idx=None, is_test=False, entry=None, table_class="MemorySparseTable",
                     param_attr=None, dtype="float32", slot=None):
    """The embedding lookup of Paddle's parameter-server training (paddle.static.nn.sparse_embedding),
    as Paddle's static ``lookup_table`` op: the ids' last dim must be 1 and is replaced by the
    embedding, out.shape = input.shape[:-1] + [size[1]]. oar has no parameter server: the table
    ``sparse_embedding_<n>.w_0`` [size[0], size[1]] is a dense parameter (Xavier-initialized)
    and the lookup runs locally; rows of padding_idx are zeros and get no gradient. `entry`,
    `table_class` and `slot` are checked as in Paddle and otherwise unused.

    Args:
        input (Tensor): int64 ids [..., 1], each in [0, size[0]).
        size (list|tuple): [vocab_size, emb_size].
        padding_idx (int, optional): An id whose rows are zeros; negative counts from vocab_size.
            Default: None.
        is_test (bool, optional): Unused. Default: False.
        entry (optional): None or a ProbabilityEntry / CountFilterEntry / ShowClickEntry. Default: None.
        table_class (str, optional): 'CommonSparseTable', 'SSDSparseTable' or 'MemorySparseTable'.
            Default: 'MemorySparseTable'.
        param_attr (ParamAttr, optional): The table's attribute. Default: None.
        dtype (str, optional): float32 or float64. Default: 'float32'.
        slot (int, optional): Unused. Default: None.

    Returns:
        Tensor: the embeddings, input.shape[:-1] + [size[1]].

    Examples:
        >>> import oar
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     ids = oar.static.data('ids', [None, 3, 1], 'int64')
        ...     emb = oar.static.nn.sparse_embedding(ids, [100, 8])
        >>> print(emb.shape)
        [-1, 3, 8]
        >>> oar.disable_static()
    """
    from ... import _C
    from ...nn import functional as F
    from ...framework.dtype import convert_dtype
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"sparse_embedding: input must be a Tensor, but received {type(input).__name__}")
    if input.dtype != "int64":
        raise TypeError(f"The data type of 'input' in paddle.incubate.layers.sparse_embedding must be ['int64'], "
                        f"but received {input.dtype}.")
    dtype = str(convert_dtype(dtype)).replace("paddle.", "")
    if dtype not in ("float32", "float64"):
        raise TypeError(f"The data type of 'dtype' in paddle.static.nn.sparse_embedding must be ['float32', "
                        f"'float64'], but received {dtype}.")
    if 0 in input.shape:
        raise ValueError("input size should not be 0")
    if not isinstance(size, (list, tuple)) or len(size) != 2:
        raise ValueError(f"sparse_embedding: size must be [vocab_size, emb_size], got {size!r}")
    if table_class not in ("CommonSparseTable", "SSDSparseTable", "MemorySparseTable"):
        raise ValueError("table_class must be in [CommonSparseTable, SSDSparseTable, MemorySparseTable]")
    if entry is not None and type(entry).__name__ not in ("ProbabilityEntry", "CountFilterEntry", "ShowClickEntry"):
        raise ValueError("entry must be instance in [paddle.distributed.ProbabilityEntry, "
                         "paddle.distributed.CountFilterEntry, paddle.distributed.ShowClickEntry]")
    if input.ndim < 1 or input.shape[-1] != 1:
        raise ValueError(f"ShapeError: The last dimensions of the 'Ids' tensor must be 1. But received Ids's "
                         f"last dimensions = {input.shape[-1] if input.ndim else None}, Ids's shape = "
                         f"{list(input.shape)}.")
    padding_idx = -1 if padding_idx is None else padding_idx if padding_idx >= 0 else size[0] + padding_idx
    prefix = _unique("sparse_embedding")
    with mode.eager():
        w = _param("sparse_embedding", prefix, param_attr, list(size), dtype)
    ids = input.squeeze(-1)
    return F.embedding(ids, w, padding_idx=None if padding_idx < 0 else padding_idx)


def deform_conv2d(x, offset, mask, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=1,
                  deformable_groups=1, im2col_step=1, weight_attr=None, bias_attr=None, name=None):
    """A deformable 2-D convolution layer (paddle.static.nn.deform_conv2d): v2 (modulated) when
    mask is given, v1 when it is None. Makes the filter ``deformable_conv_<n>.w_0``
    [num_filters, C / groups, KH, KW] (normal, std sqrt(2 / (KH * KW * C))) and the bias
    ``.b_0`` [num_filters] (zeros), and records oar.vision.ops.deform_conv2d.

    Args:
        x (Tensor): [N, C, H, W], float32 or float64; C, H and W known.
        offset (Tensor): [N, 2 * deformable_groups * KH * KW, H_out, W_out].
        mask (Tensor|None): [N, deformable_groups * KH * KW, H_out, W_out], or None (v1).
        num_filters (int): Output channels.
        filter_size (int|list): The filter's spatial size.
        stride, padding, dilation (int|list, optional): Default: 1, 0, 1.
        groups (int, optional): Convolution groups. Default: 1.
        deformable_groups (int, optional): Offset groups. Default: 1.
        im2col_step (int, optional): Unused (a memory knob of Paddle's kernel). Default: 1.
        weight_attr (ParamAttr, optional): The filter's attribute; False is refused. Default: None.
        bias_attr (ParamAttr|bool, optional): The bias's attribute; False: no bias. Default: None.
        name (str, optional): Unused. Default: None.

    Returns:
        Tensor: [N, num_filters, H_out, W_out].

    Examples:
        >>> import oar
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.utils.unique_name.guard(), oar.static.program_guard(main):
        ...     x = oar.static.data('x', [None, 3, 8, 8], 'float32')
        ...     offset = oar.static.data('offset', [None, 18, 8, 8], 'float32')
        ...     mask = oar.static.data('mask', [None, 9, 8, 8], 'float32')
        ...     out = oar.static.nn.deform_conv2d(x, offset, mask, num_filters=2, filter_size=3, padding=1)
        >>> print(out.shape, [(p.name, p.shape) for p in main.all_parameters()])
        [-1, 2, 8, 8] [('deformable_conv_0.w_0', [2, 3, 3, 3]), ('deformable_conv_0.b_0', [2])]
        >>> oar.disable_static()
    """
    import math
    from ... import _C
    from ...nn.initializer import Normal
    from ...vision.ops import deform_conv2d as _deform
    _static_only("deform_conv2d")
    for arg, value in (("input", x), ("offset", offset)):
        if not isinstance(value, _C.Tensor):
            raise TypeError(f"Input{'' if arg == 'input' else ' Offset'} of deformable_conv must be Tensor")
        if value.dtype not in ("float32", "float64"):
            raise TypeError(f"The data type of '{arg}' in deformable_conv must be ['float32', 'float64'], but "
                            f"received {value.dtype}.")
    if mask is not None and not isinstance(mask, _C.Tensor):
        raise TypeError(f"The type of 'mask' in deformable_conv must be (Variable, NoneType), but received "
                        f"{type(mask)}.")
    if x.ndim != 4:
        raise ValueError(f"The input should be of [N, C, H, W] format, but received {x.shape}")
    assert weight_attr is not False, "param_attr should not be False here."
    _known("deform_conv2d", x, [1, 2, 3], "channel and spatial dims")
    channels = x.shape[1]
    if groups is None:
        groups = 1
    if groups == 0:
        raise ValueError("groups should not be 0.")
    if channels % groups:
        raise ValueError("num_channels must be divisible by groups.")
    fs = _ntuple(filter_size, 2, "deform_conv2d", "filter_size")
    prefix = _prefix("deform_conv2d", "deformable_conv")
    std = math.sqrt(2.0 / (fs[0] * fs[1] * channels))
    with mode.eager():
        w = _param("deform_conv2d", prefix, weight_attr, [num_filters, channels // groups] + fs, x.dtype,
                   default_initializer=Normal(0.0, std))
        b = _param("deform_conv2d", prefix, bias_attr, [num_filters], x.dtype, is_bias=True)
    return _deform(x, offset, w, b, stride=stride, padding=padding, dilation=dilation,
                   deformable_groups=deformable_groups, groups=groups, mask=mask)
