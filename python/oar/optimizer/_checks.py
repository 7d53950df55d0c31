"""Argument checks shared by the optimizers (messages name the optimizer and the argument)."""
from .. import _C


def require(cls, **values):
    for name, value in values.items():
        if value is None:
            raise ValueError(f"{cls}: {name} is not set")


def beta_in_range(cls, name, value):
    """beta1/beta2 in [0, 1) unless given as a tensor (read at each step)."""
    if isinstance(value, _C.Tensor):
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{cls}: expected '{name}' to be a float or Tensor, but received {type(value).__name__}")
    if not 0 <= value < 1:
        raise ValueError(f"{cls}: invalid value of {name}, expect {name} in [0,1), but received {value}")


def non_negative(cls, name, value):
    if isinstance(value, _C.Tensor):
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{cls}: expected '{name}' to be a float, but received {type(value).__name__}")
    if not value >= 0:
        raise ValueError(f"{cls}: invalid value of {name}, expect {name} >= 0, but received {value}")


def batch_args(batch):
    """The arguments every _C._optim_* call starts with."""
    return (batch['params'], batch['grads'], batch['states'], batch['masters'], batch['lrs'],
            batch['l1'], batch['l2'], batch['grad_scale'])
