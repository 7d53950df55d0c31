"""Parameter (Paddle's EagerParamBase): a Tensor that a layer owns and an optimizer updates.

It is a Python subclass of oar.Tensor sharing the TensorImpl it was built from, so every op takes
it as a tensor; the extra attributes are what optimizers, regularizers and clipping read.
"""
import weakref

from .. import _C
from ..utils import unique_name
from . import lazy_init

# Every live Parameter by the identity of its TensorImpl: static programs capture weights on the
# C++ side and hand back plain Tensor wrappers; this finds the Parameter object (its optimizer
# state, learning rate, regularizer) again.
_live = weakref.WeakValueDictionary()


def find_parameter(tensor):
    """The live Parameter sharing `tensor`'s storage and identity, or None."""
    return _live.get(tensor._impl_id)


class Parameter(_C.Tensor):
    """A trainable tensor owned by a layer and updated by an optimizer (Paddle's EagerParamBase).

    A subclass of Tensor that shares the storage of the tensor it is built from, so every op takes
    it; the extra attributes are read by optimizers, regularizers and gradient clipping. Layers
    make parameters with ``create_parameter``; ``oar.create_parameter`` makes a free one.

    Args:
        tensor (Tensor): The initial value (shared, not copied).
        name (str, optional): The parameter name; None generates a unique one. Default: None.
        trainable (bool, optional): Whether it gets gradients and updates
            (``stop_gradient = not trainable``). Default: True.
        learning_rate (float, optional): Multiplier of the optimizer's learning rate for it.
            Default: 1.0.
        regularizer (WeightDecayRegularizer, optional): A regularizer for it that overrides the
            optimizer's weight_decay. Default: None.
        need_clip (bool, optional): Whether the optimizer's grad_clip applies to it.
            Default: True.
        do_model_average (bool, optional): Kept for Paddle compatibility. Default: True.

    Examples:
        >>> import oar
        >>> w = oar.nn.Parameter(oar.ones([2, 2]), trainable=True)
        >>> print(w.trainable, w.stop_gradient, w.shape)
        True False [2, 2]
        >>> linear = oar.nn.Linear(2, 3)
        >>> print(type(linear.weight).__name__)
        Parameter
    """

    def __init__(self, tensor, name=None, trainable=True, learning_rate=1.0, regularizer=None,
                 need_clip=True, do_model_average=True):
        super().__init__(tensor)
        self.name = name or unique_name.generate("_param_base")
        self.stop_gradient = not trainable
        self.optimize_attr = {"learning_rate": float(learning_rate)}
        self.regularizer = regularizer
        self.need_clip = need_clip
        self.do_model_average = do_model_average
        self.is_distributed = False
        self.persistable = True
        _live[self._impl_id] = self

    @property
    def trainable(self):
        return not self.stop_gradient

    @trainable.setter
    def trainable(self, value):
        if not isinstance(value, bool):
            raise ValueError(f"Parameter.trainable must be a bool, but got {type(value).__name__}")
        self.stop_gradient = not value

    def __repr__(self):
        return "Parameter containing:\n" + _C.Tensor.__repr__(self)

    __str__ = __repr__

    # LazyGuard (framework/lazy_init.py): parameters created under it are initialised later.
    initialize = lazy_init.initialize
    _is_initialized = lazy_init.is_initialized

    def __deepcopy__(self, memo):
        p = Parameter(_C.Tensor.clone(self).detach(), name=unique_name.generate(self.name + "_deepcopy"),
                      trainable=self.trainable, learning_rate=self.optimize_attr["learning_rate"],
                      regularizer=self.regularizer, need_clip=self.need_clip)
        memo[id(self)] = p
        return p


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False, default_initializer=None):
    """paddle.create_parameter: a new parameter initialised by attr.initializer, default_initializer,
    the global initializer, or (bias) zeros / (weight) Xavier-uniform, in that order."""
    from .param_attr import ParamAttr
    from ..nn.initializer import make_parameter
    attr = ParamAttr._to_attr(attr)
    if attr is False:
        raise ValueError("create_parameter: 'attr' must not be False")
    if name is not None and attr.name is None:
        attr.name = name
    return make_parameter(shape, dtype, attr, is_bias, default_initializer,
                          default_name=unique_name.generate("create_parameter") + (".b" if is_bias else ".w"))
