"""oar.incubate.autograd (paddle.incubate.autograd): functional differentiation (vjp, jvp, lazily
evaluated Jacobian and Hessian matrices) over oar's autograd, and the primitive-operator switch."""
from .functional import Hessian, Jacobian, jvp, vjp  # noqa: F401
from .primapi import disable_prim, enable_prim, prim_enabled  # noqa: F401
from .static_grad import grad  # noqa: F401

__all__ = ["vjp", "jvp", "Jacobian", "Hessian", "enable_prim", "disable_prim", "grad"]
