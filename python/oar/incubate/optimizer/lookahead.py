"""LookAhead (paddle.incubate.LookAhead): every k steps of an inner optimizer, the parameters
move a fraction alpha of the way from a slow copy towards where the inner steps took them."""
from __future__ import annotations

from ...autograd import no_grad

__all__ = ["LookAhead"]


class LookAhead:
    """The Lookahead optimizer (Zhang et al., 2019) around an inner optimizer.

    The inner optimizer updates the ("fast") parameters on every step. After its first step,
    a slow copy of each parameter is taken; after every k-th step, slow = slow + alpha *
    (fast - slow) and the parameters are set to slow.

    Args:
        inner_optimizer (Optimizer): The optimizer that takes the fast steps.
        alpha (float, optional): How far the slow weights move, in [0, 1]. Default: 0.5.
        k (int, optional): Fast steps per slow update, a positive int. Default: 5.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Examples:
        >>> import oar
        >>> linear = oar.nn.Linear(2, 1)
        >>> sgd = oar.optimizer.SGD(learning_rate=0.1, parameters=linear.parameters())
        >>> opt = oar.incubate.LookAhead(sgd, alpha=0.5, k=2)
        >>> for _ in range(4):
        ...     loss = linear(oar.ones([3, 2])).mean()
        ...     loss.backward()
        ...     opt.step()
        ...     opt.clear_grad()
        >>> print(opt.k, opt.alpha)
        2 0.5
    """

    def __init__(self, inner_optimizer, alpha=0.5, k=5, name=None):
        if inner_optimizer is None:
            raise ValueError("inner optimizer can not be None")
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0.0 <= alpha <= 1.0:
            raise ValueError(f"alpha should be larger or equal to 0.0, and less or equal than 1.0, got {alpha}")
        if isinstance(k, bool) or not isinstance(k, int) or k <= 0:
            raise ValueError(f"k should be a positive integer, got {k!r}")
        self.inner_optimizer = inner_optimizer
        self.alpha = float(alpha)
        self.k = k
        self.type = "lookahead"
        self._parameter_list = inner_optimizer._parameter_list
        self._global_step = 0
        self._slow = {}

    def _params(self):
        return [p for p in self.inner_optimizer._parameters_flat() if not p.stop_gradient]

    @no_grad()
    def _update_slow(self, params):
        self._global_step += 1
        for p in params:
            if self._global_step == 1 or id(p) not in self._slow:
                self._slow[id(p)] = p.detach().clone()
            if self._global_step % self.k == 0:
                slow = self._slow[id(p)]
                new = slow + (p.detach() - slow) * self.alpha
                p.set_value(new)
                self._slow[id(p)] = new

    def step(self):
        """One step of the inner optimizer, then the slow update when its turn has come.

        Examples:
            >>> import oar
            >>> linear = oar.nn.Linear(2, 1)
            >>> opt = oar.incubate.LookAhead(oar.optimizer.SGD(0.1, parameters=linear.parameters()), k=1)
            >>> linear(oar.ones([1, 2])).sum().backward()
            >>> opt.step()
        """
        params = [p for p in self._params() if p.grad is not None]
        self.inner_optimizer.step()
        self._update_slow(params)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """The inner optimizer's minimize, then the slow update when its turn has come.

        Examples:
            >>> import oar
            >>> linear = oar.nn.Linear(2, 1)
            >>> opt = oar.incubate.LookAhead(oar.optimizer.SGD(0.1, parameters=linear.parameters()), k=1)
            >>> loss = linear(oar.ones([1, 2])).sum()
            >>> loss.backward()
            >>> _ = opt.minimize(loss)
        """
        params = [p for p in self._params() if p.grad is not None]
        result = self.inner_optimizer.minimize(loss, startup_program, parameters, no_grad_set)
        self._update_slow(params)
        return result

    def clear_grad(self, set_to_zero=True):
        """Clears the gradients of the inner optimizer's parameters.

        Examples:
            >>> import oar
            >>> linear = oar.nn.Linear(2, 1)
            >>> opt = oar.incubate.LookAhead(oar.optimizer.SGD(0.1, parameters=linear.parameters()))
            >>> opt.clear_grad()
        """
        self.inner_optimizer.clear_grad(set_to_zero)

    def get_lr(self):
        """The inner optimizer's learning rate.

        Examples:
            >>> import oar
            >>> linear = oar.nn.Linear(2, 1)
            >>> print(oar.incubate.LookAhead(oar.optimizer.SGD(0.1, parameters=linear.parameters())).get_lr())
            0.1
        """
        return self.inner_optimizer.get_lr()

    def state_dict(self):
        """The inner optimizer's state.

        Examples:
            >>> import oar
            >>> linear = oar.nn.Linear(2, 1)
            >>> state = oar.incubate.LookAhead(oar.optimizer.SGD(0.1, parameters=linear.parameters())).state_dict()
        """
        return self.inner_optimizer.state_dict()

    def set_state_dict(self, state_dict):
        """Loads the inner optimizer's state.

        Examples:
            >>> import oar
            >>> linear = oar.nn.Linear(2, 1)
            >>> opt = oar.incubate.LookAhead(oar.optimizer.SGD(0.1, parameters=linear.parameters()))
            >>> opt.set_state_dict(opt.state_dict())
        """
        self.inner_optimizer.set_state_dict(state_dict)
