"""Initializers with structure: Orthogonal, Dirac (identity convolution) and Bilinear (upsampling)."""
import math

import numpy as np

from ... import _C
from .initializer import Initializer, draw_dtype


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix from the QR factorisation of a Gaussian draw, reshaped to the
    parameter (rows = shape[0], columns = the rest), scaled by gain."""

    def __init__(self, gain=1.0, name=None):
        self.gain = gain

    def _values(self, shape, dtype):
        if len(shape) < 2:
            raise ValueError(f"Orthogonal: the parameter must have at least 2 dimensions, but got shape {shape}")
        rows, cols = shape[0], math.prod(shape[1:])
        flat = _C.gaussian([max(rows, cols), min(rows, cols)], 0.0, 1.0, 0, draw_dtype(dtype))
        from ... import linalg
        q, r = linalg.qr(flat)
        q = q * _C.sign(r.diagonal(axis1=-2, axis2=-1))  # sign fix: makes the draw uniform over orthogonal matrices
        if rows < cols:
            q = _C.transpose(q, [1, 0])
        return _C.reshape(q * self.gain, shape)


class Dirac(Initializer):
    """Convolution weights [out, in, *k] that pass channel i of group g through unchanged."""

    def __init__(self, groups=1, name=None):
        self.groups = groups

    def _values(self, shape, dtype):
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"Dirac: the parameter must be 3-D, 4-D or 5-D, but got shape {shape}")
        if shape[0] % self.groups != 0:
            raise ValueError(f"Dirac: out channels {shape[0]} are not divisible by groups {self.groups}")
        w = np.zeros(shape, np.float32)
        per_group = shape[0] // self.groups
        centre = tuple(k // 2 for k in shape[2:])
        for g in range(self.groups):
            for i in range(min(per_group, shape[1])):
                w[(g * per_group + i, i) + centre] = 1.0
        from ...tensor.creation import to_tensor
        return to_tensor(w)


class Bilinear(Initializer):
    """Weights of a transposed convolution that upsamples by bilinear interpolation ([C, 1, K, K])."""

    def _values(self, shape, dtype):
        if len(shape) != 4 or shape[2] != shape[3]:
            raise ValueError(f"Bilinear: the parameter must be 4-D with square kernels, but got shape {shape}")
        k = shape[3]
        f = math.ceil(k / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        idx = np.arange(k)
        line = 1 - np.abs(idx / f - c)
        w = np.broadcast_to(np.outer(line, line), shape).astype(np.float32)
        from ...tensor.creation import to_tensor
        return to_tensor(np.ascontiguousarray(w))
