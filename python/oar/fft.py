"""oar.fft: Paddle's discrete Fourier transforms (paddle.fft), all 22 names.

Every transform is one of three C++ ops (oar/ops/specs/fft.yaml, on FFTW): fft_c2c for complex
input, fft_r2c for real input (onesided for rfft*/ihfft*, the whole spectrum for fft*/ifft*) and
fft_c2r for a half spectrum to a real signal (irfft*, hfft*). This module checks the arguments the
way Paddle does (same errors and messages), crops or zero-pads the input to the requested sizes,
and picks the op; gradients come from the ops."""
from __future__ import annotations

import functools
from collections.abc import Sequence

from . import _C
from .framework.dtype import convert_dtype

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2",
           "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftfreq", "rfftfreq",
           "fftshift", "ifftshift"]

_INTEGERS = ("bool", "uint8", "int8", "int16", "int32", "int64")
_COMPLEX_OF = {"float32": "complex64", "float64": "complex128", "float16": "complex64", "bfloat16": "complex64"}


def _aliases(**alias_to_name):
    """Accept PyTorch's keyword names (input, dim) for Paddle's (x, axis/axes), as Paddle does."""
    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            for alias, name in alias_to_name.items():
                if alias in kwargs:
                    if name in kwargs:
                        raise TypeError(f"{fn.__name__}() got both '{name}' and its alias '{alias}'")
                    kwargs[name] = kwargs.pop(alias)
            return fn(*args, **kwargs)
        return call
    return wrap


# ---- argument checks (Paddle's messages) ----

def _check_normalization(norm):
    if norm not in ("forward", "backward", "ortho"):
        raise ValueError(f"Unexpected norm: {norm}. Norm should be forward, backward or ortho")


def _check_n(n):
    if not isinstance(n, int):
        raise ValueError(f"Invalid FFT argument n({n}), it should be an integer.")
    if n <= 0:
        raise ValueError(f"Invalid FFT argument n({n}), it should be positive.")


def _check_s(x, s):
    if not isinstance(s, Sequence):
        raise ValueError(f"Invalid FFT argument s({s}), it should be a sequence of integers.")
    if len(s) > x.ndim:
        raise ValueError("Length of FFT argument s should not be larger than the rank of input. "
                         f"Received s: {s}, rank of x: {x.ndim}")
    for size in s:
        if not isinstance(size, int) or size <= 0:
            raise ValueError(f"FFT sizes {s} contains invalid value ({size})")


def _check_axis(x, axis):
    if not isinstance(axis, int):
        raise ValueError(f"Invalid FFT axis ({axis}), it should be an integer.")
    if axis < -x.ndim or axis >= x.ndim:
        raise ValueError(f"Invalid FFT axis ({axis}), it should be in range [-{x.ndim}, {x.ndim})")


def _check_axes(x, axes):
    if not isinstance(axes, Sequence):
        raise ValueError(f"Invalid FFT axes ({axes}), it should be a sequence of integers.")
    if len(axes) > x.ndim:
        raise ValueError("Length of fft axes should not be larger than the rank of input. "
                         f"Received, len of axes: {len(axes)}, rank of x: {x.ndim}")
    for axis in axes:
        if not isinstance(axis, int) or axis < -x.ndim or axis >= x.ndim:
            raise ValueError(f"FFT axes {axes} contains invalid value ({axis}), it should be in range "
                             f"[-{x.ndim}, {x.ndim})")


def _check_two(s, axes):
    if s is not None and (not isinstance(s, Sequence) or len(s) != 2):
        raise ValueError(f"Invalid FFT argument s ({s}), it should be a sequence of 2 integers.")
    if axes is not None and (not isinstance(axes, Sequence) or len(axes) != 2):
        raise ValueError(f"Invalid FFT argument axes ({axes}), it should be a sequence of 2 integers.")


def _check_rank_at_least(x, rank):
    if x.ndim < rank:
        raise ValueError(f"The rank of the input ({x.ndim}) should >= {rank}")


# ---- inputs: dtype and size ----

def _dtype(x):
    return convert_dtype(x.dtype)


def _as_complex(x):
    """Integers become the default float's complex dtype; reals their own (as Paddle)."""
    from .framework.dtype import get_default_dtype
    dt = _dtype(x)
    if dt in _INTEGERS:
        return _C.cast(x, _COMPLEX_OF[get_default_dtype()])
    if dt in _COMPLEX_OF:
        return _C.cast(x, _COMPLEX_OF[dt])
    return x


def _as_real(x):
    from .framework.dtype import get_default_dtype
    return _C.cast(x, get_default_dtype()) if _dtype(x) in _INTEGERS else x


def _resize(x, sizes, axes):
    """x cropped or zero-padded at the end of each axis to the given size."""
    for size, axis in zip(sizes, axes):
        have = x.shape[axis]
        if have > size:
            x = _C.slice(x, [axis], [0], [size])
        elif have < size:
            pad_shape = list(x.shape)
            pad_shape[axis] = size - have
            x = _C.concat([x, _C.zeros(pad_shape, x.dtype)], axis)
    return x


def _finish(ret, out):
    if out is not None:
        from .tensor.creation import assign
        assign(ret, out)
        return out
    return ret


# ---- one axis ----

def _one_axis(x, n, axis, norm, *, cast, resize_to=None):
    x = cast(x)
    _check_normalization(norm)
    axis = -1 if axis is None else axis
    _check_axis(x, axis)
    axis = axis % x.ndim
    if n is not None:
        _check_n(n)
        x = _resize(x, [resize_to(n) if resize_to else n], [axis])
    return x, [axis]


def _c2c(x, n, axis, norm, forward, out):
    x, axes = _one_axis(x, n, axis, norm, cast=_as_complex)
    return _finish(_C.fft_c2c(x, axes, norm, forward), out)


def _r2c(x, n, axis, norm, forward, onesided, out):
    x, axes = _one_axis(x, n, axis, norm, cast=_as_real)
    return _finish(_C.fft_r2c(x, axes, norm, forward, onesided), out)


def _c2r(x, n, axis, norm, forward, out):
    x, axes = _one_axis(x, n, axis, norm, cast=_as_complex, resize_to=lambda m: m // 2 + 1)
    return _finish(_C.fft_c2r(x, axes, norm, forward, 0 if n is None else n), out)


def _is_real(x):
    return _dtype(x) in _INTEGERS or _dtype(x) in _COMPLEX_OF


_DOC_1D = """{summary}

    Args:
        x (Tensor): The input{input}. Alias: ``input``.
        n (int, optional): The signal's length along axis{n_extra}: the input is cropped or
            zero-padded to it. Default: None (the input's length).
        axis (int, optional): The axis to transform. Alias: ``dim``. Default: -1.
        norm (str, optional): 'backward' (no scale forward, 1/n on the inverse), 'forward' (the
            opposite) or 'ortho' (1/sqrt(n) both ways). Default: 'backward'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.
        out (Tensor, optional): A tensor to write the result into. Default: None.

    Returns:
        Tensor: {returns}

    Examples:
        >>> import oar
        {example}
"""


def _doc(template, **fields):
    def wrap(fn):
        fn.__doc__ = template.format(**fields)
        return fn
    return wrap


@_aliases(input="x", dim="axis")
@_doc(_DOC_1D, summary="The one-dimensional discrete Fourier transform.", input=" (complex, real or integer)",
      n_extra="", returns="complex; the input's shape with n on axis.",
      example=">>> print(oar.fft.fft(oar.to_tensor([1.0, 2.0, 3.0, 4.0])).numpy())\n"
              "        [10.+0.j -2.+2.j -2.+0.j -2.-2.j]")
def fft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    if _is_real(x):
        return _r2c(x, n, axis, norm, True, False, out)
    return _c2c(x, n, axis, norm, True, out)


@_aliases(input="x", dim="axis")
@_doc(_DOC_1D, summary="The one-dimensional inverse discrete Fourier transform.",
      input=" (complex, real or integer)", n_extra="", returns="complex; the input's shape with n on axis.",
      example=">>> print(oar.fft.ifft(oar.to_tensor([4 + 4j, 0j, 0j, 0j])).numpy())\n"
              "        [1.+1.j 1.+1.j 1.+1.j 1.+1.j]")
def ifft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    if _is_real(x):
        return _r2c(x, n, axis, norm, False, False, out)
    return _c2c(x, n, axis, norm, False, out)


@_aliases(input="x", dim="axis")
@_doc(_DOC_1D, summary="The discrete Fourier transform of a real signal: the n // 2 + 1 non-negative frequencies.",
      input=" (real or integer)", n_extra="", returns="complex; n // 2 + 1 entries on axis.",
      example=">>> print(oar.fft.rfft(oar.to_tensor([1.0, 2.0, 3.0, 4.0])).numpy())\n"
              "        [10.+0.j -2.+2.j -2.+0.j]")
def rfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    return _r2c(x, n, axis, norm, True, True, out)


@_aliases(input="x", dim="axis")
@_doc(_DOC_1D, summary="The inverse of rfft: a real signal of n points from its non-negative frequencies.",
      input=" (the half spectrum, complex)", n_extra=" (the input is resized to n // 2 + 1 first)",
      returns="real; n entries on axis (default 2 (m - 1) for m input entries).",
      example=">>> print(oar.fft.irfft(oar.to_tensor([10 + 0j, -2 + 2j, -2 + 0j])).numpy())\n"
              "        [1. 2. 3. 4.]")
def irfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    return _c2r(x, n, axis, norm, False, out)


@_aliases(input="x", dim="axis")
@_doc(_DOC_1D, summary="The FFT of a signal with Hermitian symmetry, given by its first half: a real spectrum.",
      input=" (the half signal, complex)", n_extra=" (the input is resized to n // 2 + 1 first)",
      returns="real; n entries on axis (default 2 (m - 1) for m input entries).",
      example=">>> print(oar.fft.hfft(oar.to_tensor([1 + 0j, 2 + 0j, 3 + 0j])).numpy())\n"
              "        [ 8. -2.  0. -2.]")
def hfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    return _c2r(x, n, axis, norm, True, out)


@_aliases(input="x", dim="axis")
@_doc(_DOC_1D, summary="The inverse of hfft: the first half of the inverse FFT of a real signal.",
      input=" (real or integer)", n_extra="", returns="complex; n // 2 + 1 entries on axis.",
      example=">>> print(oar.fft.ihfft(oar.to_tensor([8.0, -2.0, 0.0, -2.0])).numpy())\n"
              "        [1.-0.j 2.-0.j 3.-0.j]")
def ihfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    return _r2c(x, n, axis, norm, False, True, out)


# ---- n dimensions ----

def _n_axes(x, s, axes, norm, *, cast, keep_last):
    """The transform's axes and sizes, Paddle's way: axes default to the last len(s) (or all);
    given axes are sorted (all but the last when keep_last, since r2c/c2r halve the last), and
    s follows its axes."""
    x = cast(x)
    _check_normalization(norm)
    if s is not None:
        _check_s(x, s)
    if axes is None:
        axes = list(range(x.ndim)) if s is None else list(range(x.ndim - len(s), x.ndim))
    else:
        _check_axes(x, axes)
        axes = [a % x.ndim for a in axes]
        head = len(axes) - 1 if keep_last else len(axes)
        order = sorted(range(head), key=lambda i: axes[i]) + list(range(head, len(axes)))
        if s is not None and len(s) != len(axes):
            raise ValueError(f"Length of s ({len(s)}) and length of axes ({len(axes)}) does not match.")
        axes = [axes[i] for i in order]
        s = None if s is None else [s[i] for i in order]
    return x, axes, (None if s is None else list(s))


def _c2c_n(x, s, axes, norm, forward, out):
    x, axes, s = _n_axes(x, s, axes, norm, cast=_as_complex, keep_last=False)
    if s is not None:
        x = _resize(x, s, axes)
    return _finish(_C.fft_c2c(x, axes, norm, forward), out)


def _r2c_n(x, s, axes, norm, forward, onesided, out):
    x, axes, s = _n_axes(x, s, axes, norm, cast=_as_real, keep_last=True)
    if s is not None:
        x = _resize(x, s, axes)
    return _finish(_C.fft_r2c(x, axes, norm, forward, onesided), out)


def _c2r_n(x, s, axes, norm, forward, out):
    x, axes, s = _n_axes(x, s, axes, norm, cast=_as_complex, keep_last=True)
    if s is not None:
        x = _resize(x, s[:-1] + [s[-1] // 2 + 1], axes)
    return _finish(_C.fft_c2r(x, axes, norm, forward, 0 if s is None else s[-1]), out)


_DOC_ND = """{summary}

    Args:
        x (Tensor): The input{input}. Alias: ``input``.
        s (list|tuple, optional): The signal's size on each transformed axis{s_extra}: the input
            is cropped or zero-padded to it. Default: None (the input's sizes).
        axes (list|tuple, optional): The axes to transform. Alias: ``dim``. Default: {axes_default}.
        norm (str, optional): 'backward', 'forward' or 'ortho', as for the one-dimensional
            transform, with n the product of the sizes. Default: 'backward'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.
        out (Tensor, optional): A tensor to write the result into. Default: None.

    Returns:
        Tensor: {returns}

    Examples:
        >>> import oar
        {example}
"""

_EX_2D = ">>> x = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])\n        >>> print({call}.numpy())\n        {out}"


def _nd_doc(name, summary, input, returns, out, s_extra="", axes_default="None (the last len(s) axes, or all)",
            real_part=False):
    # real_part: print the real part (the signs of zero imaginary parts vary, as in Paddle and NumPy)
    call = f"oar.real(oar.fft.{name}(x))" if real_part else f"oar.fft.{name}(x)"
    return _doc(_DOC_ND, summary=summary, input=input, s_extra=s_extra, axes_default=axes_default, returns=returns,
                example=_EX_2D.format(call=call, out=out))


@_aliases(input="x", dim="axes")
@_nd_doc("fftn", "The n-dimensional discrete Fourier transform.", " (complex, real or integer)",
         "complex; the input's shape with s on axes.", "[[10.+0.j -2.+0.j]\n         [-4.+0.j  0.+0.j]]")
def fftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    if _is_real(x):
        return _r2c_n(x, s, axes, norm, True, False, out)
    return _c2c_n(x, s, axes, norm, True, out)


@_aliases(input="x", dim="axes")
@_nd_doc("ifftn", "The n-dimensional inverse discrete Fourier transform.", " (complex, real or integer)",
         "complex; the input's shape with s on axes.", "[[ 2.5 -0.5]\n         [-1.   0. ]]",
         real_part=True)
def ifftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    if _is_real(x):
        return _r2c_n(x, s, axes, norm, False, False, out)
    return _c2c_n(x, s, axes, norm, False, out)


@_aliases(input="x", dim="axes")
@_nd_doc("rfftn", "The n-dimensional FFT of a real signal; the last axis keeps n // 2 + 1 frequencies.",
         " (real or integer)", "complex; s on axes, s[-1] // 2 + 1 on the last.",
         "[[10.+0.j -2.+0.j]\n         [-4.+0.j  0.+0.j]]")
def rfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    return _r2c_n(x, s, axes, norm, True, True, out)


@_aliases(input="x", dim="axes")
@_nd_doc("irfftn", "The inverse of rfftn: a real signal from its half spectrum.", " (the half spectrum, complex)",
         "real; s on axes (default: the input's sizes, 2 (m - 1) on the last).",
         "[[ 2.5 -0.5]\n         [-1.   0. ]]", s_extra=" (the last axis is resized to s[-1] // 2 + 1 first)")
def irfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    return _c2r_n(x, s, axes, norm, False, out)


@_aliases(input="x", dim="axes")
@_nd_doc("hfftn", "The n-dimensional FFT of a signal with Hermitian symmetry given by its half: a real spectrum.",
         " (the half signal, complex)", "real; s on axes (default: the input's sizes, 2 (m - 1) on the last).",
         "[[10. -2.]\n         [-4.  0.]]", s_extra=" (the last axis is resized to s[-1] // 2 + 1 first)")
def hfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    return _c2r_n(x, s, axes, norm, True, out)


@_aliases(input="x", dim="axes")
@_nd_doc("ihfftn", "The inverse of hfftn: the half of the n-dimensional inverse FFT of a real signal.",
         " (real or integer)", "complex; s on axes, s[-1] // 2 + 1 on the last.",
         "[[ 2.5-0.j -0.5-0.j]\n         [-1. -0.j  0. -0.j]]")
def ihfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    return _r2c_n(x, s, axes, norm, False, True, out)


def _two_d(fn_n, summary, shape):
    """fft2 and friends: fftn's counterpart checked for exactly two axes."""
    name = fn_n.__name__[:-1] + "2"

    @_aliases(input="x", dim="axes")
    def fn(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):
        _check_rank_at_least(x, 2)
        _check_two(s, axes)
        return fn_n(x, s, axes, norm, name, out=out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = _DOC_ND.format(
        summary=summary, input=" (rank 2 or more)", s_extra=" (two sizes)", axes_default="(-2, -1)",
        returns=f"as {fn_n.__name__}'s, over two axes.",
        example=f">>> print(oar.fft.{name}(oar.ones([3, 4])).shape)\n        {shape}")
    return fn


fft2 = _two_d(fftn, "The two-dimensional discrete Fourier transform.", "[3, 4]")
ifft2 = _two_d(ifftn, "The two-dimensional inverse discrete Fourier transform.", "[3, 4]")
rfft2 = _two_d(rfftn, "The two-dimensional FFT of a real signal; the last axis keeps n // 2 + 1 frequencies.",
               "[3, 3]")
irfft2 = _two_d(irfftn, "The inverse of rfft2: a real signal from its half spectrum.", "[3, 6]")
hfft2 = _two_d(hfftn, "The two-dimensional FFT of a signal with Hermitian symmetry given by its half.", "[3, 6]")
ihfft2 = _two_d(ihfftn, "The inverse of hfft2: the half of the two-dimensional inverse FFT of a real signal.",
                "[3, 3]")


# ---- frequencies and shifts ----

def _freq_result(values, dtype, out, device, requires_grad):
    if device is not None:
        values = values.to(device)
    values.stop_gradient = not requires_grad
    return _finish(values, out)


def fftfreq(n, d=1.0, dtype=None, name=None, *, out=None, device=None, requires_grad=False):
    """The sample frequencies of an n-point DFT with sample spacing d: [0, 1, ..., (n - 1) // 2,
    -(n // 2), ..., -1] / (d n).

    Args:
        n (int): The window length.
        d (float, optional): The sample spacing (1 / sample rate). Default: 1.0.
        dtype (str, optional): The result's dtype. Default: None (the default float dtype).
        name (str, optional): Unused; for Paddle compatibility. Default: None.
        out (Tensor, optional): A tensor to write the result into. Default: None.
        device (str|Place, optional): Where to put the result. Default: None (the current device).
        requires_grad (bool, optional): Whether the result records gradients. Default: False.

    Returns:
        Tensor: n frequencies.

    Examples:
        >>> import oar
        >>> print(oar.fft.fftfreq(4, d=0.5).numpy())
        [ 0.   0.5 -1.  -0.5]
    """
    if d * n == 0:
        raise ValueError("d or n should not be 0.")
    from .framework.dtype import get_default_dtype
    dtype = convert_dtype(dtype) if dtype is not None else get_default_dtype()
    pos, neg = (n + 1) // 2, n // 2
    values = _C.roll(_C.arange(-neg, pos, 1, dtype), [-neg], [0]) * (1.0 / (n * d))
    return _freq_result(values, dtype, out, device, requires_grad)


def rfftfreq(n, d=1.0, dtype=None, name=None, *, out=None, device=None, requires_grad=False):
    """The sample frequencies of rfft's output: [0, 1, ..., n // 2] / (d n).

    Args:
        n (int): The window length.
        d (float, optional): The sample spacing (1 / sample rate). Default: 1.0.
        dtype (str, optional): The result's dtype. Default: None (the default float dtype).
        name (str, optional): Unused; for Paddle compatibility. Default: None.
        out (Tensor, optional): A tensor to write the result into. Default: None.
        device (str|Place, optional): Where to put the result. Default: None (the current device).
        requires_grad (bool, optional): Whether the result records gradients. Default: False.

    Returns:
        Tensor: n // 2 + 1 frequencies.

    Examples:
        >>> import oar
        >>> print(oar.fft.rfftfreq(4, d=0.5).numpy())
        [0.  0.5 1. ]
    """
    if d * n == 0:
        raise ValueError("d or n should not be 0.")
    from .framework.dtype import get_default_dtype
    dtype = convert_dtype(dtype) if dtype is not None else get_default_dtype()
    values = _C.arange(0, 1 + n // 2, 1, dtype) * (1.0 / (n * d))
    return _freq_result(values, dtype, out, device, requires_grad)


def _shift(x, axes, amount):
    if axes is None:
        axes = list(range(x.ndim))
    elif isinstance(axes, int):
        return _C.roll(x, [amount(x.shape[axes])], [axes])
    return _C.roll(x, [amount(x.shape[a]) for a in axes], list(axes))


@_aliases(input="x", dim="axes")
def fftshift(x, axes=None, name=None):
    """Moves the zero frequency to the centre: rolls each axis by half its length.

    Args:
        x (Tensor): The spectrum. Alias: ``input``.
        axes (int|list|tuple, optional): The axes to shift. Alias: ``dim``. Default: None (all).
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x's shape and dtype.

    Examples:
        >>> import oar
        >>> print(oar.fft.fftshift(oar.fft.fftfreq(5)).numpy())
        [-0.4 -0.2  0.   0.2  0.4]
    """
    return _shift(x, axes, lambda size: size // 2)


@_aliases(input="x", dim="axes")
def ifftshift(x, axes=None, name=None):
    """The inverse of fftshift: rolls each axis back by (length + 1) // 2.

    Args:
        x (Tensor): The shifted spectrum. Alias: ``input``.
        axes (int|list|tuple, optional): The axes to shift. Alias: ``dim``. Default: None (all).
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x's shape and dtype.

    Examples:
        >>> import oar
        >>> print(oar.fft.ifftshift(oar.fft.fftshift(oar.fft.fftfreq(5))).numpy())
        [ 0.   0.2  0.4 -0.4 -0.2]
    """
    return _shift(x, axes, lambda size: (size + 1) // 2)
