"""Random sampling beyond the C++ creation ops, written over oar's Philox-backed uniform and
normal draws (so oar.seed makes them reproducible): randint, randint_like, normal, rand_like,
randn_like, multinomial, log_normal, and the in-place samplers exponential_, cauchy_, geometric_,
bernoulli_, log_normal_. The generator's state (seed, get_rng_state, ...) is in
framework/random.py."""
import math

import numpy as np

from .. import _C
from ..framework.dtype import convert_dtype
from .creation import to_tensor
from .inplace import _check_leaf, _write

Tensor = _C.Tensor

__all__ = ["randint", "randint_like", "normal", "rand_like", "randn_like", "multinomial", "log_normal",
           "exponential_", "cauchy_", "geometric_", "bernoulli_", "log_normal_"]


def randint(low=0, high=None, shape=[1], dtype=None, name=None):
    """Uniform random integers in [low, high); randint(n) draws from [0, n).

    Args:
        low (int, optional): Lowest value, or the exclusive end when high is None. Default: 0.
        high (int, optional): Exclusive end. Default: None.
        shape (list|tuple, optional): Result shape. Default: [1].
        dtype (str|dtype, optional): An integer dtype. Default: None (int64).
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the samples.

    Examples:
        >>> import oar
        >>> x = oar.randint(1, 2, [2, 2])
        >>> print(x.numpy())
        [[1 1]
         [1 1]]
    """
    if high is None:
        low, high = 0, low
    return _C.randint(int(low), int(high), shape, convert_dtype(dtype))


def randint_like(x, low=0, high=None, dtype=None, name=None):
    """Uniform random integers in [low, high) with the shape of x.

    Args:
        x (Tensor): Gives the shape (and the dtype when dtype is None).
        low (int, optional): Lowest value, or the exclusive end when high is None. Default: 0.
        high (int, optional): Exclusive end. Default: None.
        dtype (str|dtype, optional): An integer dtype. Default: None (x's).
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the samples.

    Examples:
        >>> import oar
        >>> x = oar.randint_like(oar.zeros([2, 2], dtype='int64'), 3, 4)
        >>> print(x.numpy())
        [[3 3]
         [3 3]]
    """
    return randint(low, high, x.shape, dtype or x.dtype)


def normal(mean=0.0, std=1.0, shape=None, name=None):
    """Samples a normal distribution N(mean, std).

    Args:
        mean (float|Tensor, optional): The mean; a tensor gives one mean per element. Default: 0.0.
        std (float|Tensor, optional): The standard deviation, likewise. Default: 1.0.
        shape (list|tuple, optional): Result shape when mean and std are numbers; None means [1].
            Default: None.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the samples: the broadcast shape of tensor mean/std (and a float mean's dtype), else
        shape in the default float dtype.

    Examples:
        >>> import oar
        >>> print(oar.normal(shape=[2, 3]).shape)
        [2, 3]
        >>> print(oar.normal(oar.to_tensor([0.0, 10.0]), oar.to_tensor([0.0, 0.0])).numpy())
        [ 0. 10.]
    """
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        m = mean if isinstance(mean, Tensor) else to_tensor(mean)
        s = std if isinstance(std, Tensor) else to_tensor(std)
        shp = np.broadcast_shapes(tuple(m.shape), tuple(s.shape))
        return _C.gaussian(list(shp), 0.0, 1.0, 0, m.dtype if m.dtype.name.startswith("float") else None) * s + m
    return _C.gaussian([1] if shape is None else shape, float(mean), float(std), 0, None)


def rand_like(input, name=None, *, dtype=None, device=None, requires_grad=False):
    """Uniform samples in [0, 1) with the shape of input.

    Args:
        input (Tensor): Gives the shape (and the dtype when dtype is None).
        name (str, optional): Unused; for Paddle compatibility. Default: None.
        dtype (str|dtype, optional): The dtype, floating point. Default: None (input's).
        device (str, optional): Unused; for compatibility. Default: None.
        requires_grad (bool, optional): Whether autograd tracks the result. Default: False.

    Returns:
        Tensor: the samples.

    Examples:
        >>> import oar
        >>> print(oar.rand_like(oar.ones([2, 3])).shape)
        [2, 3]
    """
    t = _C.uniform(input.shape, convert_dtype(dtype) if dtype else input.dtype, 0.0, 1.0, 0)
    t.stop_gradient = not requires_grad
    return t


def randn_like(x, dtype=None, name=None, *, device=None, requires_grad=False):
    """Standard normal samples with the shape of x.

    Args:
        x (Tensor): Gives the shape (and the dtype when dtype is None).
        dtype (str|dtype, optional): The dtype, floating point. Default: None (x's).
        name (str, optional): Unused; for Paddle compatibility. Default: None.
        device (str, optional): Unused; for compatibility. Default: None.
        requires_grad (bool, optional): Whether autograd tracks the result. Default: False.

    Returns:
        Tensor: the samples.

    Examples:
        >>> import oar
        >>> print(oar.randn_like(oar.ones([2, 3])).shape)
        [2, 3]
    """
    t = _C.gaussian(x.shape, 0.0, 1.0, 0, convert_dtype(dtype) if dtype else x.dtype)
    t.stop_gradient = not requires_grad
    return t


def _uniform_like(x, dtype=None):
    return _C.uniform(x.shape, dtype or x.dtype, 0.0, 1.0, 0)


def multinomial(x, num_samples=1, replacement=False, name=None, *, out=None):
    """num_samples category indices per row of the (unnormalised) probabilities x [C] or [N, C]."""
    if x.ndim not in (1, 2):
        raise ValueError(f"multinomial: argument 'x' must be 1-D or 2-D, got shape {x.shape}")
    probs = x if x.ndim == 2 else _C.unsqueeze(x, [0])
    c = probs.shape[1]
    if not replacement and num_samples > c:
        raise ValueError(f"multinomial: cannot draw {num_samples} samples without replacement from "
                         f"{c} categories")
    if bool(_C.any(_C.less_than(probs, _C.zeros_like(probs)), [], False)):
        raise ValueError("multinomial: argument 'x' must hold non-negative probabilities")
    p = _C.cast(probs, convert_dtype("float64"))
    if replacement:  # inverse CDF: one uniform per sample, searched in each row's cumulative sum
        cdf = _C.cumsum(p, 1, None)
        cdf = cdf / _C.slice(cdf, [1], [c - 1], [c])
        u = _C.uniform([p.shape[0], num_samples], convert_dtype("float64"), 0.0, 1.0, 0)
        idx = _C.clip(_C.searchsorted(cdf, u, False, True), 0, c - 1)
    else:  # Gumbel top-k: the k largest log(p) - log(-log(u)) are a draw without replacement
        u = _C.uniform(list(p.shape), convert_dtype("float64"), 1e-300, 1.0, 0)
        keys = _C.log(p) - _C.log(-_C.log(u))
        idx = _C.topk(keys, num_samples, 1, True, True)[1]
    return idx if x.ndim == 2 else _C.squeeze(idx, [0])


def log_normal(mean=1.0, std=2.0, shape=None, name=None):
    """Samples exp(N(mean, std)): a log-normal distribution.

    Args:
        mean (float|Tensor, optional): Mean of the underlying normal. Default: 1.0.
        std (float|Tensor, optional): Its standard deviation. Default: 2.0.
        shape (list|tuple, optional): Result shape when mean and std are numbers; None means [1].
            Default: None.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: positive samples, the broadcast shape of tensor mean/std or shape.

    Examples:
        >>> import oar
        >>> x = oar.log_normal(shape=[2, 3])
        >>> print(x.shape, bool((x > 0).all()))
        [2, 3] True
    """
    return _C.exp(normal(mean, std, shape))


def exponential_(x, lam=1.0, name=None):
    """Fills x in place with samples of an exponential distribution of rate lam.

    Args:
        x (Tensor): The tensor to fill; it is overwritten (a leaf that requires grad raises
            ValueError
     unless under oar.no_grad()).
        lam (float, optional): The rate; the mean is 1 / lam. Default: 1.0.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x, holding the (non-negative) samples.

    Examples:
        >>> import oar
        >>> x = oar.zeros([4])
        >>> _ = oar.exponential_(x, lam=2.0)
        >>> print(bool((x >= 0).all()))
        True
    """
    _check_leaf(x, "exponential_")
    return _write(x, -_C.log1p(-_uniform_like(x)) / float(lam), "exponential_")


def cauchy_(x, loc=0, scale=1, name=None):
    """Fills x in place with samples of a Cauchy distribution, loc + scale * tan(pi * (u - 0.5)).

    Args:
        x (Tensor): The tensor to fill; it is overwritten (a leaf that requires grad raises
            ValueError
     unless under oar.no_grad()).
        loc (float, optional): The location (median). Default: 0.
        scale (float, optional): The scale. Default: 1.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x, holding the samples.

    Examples:
        >>> import oar
        >>> x = oar.zeros([3])
        >>> _ = oar.cauchy_(x)
        >>> print(x.shape, x.dtype)
        [3] paddle.float32
    """
    _check_leaf(x, "cauchy_")
    return _write(x, _C.tan((_uniform_like(x) - 0.5) * math.pi) * float(scale) + float(loc), "cauchy_")


def geometric_(x, probs, name=None):
    """Number of Bernoulli(probs) trials up to the first success (1, 2, ...)."""
    _check_leaf(x, "geometric_")
    u = _uniform_like(x, convert_dtype("float64"))
    p = _C.cast(probs, u.dtype) if isinstance(probs, Tensor) else _C.full([], float(probs), u.dtype)
    k = _C.floor(_C.log1p(-u) / _C.log1p(-p)) + 1.0
    return _write(x, _C.cast(k, x.dtype), "geometric_")


def bernoulli_(x, p=0.5, name=None):
    """Fills x in place with 1 with probability p and 0 otherwise.

    Args:
        x (Tensor): The tensor to fill; it is overwritten (a leaf that requires grad raises
            ValueError
     unless under oar.no_grad()).
        p (float|Tensor, optional): The probability of 1 (a tensor broadcastable to x). Default:
            0.5.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x, holding the samples in its dtype.

    Examples:
        >>> import oar
        >>> x = oar.zeros([4])
        >>> _ = oar.bernoulli_(x, p=1.0)
        >>> print(x.numpy())
        [1. 1. 1. 1.]
    """
    _check_leaf(x, "bernoulli_")
    u = _uniform_like(x, convert_dtype("float64"))
    pt = p if isinstance(p, Tensor) else _C.full([], float(p), u.dtype)
    return _write(x, _C.cast(_C.less_than(u, _C.cast(pt, u.dtype)), x.dtype), "bernoulli_")


def log_normal_(x, mean=1.0, std=2.0, name=None):
    """Fills x in place with samples of exp(N(mean, std)).

    Args:
        x (Tensor): The tensor to fill; it is overwritten (a leaf that requires grad raises
            ValueError
     unless under oar.no_grad()).
        mean (float, optional): Mean of the underlying normal. Default: 1.0.
        std (float, optional): Its standard deviation. Default: 2.0.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x, holding the (positive) samples.

    Examples:
        >>> import oar
        >>> x = oar.zeros([3])
        >>> _ = oar.log_normal_(x)
        >>> print(bool((x > 0).all()))
        True
    """
    _check_leaf(x, "log_normal_")
    return _write(x, _C.exp(_C.gaussian(x.shape, float(mean), float(std), 0, x.dtype)), "log_normal_")
