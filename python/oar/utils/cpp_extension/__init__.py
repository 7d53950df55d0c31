"""oar.utils.cpp_extension (paddle.utils.cpp_extension): custom C++ operators. The source of a
Paddle custom operator (`#include "paddle/extension.h"`, PD_BUILD_OP, PD_KERNEL, ...) compiles
unchanged: `load` builds it just in time and returns a module with one function per op;
`setup`/`CppExtension` build an installable package. Ops run eagerly with autograd (through their
PD_BUILD_GRAD_OP). docs/custom_ops.md."""
from .build import CppExtension, CUDAExtension, get_build_directory, load, setup

__all__ = ["CppExtension", "CUDAExtension", "load", "setup", "get_build_directory"]
