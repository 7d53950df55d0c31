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
    from ... import nn
    layer = _layer("embedding", lambda: nn.Embedding(size[0], size[1], padding_idx=padding_idx,
                                                     weight_attr=param_attr))
    return layer(input)
