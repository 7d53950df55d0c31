"""Window functions, as paddle.audio.functional.get_window and paddle's hann_window & co.

The windows are the formulas of scipy.signal.windows (as Paddle's), evaluated in float64 with
NumPy and then converted to the requested dtype: a window is a constant, so there is nothing to
differentiate, and float64 keeps the float32 windows within rounding of the exact values.
Each function takes the length M and sym; sym=False (get_window's fftbins=True) gives the
periodic window, the symmetric window of M + 1 points without its last point.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ...tensor.creation import to_tensor

__all__ = ["get_window"]


def _check_length(M):
    if int(M) != M or M < 0:
        raise ValueError("Window length M must be a non-negative integer")
    return int(M)


def _periodic(fn):
    """Wraps fn(M, *params) -> symmetric window: lengths 0 and 1 give ones, and sym=False
    computes M + 1 points and drops the last."""
    def window(M, *params, sym=True):
        M = _check_length(M)
        if M <= 1:
            return np.ones(M)
        if sym:
            return fn(M, *params)
        return fn(M + 1, *params)[:-1]
    window.__name__ = fn.__name__
    return window


@_periodic
def _general_cosine(M, a):
    fac = np.linspace(-math.pi, math.pi, M)
    return sum(coef * np.cos(k * fac) for k, coef in enumerate(a))


def _general_hamming(M, alpha, sym=True):
    return _general_cosine(M, [alpha, 1.0 - alpha], sym=sym)


def _hamming(M, sym=True):
    return _general_hamming(M, 0.54, sym=sym)


def _hann(M, sym=True):
    return _general_hamming(M, 0.5, sym=sym)


def _blackman(M, sym=True):
    return _general_cosine(M, [0.42, 0.50, 0.08], sym=sym)


def _nuttall(M, sym=True):
    return _general_cosine(M, [0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym)


@_periodic
def _bartlett(M):
    n = np.arange(M)
    return np.where(n <= (M - 1) / 2.0, 2.0 * n / (M - 1), 2.0 - 2.0 * n / (M - 1))


@_periodic
def _kaiser(M, beta):
    n = np.arange(M)
    alpha = (M - 1) / 2.0
    return np.i0(beta * np.sqrt(1 - ((n - alpha) / alpha) ** 2.0)) / np.i0(beta)


@_periodic
def _gaussian(M, std):
    n = np.arange(M) - (M - 1.0) / 2.0
    return np.exp(-(n ** 2) / (2 * std * std))


@_periodic
def _general_gaussian(M, p, sig):
    n = np.arange(M) - (M - 1.0) / 2.0
    return np.exp(-0.5 * np.abs(n / sig) ** (2 * p))


def _exponential(M, center=None, tau=1.0, sym=True):
    if sym and center is not None:
        raise ValueError("If sym==True, center must be None.")

    @_periodic
    def exponential(M):
        c = (M - 1) / 2 if center is None else center
        return np.exp(-np.abs(np.arange(M) - c) / tau)
    return exponential(M, sym=sym)


@_periodic
def _triang(M):
    n = np.arange(1, (M + 1) // 2 + 1)
    if M % 2 == 0:
        w = (2 * n - 1.0) / M
        return np.concatenate([w, w[::-1]])
    w = 2 * n / (M + 1.0)
    return np.concatenate([w, w[-2::-1]])


@_periodic
def _bohman(M):
    fac = np.abs(np.linspace(-1, 1, M)[1:-1])
    w = (1 - fac) * np.cos(math.pi * fac) + np.sin(math.pi * fac) / math.pi
    return np.concatenate([[0.0], w, [0.0]])


@_periodic
def _cosine(M):
    return np.sin(math.pi / M * (np.arange(M) + 0.5))


def _tukey(M, alpha=0.5, sym=True):
    M = _check_length(M)
    if M <= 1 or alpha <= 0:
        return np.ones(M)
    if alpha >= 1.0:
        return _hann(M, sym=sym)

    @_periodic
    def tukey(M):
        n = np.arange(M)
        width = int(alpha * (M - 1) / 2.0)
        n1, n2, n3 = n[:width + 1], n[width + 1:M - width - 1], n[M - width - 1:]
        w1 = 0.5 * (1 + np.cos(math.pi * (-1 + 2.0 * n1 / alpha / (M - 1))))
        w3 = 0.5 * (1 + np.cos(math.pi * (-2.0 / alpha + 1 + 2.0 * n3 / alpha / (M - 1))))
        return np.concatenate([w1, np.ones(len(n2)), w3])
    return tukey(M, sym=sym)


def _taylor(M, nbar=4, sll=30, norm=True, sym=True):
    # sll is the (positive) side-lobe level in dB below the main lobe.
    @_periodic
    def taylor(M):
        B = 10 ** (sll / 20)
        A = math.acosh(B) / math.pi
        s2 = nbar ** 2 / (A ** 2 + (nbar - 0.5) ** 2)
        ma = np.arange(1, nbar, dtype=np.float64)
        Fm = np.empty(nbar - 1)
        signs = np.where(np.arange(nbar - 1) % 2 == 0, 1.0, -1.0)
        m2 = ma * ma
        for mi in range(len(ma)):
            numer = signs[mi] * np.prod(1 - m2[mi] / s2 / (A ** 2 + (ma - 0.5) ** 2))
            others = np.concatenate([m2[:mi], m2[mi + 1:]])
            Fm[mi] = numer / (2 * np.prod(1 - m2[mi] / others))

        def W(n):
            return 1 + 2 * Fm @ np.cos(2 * math.pi * ma[:, None] * (n - M / 2.0 + 0.5) / M)
        w = W(np.arange(M))
        if norm:
            w = w / W(np.array([(M - 1) / 2]))[0]
        return w
    return taylor(M, sym=sym)


# get_window's names: those of Paddle's window registry (scipy's names).
_WINDOWS = {
    "hamming": _hamming, "hann": _hann, "kaiser": _kaiser, "bartlett": _bartlett, "nuttall": _nuttall,
    "gaussian": _gaussian, "general_gaussian": _general_gaussian, "exponential": _exponential,
    "triang": _triang, "bohman": _bohman, "blackman": _blackman, "cosine": _cosine, "tukey": _tukey,
    "taylor": _taylor, "general_cosine": _general_cosine, "general_hamming": _general_hamming,
}
# Windows that cannot be used without their parameters (get_window's check, as Paddle's).
_NEED_PARAMETERS = ("gaussian", "exponential", "kaiser")


def _window_array(window, win_length, fftbins):
    """The float64 NumPy window get_window describes."""
    if isinstance(window, tuple):
        name, params = window[0], window[1:]
    elif isinstance(window, str):
        if window in _NEED_PARAMETERS:
            raise ValueError(f"The '{window}' window needs one or more parameters -- pass a tuple.")
        name, params = window, ()
    else:
        raise ValueError(f"{type(window)} as window type is not supported.")
    fn = _WINDOWS.get(name) if isinstance(name, str) else None
    if fn is None:
        raise ValueError("Unknown window type.")
    return np.asarray(fn(win_length, *params, sym=not fftbins), dtype=np.float64)


def get_window(window, win_length, fftbins=True, dtype="float64"):
    """A window function of the given type and length, as scipy.signal.get_window.

    Args:
        window (str|tuple): The window's name, or a tuple of its name and parameters:
            'hamming', 'hann', 'blackman', 'nuttall', 'bartlett', 'triang', 'bohman', 'cosine',
            'tukey' (alpha=0.5), 'taylor' (nbar=4, sll=30, norm=True), and, with their parameters
            required, ('kaiser', beta), ('gaussian', std), ('general_gaussian', p, sig),
            ('exponential', center, tau), ('general_cosine', coefficients),
            ('general_hamming', alpha).
        win_length (int): The number of points, a non-negative integer.
        fftbins (bool, optional): True gives a periodic window (for spectral analysis: the
            symmetric window of win_length + 1 points without its last), False a symmetric one
            (for filter design). Default: True.
        dtype (str, optional): The result's dtype. Default: 'float64'.

    Returns:
        Tensor: The window, shape [win_length].

    Examples:
        >>> import oar
        >>> print(oar.audio.functional.get_window('hann', 4).numpy())
        [0.  0.5 1.  0.5]
        >>> print(oar.audio.functional.get_window('hann', 5, fftbins=False).numpy())
        [0.  0.5 1.  0.5 0. ]
        >>> print(oar.audio.functional.get_window(('gaussian', 1.0), 3, fftbins=False).numpy().round(4))
        [0.6065 1.     0.6065]
    """
    return to_tensor(_window_array(window, win_length, fftbins), dtype=dtype)


def _creation_options(w, layout, device, pin_memory, requires_grad):
    """The tensor-creation keywords of paddle's *_window functions (pin_memory has no effect on
    oar's host memory)."""
    if layout is not None:
        warnings.warn("layout only supports 'strided' in Paddle; ignored")
    if device is not None:
        w = w.to(device)
    w.stop_gradient = not requires_grad
    return w


def hann_window(window_length, periodic=True, *, dtype="float32", layout=None, device=None,
                pin_memory=False, requires_grad=False):
    """The Hann window, 0.5 - 0.5 cos(2 pi n / N) (paddle.hann_window).

    Args:
        window_length (int): The number of points.
        periodic (bool, optional): True for the periodic window (N = window_length), False for
            the symmetric one (N = window_length - 1). Default: True.
        dtype (str, optional): The result's dtype. Default: 'float32'.
        layout (str, optional): Ignored (with a warning), as in Paddle. Default: None.
        device (str|Place, optional): Where the window is put. Default: None (the current device).
        pin_memory (bool, optional): Unused; for compatibility. Default: False.
        requires_grad (bool, optional): Whether autograd tracks the window. Default: False.

    Returns:
        Tensor: The window, shape [window_length].

    Examples:
        >>> import oar
        >>> print(oar.hann_window(4).numpy())
        [0.  0.5 1.  0.5]
    """
    w = get_window("hann", window_length, fftbins=periodic, dtype=dtype)
    return _creation_options(w, layout, device, pin_memory, requires_grad)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype="float32", layout=None,
                   device=None, pin_memory=False, requires_grad=False):
    """The generalized Hamming window, alpha - beta cos(2 pi n / N) (paddle.hamming_window).

    Args:
        window_length (int): The number of points.
        periodic (bool, optional): True for the periodic window, False for the symmetric one.
            Default: True.
        alpha (float, optional): The constant term. Default: 0.54.
        beta (float, optional): The cosine's coefficient. Default: 0.46.
        dtype (str, optional): The result's dtype. Default: 'float32'.
        layout (str, optional): Ignored (with a warning), as in Paddle. Default: None.
        device (str|Place, optional): Where the window is put. Default: None (the current device).
        pin_memory (bool, optional): Unused; for compatibility. Default: False.
        requires_grad (bool, optional): Whether autograd tracks the window. Default: False.

    Returns:
        Tensor: The window, shape [window_length].

    Examples:
        >>> import oar
        >>> print(oar.hamming_window(4).numpy())
        [0.08 0.54 1.   0.54]
        >>> print(oar.hamming_window(4, alpha=0.5, beta=0.5).numpy().round(4))
        [0.  0.5 1.  0.5]
    """
    # The standard Hamming window (0.54, 0.46) rescaled, as Paddle does: alpha - beta cos(...)
    # at every length above 1 (a 1-point window is alpha + beta).
    scale = beta / 0.46
    w = (alpha - 0.54 * scale) + scale * _window_array("hamming", window_length, periodic)
    w = to_tensor(w, dtype=dtype)
    return _creation_options(w, layout, device, pin_memory, requires_grad)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype="float32", layout=None, device=None,
                  pin_memory=False, requires_grad=False):
    """The Kaiser window, I0(beta sqrt(1 - (2n / N - 1)^2)) / I0(beta) (paddle.kaiser_window).

    Args:
        window_length (int): The number of points.
        periodic (bool, optional): True for the periodic window, False for the symmetric one.
            Default: True.
        beta (float, optional): The shape parameter. Default: 12.0.
        dtype (str, optional): The result's dtype. Default: 'float32'.
        layout (str, optional): Ignored (with a warning), as in Paddle. Default: None.
        device (str|Place, optional): Where the window is put. Default: None (the current device).
        pin_memory (bool, optional): Unused; for compatibility. Default: False.
        requires_grad (bool, optional): Whether autograd tracks the window. Default: False.

    Returns:
        Tensor: The window, shape [window_length].

    Examples:
        >>> import oar
        >>> print(oar.kaiser_window(3, periodic=False, beta=0.0).numpy())
        [1. 1. 1.]
    """
    w = get_window(("kaiser", beta), window_length, fftbins=periodic, dtype=dtype)
    return _creation_options(w, layout, device, pin_memory, requires_grad)


def blackman_window(window_length, periodic=True, *, dtype="float32", layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """The Blackman window, 0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)
    (paddle.blackman_window).

    Args:
        window_length (int): The number of points.
        periodic (bool, optional): True for the periodic window, False for the symmetric one.
            Default: True.
        dtype (str, optional): The result's dtype. Default: 'float32'.
        layout (str, optional): Ignored (with a warning), as in Paddle. Default: None.
        device (str|Place, optional): Where the window is put. Default: None (the current device).
        pin_memory (bool, optional): Unused; for compatibility. Default: False.
        requires_grad (bool, optional): Whether autograd tracks the window. Default: False.

    Returns:
        Tensor: The window, shape [window_length].

    Examples:
        >>> import oar
        >>> print(oar.blackman_window(3, periodic=False, dtype='float64').numpy().round(6))
        [-0.  1. -0.]
    """
    w = get_window("blackman", window_length, fftbins=periodic, dtype=dtype)
    return _creation_options(w, layout, device, pin_memory, requires_grad)


def bartlett_window(window_length, periodic=True, *, dtype="float32", layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """The Bartlett (triangular, zero at both ends) window (paddle.bartlett_window).

    Args:
        window_length (int): The number of points.
        periodic (bool, optional): True for the periodic window, False for the symmetric one.
            Default: True.
        dtype (str, optional): The result's dtype. Default: 'float32'.
        layout (str, optional): Ignored (with a warning), as in Paddle. Default: None.
        device (str|Place, optional): Where the window is put. Default: None (the current device).
        pin_memory (bool, optional): Unused; for compatibility. Default: False.
        requires_grad (bool, optional): Whether autograd tracks the window. Default: False.

    Returns:
        Tensor: The window, shape [window_length].

    Examples:
        >>> import oar
        >>> print(oar.bartlett_window(4).numpy())
        [0.  0.5 1.  0.5]
    """
    w = get_window("bartlett", window_length, fftbins=periodic, dtype=dtype)
    return _creation_options(w, layout, device, pin_memory, requires_grad)
