"""append_backward and gradients (paddle.static): one `grad` op in the program. When the program
runs, its forward ops record autograd history and the grad op answers with the eager backward
engine, so static gradients come from exactly the same vjp rules as dynamic mode."""
from .. import _C
from ..framework import mode
from .program import current_tracer, default_main_program

_ir = _C._ir


def _as_list(x):
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _check_symbolic(api, what, ts):
    for t in ts:
        if not mode.is_symbolic(t):
            raise TypeError(f"{api}: {what} must be tensors of the program being built, but received "
                            f"{type(t).__name__}")


def append_backward(loss, parameter_list=None, no_grad_set=None, callbacks=None, checkpoints=None,
                    distop_context=None):
    """Adds the gradients of `loss` w.r.t. the trainable parameters it depends on; returns
    [(parameter, gradient)] (paddle.static.append_backward)."""
    tracer = current_tracer("append_backward")
    _check_symbolic("append_backward", "loss", [loss])
    if loss.size not in (1, -1) and loss.ndim > 0:
        raise ValueError(f"append_backward: the loss must hold one value, but its shape is {loss.shape}")
    program = default_main_program()
    params = program._parameters()
    skip = set()
    for p in _as_list(no_grad_set):
        skip.add(p if isinstance(p, str) else p.name)
    if parameter_list is not None:
        chosen = [params[p] if isinstance(p, str) else p for p in parameter_list]
    else:
        reach = _ir.parameters_reaching(loss)
        chosen = [params[n] for n in reach if n in params]
    chosen = [p for p in chosen if not p.stop_gradient and p.name not in skip]
    # The order Paddle lists them in: program order of creation.
    if not chosen:
        return []
    grads = tracer.record("grad", [[loss], chosen, []], {})
    return list(zip(chosen, grads))


def gradients(targets, inputs, target_gradients=None, no_grad_set=None):
    """d(sum of targets)/d(inputs) as program values (paddle.static.gradients)."""
    tracer = current_tracer("gradients")
    targets, inputs = _as_list(targets), _as_list(inputs)
    seeds = _as_list(target_gradients)
    _check_symbolic("gradients", "targets", targets)
    for x in inputs:
        if mode.is_symbolic(x) and x.stop_gradient:
            raise ValueError("gradients: an input has stop_gradient=True; set x.stop_gradient = False on "
                             "the inputs you differentiate with respect to")
    if seeds and len(seeds) != len(targets):
        raise ValueError(f"gradients: target_gradients must match targets ({len(targets)}), got {len(seeds)}")
    return tracer.record("grad", [targets, inputs, seeds], {})
