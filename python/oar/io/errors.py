"""Argument errors of oar.io.

Paddle checks most oar.io arguments with `assert`, so its callers see AssertionError. Ours are typed
errors (ValueError/TypeError) that are also AssertionErrors, so code written against either catches
them, and they survive `python -O` (a bare assert would vanish).
"""


class IOValueError(ValueError, AssertionError):
    """A bad argument value (Paddle raises AssertionError for it)."""


class IOTypeError(TypeError, AssertionError):
    """An argument of the wrong type (Paddle raises AssertionError for it)."""
