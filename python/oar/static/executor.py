"""Executor, Scope (paddle.static.Executor, global_scope, scope_guard): runs programs built in
static mode on the C++ executor (oar/runtime)."""
import contextlib

import numpy as np

from .. import _C
from ..framework import mode
from ..framework.errors import AssertTypeError
from ..framework.place import move_in_place
from .program import Program, default_main_program, default_startup_program

_ir = _C._ir


class _ScopeVar:
    def __init__(self, scope, name):
        self._scope, self._name = scope, name

    def get_tensor(self):
        return self._scope._vars[self._name]

    def set(self, value, place=None):
        self._scope._vars[self._name] = _as_tensor(value)


class Scope:
    """Named tensors the executor reads parameters from (paddle.static.Scope)."""

    def __init__(self):
        self._vars = {}

    def var(self, name):
        self._vars.setdefault(name, None)
        return _ScopeVar(self, name)

    def find_var(self, name):
        return _ScopeVar(self, name) if self._vars.get(name) is not None else None

    def local_var_names(self):
        return [k for k, v in self._vars.items() if v is not None]


_scopes = [Scope()]


def global_scope():
    """The scope the executor reads and writes parameters in: the innermost scope_guard's
    scope, else the global one.

    Returns:
        Scope: the current scope.

    Examples:
        >>> import oar
        >>> scope = oar.static.Scope()
        >>> with oar.static.scope_guard(scope):
        ...     print(oar.static.global_scope() is scope)
        True
    """
    return _scopes[-1]


@contextlib.contextmanager
def scope_guard(scope):
    """Context manager that makes scope the global scope (global_scope()) inside the with block.

    Args:
        scope (Scope): The scope; anything else raises TypeError.

    Returns:
        A context manager.

    Examples:
        >>> import oar
        >>> scope = oar.static.Scope()
        >>> with oar.static.scope_guard(scope):
        ...     print(oar.static.global_scope() is scope)
        True
        >>> print(oar.static.global_scope() is scope)
        False
    """
    if not isinstance(scope, Scope):
        raise TypeError(f"scope_guard: scope must be a Scope, but received {type(scope).__name__}")
    _scopes.append(scope)
    try:
        yield
    finally:
        _scopes.pop()


def _no_grad():
    from ..autograd import no_grad
    return no_grad()


def _as_tensor(value):
    """A feed as a tensor: arrays become host tensors (the C++ executor moves every feed to the
    place it runs on)."""
    if isinstance(value, _C.Tensor):
        return value
    from ..tensor.creation import to_tensor
    return to_tensor(np.asarray(value), place="cpu")


def _flat_fetch_list(fetch_list):
    """fetch_list as a flat list, as Paddle reads it: None, one target, or a list/tuple whose items
    are targets or lists/tuples of targets (a model's tuple of outputs: each one is fetched)."""
    if fetch_list is None:
        return []
    if isinstance(fetch_list, (_C.Tensor, str)):
        return [fetch_list]
    if not isinstance(fetch_list, (list, tuple)):
        raise AssertTypeError("Executor.run: fetch_list must be a tensor, a name, or a list or tuple of "
                              f"them, but received {type(fetch_list).__name__}")
    flat = []
    for item in fetch_list:
        flat.extend(item if isinstance(item, (list, tuple)) else [item])
    return flat


class _Compiled:
    """What running one program needs, computed once per program state (its op count): the C++
    executor, the input names, the captured weights and the value index of each fetch target."""

    def __init__(self, program, num_ops, place):
        self.program, self.num_ops = program, num_ops
        self.executor = _ir.Executor(program._program, place)
        self.input_names = set(program._program.input_names())
        self.params = program._parameters()
        self.outputs = _ir.output_indices(program._program)
        self._indices = {}  # TensorImpl id -> (tensor kept alive, value index)

    def index(self, f):
        hit = self._indices.get(f._impl_id) if isinstance(f, _C.Tensor) else None
        if hit is None:
            hit = (f, Executor._fetch_index(self.program, f))
            self._indices[f._impl_id] = hit
        return hit[1]


class Executor:
    """Runs programs (paddle.static.Executor) on `place`: a Place or device string; None, as in
    Paddle, is the expected place (``oar.set_device``). Feeds and weights are copied there, and
    fetched tensors live there."""

    def __init__(self, place=None):
        from ..framework.place import placement_key
        self.place = place
        self._place_key = _C._get_device() if place is None else placement_key("Executor", place)
        self._compiled = {}  # id(program) -> _Compiled

    def _compiled_for(self, program, num_ops):
        hit = self._compiled.get(id(program))
        if hit is None or hit.program is not program or hit.num_ops != num_ops:
            hit = _Compiled(program, num_ops, self._place_key)
            self._compiled[id(program)] = hit
        return hit

    def run(self, program=None, feed=None, fetch_list=None, feed_var_name="feed", fetch_var_name="fetch",
            scope=None, return_numpy=True, use_program_cache=False, use_prune=False):
        from .compiler import CompiledProgram
        program = default_main_program() if program is None else program
        if isinstance(program, CompiledProgram):
            program = program._program
        if not isinstance(program, Program):
            raise TypeError(f"Executor.run: program must be a Program or CompiledProgram, but received "
                            f"{type(program).__name__}")
        num_ops = program._program.num_ops()
        if program is default_startup_program():
            # Weights are created with their values (eagerly) when the layers are built.
            return []
        if num_ops == 0:
            # No ops, but maybe writes (an ExponentialMovingAverage's apply_program).
            with mode.eager(), _no_grad():
                for entry in program._after_run:
                    entry.fn()
            return []
        feed = {} if feed is None else feed
        if not isinstance(feed, dict):
            raise TypeError(f"Executor.run: feed must be a dict of input name -> array, but received "
                            f"{type(feed).__name__}")
        fetch_list = _flat_fetch_list(fetch_list)
        scope = global_scope() if scope is None else scope
        compiled = self._compiled_for(program, num_ops)
        if not fetch_list and compiled.outputs:
            # A program with fetch ops (loaded or deserialized inference programs): as Paddle,
            # no fetch_list fetches what they name.
            fetch_list = [_ir.symbolic_at(program._tracer, i) for i in compiled.outputs]
        for name in compiled.input_names:
            if name not in feed:
                raise KeyError(f"Executor.run: the program needs input '{name}', but feed has "
                               f"{sorted(feed)}")
        feeds = {k: _as_tensor(v) for k, v in feed.items() if k in compiled.input_names}
        params = dict(compiled.params)
        params.update({k: v for k, v in scope._vars.items() if v is not None})
        # As Paddle's scope holds them on the executor's place: the weights move there once (in
        # place), so gradients and optimizer updates happen there too.
        for t in params.values():
            move_in_place(t, self._place_key)
        hooks = program._optimize_hooks
        targets = [compiled.index(f) for f in fetch_list]
        grad_targets = [compiled.index(g) for _, pairs in hooks for _, g in pairs]
        after_run = program._after_run
        state_targets = [compiled.index(v) for entry in after_run for v in entry.values]
        with mode.eager():
            outs, stats = compiled.executor.run(feeds, params, targets + grad_targets + state_targets)
            self.last_run_stats = stats
            grads = outs[len(targets):len(targets) + len(grad_targets)]
            states = outs[len(targets) + len(grad_targets):]
            outs = outs[:len(targets)]
            k = s = e = 0
            for h in range(len(hooks) + 1):
                # the writes added before optimizer h was attached, then its update (the rest at the
                # end: a for_test clone has no optimizers)
                with _no_grad():
                    while e < len(after_run) and (after_run[e].after <= h or h == len(hooks)):
                        n = len(after_run[e].values)
                        after_run[e].fn(*states[s:s + n])
                        s += n
                        e += 1
                if h < len(hooks):
                    optimizer, pairs = hooks[h]
                    optimizer.apply_gradients([(p, grads[k + i]) for i, (p, _) in enumerate(pairs)])
                    k += len(pairs)
            if return_numpy:
                return [o.numpy() for o in outs]
        return outs

    @staticmethod
    def _fetch_index(program, f):
        if isinstance(f, str):
            params = program._parameters()
            if f in params:
                raise ValueError(f"Executor.run: '{f}' is a parameter; read it with "
                                 f"global_scope().find_var('{f}').get_tensor() or fetch the tensor")
            raise ValueError(f"Executor.run: fetch by name is not supported for '{f}'; pass the tensor "
                             f"returned when the program was built")
        if not mode.is_symbolic(f):
            raise TypeError(f"Executor.run: fetch_list items must be tensors of the program (values "
                            f"computed from static.data inputs), but received {type(f).__name__}")
        return _ir.value_index(f)

    def close(self):
        self._compiled.clear()
