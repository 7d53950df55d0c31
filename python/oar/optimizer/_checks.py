"""Argument checks shared by the optimizers (messages name the optimizer and the argument)."""
from .. import _C


def require(cls, **values):
    for name, value in values.items():
        if value is None:
            raise ValueError(f"{cls}: {name} is not set")


def _checkable_number(cls, name, value, expected):
    """False for a tensor (read at each step, so not checked here); True for an int or float;
    otherwise a TypeError saying `expected` ('a float', ...)."""
    if isinstance(value, _C.Tensor):
        return False
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{cls}: expected '{name}' to be {expected}, but received {type(value).__name__}")
    return True


def beta_in_range(cls, name, value):
    """beta1/beta2 in [0, 1) unless given as a tensor (read at each step)."""
    if _checkable_number(cls, name, value, "a float or Tensor") and not 0 <= value < 1:
        raise ValueError(f"{cls}: invalid value of {name}, expect {name} in [0,1), but received {value}")


def non_negative(cls, name, value):
    if _checkable_number(cls, name, value, "a float") and not value >= 0:
        raise ValueError(f"{cls}: invalid value of {name}, expect {name} >= 0, but received {value}")


def adam_args(cls, learning_rate, beta1, beta2, epsilon):
    """Adam, Adamax and Lamb, in Paddle's order: all four set, beta1 and beta2 in [0, 1), then
    epsilon >= 0."""
    require(cls, learning_rate=learning_rate, beta1=beta1, beta2=beta2, epsilon=epsilon)
    beta_in_range(cls, 'beta1', beta1)
    beta_in_range(cls, 'beta2', beta2)
    non_negative(cls, 'epsilon', epsilon)


def adam_args_epsilon_first(cls, learning_rate, beta1, beta2, epsilon):
    """RAdam and NAdam, in Paddle's order: learning_rate set and (as a number) >= 0, epsilon >= 0,
    then beta1 and beta2 in [0, 1)."""
    require(cls, learning_rate=learning_rate)
    if isinstance(learning_rate, (int, float)) and not learning_rate >= 0:
        raise ValueError(f"{cls}: invalid learning rate: {learning_rate}, expect learning_rate >= 0.")
    non_negative(cls, 'epsilon', epsilon)
    beta_in_range(cls, 'beta1', beta1)
    beta_in_range(cls, 'beta2', beta2)


def batch_args(batch):
    """The arguments every _C._optim_* call starts with."""
    return (batch['params'], batch['grads'], batch['states'], batch['masters'], batch['lrs'],
            batch['l1'], batch['l2'], batch['grad_scale'])
