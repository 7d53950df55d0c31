"""Runtime of a converted `if` and of a converted conditional expression.

A Python or eager predicate runs one branch, exactly as the original statement. A symbolic one
builds `oar.static.nn.cond` with both branches over the branch outputs.
"""
from .errors import Dy2StaticError, site_text
from .symbolic import as_branch_value, bool_predicate, is_symbolic, static_nn
from .undefined import UndefinedVar, is_undefined


def check_no_outside_mutation(site, mutations, kind):
    if mutations:
        text, line = mutations[0]
        raise Dy2StaticError(
            (site[0], line),
            f"`{text} = ...` changes an object from outside a {kind} that depends on a tensor "
            f"(at {site_text(site)}); static control flow can only produce new values",
            "Assign to a local variable inside the branch or loop and store it into the "
            "attribute or item after the statement")


def convert_ifelse(pred, true_fn, false_fn, init, names, assigned_in_both, site, mutations=()):
    """The new values of `names` after `if pred: true_fn else: false_fn`."""
    if not is_symbolic(pred):
        return true_fn(*init) if pred else false_fn(*init)
    check_no_outside_mutation(site, mutations, "branch")
    # A variable with no value before the `if` that only one branch assigns has no value after
    # it either (Paddle's UndefinedVar): it is left out of the IR op.
    kept = [i for i, v in enumerate(init) if not (is_undefined(v) and not assigned_in_both[i])]

    def branch(fn, which):
        def run():
            out = fn(*init)
            values = []
            for i in kept:
                if is_undefined(out[i]):
                    raise Dy2StaticError(
                        site, f"variable '{names[i]}' has no value at the end of the {which} "
                        f"branch of this tensor-dependent `if` (it is assigned on only some paths "
                        f"inside that branch)",
                        f"Give '{names[i]}' a value before the `if`")
                values.append(as_branch_value(out[i]))
            if not values:
                return None
            return values[0] if len(values) == 1 else tuple(values)
        return run

    try:
        result = static_nn().cond(bool_predicate(pred), branch(true_fn, "true"),
                                  branch(false_fn, "false"))
    except (TypeError, ValueError) as e:
        if not isinstance(e, Dy2StaticError):
            e.add_note(f"while building the tensor-dependent `if` at {site_text(site)}, whose "
                       f"branches yield, in order: {', '.join(names[i] for i in kept) or 'nothing'}")
        raise
    kept_values = () if not kept else (result,) if len(kept) == 1 else tuple(result)
    new = list(init)
    for i, v in zip(kept, kept_values):
        new[i] = v
    for i in set(range(len(init))) - set(kept):
        new[i] = UndefinedVar(names[i], f"it is assigned in only one branch of the "
                                        f"tensor-dependent `if` at {site_text(site)}")
    return tuple(new)


def convert_ifexp(pred, true_fn, false_fn, site):
    """`true_fn() if pred else false_fn()`."""
    if not is_symbolic(pred):
        return true_fn() if pred else false_fn()
    return static_nn().cond(bool_predicate(pred), lambda: as_branch_value(true_fn()),
                            lambda: as_branch_value(false_fn()))


def python_condition(test, site, what, fix):
    """The test of a statement that stays Python: it must not be symbolic."""
    if is_symbolic(test):
        raise Dy2StaticError(
            site, f"this `{site[2]}` depends on a tensor but cannot become static control "
                  f"flow: {what}", fix)
    return test
