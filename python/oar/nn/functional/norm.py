"""Normalisation of paddle.nn.functional: layer_norm, batch_norm, group_norm, instance_norm,
normalize (fused C++ kernels for layer_norm and batch_norm, forward and backward)."""
from ... import _C

__all__ = ["layer_norm", "batch_norm", "group_norm", "instance_norm", "normalize"]

_CHANNEL_FIRST = ("NC", "NCL", "NCHW", "NCDHW")
_HALF = ("float16", "bfloat16")


def _f32(t):
    return t if t is None or t.dtype.name not in _HALF else t.astype("float32")
_CHANNEL_LAST = ("NLC", "NHWC", "NDHWC")


def layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-05, name=None):
    """Normalises over the trailing dims given by normalized_shape (int or list)."""
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    return _C.layer_norm(x, list(normalized_shape), weight, bias, float(epsilon))


def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.9, epsilon=1e-05, data_format="NCHW", use_global_stats=None,
               name=None):
    """Per-channel normalisation. In training (unless use_global_stats) the batch statistics
    are used and running_mean/running_var are updated in place:
    running = momentum * running + (1 - momentum) * batch (biased variance), as Paddle."""
    if data_format in _CHANNEL_FIRST:
        channel_axis = 1
    elif data_format in _CHANNEL_LAST:
        channel_axis = -1
    else:
        raise ValueError("batch_norm: argument 'data_format' must be one of "
                         f"{_CHANNEL_FIRST + _CHANNEL_LAST}, got '{data_format}'")
    if use_global_stats is None:
        use_global_stats = not training
    use_batch = not use_global_stats
    update = bool(training) and use_batch
    if use_batch and x.ndim >= 2 and x.size == x.shape[channel_axis]:
        # One value per channel: as Paddle, the output is x and nothing is updated.
        return _C.assign(x)
    if x.dtype.name in _HALF:  # computed in float32 (float32 running statistics, as Paddle)
        out, _, _ = _C.batch_norm_base(_f32(x), running_mean, running_var, _f32(weight), _f32(bias),
                                       use_batch, update, float(momentum), float(epsilon), channel_axis)
        return out.astype(x.dtype)
    out, _, _ = _C.batch_norm_base(x, running_mean, running_var, weight, bias, use_batch, update,
                                   float(momentum), float(epsilon), channel_axis)
    return out


def group_norm(x, num_groups, epsilon=1e-05, weight=None, bias=None, data_format="NCHW",
               name=None):
    """Group normalization: the channels are split into num_groups groups and each group of each
    sample is normalized to zero mean and unit variance, then scaled by weight and shifted by bias.

    Args:
        x (Tensor): The input, shape [N, C, ...], float32 or float64.
        num_groups (int): Number of groups; C must divide by it.
        epsilon (float, optional): Added to the variance. Default: 1e-05.
        weight (Tensor, optional): Per-channel scale, shape [C]. Default: None.
        bias (Tensor, optional): Per-channel shift, shape [C]. Default: None.
        data_format (str, optional): Channels first ('NCHW', ...) or last ('NHWC', ...). Default:
            'NCHW'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: same shape and dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.arange(8, dtype='float32').reshape([1, 4, 1, 2])
        >>> print(oar.nn.functional.group_norm(x, 2).numpy().reshape([-1]))
        [-1.3416355 -0.4472118  0.4472118  1.3416355 -1.3416355 -0.4472118
          0.4472118  1.3416355]
    """
    return _C.group_norm(x, int(num_groups), float(epsilon), weight, bias, data_format)


def instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.9, eps=1e-05, data_format="NCHW", name=None):
    """Instance normalization: each channel of each sample is normalized over its spatial dims,
    then scaled by weight and shifted by bias.

    Args:
        x (Tensor): The input, shape [N, C, ...], float32 or float64.
        running_mean (Tensor, optional): Per-channel mean used when use_input_stats is False.
            Default: None.
        running_var (Tensor, optional): Per-channel variance used when use_input_stats is False.
            Default: None.
        weight (Tensor, optional): Per-channel scale, shape [C]. Default: None.
        bias (Tensor, optional): Per-channel shift, shape [C]. Default: None.
        use_input_stats (bool, optional): Normalize with the input's own statistics. Default: True.
        momentum (float, optional): Momentum of the running statistics. Default: 0.9.
        eps (float, optional): Added to the variance. Default: 1e-05.
        data_format (str, optional): Channels first ('NCL', 'NCHW', ...) or last. Default: 'NCHW'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: same shape and dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[[1.0, 3.0], [2.0, 2.0]]])
        >>> print(oar.nn.functional.instance_norm(x).numpy())
        [[[-0.999995  0.999995]
          [ 0.        0.      ]]]
    """
    return _C.instance_norm(x, running_mean, running_var, weight, bias, bool(use_input_stats),
                            float(momentum), float(eps), data_format)


def normalize(x, p=2, axis=1, epsilon=1e-12, out=None, name=None):
    """x / max(||x||_p along axis, epsilon)."""
    r = _C.normalize(x, float(p), int(axis), float(epsilon))
    if out is not None:
        out.copy_(r)
        return out
    return r
