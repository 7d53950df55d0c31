"""The value of a variable that has none on some path of converted control flow.

A converted branch or loop body is a function over the variables it assigns, so each of them needs a
value before the statement runs. Variables not bound yet start as an `UndefinedVar` (Paddle does the
same). Reading one is harmless; using it (arithmetic, attributes, truth, iteration, calling) raises
UnboundLocalError, as the original function would, with the reason it has no value.
"""


class UndefinedVar:
    __slots__ = ("name", "reason")

    def __init__(self, name, reason=None):
        self.name = name
        self.reason = reason

    def _fail(self, *args, **kwargs):
        why = f" ({self.reason})" if self.reason else ""
        raise UnboundLocalError(
            f"local variable '{self.name}' is used before it has a value{why}")

    def __getattr__(self, attr):
        # AttributeError (not UnboundLocalError) so that hasattr/getattr probes still work
        why = f" ({self.reason})" if self.reason else ""
        raise AttributeError(f"local variable '{self.name}' has no value, so no attribute "
                             f"'{attr}'{why}")

    def __repr__(self):
        return f"UndefinedVar({self.name!r})"

    __bool__ = __len__ = __iter__ = __call__ = __getitem__ = __setitem__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _fail
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _fail
    __pow__ = __rpow__ = __matmul__ = __rmatmul__ = __neg__ = __pos__ = __abs__ = _fail
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = __invert__ = _fail
    __lt__ = __le__ = __gt__ = __ge__ = _fail
    __int__ = __float__ = __index__ = _fail


def is_undefined(value):
    return isinstance(value, UndefinedVar)


def user_locals(namespace):
    """`locals()` of a converted function as the original would see it: without the generated
    `_oar_` names and without variables that have no value yet (unbound in the original)."""
    return {k: v for k, v in namespace.items()
            if not k.startswith("_oar_") and not isinstance(v, UndefinedVar)}
