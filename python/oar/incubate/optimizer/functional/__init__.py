"""oar.incubate.optimizer.functional (paddle.incubate.optimizer.functional): unconstrained
minimisation of a function of one 1-D tensor by BFGS and L-BFGS with a strong-Wolfe line search,
following Paddle's algorithms step for step (the same iterates, function-call counts and stopping
rules), over oar's ops and autograd."""
from .bfgs import minimize_bfgs
from .lbfgs import minimize_lbfgs

__all__ = ["minimize_bfgs", "minimize_lbfgs"]
