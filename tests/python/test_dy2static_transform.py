"""dy2static: converted functions give the original's results; tensor-dependent control flow
takes the static path; unsupported constructs raise Dy2StaticError naming the user's line.

Three ways of running each function:
- on Python values and on eager tensors, the converted function must equal the original;
- under `symbolic_eager` (below), every tensor counts as symbolic and `oar.static.nn.cond` /
  `while_loop` are an eager model of their contract (both branches are traced, the loop body runs
  on tensor loop variables): this drives the converters' static path and its errors without a
  program, and the results must still equal the original's.
"""
import inspect
import sys
import traceback
import types

import numpy as np
import pytest

import oar
from oar.jit import Dy2StaticError
from oar.jit.dy2static import (UndefinedVar, convert_function, converted_source, ignore_module,
                               not_to_static)


# ---- helpers ----------------------------------------------------------------------------------
def _np(v):
    if isinstance(v, oar.Tensor):
        return np.asarray(v.numpy())
    if isinstance(v, (tuple, list)):
        return type(v)(_np(x) for x in v)
    return v


def assert_same(a, b):
    a, b = _np(a), _np(b)
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            assert_same(x, y)
    elif isinstance(a, np.ndarray):
        np.testing.assert_allclose(np.asarray(b), a, rtol=1e-6)
    else:
        assert a == b and type(a) is type(b)


def check(fn, *arg_sets):
    """The converted fn equals fn on every argument set (Python values and eager tensors)."""
    conv = convert_function(fn)
    assert conv is not fn
    for args in arg_sets:
        assert_same(fn(*args), conv(*args))
    return conv


def t(v):
    return oar.to_tensor(np.asarray(v, dtype="float32"))


class _Calls:
    def __init__(self):
        self.cond = 0
        self.while_loop = 0


def _select(pred, a, b):
    """The static cond's result rule: tensors selected by pred, Python values only if equal."""
    if isinstance(a, (tuple, list)):
        if not (isinstance(b, (tuple, list)) and len(a) == len(b)):
            raise ValueError("cond: branches differ in structure")
        return type(a)(_select(pred, x, y) for x, y in zip(a, b))
    if isinstance(a, oar.Tensor) != isinstance(b, oar.Tensor):
        raise ValueError(f"cond: a tensor in one branch, {a!r} / {b!r} in the other")
    if not isinstance(a, oar.Tensor):
        if a != b:
            raise ValueError(f"cond: different Python values {a!r} / {b!r}")
        return a
    if a.dtype != b.dtype:
        raise ValueError(f"cond: dtypes differ: {a.dtype} / {b.dtype}")
    return oar.where(pred, a, b)


def _bool_tensor(value):
    assert isinstance(value, oar.Tensor) and value.dtype == oar.bool, value
    return value


@pytest.fixture
def symbolic_eager(monkeypatch):
    """Every tensor counts as symbolic; cond/while_loop behave as the static contract says."""
    calls = _Calls()

    def cond(pred, true_fn, false_fn=None, name=None, return_names=None):
        assert isinstance(pred, oar.Tensor) and pred.dtype == oar.bool
        calls.cond += 1
        a = true_fn()                       # a program traces both branches
        b = false_fn() if false_fn is not None else None
        return _select(pred, a, b)

    def while_loop(cond_fn, body, loop_vars, is_test=False, name=None):
        calls.while_loop += 1
        assert all(isinstance(v, oar.Tensor) for v in loop_vars), loop_vars
        loop_vars = list(loop_vars)
        while bool(_bool_tensor(cond_fn(*loop_vars))):
            new = list(body(*loop_vars))
            assert len(new) == len(loop_vars)
            loop_vars = new
        return loop_vars

    static = types.ModuleType("oar.static")
    static.is_symbolic = lambda x: isinstance(x, oar.Tensor)
    static.nn = types.SimpleNamespace(cond=cond, while_loop=while_loop)
    monkeypatch.setitem(sys.modules, "oar.static", static)
    return calls


def line_of(fn, text):
    """The file line of the first source line of fn containing `text`."""
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


# ---- functions under test ---------------------------------------------------------------------
def nested_if(x, a, b):
    if a > 0:
        if b > 0:
            y = x + 1
        else:
            y = x - 1
        y = y * 2
    else:
        y = x * 3
    return y


def elif_chain(x, n):
    if n > 3:
        r = x * 4
    elif n > 2:
        r = x * 3
    elif n > 1:
        r = x * 2
    else:
        r = x
    return r


def while_break_continue(x, n):
    i = 0
    total = x * 0
    while i < n:
        i += 1
        if i % 2 == 0:
            continue
        if i > 7:
            break
        total = total + x * i
    return total, i


def early_return(x, a):
    if a > 0:
        return x + 1
    x = x * 2
    if a < -5:
        return x - 100
    return x


def nested_early_return(x, a, b):
    if a > 0:
        if b > 0:
            return x * 10
        x = x + 1
    else:
        x = x - 1
    return x * 2


def implicit_none(x, a):
    if a > 0:
        return x


def for_range_break(x, n):
    acc = x
    for i in range(n):
        if i == 4:
            break
        acc = acc + i
    return acc, i


def for_else(x, n):
    for i in range(n):
        if i == 2:
            break
    else:
        x = x * 100
    return x


def while_else(x, n):
    while n > 0:
        n -= 1
    else:
        x = x + 5
    return x, n


def return_in_loop(x, n):
    for i in range(10):
        j = 0
        while j < 10:
            if i * j >= n:
                return x + i * 100 + j
            j += 1
    return x - 1


def for_over_list(x):
    out = []
    for a, b in [(1, 2), (3, 4)]:
        out.append(x * a + b)
    return out


def logical(a, b, c):
    r1 = a and b
    r2 = a or b or c
    r3 = not a
    r4 = (a and not b) or c
    return r1, r2, r3, r4


def ternary(x, a):
    y = x + 1 if a > 0 else x - 1
    z = "pos" if a > 0 else ("zero" if a == 0 else "neg")
    return y, z


def short_circuit(flag):
    seen = []

    def mark(v):
        seen.append(v)
        return v
    r = mark(flag) and mark(2) or mark(3)
    return r, seen


def make_closure(scale):
    count = 0

    def inner(x, a):
        nonlocal count
        if a > 0:
            count += 1
            y = x * scale
        else:
            y = x
        return y, count
    return inner


GLOBAL_SCALE = 3


def uses_global(x, a):
    global GLOBAL_SCALE
    if a > 0:
        GLOBAL_SCALE = GLOBAL_SCALE + 1
        x = x * GLOBAL_SCALE
    return x


def helper_with_if(x, a):
    if a > 0:
        return x + 10
    return x - 10


def calls_helper(x, a):
    y = helper_with_if(x, a)
    return helper_with_if(y, -a)


def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)


def defaults_and_varargs(x, *rest, scale=2, **kw):
    if rest:
        x = x + sum(rest)
    if kw.get("neg"):
        x = -x
    return x * scale


def assigned_in_one_branch(x, a):
    if a > 0:
        y = x + 1
    return y


def tries_and_withs(x, a):
    try:
        if a > 0:
            x = x + 1
        else:
            raise ValueError("negative")
    except ValueError:
        x = x - 1
    return x


def return_inside_try(x, a):
    try:
        if a > 0:
            return x + 1
    finally:
        x = x * 0
    return x


def with_comprehension(x, n):
    vals = [i * 2 for i in range(n) if i % 2 == 0 and i > 0]
    return x + sum(vals), [v for v in vals if not v > 4]


def walrus(x, vals):
    if (n := len(vals)) > 2 and n < 5:
        x = x * n
    return x


def raises_inside(x, a):
    if a > 0:
        x = x + 1
        raise RuntimeError("boom")
    return x


class Net(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = oar.nn.Linear(3, 2)
        self.__scale = 2.0

    def forward(self, x, flag=True):
        y = self.fc(x)
        if flag:
            y = y * self.__scale
        else:
            y = y - 1
        return y


class SubNet(Net):
    def forward(self, x, flag=True):
        if flag:
            out = super().forward(x, flag)       # zero-argument super() inside a branch
        else:
            out = super().forward(x, False)
        if out.sum() > 1e9:
            out = out * 0
        return out


class Outer(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.inner = Net()

    def forward(self, x):
        if x.mean() > 100:
            x = x * 0
        return self.inner(x, False)


# ---- Python values and eager tensors: converted == original --------------------------------------
@pytest.mark.parametrize("x", [2.0, t([1.0, -2.0, 3.0])])
def test_branches(x):
    check(nested_if, (x, 1, 1), (x, 1, -1), (x, -1, 1))
    check(elif_chain, *[(x, n) for n in range(5)])
    check(ternary, (x, 1), (x, 0), (x, -1))


@pytest.mark.parametrize("x", [2.0, t([1.0, 2.0])])
def test_loops(x):
    check(while_break_continue, *[(x, n) for n in (0, 1, 3, 6, 12)])
    check(for_range_break, *[(x, n) for n in (1, 3, 9)])
    check(for_else, (x, 1), (x, 5))
    check(while_else, (x, 0), (x, 3))
    check(for_over_list, (x,))


@pytest.mark.parametrize("x", [2.0, t([1.0, 2.0])])
def test_returns(x):
    check(early_return, (x, 1), (x, 0), (x, -9))
    check(nested_early_return, (x, 1, 1), (x, 1, -1), (x, -1, 0))
    check(implicit_none, (x, 1), (x, -1))
    check(return_in_loop, (x, 0), (x, 5), (x, 40), (x, 1000))


def test_tensor_predicates_eager():
    # eager tensors as predicates: bool(tensor), exactly as the original
    check(nested_if, (t([1.0]), t(2.0), t(-1.0)), (t([1.0]), t(-2.0), t(1.0)))
    check(early_return, (t([3.0]), t(1.0)), (t([3.0]), t(-7.0)))
    check(logical, (t(1.0), t(0.0), t(2.0)), (t(0.0), t(3.0), t(0.0)))


def test_logical_ops_keep_python_semantics():
    conv = check(logical, *[(a, b, c) for a in (0, 1, [], "s") for b in (0, 2) for c in (None, 5)])
    assert conv(0, 2, 5) == (0, 2, True, 5)
    assert check(short_circuit, (0,), (1,), ("",))(1) == (2, [1, 2])


def test_closure_nonlocal_and_global_stay_live():
    inner = make_closure(5)
    conv = convert_function(inner)
    assert_same(conv(2.0, 1), (10.0, 1))
    assert_same(inner(2.0, 1), (10.0, 2))        # one shared `count` cell
    assert_same(conv(2.0, -1), (2.0, 2))
    global GLOBAL_SCALE
    GLOBAL_SCALE = 3
    assert convert_function(uses_global)(1.0, 1) == 4.0
    assert GLOBAL_SCALE == 4 and uses_global(1.0, 1) == 5.0
    assert convert_function(uses_global)(1.0, -1) == 1.0


def test_calls_are_converted_recursively():
    check(calls_helper, (1.0, 1), (1.0, -1))
    check(factorial, (0,), (1,), (6,))
    assert "convert_call(helper_with_if)" in converted_source(calls_helper)
    # a called user function gets its own converted twin, reachable from the cache
    from oar.jit.dy2static.runtime_call import convert_call
    assert convert_call(helper_with_if) is convert_function(helper_with_if)
    assert convert_call(np.sum) is np.sum and convert_call(len) is len
    assert convert_call(oar.matmul) is oar.matmul

    @not_to_static
    def opaque(v):
        return v
    assert convert_call(opaque) is opaque


def except_as_in_branch(x, a):
    if a > 0:
        try:
            raise ValueError("no")
        except ValueError as err:
            x = x + len(str(err))
    for _ in range(2):
        try:
            x = x * 2
        except ZeroDivisionError as err2:
            x = err2
    return x


def annotated(x: float, *, k: int = 2) -> float:
    if x > 0:
        x = x * k
    return x


def test_misc_python_constructs():
    check(except_as_in_branch, (1.0, 1), (1.0, -1))
    check(annotated, (1.0,), (-1.0,))
    assert convert_function(annotated).__annotations__ == annotated.__annotations__
    assert convert_function(annotated)(2.0, k=5) == 10.0
    check(defaults_and_varargs, (1.0,), (1.0, 2, 3), (1.0,), (1.0, 4))
    conv = convert_function(defaults_and_varargs)
    assert conv(1.0, 2, scale=3, neg=True) == defaults_and_varargs(1.0, 2, scale=3, neg=True)
    check(tries_and_withs, (1.0, 1), (1.0, -1))
    check(return_inside_try, (1.0, 1), (1.0, -1))
    check(with_comprehension, (1.0, 6), (1.0, 0))
    check(walrus, (1.0, [1, 2, 3]), (1.0, [1]))
    assert convert_function(convert_function(nested_if)) is convert_function(nested_if)


def test_converted_function_metadata_and_cache():
    conv = convert_function(nested_if)
    assert conv is convert_function(nested_if)
    assert conv.__name__ == "nested_if" and conv.__wrapped__ is nested_if
    assert conv.__module__ == nested_if.__module__
    assert inspect.signature(conv) == inspect.signature(nested_if)


def test_undefined_variable_matches_unbound_local():
    conv = convert_function(assigned_in_one_branch)
    assert conv(1.0, 1) == 2.0
    with pytest.raises(UnboundLocalError):
        assigned_in_one_branch(1.0, -1)
    y = conv(1.0, -1)                      # Paddle returns its UndefinedVar here too
    assert isinstance(y, UndefinedVar)
    with pytest.raises(UnboundLocalError, match="'y'"):
        y + 1


def test_traceback_points_at_user_line():
    conv = convert_function(raises_inside)
    with pytest.raises(RuntimeError, match="boom") as info:
        conv(1.0, 1)
    frames = [(f.filename, f.lineno, f.name) for f in traceback.extract_tb(info.tb)]
    assert (__file__, line_of(raises_inside, 'raise RuntimeError("boom")'),
            "_oar_if_true_0") in frames
    assert (__file__, line_of(raises_inside, "if a > 0"), "raises_inside") in frames


def test_layer_methods():
    oar.seed(0)
    net = Net()
    x = t(np.arange(6).reshape(2, 3))
    conv = convert_function(net.forward)
    assert_same(net.forward(x), conv(x))
    assert_same(net.forward(x, False), conv(x, False))
    assert "_Net__scale" in converted_source(Net.forward)        # private names mangled
    sub = SubNet()
    assert_same(sub(x), convert_function(sub.forward)(x))      # zero-argument super()
    assert_same(sub(x, False), convert_function(sub.forward)(x, False))
    outer = Outer()
    seen = []
    outer.inner.register_forward_post_hook(lambda layer, inp, out: seen.append(1))
    call = oar.jit.dy2static.convert_layer_call(outer)
    assert_same(outer(x), call(x))
    assert seen == [1, 1]                                      # hooks of called layers run


def test_generator_rejected():
    def gen(x):
        if x > 0:
            yield x
    with pytest.raises(Dy2StaticError) as info:
        convert_function(gen)
    assert isinstance(info.value, NotImplementedError)
    assert f"{__file__}:{line_of(gen, 'yield x')}" in str(info.value)
    assert "instead of yielding" in str(info.value)


def test_rejects_non_functions():
    with pytest.raises(TypeError, match="Python function"):
        convert_function(len)


# ---- the static path (every tensor symbolic, cond/while_loop modelled eagerly) -----------------
def test_symbolic_if_builds_cond(symbolic_eager):
    x = t([1.0, -2.0])
    for a, b in [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0)]:
        assert_same(nested_if(x, a, b), convert_function(nested_if)(x, t(a), t(b)))
    assert symbolic_eager.cond == 3 * 2
    for n in range(5):
        assert_same(elif_chain(x, n), convert_function(elif_chain)(x, t(float(n))))


def test_symbolic_early_return(symbolic_eager):
    x = t([3.0])
    for a in (1.0, 0.0, -9.0):
        assert_same(early_return(x, a), convert_function(early_return)(x, t(a)))
    for a, b in [(1.0, 1.0), (1.0, -1.0), (-1.0, 0.0)]:
        assert_same(nested_early_return(x, a, b),
                    convert_function(nested_early_return)(x, t(a), t(b)))
    assert symbolic_eager.cond > 0


def test_symbolic_while_with_break_and_continue(symbolic_eager):
    def loop(x, n):
        i = 0.0
        total = x * 0
        while i < n:
            i += 1
            if i % 2 == 0:
                continue
            if i > 7:
                break
            total = total + x * i
        return total, i
    x = t([1.0, 2.0])
    for n in (0.0, 3.0, 12.0):
        total, i = convert_function(loop)(x, t(n))
        ref_total, ref_i = loop(x, n)
        assert_same(ref_total, total)
        assert float(i) == ref_i
    assert symbolic_eager.while_loop == 3


def test_symbolic_for_over_tensor_range_and_rows(symbolic_eager):
    def over_range(x, n):
        acc = x
        for i in range(n):
            acc = acc * 2 + 1
        return acc

    def over_rows(m):
        s = m[0] * 0
        for row in m:
            s = s + row
        return s
    assert_same(over_range(t([1.0]), 4),
                convert_function(over_range)(t([1.0]), oar.to_tensor(4)))
    m = t(np.arange(6).reshape(3, 2))
    assert_same(over_rows(m), convert_function(over_rows)(m))
    assert symbolic_eager.while_loop == 2


def test_symbolic_logical_and_ternary(symbolic_eager):
    def f(x):
        ok = x.sum() > 0 and x.max() < 10
        y = x * 2 if not ok else x - 1
        return y
    for v in ([1.0, 2.0], [-5.0, 1.0], [20.0, 1.0]):
        assert_same(f(t(v)), convert_function(f)(t(v)))


def test_symbolic_one_sided_variable_is_undefined_after(symbolic_eager):
    conv = convert_function(assigned_in_one_branch)
    y = conv(t([1.0]), t(1.0))
    assert isinstance(y, UndefinedVar)
    line = line_of(assigned_in_one_branch, "if a > 0")
    with pytest.raises(UnboundLocalError, match=f"only one branch .*{__file__}:{line}"):
        y * 2


def test_python_if_stays_python(symbolic_eager):
    conv = convert_function(nested_if)
    assert_same(nested_if(t([1.0]), 1, -1), conv(t([1.0]), 1, -1))
    assert symbolic_eager.cond == 0


# ---- unsupported constructs under a tensor condition -------------------------------------------
def return_in_tensor_while(x):
    while x.sum() < 10:
        x = x + 1
        if x.sum() > 5:
            return x * 0
    return x


def python_loop_tensor_break(x):
    for i in range(10):
        x = x + 1
        if x.sum() > 5:
            break
    return x


def list_loop_tensor_break(x):
    for v in [1.0, 2.0, 3.0]:
        x = x + v
        if x.sum() > 5:
            break
    return x


class Holder:
    pass


HOLDER = Holder()


def mutates_outside(x):
    if x.sum() > 0:
        HOLDER.value = x
    else:
        HOLDER.value = x - 1
    return x


def deletes_in_branch(x, y):
    if x.sum() > 0:
        del y
    return x


def asserts_on_tensor(x):
    assert x.sum() > 0, "positive"
    return x


def grows_list_in_loop(x):
    outs = []
    while x.sum() < 5:
        x = x + 1
        outs = outs + [x]
    return outs


@pytest.mark.parametrize("fn, marker, expected", [
    (return_in_tensor_while, "while x.sum() < 10", "`return` inside a `while` loop"),
    (python_loop_tensor_break, "for i in range(10)", "breaks on a tensor condition"),
    (list_loop_tensor_break, "for v in [1.0, 2.0, 3.0]", "over a Python list breaks"),
    (mutates_outside, "HOLDER.value = x\n", "`HOLDER.value = ...` changes an object"),
    (deletes_in_branch, "if x.sum() > 0", "`del` of a variable"),
    (grows_list_in_loop, "while x.sum() < 5", "variable 'outs' is a Python list"),
    (asserts_on_tensor, "assert x.sum() > 0", "no assertion op"),
])
def test_unsupported_constructs_name_the_line(symbolic_eager, fn, marker, expected):
    args = (t([1.0]),) if fn is not deletes_in_branch else (t([1.0]), 1)
    with pytest.raises(Dy2StaticError) as info:
        convert_function(fn)(*args)
    err = info.value
    assert isinstance(err, NotImplementedError)
    assert expected in str(err)
    assert f"{__file__}:{line_of(fn, marker.rstrip())}" in str(err)
    assert err.fix and err.fix in str(err)                    # says what to change


def test_unsupported_constructs_run_eagerly():
    # the same functions are fine when nothing is symbolic
    for fn in (return_in_tensor_while, python_loop_tensor_break, list_loop_tensor_break,
               mutates_outside, grows_list_in_loop, asserts_on_tensor):
        check(fn, (t([1.0]),))
    check(deletes_in_branch, (t([1.0]), 1))


def test_python_while_becoming_tensor_is_an_error(symbolic_eager):
    def f(x):
        flag = True
        while flag:
            x = x + 1
            flag = x.sum() < 10
        return x
    with pytest.raises(Dy2StaticError, match="became a tensor inside the loop") as info:
        convert_function(f)(t([1.0]))
    assert f":{line_of(f, 'while flag')}:" in str(info.value)


# ---- more control-flow shapes -----------------------------------------------------------------
def nested_loops(x, n):
    hits = 0
    for i in range(n):
        if i == 1:
            continue
        j = 0
        while True:
            j += 1
            if j > i:
                break
            if (i + j) % 3 == 0:
                continue
            hits += 1
            x = x + j
        if hits > 6:
            break
    return x, hits


def uses_nested_def(x, a):
    scale = 2

    def helper(v):
        if v > 0:
            return v * scale
        return -v
    if a > 0:
        scale = 5
    return helper(a) + x, (lambda v: v + scale)(1)


def numbers():
    yield 1
    yield 2


def calls_generator(x):
    total = 0
    for v in numbers():
        total += v
    return x + total


def test_more_shapes():
    for x in (1.0, t([1.0, 2.0])):
        check(nested_loops, *[(x, n) for n in (0, 1, 3, 6, 10)])
        check(uses_nested_def, (x, 3), (x, -3))
        check(calls_generator, (x,))


def test_undefined_attribute_probe():
    y = UndefinedVar("y")
    assert not hasattr(y, "dtype")
    with pytest.raises(UnboundLocalError):
        bool(y)


def test_symbolic_python_range_with_tensor_if_unrolls(symbolic_eager):
    def f(x):
        for i in range(3):
            if x.sum() > i:
                x = x - 1
        return x
    assert_same(f(t([2.0])), convert_function(f)(t([2.0])))
    assert symbolic_eager.cond == 3 and symbolic_eager.while_loop == 0


def test_symbolic_while_scalars_and_temporaries(symbolic_eager):
    def f(x):
        i = 0
        while x.sum() < 10:
            tmp = x * 2
            x = tmp + 1
            i = i + 1
            reset = 0
        return x, i, tmp

    x, i, tmp = convert_function(f)(t([1.0]))
    ref_x, ref_i, _ = f(t([1.0]))
    assert_same(ref_x, x)
    assert i.dtype == oar.int64 and int(i) == ref_i == 3     # the Python counter became a tensor
    assert isinstance(tmp, UndefinedVar)
    with pytest.raises(UnboundLocalError, match="first assigned inside the tensor-dependent"):
        tmp + 1


def test_library_functions_convert_and_agree():
    """The transformer on real code: every def of oar.nn and oar.tensor compiles converted, and
    converted functional ops give the same results as the originals."""
    import importlib
    import pkgutil
    count = 0
    for pkg in (oar.nn, oar.tensor):
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            mod = importlib.import_module(info.name)
            for obj in list(vars(mod).values()):
                if isinstance(obj, types.FunctionType) and obj.__module__ == mod.__name__ \
                        and obj.__name__ != "<lambda>" and not inspect.isgeneratorfunction(obj):
                    convert_function(obj)
                    count += 1
    assert count > 400
    F = oar.nn.functional
    x = t(np.linspace(-2, 2, 24).reshape(2, 3, 4))
    label = oar.to_tensor(np.array([[1, 0, 2, 1], [2, 2, 0, 1]], dtype="int64"))
    for fn, args, kwargs in [
        (F.smooth_l1_loss, (x, x * 0.5), {"reduction": "sum"}),
        (F.cosine_similarity, (x, x.flip([2])), {"axis": 2}),
        (F.avg_pool2d, (x.reshape([1, 2, 3, 4]), 2), {"ceil_mode": True}),
        (F.cross_entropy, (x.transpose([0, 2, 1]), label), {}),
        (F.interpolate, (x.reshape([1, 2, 3, 4]),), {"scale_factor": 2, "mode": "bilinear"}),
        (F.pad, (x.reshape([1, 2, 3, 4]), [1, 1, 2, 0]), {"mode": "reflect"}),
        (F.normalize, (x,), {"axis": -1}),
        (F.dropout, (x,), {"p": 0.5, "training": False}),
    ]:
        assert_same(fn(*args, **kwargs), convert_function(fn)(*args, **kwargs))


def test_symbolic_non_bool_predicates_and_python_scalars(symbolic_eager):
    def f(x):
        n = 0
        flag = False
        if x.sum():                       # a float predicate: cast to bool, as Paddle
            n = 1
            flag = True
        label = 10 if x.max() > 2 else 20
        return x * 2, n, flag, label
    for v in ([1.0, 2.0], [0.0, 0.0], [3.0, 1.0]):
        ref = f(t(v))
        got = convert_function(f)(t(v))
        assert_same(ref[0], got[0])
        assert [int(g) for g in got[1:]] == [int(r) for r in ref[1:]]


def test_ignore_module_and_to_static_functions():
    from oar.jit.dy2static.runtime_call import convert_call
    module = types.ModuleType("user_helpers_for_dy2static_test")
    module.helper = types.FunctionType(helper_with_if.__code__, globals(), "helper_with_if")
    module.helper.__module__ = module.__name__
    assert convert_call(module.helper) is not module.helper       # user code: converted
    other = types.FunctionType(helper_with_if.__code__, globals(), "helper_with_if")
    other.__module__ = module.__name__ + ".sub"
    ignore_module([module])
    assert convert_call(other) is other                            # ignored, with submodules

    class FakeStaticFunction:              # what oar.jit.to_static returns for a function
        dygraph_function = staticmethod(helper_with_if)
        _layer = None
    assert convert_call(FakeStaticFunction()) is convert_function(helper_with_if)


def test_static_errors_get_a_note_with_the_site(symbolic_eager):
    def f(x):
        if x.sum() > 0:
            y = x
        else:
            y = "not a tensor"
        return y
    with pytest.raises(ValueError) as info:
        convert_function(f)(t([1.0]))
    note = "\n".join(getattr(info.value, "__notes__", []))
    assert f"`if` at {__file__}:{line_of(f, 'if x.sum() > 0')}" in note
    assert "yield, in order: y" in note
