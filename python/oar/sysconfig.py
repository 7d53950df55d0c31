"""Where oar's C++ headers and libraries are, for building against it (as paddle.sysconfig)."""
import os

__all__ = ["get_include", "get_lib"]

_HERE = os.path.dirname(os.path.abspath(__file__))


def get_include():
    """The directory of oar's C++ headers (`#include "oar/oar.h"`)."""
    return os.path.join(_HERE, "include")


def get_lib():
    """The directory of liboar.so."""
    return _HERE
