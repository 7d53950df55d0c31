"""FractionalMaxPool2D/3D (paddle.nn): hold the arguments of F.fractional_max_pool2d/3d.

With random_u None every forward call draws a fresh u (from oar's RNG), as Paddle's layer does.
"""
from .. import functional as F
from .layers import Layer


class _FractionalMaxPool(Layer):
    _pool = None

    def __init__(self, output_size, kernel_size=None, random_u=None, return_mask=False, name=None):
        super().__init__()
        self._output_size = output_size
        self._kernel_size = kernel_size
        self._random_u = random_u
        self._return_mask = return_mask
        self._name = name

    def forward(self, x):
        return type(self)._pool(x, output_size=self._output_size, kernel_size=self._kernel_size,
                                random_u=self._random_u, return_mask=self._return_mask, name=self._name)

    def extra_repr(self):
        # Paddle prints only these two.
        return f"output_size={self._output_size}, return_mask={self._return_mask}"


class FractionalMaxPool2D(_FractionalMaxPool):
    _pool = staticmethod(F.fractional_max_pool2d)


class FractionalMaxPool3D(_FractionalMaxPool):
    _pool = staticmethod(F.fractional_max_pool3d)
