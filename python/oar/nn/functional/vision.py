"""Sampling and layout ops (paddle.nn.functional): interpolate/upsample, grid_sample,
affine_grid, pixel_shuffle, pixel_unshuffle, channel_shuffle, unfold, fold, zeropad2d,
max_unpool1d/2d/3d, local_response_norm and bilinear.

The C++ ops (oar/ops/specs/vision.yaml) check their arguments and do the work; this layer turns
Paddle's Python-only forms (size/scale_factor as ints, lists or tensors, data formats for
interpolate, None for defaults) into the ops' arguments, with Paddle's error messages for them.
"""
from ... import _C
from .common import pad as _pad

__all__ = ["interpolate", "upsample", "grid_sample", "affine_grid", "pixel_shuffle",
           "pixel_unshuffle", "channel_shuffle", "unfold", "fold", "zeropad2d", "max_unpool1d",
           "max_unpool2d", "max_unpool3d", "local_response_norm", "bilinear"]

_FORMATS = {3: ("NCW", "NWC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}
_MODES = ("nearest", "linear", "bilinear", "trilinear", "bicubic", "area")


def _ints(v):
    if hasattr(v, "tolist"):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        return [int(e.item()) if hasattr(e, "item") else int(e) for e in v]
    return [int(v)]


def _floats(v):
    if hasattr(v, "tolist"):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        return [float(e.item()) if hasattr(e, "item") else float(e) for e in v]
    return None


def interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
                align_mode=0, data_format=None, recompute_scale_factor=None, antialias=False,
                name=None):
    """paddle.nn.functional.interpolate: resizes the spatial dims of a 3-D (linear, area), 4-D
    (nearest, bilinear, bicubic, area) or 5-D (nearest, trilinear, area) input."""
    if not isinstance(mode, str) or mode.lower() not in _MODES:
        raise ValueError("The 'resample' of image_resize can only be 'area', 'linear', "
                         "'bilinear', 'trilinear',  'bicubic' or 'nearest' currently.")
    mode = mode.lower()
    nd = x.ndim
    if nd not in _FORMATS:
        raise ValueError(f"interpolate: x should be a 3-D, 4-D or 5-D tensor, got shape {x.shape}")
    if data_format is None:
        data_format = _FORMATS[nd][0]
    if data_format not in _FORMATS[nd]:
        raise ValueError(f"Got wrong value for param `data_format`: {data_format} received but "
                         f"only `{_FORMATS[nd][0]}` or `{_FORMATS[nd][1]}` supported for "
                         f"{nd}-D input.")
    if mode == "linear" and nd != 3:
        raise ValueError("'linear' only support 3-D tensor.")
    if mode in ("bilinear", "bicubic") and nd != 4:
        raise ValueError("'bilinear' and 'bicubic' only support 4-D tensor.")
    if mode == "trilinear" and nd != 5:
        raise ValueError("'trilinear'only support 5-D tensor.")
    if mode == "nearest" and nd == 3:
        raise ValueError("'NEAREST' only support 4-D  or 5-D tensor.")
    if align_corners and mode in ("nearest", "area"):
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if align_mode not in (0, 1):
        raise ValueError("align_mode can only be 0 or 1")
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported by oar")
    if size is None and scale_factor is None:
        raise ValueError("One of size and scale_factor must not be None.")
    if size is not None and scale_factor is not None:
        raise ValueError("Only one of size or scale_factor should be defined.")
    sp = nd - 2
    last = data_format[-1] == "C"
    in_sizes = list(x.shape[1:-1]) if last else list(x.shape[2:])
    scales = [0.0, 0.0, 0.0]
    if size is not None:
        if not isinstance(size, (list, tuple)) and not hasattr(size, "tolist"):
            raise TypeError(f"interpolate: size should be a list, tuple or Tensor, got "
                            f"{type(size).__name__}")  # as Paddle, which can't iterate an int
        sizes = _ints(size)
        if len(sizes) != sp:
            raise ValueError("The x and size should satisfy rank(x) - 2 == len(size).")
        if any(s <= 0 for s in sizes):
            raise ValueError(f"interpolate: the output sizes should be greater than 0, got {sizes}")
    else:
        fs = _floats(scale_factor)
        if fs is None:
            fs = [float(scale_factor)] * sp
        if len(fs) != sp:
            raise ValueError("The x and scale_factor should satisfy rank(x) - 2 == "
                             "len(scale_factor).")
        if any(f <= 0 for f in fs):
            raise ValueError("Attr(scale_shape) should be greater than 0.")
        sizes = [int(i * f) for i, f in zip(in_sizes, fs)]
        if not recompute_scale_factor:
            scales[:sp] = fs
    if last:  # the kernels are channel-first
        x = _C.transpose(x, [0, nd - 1] + list(range(1, nd - 1)))
    if mode == "area":
        from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d
        pool = (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[sp - 1]
        out = pool(x, sizes)
    else:
        out = _C.interp(x, sizes, mode, bool(align_corners), int(align_mode), *scales)
    if last:
        out = _C.transpose(out, [0] + list(range(2, nd)) + [1])
    return out


def upsample(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
             align_mode=0, data_format=None, name=None):
    """paddle.nn.functional.upsample: interpolate under its older name."""
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format)


def grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True, name=None):
    return _C.grid_sample(x, grid, mode, padding_mode, bool(align_corners))


def affine_grid(theta, out_shape, align_corners=True, name=None):
    return _C.affine_grid(theta, _ints(out_shape), bool(align_corners))


def pixel_shuffle(x, upscale_factor, data_format="NCHW", name=None):
    if not isinstance(upscale_factor, int):
        raise TypeError("upscale factor must be int type")
    return _C.pixel_shuffle(x, upscale_factor, data_format)


def pixel_unshuffle(x, downscale_factor, data_format="NCHW", name=None):
    if not isinstance(downscale_factor, int):
        raise TypeError("Downscale factor must be int type")
    return _C.pixel_unshuffle(x, downscale_factor, data_format)


def channel_shuffle(x, groups, data_format="NCHW", name=None):
    if not isinstance(groups, int):
        raise TypeError("groups must be int type")
    return _C.channel_shuffle(x, groups, data_format)


def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    return _C.unfold(x, _ints(kernel_sizes), _ints(strides), _ints(paddings), _ints(dilations))


def fold(x, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    return _C.fold(x, _ints(output_sizes), _ints(kernel_sizes), _ints(strides), _ints(paddings),
                   _ints(dilations))


def zeropad2d(x, padding, data_format="NCHW", name=None):
    """Zero padding of the H and W dims; padding: an int or [left, right, top, bottom]."""
    padding = _ints(padding)
    if len(padding) == 1:
        padding = padding * 4
    return _pad(x, padding, mode="constant", value=0.0, data_format=data_format)


def _unpool(nd, x, indices, kernel_size, stride, padding, data_format, output_size):
    op = getattr(_C, f"max_unpool{nd}d")
    return op(x, indices, _ints(kernel_size), [] if stride is None else _ints(stride),
              _ints(padding), data_format, [] if output_size is None else _ints(output_size))


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, data_format="NCL",
                 output_size=None, name=None):
    return _unpool(1, x, indices, kernel_size, stride, padding, data_format, output_size)


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, data_format="NCHW",
                 output_size=None, name=None):
    return _unpool(2, x, indices, kernel_size, stride, padding, data_format, output_size)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, data_format="NCDHW",
                 output_size=None, name=None):
    return _unpool(3, x, indices, kernel_size, stride, padding, data_format, output_size)


def local_response_norm(x, size, alpha=1e-4, beta=0.75, k=1.0, data_format="NCHW", name=None):
    return _C.local_response_norm(x, size, float(alpha), float(beta), float(k), data_format)


def bilinear(x1, x2, weight, bias=None, name=None):
    return _C.bilinear(x1, x2, weight, bias)
