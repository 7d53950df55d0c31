"""oar.signal: the short-time Fourier transform and its inverse (paddle.signal), with the framing
helpers they are built from (frame, overlap_add).

stft frames the signal (a strided view, Tensor.unfold), windows the frames and transforms them with
oar.fft's primitives; istft transforms back and overlap-adds the frames (nn.functional.fold), divided
by the overlap-added squared window. Argument errors are AssertionErrors with Paddle's messages, as
Paddle raises them."""
from __future__ import annotations

from . import _C
from .fft import _c2c, _c2r, _r2c
from .framework.dtype import complex64, complex128, float32, float64
from .framework.mode import in_dynamic_mode

__all__ = ["stft", "istft"]


def _require(condition, message):
    # Paddle checks these with assert; raised explicitly so that python -O keeps them.
    if not condition:
        raise AssertionError(message)


def _is_complex(t):
    return t.dtype in (complex64, complex128)


def _pad_signal(x, pad, mode):
    """x [batch, seq] padded by `pad` at both ends (complex: real and imaginary parts apart)."""
    from .nn.functional import pad as nn_pad

    def one(part):
        return nn_pad(part.unsqueeze(-1), pad=[pad, pad], mode=mode, data_format="NLC").squeeze(-1)
    if _is_complex(x):
        return _C.complex(one(_C.real(x)), one(_C.imag(x)))
    return one(x)


def _centered_window(window, win_length, n_fft, dtype):
    """The window (ones when None) zero-padded on both sides to n_fft."""
    if window is None:
        window = _C.ones([win_length], dtype)
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        parts = [_C.zeros([left], window.dtype), window, _C.zeros([n_fft - win_length - left], window.dtype)]
        window = _C.concat(parts, 0)
    return window


def frame(x, frame_length, hop_length, axis=-1, name=None):
    """Slices x into overlapping frames of frame_length samples, hop_length apart.

    Args:
        x (Tensor): The signal; frames are taken along axis 0 or the last.
        frame_length (int): Samples per frame, at most the signal's length.
        hop_length (int): Samples between frame starts, positive.
        axis (int, optional): 0 or -1. Default: -1.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: [..., frame_length, num_frames] for axis -1, [num_frames, frame_length, ...] for
        axis 0, with num_frames = 1 + (length - frame_length) // hop_length.

    Examples:
        >>> import oar
        >>> print(oar.signal.frame(oar.arange(6.0), 4, 2).numpy())
        [[0. 2.]
         [1. 3.]
         [2. 4.]
         [3. 5.]]
    """
    if axis not in (0, -1):
        raise ValueError(f"Unexpected axis: {axis}. It should be 0 or -1.")
    if not isinstance(frame_length, int) or frame_length <= 0:
        raise ValueError(f"Unexpected frame_length: {frame_length}. It should be an positive integer.")
    if not isinstance(hop_length, int) or hop_length <= 0:
        raise ValueError(f"Unexpected hop_length: {hop_length}. It should be an positive integer.")
    length = x.shape[axis]
    if frame_length > length:
        raise ValueError(f"Attribute frame_length should be less equal than sequence length, "
                         f"but got ({frame_length}) > ({length}).")
    frames = x.unfold(axis % x.ndim, frame_length, hop_length)  # frames replace axis, samples last
    if axis == -1:
        return _C.transpose(frames, list(range(x.ndim - 1)) + [x.ndim, x.ndim - 1])
    return _C.transpose(frames, [0, x.ndim] + list(range(1, x.ndim)))


def overlap_add(x, hop_length, axis=-1, name=None):
    """Adds overlapping frames hop_length apart back into one signal (the inverse of frame up to
    the overlaps' sums).

    Args:
        x (Tensor): Frames, [..., frame_length, num_frames] for axis -1 or
            [num_frames, frame_length, ...] for axis 0; float32, float64 or complex.
        hop_length (int): Samples between frame starts, positive.
        axis (int, optional): 0 or -1. Default: -1.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: [..., length] (or [length, ...]) with length = (num_frames - 1) * hop_length + frame_length.

    Examples:
        >>> import oar
        >>> print(oar.signal.overlap_add(oar.ones([4, 2]), 2).numpy())
        [1. 1. 2. 2. 1. 1.]
    """
    if axis not in (0, -1):
        raise ValueError(f"Unexpected axis: {axis}. It should be 0 or -1.")
    if not isinstance(hop_length, int) or hop_length <= 0:
        raise ValueError(f"Unexpected hop_length: {hop_length}. It should be an positive integer.")
    if x.ndim < 2:
        raise ValueError(f"Unexpected rank of x: {x.ndim}. It should be at least 2.")
    if axis == 0:  # [frames, frame_length, ...] -> [..., frame_length, frames]
        perm = list(range(2, x.ndim)) + [1, 0]
        out = overlap_add(_C.transpose(x, perm), hop_length, -1)
        return _C.transpose(out, [out.ndim - 1] + list(range(out.ndim - 1)))
    if _is_complex(x):
        return _C.complex(overlap_add(_C.real(x), hop_length), overlap_add(_C.imag(x), hop_length))
    from .nn.functional import fold
    *lead, frame_length, n_frames = x.shape
    length = (n_frames - 1) * hop_length + frame_length
    batch = 1
    for d in lead:
        batch *= d
    # fold sums the columns of [batch, kernel, blocks] into a [1, length] image: overlap-add.
    out = fold(x.reshape([batch, frame_length, n_frames]), [1, length], [1, frame_length], strides=[1, hop_length])
    return out.reshape(lead + [length])


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, name=None):
    """The short-time Fourier transform: the DFT of windowed frames of x,
    X_t[f] = sum_n window[n] x[t hop_length + n] exp(-2 pi i f n / n_fft).

    Args:
        x (Tensor): The signal, [seq_length] or [batch, seq_length], real or complex.
        n_fft (int): The frames' length (points of each DFT), in (0, seq_length].
        hop_length (int, optional): Samples between frames. Default: None (n_fft // 4).
        win_length (int, optional): The window's length, in (0, n_fft]. Default: None (n_fft).
        window (Tensor, optional): A 1-D window of win_length values, zero-padded on both sides
            to n_fft. Default: None (ones).
        center (bool, optional): Pad x by n_fft // 2 on both sides, so that frame t is centred on
            sample t hop_length. Default: True.
        pad_mode (str, optional): 'reflect' or 'constant', when center. Default: 'reflect'.
        normalized (bool, optional): Scale by 1/sqrt(n_fft) (norm 'ortho'). Default: False.
        onesided (bool, optional): Keep the n_fft // 2 + 1 non-negative frequencies; not allowed
            for complex input. Default: None (True for real input and window).
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: complex, [..., n_fft // 2 + 1, num_frames] (onesided) or [..., n_fft, num_frames].

    Examples:
        >>> import oar
        >>> x = oar.ones([64])
        >>> print(oar.signal.stft(x, n_fft=16).shape)
        [9, 17]
    """
    rank = x.ndim
    _require(rank in (1, 2), f"x should be a 1D or 2D real tensor, but got rank of x is {rank}")
    if rank == 1:
        x = x.unsqueeze(0)
    if hop_length is None:
        hop_length = int(n_fft // 4)
    _require(hop_length > 0, f"hop_length should be > 0, but got {hop_length}.")
    if win_length is None:
        win_length = n_fft
    if x.shape[-1] >= 0:  # known (a program's input may leave it open)
        _require(0 < n_fft <= x.shape[-1], f"n_fft should be in (0, seq_length({x.shape[-1]})], but got {n_fft}.")
    _require(0 < win_length <= n_fft, f"win_length should be in (0, n_fft({n_fft})], but got {win_length}.")
    if window is not None:
        _require(window.ndim == 1 and window.shape[0] == win_length,
                 f"expected a 1D window tensor of size equal to win_length({win_length}), "
                 f"but got window with shape {window.shape}.")
    window = _centered_window(window, win_length, n_fft, x.dtype)
    if center:
        _require(pad_mode in ("constant", "reflect"),
                 f'pad_mode should be "reflect" or "constant", but got "{pad_mode}".')
        x = _pad_signal(x, n_fft // 2, pad_mode)
    frames = _C.multiply(frame(x, n_fft, hop_length, -1).transpose([0, 2, 1]), window)  # [batch, frames, n_fft]
    norm = "ortho" if normalized else "backward"
    if onesided is None:
        onesided = not _is_complex(frames)
    if _is_complex(frames):
        _require(not onesided, "onesided should be False when input or window is a complex Tensor.")
    if _is_complex(x):
        out = _c2c(frames, None, -1, norm, True, None)
    else:
        out = _r2c(frames, None, -1, norm, True, onesided, None)
    out = out.transpose([0, 2, 1])  # [batch, n_fft, frames]
    return out.squeeze(0) if rank == 1 else out


def istft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False, onesided=True,
          length=None, return_complex=False, name=None):
    """The inverse short-time Fourier transform: inverse DFTs of the frames, windowed, overlap-added
    and divided by the overlap-added squared window (the least-squares estimate when the frames were
    modified). The window must satisfy the nonzero overlap-add condition.

    Args:
        x (Tensor): The STFT, complex, [n_fft or n_fft // 2 + 1, num_frames] or with a batch dim first.
        n_fft (int): Points of each DFT.
        hop_length (int, optional): Samples between frames, in (0, win_length]. Default: None (n_fft // 4).
        win_length (int, optional): The window's length, in (0, n_fft]. Default: None (n_fft).
        window (Tensor, optional): A 1-D window of win_length values; real unless return_complex.
            Default: None (ones).
        center (bool, optional): Whether stft padded the signal (it is cut off here). Default: True.
        normalized (bool, optional): Whether stft scaled by 1/sqrt(n_fft). Default: False.
        onesided (bool, optional): Whether x holds only the n_fft // 2 + 1 non-negative frequencies
            of a real signal. Default: True.
        length (int, optional): The signal's length. Default: None (all the frames cover).
        return_complex (bool, optional): Return a complex signal (then onesided must be False).
            Default: False.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the signal, [seq_length] or [batch, seq_length].

    Examples:
        >>> import oar
        >>> x = oar.rand([64], dtype='float64')
        >>> y = oar.signal.istft(oar.signal.stft(x, n_fft=16), n_fft=16)
        >>> print(bool(oar.allclose(x, y)))
        True
    """
    if not _is_complex(x):
        from .framework.dtype import convert_dtype
        raise TypeError(f"The data type of 'x' in istft must be one of ['complex64', 'complex128'], "
                        f"but received {convert_dtype(x.dtype)}.")
    rank = x.ndim
    _require(rank in (2, 3), f"x should be a 2D or 3D complex tensor, but got rank of x is {rank}")
    if rank == 2:
        x = x.unsqueeze(0)
    if hop_length is None:
        hop_length = int(n_fft // 4)
    if win_length is None:
        win_length = n_fft
    _require(0 < hop_length <= win_length,
             f"hop_length should be in (0, win_length({win_length})], but got {hop_length}.")
    _require(0 < win_length <= n_fft, f"win_length should be in (0, n_fft({n_fft})], but got {win_length}.")
    n_frames, fft_size = x.shape[-1], x.shape[-2]
    _require(x.size != 0, "x should not be an empty tensor.")
    if onesided:
        _require(fft_size == n_fft // 2 + 1, f"fft_size should be equal to n_fft // 2 + 1({n_fft // 2 + 1}) "
                 f"when onesided is True, but got {fft_size}.")
    else:
        _require(fft_size == n_fft, f"fft_size should be equal to n_fft({n_fft}) when onesided is False, "
                 f"but got {fft_size}.")
    if window is not None:
        _require(window.ndim == 1 and window.shape[0] == win_length,
                 f"expected a 1D window tensor of size equal to win_length({win_length}), "
                 f"but got window with shape {window.shape}.")
    real_dtype = float32 if x.dtype == complex64 else float64
    window = _centered_window(window, win_length, n_fft, real_dtype)
    x = x.transpose([0, 2, 1])  # [batch, frames, fft_size]
    norm = "ortho" if normalized else "backward"
    if return_complex:
        _require(not onesided,
                 "onesided should be False when input(output of istft) or window is a complex Tensor.")
        out = _c2c(x, None, -1, norm, False, None)
    else:
        _require(not _is_complex(window), "Data type of window should not be complex when return_complex is False.")
        if not onesided:
            x = x[:, :, : n_fft // 2 + 1]
        # n = n_fft (Paddle leaves it to the input, which loses a sample when n_fft is odd).
        out = _c2r(x, n_fft, -1, norm, False, None)
    out = overlap_add(_C.multiply(out, window).transpose([0, 2, 1]), hop_length, -1)  # [batch, seq]
    squared = _C.multiply(window, window).unsqueeze(1)  # [n_fft, 1]
    envelope = overlap_add(_C.tile(squared, [1, n_frames]), hop_length, -1)  # [seq]
    start = n_fft // 2 if center else 0
    if length is None:
        stop = out.shape[-1] - n_fft // 2 if center else out.shape[-1]
    else:
        stop = start + length
    out, envelope = out[:, start:stop], envelope[start:stop]
    if in_dynamic_mode() and float(envelope.abs().min()) < 1e-11:
        raise ValueError("Abort istft because Nonzero Overlap Add (NOLA) condition failed. For more information "
                         "about NOLA constraint please see `scipy.signal.check_NOLA`(https://docs.scipy.org/doc/"
                         "scipy/reference/generated/scipy.signal.check_NOLA.html).")
    out = out / envelope
    return out.squeeze(0) if rank == 2 else out
