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
    """2-D fractional max pooling: maxima over pseudo-random windows whose sizes vary so that
    the output has exactly ``output_size``, which need not divide the input size.

    Args:
        output_size (int|list|tuple): [H_out, W_out], or one int for all.
        kernel_size (int|list|tuple, optional): Window size; None derives it from the input and
            output sizes (non-overlapping windows). Default: None.
        random_u (float, optional): The pseudo-random number in (0, 1) fixing the windows; None
            draws a fresh one from oar's generator at every call. Default: None.
        return_mask (bool, optional): Also return the flat H * W index of each maximum (int32).
            Default: False.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, H, W].
        - output: [N, C, *output_size].

    Examples:
        >>> import oar
        >>> x = oar.arange(16, dtype="float32").reshape([1, 1, 4, 4])
        >>> m = oar.nn.FractionalMaxPool2D(output_size=[2, 2], random_u=0.3)
        >>> print(m(x))
        Tensor(shape=[1, 1, 2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[[5. , 7. ],
                  [13., 15.]]]])
        >>> oar.seed(2024)
        >>> print(oar.nn.FractionalMaxPool2D(output_size=3)(oar.rand([1, 1, 7, 7])).shape)
        [1, 1, 3, 3]
    """
    _pool = staticmethod(F.fractional_max_pool2d)


class FractionalMaxPool3D(_FractionalMaxPool):
    """3-D fractional max pooling: maxima over pseudo-random windows whose sizes vary so that
    the output has exactly ``output_size``, which need not divide the input size.

    Args:
        output_size (int|list|tuple): [D_out, H_out, W_out], or one int for all.
        kernel_size (int|list|tuple, optional): Window size; None derives it from the input and
            output sizes (non-overlapping windows). Default: None.
        random_u (float, optional): The pseudo-random number in (0, 1) fixing the windows; None
            draws a fresh one from oar's generator at every call. Default: None.
        return_mask (bool, optional): Also return the flat D * H * W index of each maximum (int32).
            Default: False.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, D, H, W].
        - output: [N, C, *output_size].

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> m = oar.nn.FractionalMaxPool3D(output_size=2, return_mask=True)
        >>> out, mask = m(oar.rand([1, 1, 5, 5, 5]))
        >>> print(out.shape, mask.shape)
        [1, 1, 2, 2, 2] [1, 1, 2, 2, 2]
    """
    _pool = staticmethod(F.fractional_max_pool3d)
