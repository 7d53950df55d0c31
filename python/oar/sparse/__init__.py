"""oar.sparse (paddle.sparse): sparse tensors in COO and CSR format and the functions over them.

A sparse tensor is a pattern (COO indices, or CSR crows and cols) plus a dense values tensor
(python/oar/sparse/_tensor.py). Elementwise functions act on the values; shape functions move
the pattern; products run the C++ CSR kernels (oar/kernels/cpu/sparse_matmul.cc); sparse
convolutions build a rulebook with index ops and run one GEMM per kernel offset. Gradients flow
through the values."""
from . import nn
from ._binary import add, divide, multiply, subtract
from ._matmul import addmm, masked_matmul, matmul, mv, pca_lowrank
from ._shape import mask_as, reshape, slice, sum, transpose
from ._tensor import (SparseCooTensor, SparseCsrTensor, coalesce, is_same_shape, sparse_coo_tensor,
                      sparse_csr_tensor)
from ._unary import (abs, asin, asinh, atan, atanh, cast, deg2rad, expm1, isnan, log1p, neg, pow, rad2deg, sin,
                     sinh, sqrt, square, tan, tanh)

__all__ = ["sparse_coo_tensor", "sparse_csr_tensor", "sin", "tan", "asin", "atan", "sinh", "tanh", "asinh", "atanh",
           "sqrt", "square", "log1p", "abs", "pow", "pca_lowrank", "cast", "neg", "deg2rad", "rad2deg", "expm1", "mv",
           "matmul", "mask_as", "masked_matmul", "addmm", "add", "subtract", "transpose", "sum", "multiply", "divide",
           "coalesce", "is_same_shape", "reshape", "isnan", "slice"]
