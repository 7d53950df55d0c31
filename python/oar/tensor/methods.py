"""Every Tensor method and property written in Python, with the function it binds: the one place
that says where such a Tensor.X comes from. install() attaches them (oar/__init__.py calls it).

The other Tensor methods come from the C++ bindings: the generated op methods (x.add, x.sum, ...:
the ops whose spec in oar/ops/specs/<family>.yaml is a method; their names are _C._method_ops) and
python/src/tensor_bind.cc (shape, dtype, numpy, clone, grad, the operators, ...).

- SPECIAL: Python protocols (printing, indexing, copying, pickling) and NumPy's priority.
- REPLACES: Python versions that replace the C++ method of the same name.
- METHODS: names the C++ bindings do not define. Should C++ gain one of them, the C++ method is
  kept and the name is listed in SHADOWED (the tests require SHADOWED to be empty, so that this
  table stays true).
- the in-place variants of tensor/inplace.py (x.acos_(), x.reshape_(), ...): every name of its
  __all__, unless C++ defines that method (which ones Python adds depends on the C++ specs).
"""
from .. import _C
from .. import linalg, signal
from ..autograd import tensor_methods as autograd_methods
from ..framework.parameter import create_parameter
from . import (attribute, contraction, conversion, creation, diagonal_fill, indexing, inplace,
               legacy_attrs, logic, manipulation, math, random, search, special, statistics, strided)
from . import linalg as tensor_linalg
from . import sparse_methods
from .repr import tensor_format, tensor_repr

Tensor = _C.Tensor

__all__ = ["SPECIAL", "REPLACES", "METHODS", "SHADOWED", "install"]

SPECIAL = {
    "__repr__": tensor_repr,
    "__str__": tensor_repr,
    "__format__": tensor_format,
    "__getitem__": indexing.getitem,
    "__setitem__": indexing.setitem,
    "__iter__": indexing.iterate,
    "__deepcopy__": conversion.deepcopy,
    "__reduce_ex__": conversion.reduce_ex,
    "__complex__": conversion.to_complex,
    "__array_priority__": 100,  # NumPy defers to Tensor's operators (ndarray + tensor is a tensor)
}

REPLACES = {
    "abs_": inplace.abs_,  # a complex x becomes real (the generated abs_ keeps x's dtype)
    "as_strided": strided.as_strided,
    "cast": conversion.astype,
    "copysign": special.copysign,
    "copysign_": special.copysign_,
    "lerp": math.lerp,
    "pow": math.pow,
    "put_along_axis": search.put_along_axis,
    "put_along_axis_": search.put_along_axis_,
    "repeat_interleave": manipulation.repeat_interleave,
    "split": manipulation.split,
}

METHODS = {
    # autograd/tensor_methods.py
    "backward": autograd_methods.backward,
    "register_hook": autograd_methods.register_hook,
    # tensor/attribute.py
    "dim": attribute.dim,
    "ndimension": attribute.dim,
    "place": property(attribute.place),
    "is_complex": attribute.is_complex,
    "is_floating_point": attribute.is_floating_point,
    "is_integer": attribute.is_integer,
    "rank": attribute.rank,
    # tensor/logic.py (eq, ne, gt, ... are _C.equal, _C.not_equal, ...)
    "is_tensor": logic.is_tensor_method,
    "eq": logic.eq,
    "ne": logic.ne,
    "gt": logic.gt,
    "ge": logic.ge,
    "lt": logic.lt,
    "le": logic.le,
    "greater": logic.greater,
    "less": logic.less,
    "is_empty": logic.is_empty,
    "isin": logic.isin,
    # tensor/math.py
    "clamp": math.clamp,
    "clamp_": math.clamp_,
    "div": math.div,
    "mul": math.mul,
    "sub": math.sub,
    "floor_mod": math.floor_mod,
    "mod": math.mod,
    "true_divide": math.true_divide,
    "negative": math.negative,
    "deg2rad": math.deg2rad,
    "rad2deg": math.rad2deg,
    "frac": math.frac,
    "sgn": math.sgn,
    "signbit": math.signbit,
    "nansum": math.nansum,
    "nanmean": math.nanmean,
    "count_nonzero": math.count_nonzero,
    "logit": math.logit,
    "logaddexp": math.logaddexp,
    "hypot": math.hypot,
    "sinc": math.sinc,
    "diff": math.diff,
    "reduce_as": math.reduce_as,
    "increment": math.increment,
    "multiplex": math.multiplex,
    # tensor/linalg.py
    "matrix_transpose": tensor_linalg.matrix_transpose,
    "inner": tensor_linalg.inner,
    "mv": tensor_linalg.mv,
    "kron": tensor_linalg.kron,
    "diagonal": tensor_linalg.diagonal,
    "trace": tensor_linalg.trace,
    "norm": tensor_linalg.norm,
    # tensor/manipulation.py
    "T": property(manipulation.reverse_axes),
    "permute": manipulation.permute,
    "swapaxes": manipulation.swapaxes,
    "swapdims": manipulation.swapdims,
    "moveaxis": manipulation.moveaxis,
    "ravel": manipulation.ravel,
    "narrow": manipulation.narrow,
    "view": manipulation.view,
    "view_as": manipulation.view_as,
    "atleast_1d": manipulation.atleast_1d,
    "atleast_2d": manipulation.atleast_2d,
    "atleast_3d": manipulation.atleast_3d,
    "hsplit": manipulation.hsplit,
    "vsplit": manipulation.vsplit,
    "dsplit": manipulation.dsplit,
    "tensor_split": manipulation.tensor_split,
    "unflatten": manipulation.unflatten,
    "unstack": manipulation.unstack,
    "reverse": manipulation.reverse,
    "take_along_dim": manipulation.take_along_dim,
    "rot90": manipulation.rot90,
    "slice_scatter": manipulation.slice_scatter,
    "diagonal_scatter": manipulation.diagonal_scatter,
    "crop": manipulation.crop,
    "broadcast_shape": manipulation.broadcast_shape,
    "broadcast_shapes": manipulation.broadcast_shapes,
    "broadcast_tensors": manipulation.broadcast_tensors,
    "shard_index": manipulation.shard_index,
    # tensor/creation.py
    "diag": creation.diag,
    "diagflat": creation.diagflat,
    # tensor/search.py (Tensor.where is conversion.where: x is the condition)
    "nonzero": search.nonzero,
    "unique": search.unique,
    "unique_consecutive": search.unique_consecutive,
    "median": search.median,
    "argwhere": search.argwhere,
    "mode": search.mode,
    "top_p_sampling": search.top_p_sampling,
    # tensor/statistics.py
    "quantile": statistics.quantile,
    "nanquantile": statistics.nanquantile,
    "nanmedian": statistics.nanmedian,
    "bincount": statistics.bincount,
    "histogram": statistics.histogram,
    "histogram_bin_edges": statistics.histogram_bin_edges,
    "histogramdd": statistics.histogramdd,
    "trapezoid": statistics.trapezoid,
    "cumulative_trapezoid": statistics.cumulative_trapezoid,
    "renorm": statistics.renorm,
    # tensor/contraction.py
    "tensordot": contraction.tensordot,
    "addmm": contraction.addmm,
    "baddbmm": contraction.baddbmm,
    "add_n": contraction.add_n,
    "cdist": contraction.cdist,
    "dist": contraction.dist,
    "block_diag": contraction.block_diag,
    "combinations": contraction.combinations,
    "vander": contraction.vander,
    # tensor/random.py
    "multinomial": random.multinomial,
    "exponential_": random.exponential_,
    "cauchy_": random.cauchy_,
    "geometric_": random.geometric_,
    "bernoulli_": random.bernoulli_,
    "log_normal_": random.log_normal_,
    # tensor/special.py
    "polar": special.polar_method,
    # tensor/strided.py
    "unfold": strided.unfold,
    "set_": strided.set_,
    "resize_": strided.resize_,
    "reconstruct_from_": strided.reconstruct_from_,
    # tensor/diagonal_fill.py
    "fill_diagonal_tensor": diagonal_fill.fill_diagonal_tensor,
    "fill_diagonal_tensor_": diagonal_fill.fill_diagonal_tensor_,
    # oar/linalg.py (cholesky, slogdet and inverse are _C.cholesky, _C.slogdet, _C.inv)
    "cholesky": linalg.cholesky,
    "cholesky_inverse": linalg.cholesky_inverse,
    "cholesky_solve": linalg.cholesky_solve,
    "cond": linalg.cond,
    "corrcoef": linalg.corrcoef,
    "cov": linalg.cov,
    "cross": linalg.cross,
    "eigvalsh": linalg.eigvalsh,
    "inverse": linalg.inv,
    "lu": linalg.lu,
    "lu_unpack": linalg.lu_unpack,
    "matrix_power": linalg.matrix_power,
    "multi_dot": linalg.multi_dot,
    "pinv": linalg.pinv,
    "qr": linalg.qr,
    "slogdet": linalg.slogdet,
    "solve": linalg.solve,
    "lstsq": linalg.lstsq,
    # generated ops that Paddle also has as methods, some under other names
    "concat": _C.concat,
    "msort": _C.msort,
    "scatter_nd": _C.scatter_nd,
    "split_with_sizes": _C.split_with_sizes,
    "stack": _C.stack,
    "view_as_complex": _C.as_complex,
    "view_as_real": _C.as_real,
    # tensor/conversion.py: casts (x.float(), x.long(), x.float32(), ...: conversion.CASTS)
    **{name: conversion.cast_to(dtype_name) for name, dtype_name in conversion.CASTS.items()},
    "astype": conversion.astype,
    "type_as": conversion.type_as,
    "to": conversion.to,
    "cpu": conversion.cpu,
    "cuda": conversion.cuda,
    "pin_memory": conversion.pin_memory,
    "tolist": conversion.tolist,
    "new_zeros": conversion.new_zeros,
    "new_ones": conversion.new_ones,
    "new_empty": conversion.new_empty,
    "new_full": conversion.new_full,
    "is_same_shape": conversion.is_same_shape,
    "requires_grad_": conversion.requires_grad_,
    "set_value": conversion.set_value,
    "apply": conversion.apply,
    "apply_": conversion.apply_,
    "gradient": conversion.gradient,
    "repeat": conversion.repeat,
    "where": conversion.where,
    "get_device": conversion.get_device,
    "stride": conversion.stride,
    "get_strides": conversion.get_strides,
    "is_dense": conversion.is_dense,
    "to_sparse_coo": sparse_methods.to_sparse_coo,
    "to_sparse_csr": sparse_methods.to_sparse_csr,
    "to_dense": sparse_methods.to_dense,
    "values": sparse_methods.values,
    "indices": sparse_methods.indices,
    "crows": sparse_methods.crows,
    "cols": sparse_methods.cols,
    "nnz": sparse_methods.nnz,
    "coalesce": sparse_methods.coalesce,
    "is_coalesced": sparse_methods.is_coalesced,
    "sparse_dim": sparse_methods.sparse_dim,
    "dense_dim": sparse_methods.dense_dim,
    "is_sparse": conversion.is_sparse,
    "is_sparse_coo": conversion.is_sparse,
    "is_sparse_csr": conversion.is_sparse,
    "is_dist": conversion.is_sparse,
    "is_selected_rows": conversion.is_sparse,
    "itemsize": property(conversion.itemsize),
    "requires_grad": property(conversion.requires_grad, conversion.set_requires_grad),
    "mT": property(conversion.mT),
    "grad_fn": property(conversion.grad_fn),
    "strides": property(conversion.strides),
    "offset": property(conversion.offset),
    "inplace_version": property(conversion.inplace_version),
    "device": property(conversion.device),
    "is_cuda": property(conversion.is_cuda),
    "layout": property(conversion.layout),
    "persistable": property(conversion.persistable, conversion.set_persistable),
    "data": property(conversion.data, conversion.set_data),
    "placements": property(conversion.no_distribution),
    "process_mesh": property(conversion.no_distribution),
    "num_shard": property(conversion.no_distribution),
    # tensor/legacy_attrs.py and framework/parameter.py (Paddle's legacy Tensor attributes)
    "type": property(legacy_attrs.var_type),
    "value": legacy_attrs.value,
    "grad_": property(legacy_attrs.get_grad, legacy_attrs.set_grad),
    "create_parameter": create_parameter,
    "create_tensor": legacy_attrs.create_tensor,
    # linalg.py (Paddle's Tensor has these of paddle.linalg's)
    "eig": linalg.eig,
    "eigvals": linalg.eigvals,
    "householder_product": linalg.householder_product,
    "ormqr": linalg.ormqr,
    "svd_lowrank": linalg.svd_lowrank,
    "pca_lowrank": linalg.pca_lowrank,
    # signal.py
    "stft": signal.stft,
    "istft": signal.istft,
}

# METHODS (and in-place variants) that a C++ method of the same name kept off Tensor.
SHADOWED = []


def install():
    """Attaches the tables above to Tensor (once, from oar/__init__.py)."""
    cpp = set(Tensor.__dict__)  # what the C++ bindings define
    for name, fn in {**SPECIAL, **REPLACES}.items():
        setattr(Tensor, name, fn)
    for name, fn in METHODS.items():
        if name in cpp:
            SHADOWED.append(name)
        else:
            setattr(Tensor, name, fn)
    for name in inplace.__all__:
        if name not in cpp:
            setattr(Tensor, name, getattr(inplace, name))
