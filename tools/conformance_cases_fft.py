"""Conformance cases for paddle.fft and paddle.signal (oar/ops/specs/fft.yaml and python/oar/fft.py,
python/oar/signal.py): every transform in single and double precision with default and resized
sizes, axes and each normalisation, the frequency helpers and shifts, stft/istft."""
import numpy as np

from conformance_cases import FLOATS, Case, lazy_table, own_stream

arr, carr = own_stream(1818)  # this family's own inputs: the other families' stay as they were

NORMS = ("backward", "forward", "ortho")
COMPLEX = {"float32": "complex64", "float64": "complex128"}
TAKES_REAL = {"rfft", "ihfft", "rfft2", "ihfft2", "rfftn", "ihfftn"}


def _input(name, shape, dt):
    return arr(shape, dt) if name in TAKES_REAL else carr(shape, COMPLEX[dt])


def _one_d(name):
    out = []
    for dt in FLOATS:
        for norm in NORMS:
            out.append(Case([_input(name, (3, 8), dt)], {"norm": norm}))
        out.append(Case([_input(name, (4, 6), dt)], {"n": 9, "axis": 0}))
        out.append(Case([_input(name, (2, 3, 10), dt)], {"n": 6}))
    if name not in TAKES_REAL:  # real input of a complex transform
        out.append(Case([arr((3, 8), "float64")]))
    return out


def _n_d(name):
    two = name.endswith("2")
    out = []
    for dt in FLOATS:
        for norm in NORMS:
            out.append(Case([_input(name, (2, 4, 6), dt)], {"norm": norm}))
        out.append(Case([_input(name, (3, 4, 6), dt)], {"s": [5, 8]} if two else {"s": [5, 8], "axes": [2, 0]}))
        out.append(Case([_input(name, (3, 4, 6), dt)], {"axes": [0, 2]} if two else {"axes": [1]}))
    return out


def _table():
    table = {}
    for name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
        table[name] = _one_d(name)
    for name in ("fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn",
                 "hfftn", "ihfftn"):
        table[name] = _n_d(name)
    table["fftfreq"] = [Case([n], {"d": d}, grad=False) for n in (1, 4, 7) for d in (1.0, 0.25)] + \
        [Case([6], {"dtype": "float64"}, grad=False)]
    table["rfftfreq"] = [Case([n], {"d": d}, grad=False) for n in (1, 4, 7) for d in (1.0, 0.25)]
    for name in ("fftshift", "ifftshift"):
        table[name] = [Case([arr((3, 4, 5), dt)], kw) for dt in FLOATS
                       for kw in ({}, {"axes": [1]}, {"axes": [0, 2]})]
    return table


def _signal_table():
    x = arr((2, 64), "float64")
    window = np.hanning(16)
    return {
        "stft": [Case([x, 16]), Case([x, 16], {"hop_length": 3, "win_length": 12, "window": window[:12]}),
                 Case([arr((64,), "float32"), 16], {"center": False, "normalized": True}),
                 Case([x, 16], {"onesided": False, "pad_mode": "constant"})],
        # istft's input is an stft: its Hermitian halves are consistent, so gradients agree.
        "istft": [Case([carr((2, 9, 17), "complex128"), 16], grad=False),
                  Case([carr((9, 17), "complex64"), 16], {"window": window.astype("float32")}, grad=False),
                  Case([carr((2, 16, 17), "complex128"), 16], {"onesided": False, "length": 60}, grad=False)],
    }


_fft = lazy_table(_table, ("paddle.fft",))
_signal = lazy_table(_signal_table, ("paddle.signal",))


def cases(namespace, name):
    return _fft(namespace, name) or _signal(namespace, name)


_SHIFT_ONE_AXIS = ("Paddle 3.3.1's fftshift/ifftshift with a one-element axes list fail inside paddle.roll "
                   "(SystemError: '<built-in function roll> returned a result with an exception set'); oar "
                   "shifts that axis, checked against np.fft.fftshift in tests/python/test_fft.py")
KNOWN = {"paddle.fft.fftshift": _SHIFT_ONE_AXIS, "paddle.fft.ifftshift": _SHIFT_ONE_AXIS}
