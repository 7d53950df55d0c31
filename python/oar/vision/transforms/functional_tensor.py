"""The oar.Tensor side of oar.vision.transforms.functional: images as CHW (or HWC) tensors.

The work is done by oar ops (flip, slicing, nn.functional.pad/interpolate/grid_sample), so tensor
images stay tensors; only small index grids and the HSV round trip are computed on the host.
"""
import functools
import math

import numpy as np

INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "area")


def _oar():
    import oar
    return oar


def check_image(fn, img, data_format):
    if img.ndim < 3 or img.ndim > 4 or data_format.lower() not in ("chw", "hwc"):
        raise RuntimeError(f"{fn}: not support [type={type(img)}, ndim={img.ndim}, "
                           f"data_format={data_format}] tensor image; expected a 3-D (or 4-D) tensor "
                           f"with data_format 'CHW' or 'HWC'")


def _axes(data_format):
    """(channel, height, width) axes counted from the end."""
    return (-3, -2, -1) if data_format.lower() == "chw" else (-1, -3, -2)


def image_size(img, data_format):
    _, h, w = _axes(data_format)
    return img.shape[w], img.shape[h]


def _is_float(img):
    return _oar().is_floating_point(img)


def to_tensor(img, data_format):
    # Paddle takes a tensor as already converted (CHW): it is returned as is, or moved to HWC.
    return img if data_format == "CHW" else img.transpose([1, 2, 0])


@functools.lru_cache(maxsize=64)
def _mean_std(mean, std, channel_first):
    """The float32 mean and std tensors, shaped to broadcast over CHW or HWC (cached: transforms
    run once per sample, with the same constants every time)."""
    oar = _oar()
    shape = [-1, 1, 1] if channel_first else [-1]
    return (oar.to_tensor(np.asarray(mean, dtype=np.float32)).reshape(shape),
            oar.to_tensor(np.asarray(std, dtype=np.float32)).reshape(shape))


def normalize(img, mean, std, data_format):
    mean_t, std_t = _mean_std(tuple(np.ravel(mean).tolist()), tuple(np.ravel(std).tolist()),
                              data_format.lower() == "chw")
    return (img - mean_t) / std_t


def hflip(img, data_format="CHW"):
    return _oar().flip(img, axis=[_axes(data_format)[2]])


def vflip(img, data_format="CHW"):
    return _oar().flip(img, axis=[_axes(data_format)[1]])


def crop(img, top, left, height, width, data_format="CHW"):
    if data_format.lower() == "chw":
        return img[..., top:top + height, left:left + width]
    return img[..., top:top + height, left:left + width, :]


def pad(img, ltrb, fill, padding_mode, data_format="CHW"):
    import oar.nn.functional as F
    if padding_mode == "symmetric":
        raise ValueError("pad: padding_mode 'symmetric' is not supported for tensor images "
                         "(use 'constant', 'edge' or 'reflect')")
    left, top, right, bottom = ltrb
    mode = "replicate" if padding_mode == "edge" else padding_mode
    x = img if _is_float(img) else img.astype("float32")  # oar's pad kernel is float-only
    out = F.pad(x.unsqueeze(0), pad=[left, right, top, bottom], mode=mode, value=float(fill),
                data_format="N" + data_format.upper())
    return out.squeeze(0).astype(img.dtype)


def resize(img, size_hw, interpolation, data_format="CHW"):
    import oar.nn.functional as F
    x = img if _is_float(img) else img.astype("float32")  # oar's interpolate is float-only
    out = F.interpolate(x.unsqueeze(0), size=list(size_hw), mode=interpolation,
                        data_format="N" + data_format.upper())
    out = out.squeeze(0)
    # Integer images truncate, as Paddle's integer interpolate kernels do.
    return out.astype(img.dtype)


def _blend(img, target, ratio):
    """img * ratio + target * (1 - ratio), clipped to the image range, in img's dtype."""
    oar = _oar()
    top = 1.0 if _is_float(img) else 255.0
    x = img if _is_float(img) else img.astype("float32")
    t = target if _is_float(target) else target.astype("float32")
    out = t + (x - t) * float(ratio)
    return oar.clip(out, 0.0, top).astype(img.dtype)


def to_grayscale(img, num_output_channels, data_format="CHW"):
    oar = _oar()
    c, _, _ = _axes(data_format)
    weights = oar.to_tensor(np.array([0.2989, 0.587, 0.114], dtype=np.float32)).astype(img.dtype)
    if c == -3:
        weights = weights.reshape([-1, 1, 1])
    gray = (img * weights).sum(axis=c, keepdim=True)
    shape = list(gray.shape)
    shape[c] = num_output_channels
    return gray.expand(shape)


def _channels(fn, img):
    c = img.shape[-3]
    if c not in (1, 3):
        raise ValueError(f"{fn}: channels of input should be either 1 or 3, but got {c}")
    return c


def adjust_brightness(img, factor):
    _channels("adjust_brightness", img)
    return _blend(img, _oar().zeros_like(img), factor)


def adjust_contrast(img, factor):
    oar = _oar()
    c = _channels("adjust_contrast", img)
    src = img if c == 1 else to_grayscale(img, 1)
    src = src if _is_float(src) else src.astype("float32")
    return _blend(img, oar.mean(src, axis=[-3, -2, -1], keepdim=True), factor)


def adjust_saturation(img, factor):
    if _channels("adjust_saturation", img) == 1:
        return img
    return _blend(img, to_grayscale(img, 1), factor)


def _rgb_to_hsv(rgb):
    maxc = rgb.max(axis=0)
    minc = rgb.min(axis=0)
    delta = maxc - minc
    flat = delta == 0
    s = delta / np.where(flat, 1.0, maxc)
    d = np.where(flat, 1.0, delta)
    r, g, b = rgb
    rc, gc, bc = (maxc - r) / d, (maxc - g) / d, (maxc - b) / d
    h = np.where(maxc == r, bc - gc, np.where(maxc == g, rc - bc + 2.0, gc - rc + 4.0))
    # Wrapped as h/6 + 1 minus its integer part (not a modulo) to round as Paddle's float32 path.
    h = h / np.float32(6.0) + np.float32(1.0)
    return h - np.trunc(h), s, maxc


def _hsv_to_rgb(h, s, v):
    f6 = h * 6.0
    i = np.floor(f6)
    f = f6 - i
    i = i.astype(np.int64) % 6
    p = np.clip(v * (1.0 - s), 0.0, 1.0)
    q = np.clip(v * (1.0 - s * f), 0.0, 1.0)
    t = np.clip(v * (1.0 - s * (1.0 - f)), 0.0, 1.0)
    # Each sextant of the hue circle picks its (r, g, b) from (v, q, p, t).
    table = np.stack([np.stack([v, q, p, p, t, v]), np.stack([t, v, v, q, p, p]),
                      np.stack([p, p, t, v, v, q])])
    return np.take_along_axis(table, i[None, None], axis=1)[:, 0]


def adjust_hue(img, hue_factor):
    oar = _oar()
    if _channels("adjust_hue", img) == 1:
        return img
    arr = img.numpy()
    x = arr.astype(np.float32) / np.float32(255.0) if arr.dtype == np.uint8 else arr
    lead = x.shape[:-3]
    x = x.reshape((-1,) + x.shape[-3:])
    out = np.empty_like(x)
    for n in range(x.shape[0]):  # batch items only; each is fully vectorised
        h, s, v = _rgb_to_hsv(x[n])
        h = h + np.float32(hue_factor)
        out[n] = _hsv_to_rgb(h - np.floor(h), s, v)
    out = out.reshape(lead + out.shape[-3:])
    if arr.dtype == np.uint8:
        out = (out * np.float32(255.0)).astype(np.uint8)
    return oar.to_tensor(out.astype(arr.dtype, copy=False))


def _rotation_matrix(angle, center, w, h):
    """The inverse map (output -> input pixel, centred coordinates) of a counter-clockwise rotation,
    as float32 [2, 3]."""
    a = math.radians(-angle % 360)
    cx, cy = (0.0, 0.0) if center is None else (center[0] - 0.5 * w, center[1] - 0.5 * h)
    m = np.array([math.cos(a), math.sin(a), 0.0, -math.sin(a), math.cos(a), 0.0], dtype=np.float32)
    m[2] += m[0] * np.float32(-cx) + m[1] * np.float32(-cy) + np.float32(cx)
    m[5] += m[3] * np.float32(-cx) + m[4] * np.float32(-cy) + np.float32(cy)
    return m.reshape(2, 3)


def _sampling_grid(m, w, h, ow, oh):
    """grid_sample's normalised (x, y) for each output pixel centre (align_corners=False), [1, oh, ow, 2].

    float32, summed as (x * a + y * b) + c: nearest sampling is sensitive to the last bit, and this
    order gives Paddle's grid exactly (measured)."""
    f32 = np.float32
    xs = np.linspace(-ow * 0.5 + 0.5, ow * 0.5 - 0.5, ow, dtype=f32)
    ys = np.linspace(-oh * 0.5 + 0.5, oh * 0.5 - 0.5, oh, dtype=f32)
    x, y = np.meshgrid(xs, ys)
    s = (m.T / np.array([0.5 * w, 0.5 * h], dtype=f32)).astype(f32)
    grid = np.stack([(x * s[0, k] + y * s[1, k]) + s[2, k] for k in range(2)], axis=-1)
    return _oar().to_tensor(grid[None].astype(f32))


def rotate(img, angle, interpolation, expand, center, fill, data_format="CHW"):
    oar = _oar()
    import oar.nn.functional as F
    w, h = image_size(img, data_format)
    m = _rotation_matrix(angle, center, w, h)
    ow, oh = w, h
    if expand:
        corners = np.array([[-0.5 * w, -0.5 * h, 1.0], [-0.5 * w, 0.5 * h, 1.0],
                            [0.5 * w, 0.5 * h, 1.0], [0.5 * w, -0.5 * h, 1.0]], dtype=np.float32)
        pos = corners @ m.T
        ow, oh = (int(v) for v in np.ceil(pos.max(axis=0)) - np.floor(pos.min(axis=0)))
    x = img.unsqueeze(0)
    if data_format.lower() == "hwc":
        x = x.transpose([0, 3, 1, 2])
    dtype = img.dtype
    if not _is_float(x):
        x = x.astype("float32")
    c = x.shape[1]
    # A channel of ones rides along: after sampling it says how much of each pixel came from inside.
    x = oar.concat([x, oar.ones([1, 1, x.shape[2], x.shape[3]], dtype=x.dtype)], axis=1)
    grid = _sampling_grid(m, w, h, ow, oh).astype(x.dtype)
    out = F.grid_sample(x, grid, mode=interpolation, padding_mode="zeros", align_corners=False)
    inside, out = out[:, c:], out[:, :c]
    fills = list(fill) if isinstance(fill, (list, tuple)) else [fill]
    fill_img = oar.to_tensor(np.asarray(fills, dtype=np.float32).reshape(1, -1, 1, 1)).astype(out.dtype)
    if interpolation == "nearest":
        outside = (inside < 0.5).astype(out.dtype)
        out = out * (1.0 - outside) + fill_img * outside
    else:
        out = out * inside + fill_img * (1.0 - inside)
    if data_format.lower() == "hwc":
        out = out.transpose([0, 2, 3, 1])
    return out.squeeze(0).astype(dtype)


def erase(img, i, j, h, w, v, inplace):
    if not inplace:
        img = img.clone()
    img[..., i:i + h, j:j + w] = v
    return img


def _grid_transform(img, grid, interpolation, fill, data_format):
    """img sampled at grid (normalised, align_corners=False), the outside filled with fill, as
    Paddle's tensor path: a channel of ones rides along to tell inside from outside."""
    oar = _oar()
    import oar.nn.functional as F
    x = img.unsqueeze(0) if img.ndim == 3 else img
    if data_format.lower() == "hwc":
        x = x.transpose([0, 3, 1, 2])
    dtype = x.dtype
    if not _is_float(x):
        x = x.astype("float32")
    n, c = x.shape[0], x.shape[1]
    grid = grid.astype(x.dtype)
    if n > 1:
        grid = grid.expand([n] + list(grid.shape[1:]))
    x = oar.concat([x, oar.ones([n, 1, x.shape[2], x.shape[3]], dtype=x.dtype)], axis=1)
    out = F.grid_sample(x, grid, mode=interpolation, padding_mode="zeros", align_corners=False)
    inside, out = out[:, c:], out[:, :c]
    fills = list(fill) if isinstance(fill, (list, tuple)) else [fill] * 3
    fills = fills if len(fills) == c else (fills[:1] * c if len(fills) == 1 else fills[:c])
    fill_img = oar.to_tensor(np.asarray(fills, dtype=np.float32).reshape(1, -1, 1, 1)).astype(out.dtype)
    if interpolation == "nearest":
        outside = (inside < 0.5).astype(out.dtype)
        out = out * (1.0 - outside) + fill_img * outside
    else:
        out = out * inside + fill_img * (1.0 - inside)
    if data_format.lower() == "hwc":
        out = out.transpose([0, 2, 3, 1])
    if img.ndim == 3:
        out = out.squeeze(0)
    return out.astype(dtype)


def affine(img, matrix, interpolation, fill, data_format="CHW"):
    """matrix: the inverse map (output -> input, centred pixel coordinates), 6 numbers."""
    w, h = image_size(img, data_format)
    m = np.asarray(matrix, dtype=np.float32).reshape(2, 3)
    return _grid_transform(img, _sampling_grid(m, w, h, w, h), interpolation, fill, data_format)


def perspective(img, coeffs, interpolation, fill, data_format="CHW"):
    """coeffs (a..h): output pixel (x, y) reads input ((ax + by + c) / (gx + hy + 1), ...)."""
    oar = _oar()
    w, h = image_size(img, data_format)
    dtype = img.dtype.name if _is_float(img) else "float32"
    co = oar.to_tensor(np.asarray(coeffs, dtype=np.float32)).astype(dtype)
    theta1 = co[:6].reshape([2, 3])
    theta2 = oar.concat([co[6:].reshape([1, 2]).tile([2, 1]), oar.ones([2, 1], dtype=dtype)], axis=1)
    xs = oar.linspace(0.5, w - 0.5, w, dtype=dtype).reshape([1, w]).expand([h, w])
    ys = oar.linspace(0.5, h - 0.5, h, dtype=dtype).reshape([h, 1]).expand([h, w])
    base = oar.stack([xs, ys, oar.ones([h, w], dtype=dtype)], axis=-1).reshape([h * w, 3])
    half = oar.to_tensor(np.array([0.5 * w, 0.5 * h], dtype=np.float32)).astype(dtype)
    g1 = oar.matmul(base, theta1.transpose([1, 0]) / half)
    g2 = oar.matmul(base, theta2.transpose([1, 0]))
    grid = (g1 / g2 - 1.0).reshape([1, h, w, 2])
    return _grid_transform(img, grid, interpolation, fill, data_format)
