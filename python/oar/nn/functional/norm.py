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
    if x.dtype.name in _HALF:  # computed in float32, rounded once (as Paddle's AMP kernels)
        out = _C.layer_norm(_f32(x), list(normalized_shape), _f32(weight), _f32(bias), float(epsilon))
        return out.astype(x.dtype)
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
    return _C.group_norm(x, int(num_groups), float(epsilon), weight, bias, data_format)


def instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.9, eps=1e-05, data_format="NCHW", name=None):
    return _C.instance_norm(x, running_mean, running_var, weight, bias, bool(use_input_stats),
                            float(momentum), float(eps), data_format)


def normalize(x, p=2, axis=1, epsilon=1e-12, out=None, name=None):
    """x / max(||x||_p along axis, epsilon)."""
    r = _C.normalize(x, float(p), int(axis), float(epsilon))
    if out is not None:
        out.copy_(r)
        return out
    return r
