"""Argument errors that are two exception types at once, for checks where Paddle raises a type
that differs from Python's convention.

Paddle checks many arguments with `assert` (AssertionError) and, in dynamic mode, checks dtypes with
ValueError where its static mode (and Python's convention) raise TypeError. Raising a class that is
both lets code written against Paddle and code written against the convention catch the error, and,
unlike a bare assert, survives `python -O`.
"""


class AssertTypeError(TypeError, AssertionError):
    """An argument of the wrong type (Paddle asserts on it)."""


class AssertValueError(ValueError, AssertionError):
    """A bad argument value (Paddle asserts on it)."""


class DTypeError(TypeError, ValueError):
    """A tensor of the wrong dtype (Paddle's dynamic mode raises ValueError for it)."""
