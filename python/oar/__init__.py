"""oar: a deep-learning framework with a C++ core and PaddlePaddle's Python API.

Where the names of this namespace come from:
- oar.<generated op> (oar.add, oar.matmul, oar.relu_, ...): the C++ ops generated from
  oar/ops/specs/<family>.yaml by tools/gen_ops.py, bound in _C (lists: _C._generated_ops and
  _C._inplace_ops); the loop below copies them, leaving out those whose spec says public: false
  (_C._internal_ops). A Python function imported further down under the same name replaces
  the generated op (oar.split, oar.where, oar.arange, ...).
- the hand-written C++ functions of _C (python/src/*.cc): imported by name below.
- every Python name: imported by name from the module that defines it, each import saying
  which; Paddle's functions written over the ops are in tensor/<family>.py (creation,
  manipulation, math, logic, attribute, linalg, search, statistics, contraction, random,
  special, inplace), the framework's pieces (dtypes, places, rng state, flags, save/load) in
  framework/<piece>.py.
- the subpackages (oar.nn, oar.optimizer, oar.static, ...): imported as modules.
- oar.Tensor's methods: the C++ bindings (generated op methods, python/src/tensor_bind.cc) and,
  for those written in Python, tensor/methods.py.
"""
import os as _os

# Idle OpenMP threads spin 10000 iterations (libgomp's default: 300000) before sleeping, so that
# DataLoader workers and other processes get the cores between our parallel regions. Measured on 2
# cores: with 1000 spins every back-to-back parallel op paid a thread wake-up (add of 4M floats
# 0.97-1.01 ms against 0.92-0.95 ms); with 10000 the DataLoader's wait stays at 3-4.5% of a LeNet
# step (100000: 4.6-5.4%).
# Read by libgomp when it loads (with _C below); a value the user set is kept.
if "GOMP_SPINCOUNT" not in _os.environ and "OMP_WAIT_POLICY" not in _os.environ:
    _os.environ["GOMP_SPINCOUNT"] = "10000"


def _check_cpu():
    """oar's default build targets x86-64-v3: on a CPU without AVX2 or FMA, refuse with an
    ImportError that says so instead of dying of an illegal instruction inside the library."""
    import platform
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return
    try:
        with open("/proc/cpuinfo") as f:
            line = next((l for l in f if l.startswith("flags")), "")
    except OSError:
        return
    have = set(line.partition(":")[2].split())
    missing = [flag for flag in ("avx2", "fma") if flag not in have]
    if have and missing:
        raise ImportError(f"oar was built for x86-64-v3 CPUs (AVX2 and FMA); this CPU lacks {', '.join(missing)}. "
                          "Build oar from source on this machine (cmake -DOAR_NATIVE=ON) to run it here.")


_check_cpu()
from . import _C  # noqa: E402
from ._C import Tensor  # noqa: E402,F401


def _bound_function(module, name):
    import importlib
    return getattr(importlib.import_module(module), name)


def _reduce_bound_function(f):
    """C++ functions (oar._C.relu, ...) pickle and deep-copy as themselves, as Python functions
    do: a layer that keeps one (TransformerEncoderLayer.activation) can be copied and saved."""
    return _bound_function, (f.__module__, f.__name__)


import copyreg  # noqa: E402
copyreg.pickle(type(_C.relu), _reduce_bound_function)
del copyreg

__version__ = "0.1.0"
# python/oar/version.py and sysconfig.py: build information (paddle.version, paddle.sysconfig).
from . import version, sysconfig  # noqa: E402,F401

# The generated ops first, so that a Python function of the same name imported below wins.
for _name in _C._generated_ops + _C._inplace_ops:
    if _name not in _C._internal_ops:
        globals()[_name] = getattr(_C, _name)
del _name

# Hand-written C++ functions (python/src/module.cc).
from ._C import get_num_threads, set_num_threads  # noqa: E402,F401

# python/oar/framework/dtype.py: dtypes and the default dtype.
from .framework.dtype import (  # noqa: E402,F401
    dtype, bool_ as bool, int8, uint8, int16, int32, int64, float16, bfloat16, float32, float64,
    complex64, complex128, float8_e4m3fn, float8_e5m2, uint16, uint32, uint64, pstring, raw, get_default_dtype,
    set_default_dtype, iinfo, finfo)
# python/oar/framework/place.py: places.
from .framework.place import (  # noqa: E402,F401
    CPUPlace, CUDAPlace, CUDAPinnedPlace, CustomPlace, Place, XPUPinnedPlace)
# python/oar/framework/random.py: the random-number generator's state (seed is _C.seed).
from .framework.random import (  # noqa: E402,F401
    seed, manual_seed, get_rng_state, set_rng_state, get_cuda_rng_state, set_cuda_rng_state)
# python/oar/framework/generator.py, lazy_init.py, param_attr.py, parameter.py, io.py, config.py.
from .framework.generator import Generator  # noqa: E402,F401
from .framework.lazy_init import LazyGuard  # noqa: E402,F401
from .framework.param_attr import ParamAttr  # noqa: E402,F401
from .framework.parameter import create_parameter  # noqa: E402,F401
from .framework.io import save, load, async_save, clear_async_save_task_queue  # noqa: E402,F401
from .framework.config import (  # noqa: E402,F401
    get_flags, set_flags, disable_signal_handler, is_compiled_with_cuda)
# python/oar/autograd/__init__.py (is_grad_enabled is _C's, python/src/autograd_bind.cc).
from .autograd import grad, no_grad, enable_grad, set_grad_enabled, is_grad_enabled  # noqa: E402,F401

# python/oar/tensor/creation.py
from .tensor.creation import (  # noqa: E402,F401
    to_tensor, assign, as_tensor, asarray, from_numpy, clone, arange, range_, linspace, logspace,
    meshgrid, tril_indices, triu_indices, diag, diagflat)
# python/oar/tensor/random.py
from .tensor.random import (  # noqa: E402,F401
    randint, randint_like, normal, rand_like, randn_like, multinomial, log_normal, exponential_,
    cauchy_, geometric_, bernoulli_, log_normal_)
# python/oar/tensor/attribute.py
from .tensor.attribute import (  # noqa: E402,F401
    is_complex, is_floating_point, is_integer, rank, shape, numel, Size, check_shape)
# python/oar/tensor/logic.py (eq, ne, gt, ... are _C.equal, _C.not_equal, ... under Paddle's names)
from .tensor.logic import eq, ne, gt, greater, ge, lt, less, le, isin, is_empty, is_tensor  # noqa: E402,F401
# python/oar/tensor/math.py
from .tensor.math import (  # noqa: E402,F401
    e, pi, inf, nan, clamp, clamp_, div, true_divide, mul, sub, floor_mod, mod, pow, negative,
    positive, sgn, signbit, frac, deg2rad, rad2deg, lerp, logit, logaddexp, hypot, sinc, nansum,
    nanmean, count_nonzero, diff, reduce_as, multiplex, increment)
# python/oar/tensor/linalg.py
from .tensor.linalg import inner, ger, mv, kron, matrix_transpose, diagonal, trace, norm  # noqa: E402,F401
# python/oar/tensor/manipulation.py
from .tensor.manipulation import (  # noqa: E402,F401
    cat, concatenate, split, permute, swapaxes, swapdims, moveaxis, ravel, narrow, view, view_as,
    unflatten, unstack, reverse, atleast_1d, atleast_2d, atleast_3d, hstack, vstack, row_stack,
    dstack, column_stack, tensor_split, hsplit, vsplit, dsplit, broadcast_shape, broadcast_shapes,
    broadcast_tensors, repeat_interleave, take_along_dim, rot90, slice_scatter, diagonal_scatter,
    crop, shard_index, tolist)
# python/oar/tensor/indexing.py
from .tensor.indexing import newaxis  # noqa: E402,F401
# python/oar/tensor/search.py
from .tensor.search import (  # noqa: E402,F401
    nonzero, unique, unique_consecutive, median, put_along_axis, put_along_axis_, argwhere, mode,
    where)
# python/oar/tensor/statistics.py
from .tensor.statistics import (  # noqa: E402,F401
    quantile, nanquantile, nanmedian, bincount, histogram, histogram_bin_edges, histogramdd, trapezoid,
    cumulative_trapezoid, renorm)
# python/oar/tensor/contraction.py
from .tensor.contraction import (  # noqa: E402,F401
    einsum, tensordot, addmm, baddbmm, add_n, cdist, dist, pdist, block_diag, cartesian_prod,
    combinations, vander)
# python/oar/tensor/special.py
from .tensor.special import copysign, copysign_  # noqa: E402,F401
# python/oar/tensor/strided.py
from .tensor.strided import as_strided  # noqa: E402,F401
# python/oar/tensor/typed_tensor.py
from .tensor.typed_tensor import (  # noqa: E402,F401
    FloatTensor, DoubleTensor, HalfTensor, BFloat16Tensor, ByteTensor, CharTensor, ShortTensor,
    IntTensor, LongTensor, BoolTensor)
# python/oar/tensor/repr.py
from .tensor.repr import set_printoptions  # noqa: E402,F401
# python/oar/tensor/inplace.py: the in-place variants Python adds (x.op_ for ops whose spec has
# none) that Paddle also has at top level. Which ones exist depends on the in-place ops the C++
# specs define, so the list is the module's TOP_LEVEL; its abs_ replaces the generated one, which
# cannot turn a complex x into a real one.
from .tensor import inplace as _inplace  # noqa: E402
for _name in _inplace.TOP_LEVEL:
    globals().setdefault(_name, getattr(_inplace, _name))  # a generated op of the same name stays
del _name
abs_ = _inplace.abs_  # replaces the generated abs_
# python/oar/utils/dlpack.py
from .utils.dlpack import from_dlpack, to_dlpack  # noqa: E402,F401
# python/oar/io/reader.py
from .io.reader import batch  # noqa: E402,F401
# Generated ops under Paddle's other names (the complex family).
view_as_complex, view_as_real = _C.as_complex, _C.as_real

# python/oar/tensor/methods.py: every Tensor method written in Python, attached here.
from .tensor import methods as _methods  # noqa: E402
_methods.install()

# ---- subpackages ----
from . import autograd, device, utils, nn, linalg, io, optimizer, regularizer, metric  # noqa: E402,F401
# Paddle re-exports the device choice at the top level (paddle.set_device is paddle.device.set_device).
from .device import (  # noqa: E402,F401
    set_device, get_device, set_default_device, device_guard, Event, Stream,
    is_compiled_with_custom_device, is_compiled_with_ipu, is_compiled_with_xpu, is_compiled_with_distribute)
from . import (static, jit, inference, vision, distributed, amp, quantization, fft, signal,  # noqa: E402,F401
               profiler, hub, audio, text, onnx, geometric, sparse)
from . import distribution  # noqa: E402,F401
from . import incubate, random, cuda  # noqa: E402,F401
# python/oar/audio/functional/window.py: Paddle's top-level window functions
from .audio.functional.window import (  # noqa: E402,F401
    bartlett_window, blackman_window, hamming_window, hann_window, kaiser_window)
from .distributed import DataParallel  # noqa: E402,F401
from . import tensor  # noqa: E402,F401
# python/oar/static/mode.py and python/oar/framework/mode.py (static mode's state)
from .static.mode import enable_static  # noqa: E402,F401
from .framework.mode import disable_static, in_dynamic_mode  # noqa: E402,F401
# python/oar/hapi/: summary.py, flops.py, model.py; python/oar/callbacks.py (paddle.callbacks, a module
# over hapi/callbacks.py)
from .hapi import summary, flops, Model  # noqa: E402,F401
from . import callbacks  # noqa: E402,F401
# python/oar/linalg.py
from .linalg import cross, vecdot  # noqa: E402,F401
from .amp import (  # noqa: E402,F401
    autocast, is_autocast_enabled, get_autocast_dtype, get_autocast_cpu_dtype, get_autocast_gpu_dtype)
# python/oar/compat/ (paddle.compat: PyTorch-style functions and layers) and its `import torch` switch
# (compat/proxy.py): paddle.enable_compat and paddle.disable_compat.
from . import compat  # noqa: E402,F401
from .compat.proxy import (  # noqa: E402,F401
    enable_torch_proxy as enable_compat, disable_torch_proxy as disable_compat)

# Names that shadow builtins come last, so that nothing above sees them: paddle.range
# (tensor/creation.py's range_) and the dtype aliases paddle.float (float32), double, half,
# cfloat, cdouble.
range = range_
float, double, half, cfloat, cdouble = float32, float64, float16, complex64, complex128

from .framework.config import _flags_from_environment  # noqa: E402
_flags_from_environment()
del _flags_from_environment
