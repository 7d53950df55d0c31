"""oar: a deep-learning framework with a C++ core and PaddlePaddle's Python API."""
import builtins as _builtins
import os as _os

# Idle OpenMP threads spin 10000 iterations (libgomp's default: 300000) before sleeping, so that
# DataLoader workers and other processes get the cores between our parallel regions. Measured on 2
# cores: with 1000 spins every back-to-back parallel op paid a thread wake-up (add of 4M floats
# 0.97-1.01 ms against 0.92-0.95 ms); with 10000 the DataLoader's wait stays at 3-4.5% of a LeNet
# step (100000: 4.6-5.4%).
# Read by libgomp when it loads (with _C below); a value the user set is kept.
if "GOMP_SPINCOUNT" not in _os.environ and "OMP_WAIT_POLICY" not in _os.environ:
    _os.environ["GOMP_SPINCOUNT"] = "10000"

from . import _C  # noqa: E402
from ._C import Tensor  # noqa: F401
from .framework.dtype import (  # noqa: F401
    dtype, bool_ as bool, int8, uint8, int16, int32, int64, float16, bfloat16, float32, float64,
    complex64, complex128, get_default_dtype, set_default_dtype, iinfo, finfo)
from .autograd import grad, no_grad, enable_grad, set_grad_enabled, is_grad_enabled  # noqa: F401
from .tensor.creation import to_tensor, arange, linspace, assign  # noqa: F401
from .tensor.random import randint, randint_like, normal  # noqa: F401
from .tensor.repr import set_printoptions  # noqa: F401
from .framework.place import CPUPlace, CUDAPlace, CUDAPinnedPlace, CustomPlace, Place, XPUPinnedPlace  # noqa: F401
from . import autograd, device  # noqa: F401
from . import tensor as _tensor_pkg  # noqa: F401
from .tensor import patch as _patch

__version__ = "0.1.0"

# Every generated op is a function here (oar.add, oar.sum, ...), unless Python defines it below
# or its spec marks it internal (public: false).
for _name in dir(_C):
    if not _name.startswith("_") and _name not in globals() and _name not in _C._internal_ops:
        globals()[_name] = getattr(_C, _name)

from .tensor.attribute import *  # noqa: E402,F401,F403
from .tensor.logic import *  # noqa: E402,F401,F403
from .tensor.math import *  # noqa: E402,F401,F403
from .tensor.linalg import *  # noqa: E402,F401,F403
from .tensor.manipulation import *  # noqa: E402,F401,F403
from .tensor.creation import *  # noqa: E402,F401,F403
from .tensor.indexing import newaxis  # noqa: E402,F401
from .framework.random import *  # noqa: E402,F401,F403
from .framework.config import *  # noqa: E402,F401,F403
from .io.reader import batch  # noqa: E402,F401

from .tensor import inplace as _inplace, conversion as _conversion  # noqa: E402
from .tensor import search as _search  # noqa: E402
from .tensor.search import *  # noqa: E402,F401,F403
from .tensor import contraction as _contraction, statistics as _statistics  # noqa: E402
from .tensor import random as _random  # noqa: E402
from .tensor.random import *  # noqa: E402,F401,F403
from .utils.dlpack import from_dlpack, to_dlpack  # noqa: E402,F401
from .tensor.contraction import *  # noqa: E402,F401,F403
from .tensor.statistics import *  # noqa: E402,F401,F403

_patch.install(globals())
# Tensor methods Paddle has under these names (from tensor/attribute, logic, math, linalg,
# manipulation and creation).
_COMPAT_METHODS = [
    "clamp", "clamp_", "div", "mul", "sub", "eq", "ne", "gt", "ge", "lt", "le", "greater",
    "less", "negative", "permute", "swapaxes", "swapdims", "moveaxis", "ravel", "narrow",
    "is_complex", "is_floating_point", "is_integer", "is_empty", "rank", "floor_mod", "mod",
    "true_divide", "matrix_transpose", "view", "view_as", "deg2rad", "rad2deg", "atleast_1d",
    "hsplit", "vsplit", "dsplit", "tensor_split", "unflatten", "unstack", "inner", "mv", "diag",
    "diagonal", "trace", "frac", "sgn", "signbit", "reverse", "nansum", "nanmean",
    "count_nonzero", "logit", "logaddexp", "hypot", "sinc", "isin", "diff", "repeat_interleave",
    "kron", "take_along_dim", "rot90", "diagflat", "reduce_as", "slice_scatter",
    "diagonal_scatter", "crop", "increment"]
for _name in _COMPAT_METHODS:
    if not hasattr(Tensor, _name):
        setattr(Tensor, _name, globals()[_name])
for _mod in (_inplace, _contraction, _statistics, _random):
    for _name in _mod.METHODS:
        if not hasattr(Tensor, _name):
            setattr(Tensor, _name, getattr(_mod, _name))
# The Python faces replace the generated methods of these names.
for _name in _search.METHODS + ["repeat_interleave", "lerp"]:
    setattr(Tensor, _name, globals()[_name])
for _name in _inplace.TOP_LEVEL:
    globals().setdefault(_name, getattr(_inplace, _name))
abs_ = Tensor.abs_ = _inplace.abs_  # the generated abs_ cannot change x's dtype (complex -> real)
_conversion.install(Tensor)
Tensor.pow = pow
Tensor.split = split
if "norm" in globals():
    Tensor.norm = norm

from .tensor.special import *  # noqa: E402,F401,F403  (also installs its Tensor methods)
from .utils import dlpack as _dlpack  # noqa: E402,F401
from . import utils  # noqa: E402,F401
from . import nn  # noqa: E402,F401
from . import linalg  # noqa: E402,F401
from . import io  # noqa: E402,F401
from . import optimizer, regularizer  # noqa: E402,F401
from .framework.param_attr import ParamAttr  # noqa: E402,F401
from .framework.parameter import create_parameter  # noqa: E402,F401
from . import metric  # noqa: E402,F401
from . import static  # noqa: E402,F401
from .static import mode as _static_mode  # noqa: E402
from .static import enable_static, disable_static  # noqa: E402,F401
from .static.mode import in_dynamic_mode  # noqa: E402,F401
from . import jit, inference  # noqa: E402,F401
from .framework.io import save, load, async_save, clear_async_save_task_queue  # noqa: E402,F401
from .hapi import summary, flops, Model, callbacks  # noqa: E402,F401
from . import vision  # noqa: E402,F401

# paddle.Tensor has these linear-algebra functions as methods too.
for _name in ("cholesky", "cholesky_inverse", "cholesky_solve", "cond", "corrcoef", "cov", "cross",
              "eigvalsh", "lu", "lu_unpack", "matrix_power", "multi_dot", "pinv", "qr", "slogdet",
              "solve", "lstsq"):
    if not hasattr(Tensor, _name):
        setattr(Tensor, _name, getattr(linalg, _name))
Tensor.inverse = linalg.inv
# Functions Paddle also has as Tensor methods.
for _name in ("atleast_2d", "atleast_3d", "broadcast_shape", "broadcast_shapes", "broadcast_tensors",
              "combinations", "concat", "histogram_bin_edges", "msort", "multiplex", "scatter_nd",
              "shard_index", "split_with_sizes", "stack", "vander"):
    if not hasattr(Tensor, _name) and _name in globals():
        setattr(Tensor, _name, globals()[_name])
view_as_complex, view_as_real = as_complex, as_real  # noqa: F821 (from the special family)
Tensor.view_as_complex, Tensor.view_as_real = as_complex, as_real  # noqa: F821
for _name in ("cross", "vecdot"):
    globals().setdefault(_name, getattr(linalg, _name))

# Paddle's legacy and low-level names: typed tensor factories, accelerator places, LazyGuard,
# Generator, strided views and the legacy Tensor attributes.
from .tensor.typed_tensor import *  # noqa: E402,F401,F403
from .framework.lazy_init import LazyGuard  # noqa: E402,F401
from .framework.generator import Generator  # noqa: E402,F401
from .tensor.strided import as_strided  # noqa: E402,F401
from .tensor import strided as _strided, diagonal_fill as _diagonal_fill  # noqa: E402
from .tensor import legacy_attrs as _legacy  # noqa: E402
from .framework import lazy_init as _lazy_init, parameter as _parameter  # noqa: E402
for _mod in (_strided, _diagonal_fill, _legacy):
    _mod.install(Tensor)
_lazy_init.install(_parameter.Parameter)

# Names that shadow builtins come last, so that nothing above sees them: paddle.range and the
# dtype aliases paddle.float (float32), double, half, cfloat, cdouble.
range = range_  # noqa: F821 (tensor/creation.py)
float, double, half, cfloat, cdouble = float32, float64, float16, complex64, complex128
