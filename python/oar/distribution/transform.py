"""Transforms of random variables (paddle.distribution.transform): invertible maps y = f(x) with
their inverses, the log-determinants of their Jacobians, and how they change shapes. A transform
applied to a Distribution makes a TransformedDistribution; applied to a transform, a chain."""
from __future__ import annotations

import enum
import math
import typing

from .. import _C
from ..tensor.creation import arange
from ..tensor.manipulation import broadcast_shape, unstack
from . import constraint, variable
from .distribution import Distribution

Tensor = _C.Tensor

__all__ = ['Transform', 'AbsTransform', 'AffineTransform', 'ChainTransform', 'ExpTransform',
           'IndependentTransform', 'PowerTransform', 'ReshapeTransform', 'SigmoidTransform',
           'SoftmaxTransform', 'StackTransform', 'StickBreakingTransform', 'TanhTransform']


class Type(enum.Enum):
    """What kind of map a transform is."""
    BIJECTION = 'bijection'  # injective and surjective
    INJECTION = 'injection'  # injective only
    SURJECTION = 'surjection'  # surjective only
    OTHER = 'other'  # neither

    @classmethod
    def is_injective(cls, _type):
        return _type in (cls.BIJECTION, cls.INJECTION)


def _sum_rightmost(value, n):
    return value.sum(list(range(-n, 0))) if n > 0 else value


class Transform:
    r"""The base class of transforms: invertible (or at least injective) maps :math:`y = f(x)` of
    random variables. A subclass implements ``_forward``, ``_inverse`` and one of
    ``_forward_log_det_jacobian`` or ``_inverse_log_det_jacobian``, and ``_forward_shape`` /
    ``_inverse_shape`` when it changes shapes.

    Called on a Tensor a transform is ``forward``; on a Distribution it makes a
    TransformedDistribution; on another transform, the ChainTransform of the two.

    Examples:
        >>> import oar
        >>> from oar.distribution import ExpTransform, Normal, TransformedDistribution
        >>> t = ExpTransform()
        >>> print(t(oar.to_tensor([0.0, 1.0])))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.        , 2.71828175])
        >>> print(isinstance(t(Normal(0.0, 1.0)), TransformedDistribution))
        True
    """
    _type = Type.INJECTION

    def __init__(self):
        super().__init__()

    @classmethod
    def _is_injective(cls):
        return Type.is_injective(cls._type)

    def __call__(self, input):
        if isinstance(input, Distribution):
            from .transformed_distribution import TransformedDistribution  # it imports this module
            return TransformedDistribution(input, [self])
        if isinstance(input, Transform):
            return ChainTransform([self, input])
        return self.forward(input)

    def forward(self, x):
        """The forward map y = f(x).

        Args:
            x (Tensor): The input, of at least the domain's event rank.

        Returns:
            Tensor: y.
        """
        if not isinstance(x, Tensor):
            raise TypeError(f"Expected 'x' is a Tensor or Real, but got {type(x)}.")
        if x.dim() < self._domain.event_rank:
            raise ValueError(f'The dimensions of x({x.dim()}) should be '
                             f'grater than or equal to {self._domain.event_rank}')
        return self._forward(x)

    def inverse(self, y):
        """The inverse map x = f^{-1}(y).

        Args:
            y (Tensor): The input, of at least the codomain's event rank.

        Returns:
            Tensor: x.
        """
        if not isinstance(y, Tensor):
            raise TypeError(f"Expected 'y' is a Tensor or Real, but got {type(y)}.")
        if y.dim() < self._codomain.event_rank:
            raise ValueError(f'The dimensions of y({y.dim()}) should be '
                             f'grater than or equal to {self._codomain.event_rank}')
        return self._inverse(y)

    def forward_log_det_jacobian(self, x):
        """log|det J| of the forward map at x (non-injective transforms raise NotImplementedError).

        Args:
            x (Tensor): The input.

        Returns:
            Tensor: the log-determinant.
        """
        if not isinstance(x, Tensor):
            raise TypeError(f"Expected 'y' is a Tensor or Real, but got {type(x)}.")
        if x.dim() < self._domain.event_rank:
            raise ValueError(f'The dimensions of x({x.dim()}) should be '
                             f'grater than or equal to {self._domain.event_rank}')
        if not self._is_injective():
            raise NotImplementedError("forward_log_det_jacobian can't be implemented for non-injective"
                                      "transforms.")
        return self._call_forward_log_det_jacobian(x)

    def inverse_log_det_jacobian(self, y):
        """log|det J| of the inverse map at y.

        Args:
            y (Tensor): The input.

        Returns:
            Tensor: the log-determinant.
        """
        if not isinstance(y, Tensor):
            raise TypeError(f"Expected 'y' is a Tensor, but got {type(y)}.")
        if y.dim() < self._codomain.event_rank:
            raise ValueError(f'The dimensions of y({y.dim()}) should be '
                             f'grater than or equal to {self._codomain.event_rank}')
        return self._call_inverse_log_det_jacobian(y)

    def forward_shape(self, shape):
        """The shape of forward's output for an input of this shape.

        Args:
            shape (Sequence[int]): The input shape.

        Returns:
            Sequence[int]: the output shape.
        """
        if not isinstance(shape, typing.Sequence):
            raise TypeError(f"Expected shape is Sequence[int] type, but got {type(shape)}.")
        return self._forward_shape(shape)

    def inverse_shape(self, shape):
        """The shape of inverse's output for an input of this shape.

        Args:
            shape (Sequence[int]): The input shape.

        Returns:
            Sequence[int]: the output shape.
        """
        if not isinstance(shape, typing.Sequence):
            raise TypeError(f"Expected shape is Sequence[int] type, but got {type(shape)}.")
        return self._inverse_shape(shape)

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.real

    def _forward(self, x):
        raise NotImplementedError('Forward not implemented')

    def _inverse(self, y):
        raise NotImplementedError('Inverse not implemented')

    def _call_forward_log_det_jacobian(self, x):
        if hasattr(self, '_forward_log_det_jacobian'):
            return self._forward_log_det_jacobian(x)
        if hasattr(self, '_inverse_log_det_jacobian'):
            return -self._inverse_log_det_jacobian(self.forward(x))
        raise NotImplementedError('Neither _forward_log_det_jacobian nor _inverse_log_det_jacobian'
                                  'is implemented. One of them is required.')

    def _call_inverse_log_det_jacobian(self, y):
        if hasattr(self, '_inverse_log_det_jacobian'):
            return self._inverse_log_det_jacobian(y)
        if hasattr(self, '_forward_log_det_jacobian'):
            return -self._forward_log_det_jacobian(self._inverse(y))
        raise NotImplementedError('Neither _forward_log_det_jacobian nor _inverse_log_det_jacobian '
                                  'is implemented. One of them is required')

    def _forward_shape(self, shape):
        return shape

    def _inverse_shape(self, shape):
        return shape


class AbsTransform(Transform):
    r"""The absolute value, :math:`y = |x|`. It is surjective, not injective: ``inverse`` returns
    both preimages ``(-y, y)`` and ``inverse_log_det_jacobian`` a zero for each; there is no
    ``forward_log_det_jacobian``.

    Examples:
        >>> import oar
        >>> abs_t = oar.distribution.AbsTransform()
        >>> print(abs_t.forward(oar.to_tensor([-1.0, 0.0, 1.0])))
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1., 0., 1.])
        >>> print(abs_t.inverse(oar.to_tensor([1.0])))
        (Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1.]), Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.]))
        >>> print(abs_t.inverse_log_det_jacobian(oar.to_tensor(1.0)))
        (Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.), Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.))
    """
    _type = Type.SURJECTION

    def _forward(self, x):
        return x.abs()

    def _inverse(self, y):
        return -y, y

    def _inverse_log_det_jacobian(self, y):
        zero = _C.zeros([], dtype=y.dtype)
        return zero, zero

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.positive


class AffineTransform(Transform):
    r"""The affine map :math:`y = loc + scale \times x`.

    Args:
        loc (Tensor): The shift.
        scale (Tensor): The scale.

    Examples:
        >>> import oar
        >>> t = oar.distribution.AffineTransform(oar.to_tensor(1.0), oar.to_tensor(2.0))
        >>> x = oar.to_tensor([0.0, 1.0])
        >>> print(t.forward(x))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1., 3.])
        >>> print(t.inverse(t.forward(x)))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0., 1.])
        >>> print(t.forward_log_det_jacobian(x))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.69314718)
    """
    _type = Type.BIJECTION

    def __init__(self, loc, scale):
        if not isinstance(loc, Tensor):
            raise TypeError(f"Expected 'loc' is a Tensor, but got {type(loc)}")
        if not isinstance(scale, Tensor):
            raise TypeError(f"Expected scale is a Tensor, but got {type(scale)}")
        self._loc = loc
        self._scale = scale
        super().__init__()

    @property
    def loc(self):
        """The shift (Tensor)."""
        return self._loc

    @property
    def scale(self):
        """The scale (Tensor)."""
        return self._scale

    def _forward(self, x):
        return self._loc + self._scale * x

    def _inverse(self, y):
        return (y - self._loc) / self._scale

    def _forward_log_det_jacobian(self, x):
        return self._scale.abs().log()

    def _forward_shape(self, shape):
        return tuple(broadcast_shape(broadcast_shape(shape, self._loc.shape), self._scale.shape))

    def _inverse_shape(self, shape):
        return tuple(broadcast_shape(broadcast_shape(shape, self._loc.shape), self._scale.shape))

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.real


class ChainTransform(Transform):
    r"""Transforms applied one after another: ``forward`` runs them in order, ``inverse`` inverts
    them in reverse order, and the log-determinants add up (summed over the event axes each
    transform adds).

    Args:
        transforms (Sequence[Transform]): The transforms, first applied first.

    Examples:
        >>> import oar
        >>> from oar.distribution import AffineTransform, ChainTransform, ExpTransform
        >>> chain = ChainTransform([AffineTransform(oar.to_tensor(0.0), oar.to_tensor(2.0)), ExpTransform()])
        >>> x = oar.to_tensor([0.0, 1.0])
        >>> print(chain.forward(x))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.        , 7.38905621])
        >>> print(chain.inverse(chain.forward(x)))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0., 1.])
        >>> print(chain.forward_log_det_jacobian(x))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.69314718, 2.69314718])
    """

    def __init__(self, transforms):
        if not isinstance(transforms, typing.Sequence):
            raise TypeError(f"Expected type of 'transforms' is Sequence, but got {type(transforms)}")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("All elements of transforms should be Transform type.")
        self.transforms = transforms
        super().__init__()

    def _is_injective(self):
        return all(t._is_injective() for t in self.transforms)

    def _forward(self, x):
        for t in self.transforms:
            x = t.forward(x)
        return x

    def _inverse(self, y):
        for t in reversed(self.transforms):
            y = t.inverse(y)
        return y

    def _forward_log_det_jacobian(self, x):
        value = 0.0
        event_rank = self._domain.event_rank
        for t in self.transforms:
            value += _sum_rightmost(t.forward_log_det_jacobian(x), event_rank - t._domain.event_rank)
            x = t.forward(x)
            event_rank += t._codomain.event_rank - t._domain.event_rank
        return value

    def _forward_shape(self, shape):
        for t in self.transforms:
            shape = t.forward_shape(shape)
        return shape

    def _inverse_shape(self, shape):
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        return shape

    @property
    def _domain(self):
        # The least input rank that every transform of the chain accepts: walking back from the
        # last transform, N(i) = max(N(i+1) - (out(i) - in(i)), in(i)).
        domain = self.transforms[0]._domain
        event_rank = self.transforms[-1]._codomain.event_rank
        for t in reversed(self.transforms):
            event_rank -= t._codomain.event_rank - t._domain.event_rank
            event_rank = max(event_rank, t._domain.event_rank)
        return variable.Independent(domain, event_rank - domain.event_rank)

    @property
    def _codomain(self):
        codomain = self.transforms[-1]._codomain
        event_rank = self.transforms[0]._domain.event_rank
        for t in self.transforms:
            event_rank += t._codomain.event_rank - t._domain.event_rank
            event_rank = max(event_rank, t._codomain.event_rank)
        return variable.Independent(codomain, event_rank - codomain.event_rank)


class ExpTransform(Transform):
    r"""The exponential, :math:`y = \exp(x)`.

    Examples:
        >>> import oar
        >>> exp = oar.distribution.ExpTransform()
        >>> x = oar.to_tensor([0.0, 1.0])
        >>> print(exp.forward(x))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.        , 2.71828175])
        >>> print(exp.inverse(oar.to_tensor([1.0, 2.0])))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.        , 0.69314718])
        >>> print(exp.forward_log_det_jacobian(x))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0., 1.])
    """
    _type = Type.BIJECTION

    def __init__(self):
        super().__init__()

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.positive

    def _forward(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def _forward_log_det_jacobian(self, x):
        return x


class IndependentTransform(Transform):
    r"""The base transform with its rightmost ``reinterpreted_batch_rank`` batch axes taken as
    event axes: values are the base's; the log-determinant is summed over those axes.

    Args:
        base (Transform): The base transform.
        reinterpreted_batch_rank (int): How many rightmost batch axes become event axes (> 0).

    Examples:
        >>> import oar
        >>> from oar.distribution import ExpTransform, IndependentTransform
        >>> t = IndependentTransform(ExpTransform(), 1)
        >>> x = oar.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        >>> print(t.forward_log_det_jacobian(x))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [6. , 15.])
    """

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Transform):
            raise TypeError(f"Expected 'base' is Transform type, but get {type(base)}")
        if reinterpreted_batch_rank <= 0:
            raise ValueError(f"Expected 'reinterpreted_batch_rank' is grater than zero, but got "
                             f"{reinterpreted_batch_rank}")
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        super().__init__()

    def _is_injective(self):
        return self._base._is_injective()

    def _forward(self, x):
        if x.dim() < self._domain.event_rank:
            raise ValueError("Input dimensions is less than event dimensions.")
        return self._base.forward(x)

    def _inverse(self, y):
        if y.dim() < self._codomain.event_rank:
            raise ValueError("Input dimensions is less than event dimensions.")
        return self._base.inverse(y)

    def _forward_log_det_jacobian(self, x):
        return self._base.forward_log_det_jacobian(x).sum(list(range(-self._reinterpreted_batch_rank, 0)))

    def _forward_shape(self, shape):
        return self._base.forward_shape(shape)

    def _inverse_shape(self, shape):
        return self._base.inverse_shape(shape)

    @property
    def _domain(self):
        return variable.Independent(self._base._domain, self._reinterpreted_batch_rank)

    @property
    def _codomain(self):
        return variable.Independent(self._base._codomain, self._reinterpreted_batch_rank)


class PowerTransform(Transform):
    r"""The power map :math:`y = x^{power}`.

    Args:
        power (Tensor): The exponent.

    Examples:
        >>> import oar
        >>> t = oar.distribution.PowerTransform(oar.to_tensor(2.0))
        >>> x = oar.to_tensor([1.0, 2.0])
        >>> print(t.forward(x))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1., 4.])
        >>> print(t.inverse(oar.to_tensor([4.0, 9.0])))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [2., 3.])
        >>> print(t.forward_log_det_jacobian(x))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.69314718, 1.38629436])
    """
    _type = Type.BIJECTION

    def __init__(self, power):
        if not isinstance(power, Tensor):
            raise TypeError(f"Expected 'power' is a tensor, but got {type(power)}")
        self._power = power
        super().__init__()

    @property
    def power(self):
        """The exponent (Tensor)."""
        return self._power

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.positive

    def _forward(self, x):
        return x.pow(self._power)

    def _inverse(self, y):
        return y.pow(1 / self._power)

    def _forward_log_det_jacobian(self, x):
        return (self._power * x.pow(self._power - 1)).abs().log()

    def _forward_shape(self, shape):
        return tuple(broadcast_shape(shape, self._power.shape))

    def _inverse_shape(self, shape):
        return tuple(broadcast_shape(shape, self._power.shape))


class ReshapeTransform(Transform):
    r"""Reshapes the event part of a tensor from ``in_event_shape`` to ``out_event_shape`` (same
    number of elements); the leading batch axes stay. The log-determinant is zero.

    Args:
        in_event_shape (Sequence[int]): The event shape of the input.
        out_event_shape (Sequence[int]): The event shape of the output.

    Examples:
        >>> import oar
        >>> t = oar.distribution.ReshapeTransform((2, 3), (3, 2))
        >>> x = oar.ones([1, 2, 3])
        >>> print(t.forward(x).shape, t.inverse(t.forward(x)).shape)
        [1, 3, 2] [1, 2, 3]
        >>> print(t.forward_shape((1, 2, 3)))
        (1, 3, 2)
        >>> print(t.forward_log_det_jacobian(x))
        Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.])
    """
    _type = Type.BIJECTION

    def __init__(self, in_event_shape, out_event_shape):
        if not isinstance(in_event_shape, typing.Sequence) or not isinstance(out_event_shape, typing.Sequence):
            raise TypeError(f"Expected type of 'in_event_shape' and 'out_event_shape' is "
                            f"Sequence[int], but got 'in_event_shape': {in_event_shape}, "
                            f"'out_event_shape': {out_event_shape}")
        in_size = math.prod(in_event_shape)
        out_size = math.prod(out_event_shape)
        if in_size != out_size:
            raise ValueError(f"The numel of 'in_event_shape' should be 'out_event_shape', "
                             f"but got {in_size}!={out_size}")
        self._in_event_shape = tuple(in_event_shape)
        self._out_event_shape = tuple(out_event_shape)
        super().__init__()

    @property
    def in_event_shape(self):
        """The event shape of the input (tuple)."""
        return self._in_event_shape

    @property
    def out_event_shape(self):
        """The event shape of the output (tuple)."""
        return self._out_event_shape

    @property
    def _domain(self):
        return variable.Independent(variable.real, len(self._in_event_shape))

    @property
    def _codomain(self):
        return variable.Independent(variable.real, len(self._out_event_shape))

    def _forward(self, x):
        return x.reshape(list(x.shape[:x.dim() - len(self._in_event_shape)]) + list(self._out_event_shape))

    def _inverse(self, y):
        return y.reshape(list(y.shape[:y.dim() - len(self._out_event_shape)]) + list(self._in_event_shape))

    def _forward_shape(self, shape):
        return self._swap_event(shape, self._in_event_shape, self._out_event_shape, "Expected length of "
                                "'shape' is not less than")

    def _inverse_shape(self, shape):
        return self._swap_event(shape, self._out_event_shape, self._in_event_shape, "Expected 'shape' "
                                "length is not less than")

    @staticmethod
    def _swap_event(shape, old, new, too_short):
        if len(shape) < len(old):
            raise ValueError(f"{too_short} {len(old)}, but got {len(shape)}")
        tail = tuple(shape[len(shape) - len(old):])
        if tail != old:
            raise ValueError(f"Event shape mismatch, expected: {old}, but got {tail}")
        return tuple(shape[:len(shape) - len(old)]) + new

    def _forward_log_det_jacobian(self, x):
        return _C.zeros(x.shape[:x.dim() - len(self._in_event_shape)], dtype=x.dtype)


class SigmoidTransform(Transform):
    r"""The sigmoid, :math:`y = \frac{1}{1 + \exp(-x)}`.

    Examples:
        >>> import oar
        >>> t = oar.distribution.SigmoidTransform()
        >>> x = oar.to_tensor([0.0, 1.0])
        >>> print(t.forward(x))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.50000000, 0.73105860])
        >>> print(t.inverse(t.forward(x)))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.        , 1.00000012])
        >>> print(t.forward_log_det_jacobian(x))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1.38629436, -1.62652326])
    """

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.Variable(False, 0, constraint.Range(0.0, 1.0))

    def _forward(self, x):
        return _C.sigmoid(x)

    def _inverse(self, y):
        return y.log() - (-y).log1p()

    def _forward_log_det_jacobian(self, x):
        return -_C.softplus(-x) - _C.softplus(x)


class SoftmaxTransform(Transform):
    r"""The softmax over the last axis, :math:`y = \exp(x) / \sum \exp(x)`. It is not injective
    (adding a constant to x changes nothing): ``inverse`` gives the logarithm, one of the
    preimages, and there is no ``forward_log_det_jacobian``.

    Examples:
        >>> import oar
        >>> t = oar.distribution.SoftmaxTransform()
        >>> y = t.forward(oar.to_tensor([[1.0, 2.0], [3.0, 3.0]]))
        >>> print(y)
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[0.26894143, 0.73105860],
                [0.50000000, 0.50000000]])
        >>> print(t.inverse(y))
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[-1.31326163, -0.31326166],
                [-0.69314718, -0.69314718]])
    """
    _type = Type.OTHER

    @property
    def _domain(self):
        return variable.Independent(variable.real, 1)

    @property
    def _codomain(self):
        return variable.Variable(False, 1, constraint.simplex)

    def _forward(self, x):
        x = (x - x.max(-1, keepdim=True)).exp()  # shifted by the maximum so that exp cannot overflow
        return x / x.sum(-1, keepdim=True)

    def _inverse(self, y):
        return y.log()

    def _forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError(f"Expected length of shape is grater than 1, but got {len(shape)}")
        return shape

    def _inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError(f"Expected length of shape is grater than 1, but got {len(shape)}")
        return shape


class StackTransform(Transform):
    r"""One transform per slice of a tensor along ``axis``: slice i goes through ``transforms[i]``
    and the results are stacked back.

    Args:
        transforms (Sequence[Transform]): The transforms, one per slice.
        axis (int, optional): The axis to slice. Default: 0.

    Examples:
        >>> import oar
        >>> from oar.distribution import ExpTransform, StackTransform, TanhTransform
        >>> t = StackTransform([ExpTransform(), TanhTransform()], axis=1)
        >>> x = oar.to_tensor([[0.0, 1.0], [1.0, 2.0]])
        >>> print(t.forward(x))
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[1.        , 0.76159418],
                [2.71828175, 0.96402758]])
        >>> print(t.forward_log_det_jacobian(x))
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[ 0.        , -0.86756164],
                [ 1.        , -2.65000558]])
    """

    def __init__(self, transforms, axis=0):
        if not transforms or not isinstance(transforms, typing.Sequence):
            raise TypeError(f"Expected 'transforms' is Sequence[Transform], but got {type(transforms)}.")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError('Expected all element in transforms is Transform Type.')
        if not isinstance(axis, int):
            raise TypeError(f"Expected 'axis' is int, but got{type(axis)}.")
        self._transforms = transforms
        self._axis = axis
        super().__init__()

    def _is_injective(self):
        return all(t._is_injective() for t in self._transforms)

    @property
    def transforms(self):
        """The transforms, one per slice."""
        return self._transforms

    @property
    def axis(self):
        """The sliced axis (int)."""
        return self._axis

    def _map(self, method, v):
        self._check_size(v)
        return _C.stack([getattr(t, method)(s) for s, t in zip(unstack(v, self._axis), self._transforms)],
                        self._axis)

    def _forward(self, x):
        return self._map("forward", x)

    def _inverse(self, y):
        return self._map("inverse", y)

    def _forward_log_det_jacobian(self, x):
        return self._map("forward_log_det_jacobian", x)

    def _check_size(self, v):
        if not (-v.dim() <= self._axis < v.dim()):
            raise ValueError(f'Input dimensions {v.dim()} should be grater than stack '
                             f'transform axis {self._axis}.')
        if v.shape[self._axis] != len(self._transforms):
            raise ValueError(f'Input size along {self._axis} should be equal to the '
                             f'length of transforms.')

    @property
    def _domain(self):
        return variable.Stack([t._domain for t in self._transforms], self._axis)

    @property
    def _codomain(self):
        return variable.Stack([t._codomain for t in self._transforms], self._axis)


class StickBreakingTransform(Transform):
    r"""Stick breaking: maps a vector of length K in R^K onto the simplex of length K + 1 (the
    last axis grows by one), through sigmoids of x shifted by log(K - i).

    Examples:
        >>> import oar
        >>> t = oar.distribution.StickBreakingTransform()
        >>> x = oar.to_tensor([1.0, 2.0, 3.0])
        >>> y = t.forward(x)
        >>> print(y)
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.47536692, 0.41287890, 0.10645412, 0.00530004])
        >>> print(t.inverse(y))
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.00000024, 2.        , 2.99999857])
        >>> print(t.forward_log_det_jacobian(x))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               -9.10835171)
    """
    _type = Type.BIJECTION

    @staticmethod
    def _offset(k, dtype):
        return arange(k, 0, -1, dtype=dtype)  # [k, k-1, ..., 1]

    def _forward(self, x):
        z = _C.sigmoid(x - self._offset(x.shape[-1], x.dtype).log())
        z_cumprod = (1 - z).cumprod(-1)
        # y_i = z_i * prod_{j<i} (1 - z_j), with z_{K+1} = 1 closing the stick.
        one = _C.ones_like(z[..., :1])
        return _C.concat([z, one], -1) * _C.concat([one, z_cumprod], -1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = self._offset(y_crop.shape[-1], y.dtype)
        sf = 1 - y_crop.cumsum(-1)
        return y_crop.log() - sf.log() + offset.log()

    def _forward_log_det_jacobian(self, x):
        y = self.forward(x)
        x = x - self._offset(x.shape[-1], x.dtype).log()
        return (-x + _C.log_sigmoid(x) + y[..., :-1].log()).sum(-1)

    def _forward_shape(self, shape):
        if not shape:
            raise ValueError(f"Expected 'shape' is not empty, but got {shape}")
        return (*shape[:-1], shape[-1] + 1)

    def _inverse_shape(self, shape):
        if not shape:
            raise ValueError(f"Expected 'shape' is not empty, but got {shape}")
        return (*shape[:-1], shape[-1] - 1)

    @property
    def _domain(self):
        return variable.Independent(variable.real, 1)

    @property
    def _codomain(self):
        return variable.Variable(False, 1, constraint.simplex)


class TanhTransform(Transform):
    r"""The hyperbolic tangent, :math:`y = \tanh(x)`.

    Examples:
        >>> import oar
        >>> t = oar.distribution.TanhTransform()
        >>> x = oar.to_tensor([0.0, 1.0])
        >>> print(t.forward(x))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.        , 0.76159418])
        >>> print(t.inverse(t.forward(x)))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0., 1.])
        >>> print(t.forward_log_det_jacobian(x))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [ 0.        , -0.86756164])
    """
    _type = Type.BIJECTION

    @property
    def _domain(self):
        return variable.real

    @property
    def _codomain(self):
        return variable.Variable(False, 0, constraint.Range(-1.0, 1.0))

    def _forward(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def _forward_log_det_jacobian(self, x):
        # log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x)), stable for large |x|.
        return 2.0 * (math.log(2.0) - x - _C.softplus(-2.0 * x))

