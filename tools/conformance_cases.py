"""Generated cases for tools/conformance.py, by family of op: the argument shapes (with
broadcasting), dtypes and keyword arguments each name is run with, in Paddle and in oar.

A name with no family here is still counted as present or missing; it just runs no cases yet.
KNOWN_DIFFERENCES holds every accepted difference from Paddle with its reason.
"""
import numpy as np

# "namespace.name" -> why oar differs (Paddle bugs count as reasons).
_MATMUL_BWD = ("Paddle 3.3's matmul backward raises InvalidArgument ('Input dimension size should be "
               "equal to 2') when x has a size-1 batch dim broadcast against y's batch, e.g. "
               "[2,1,3,4] @ [5,4,2]; the forward agrees and oar's gradient is checked numerically")
_F32_ATTR = ("Paddle stores float attributes in float32 (alpha=0.7 becomes 0.699999988), so its "
             "float64 results differ from the exact value by ~1e-8 relative; oar keeps the double")
_CUMSUM_FLAT = ("Paddle's cumsum_ with axis=None flattens x in place (x's shape becomes [numel]); oar's "
                "in-place ops keep x's shape, so it raises a ValueError naming both shapes (pass an axis)")
_DIAG_EMBED = ("Paddle 3.3's diag_embed records no gradient (paddle.grad returns None for its "
               "input); oar's gradient is checked against central differences in tests/python/test_scatter.py")
_MATRIX_EXP = ("Paddle 3.3's matrix_exp backward raises PermissionDenied ('used in gradient computation "
               "has been modified by an inplace operation') for a batch of matrices; the forward agrees")
KNOWN_DIFFERENCES = {
    "paddle.linalg.matrix_exp": _MATRIX_EXP,
    "paddle.diag_embed": _DIAG_EMBED,
    "paddle.Tensor.diag_embed": _DIAG_EMBED,
    "paddle.cumsum_": _CUMSUM_FLAT,
    "paddle.Tensor.cumsum_": _CUMSUM_FLAT,
    "paddle.matmul": _MATMUL_BWD,
    "paddle.Tensor.matmul": _MATMUL_BWD,
    "paddle.nn.functional.elu": _F32_ATTR,
    "paddle.nn.functional.hardsigmoid": _F32_ATTR,
    "paddle.linalg.vector_norm": _F32_ATTR + " (here 1/p for p=3)",
}


# Half-precision runs: float arrays are cast to the half dtype in each framework (NumPy has no
# bfloat16); results are compared at the half type's precision (a few units of its last place,
# after both frameworks round their float32 compute).
HALF_DTYPES = ("float16", "bfloat16")
HALF_TOL = {"float16": 1e-2, "bfloat16": 5e-2}


class Case:
    def __init__(self, args, kwargs=None, grad=True, diff_args=None, tol=None, half=None):
        self.args, self.kwargs, self.grad = list(args), dict(kwargs or {}), grad
        self._diff = diff_args  # indices of differentiable args (default: every float array)
        self._tol = tol
        self.half = half  # "float16"/"bfloat16": float arrays run in that dtype

    def as_half(self, dtype):
        """This case with its float arrays run in dtype (float16 or bfloat16)."""
        return Case(self.args, self.kwargs, self.grad, self._diff, None, dtype)

    def differentiable(self, i):
        a = self.args[i]
        if not isinstance(a, np.ndarray) or a.dtype.kind not in "fc":
            return False
        return self._diff is None or i in self._diff

    def tolerance(self):
        if self.half:
            return HALF_TOL[self.half]
        if self._tol is not None:
            return self._tol
        kinds = [a.dtype for a in self.args if isinstance(a, np.ndarray)]
        return 1e-9 if kinds and all(k == np.float64 for k in kinds) else 2e-5

    def __str__(self):
        shapes = ",".join(f"{a.dtype}{list(a.shape)}" if isinstance(a, np.ndarray) else repr(a)
                          for a in self.args)
        kw = "".join(f", {k}={v!r}" for k, v in self.kwargs.items() if not isinstance(v, np.ndarray))
        if self.half:
            shapes = shapes.replace("float32", self.half).replace("float64", self.half)
        return f"({shapes}{kw})"


_rng = np.random.default_rng(2024)


def arr(shape, dtype="float64", low=-2.0, high=2.0):
    if np.dtype(dtype).kind in "iu":
        return _rng.integers(int(low), int(high) + 1, size=shape).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return _rng.random(shape) > 0.5
    return _rng.uniform(low, high, size=shape).astype(dtype)


FLOATS = ("float32", "float64")
SHAPES = [(), (5,), (2, 3, 4)]
PAIRS = [((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((2, 1, 4), (3, 1)), ((), (2, 3))]

# Unary math on floats, with the input domain.
UNARY_FLOAT = {
    "exp": (-3, 3), "expm1": (-3, 3), "log": (0.1, 4), "log2": (0.1, 4), "log10": (0.1, 4),
    "log1p": (-0.5, 3), "sqrt": (0.1, 4), "rsqrt": (0.1, 4), "sin": (-3, 3), "cos": (-3, 3),
    "tan": (-1.2, 1.2), "asin": (-0.9, 0.9), "acos": (-0.9, 0.9), "atan": (-3, 3),
    "sinh": (-3, 3), "cosh": (-3, 3), "tanh": (-3, 3), "erf": (-2, 2), "reciprocal": (0.5, 3),
    "square": (-3, 3), "sigmoid": (-4, 4), "floor": (-3, 3), "ceil": (-3, 3), "round": (-3, 3),
    "trunc": (-3, 3), "abs": (0.1, 3), "neg": (-3, 3), "sign": (-3, 3),
}
NONDIFF = {"floor", "ceil", "round", "trunc", "sign"}
# Unary and binary ops both frameworks run on complex64 (outputs and gradients compared).
BINARY_COMPLEX = {"add", "subtract", "multiply", "divide"}
UNARY_COMPLEX = {"exp", "log", "sqrt", "sin", "cos", "tanh", "square", "reciprocal", "abs", "neg", "expm1", "log2",
                 "log10", "log1p", "tan", "asin", "acos", "atan", "sinh", "cosh", "sigmoid", "sign", "round"}
UNARY_INT_TOO = {"abs", "neg", "sign", "square", "floor", "ceil", "round", "trunc"}

BINARY = {"add": (-2, 2), "subtract": (-2, 2), "multiply": (-2, 2), "divide": (0.5, 2),
          "maximum": (-2, 2), "minimum": (-2, 2), "atan2": (0.2, 2), "floor_divide": (0.5, 4),
          "remainder": (0.5, 4), "fmax": (-2, 2), "fmin": (-2, 2)}
BINARY_INT = {"add", "subtract", "multiply", "maximum", "minimum", "floor_divide", "remainder"}
BINARY_NONDIFF = {"floor_divide", "remainder"}
COMPARE = ["equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal"]
LOGICAL = ["logical_and", "logical_or", "logical_xor"]
BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor"]

REDUCE = {"sum": True, "mean": True, "prod": True, "max": True, "min": True, "amax": True,
          "amin": True, "logsumexp": True, "all": False, "any": False}
ACTIVATIONS = {"relu": {}, "relu6": {}, "silu": {}, "sigmoid": {}, "tanh": {}, "hardswish": {},
               "hardsigmoid": {}, "softplus": {"beta": 2.0, "threshold": 3.0},
               "leaky_relu": {"negative_slope": 0.1}, "elu": {"alpha": 0.7}, "gelu": {"approximate": True},
               "softmax": {"axis": 0}, "log_softmax": {"axis": -1}}


def carr(shape, dtype="complex64", rng=None):
    """Complex values with random real and imaginary parts in (-2, 2), away from 0."""
    rng = rng or _rng
    re = rng.uniform(0.2, 2.0, size=shape) * rng.choice([-1, 1], size=shape)
    return (re + 1j * rng.uniform(-2.0, 2.0, size=shape)).astype(dtype)


def own_stream(seed):
    """arr and carr drawing from their own generator: cases added later use one so that the
    inputs of every other name (drawn from the shared stream in order) stay as they were."""
    rng = np.random.default_rng(seed)

    def a(shape, dtype="float64", low=-2.0, high=2.0):
        if np.dtype(dtype).kind in "iu":
            return rng.integers(int(low), int(high) + 1, size=shape).astype(dtype)
        return rng.uniform(low, high, size=shape).astype(dtype)
    return a, (lambda shape, dtype="complex64": carr(shape, dtype, rng))


def _unary(name, low, high):
    out = [Case([arr(s, dt, low, high)], grad=name not in NONDIFF) for dt in FLOATS for s in SHAPES]
    if name in UNARY_COMPLEX:
        out.append(Case([carr((2, 3))], grad=name not in NONDIFF))
    if name in UNARY_INT_TOO:
        out.append(Case([arr((3, 4), "int64", -5, 5)], grad=False))
    if name == "round":  # halves go to even; decimals scale first
        ra, rc = own_stream(31)
        halves = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 3.5, 1234.5, -25.0])
        out += [Case([halves.astype(dt)], kw, grad=False) for dt in FLOATS
                for kw in ({}, {"decimals": 1}, {"decimals": -1})]
        out += [Case([ra((3, 4), dt, -30, 30)], {"decimals": d}, grad=False) for dt in FLOATS for d in (2, -1)]
        out += [Case([ra((2, 3), "int64", -30, 30)], {"decimals": -1}, grad=False),
                Case([(rc((2, 3)) * 10).astype("complex64")], {"decimals": 1}, grad=False),
                Case([np.array([0.5 + 2.5j, -1.5 - 0.5j], "complex64")], grad=False)]
    return out


def _binary(name, low, high):
    out = [Case([arr(a, dt, low, high), arr(b, dt, low, high)], grad=name not in BINARY_NONDIFF)
           for dt in FLOATS for a, b in PAIRS]
    if name in BINARY_COMPLEX:
        out += [Case([carr(a), carr(b)]) for a, b in PAIRS[:3]]
    if name in BINARY_INT:
        lo = 1 if name in ("floor_divide", "remainder") else -5
        out += [Case([arr(a, dt, lo, 6), arr(b, dt, lo, 6)], grad=False)
                for dt in ("int32", "int64") for a, b in PAIRS[:2]]
    return out


def _reduce(name, float_input):
    dts = FLOATS if float_input else ("bool",)
    out = []
    for dt in dts:
        x = arr((2, 3, 4), dt)
        for axis in (None, 0, -1, [0, 2]):
            for keepdim in (False, True):
                out.append(Case([x], {"axis": axis, "keepdim": keepdim}, grad=float_input))
    return out


# Alias and convenience functions (python/oar/tensor/: math, manipulation, logic, attribute,
# linalg, creation): explicit cases per name.
def _compat_cases(name):
    f, i = FLOATS, ("int32", "int64")
    x3 = lambda dt: arr((2, 3, 4), dt)
    table = {
        "cat": [Case([[arr((2, 3), dt), arr((1, 3), dt)]], {"axis": 0}) for dt in f],
        "concatenate": [Case([[arr((2, 3), dt), arr((2, 2), dt)]], {"axis": 1}) for dt in f],
        "clamp": [Case([arr((3, 4), dt)], kw) for dt in f for kw in ({"min": -0.5}, {"max": 0.3}, {"min": -1, "max": 1})],
        "div": [Case([arr((3, 4), dt, 0.5, 3), arr((4,), dt, 0.5, 3)], kw, grad=not kw) for dt in f
                for kw in ({}, {"rounding_mode": "trunc"}, {"rounding_mode": "floor"})]
               + [Case([arr((6,), dt, -9, 9), arr((6,), dt, 1, 4)], kw, grad=False) for dt in i
                  for kw in ({"rounding_mode": "trunc"}, {"rounding_mode": "floor"})],
        "true_divide": [Case([arr((3, 4), dt, 0.5, 2), arr((3, 4), dt, 0.5, 2)]) for dt in f],
        "mul": [Case([arr((3, 4), dt), arr((4,), dt)]) for dt in f],
        "sub": [Case([arr((3, 4), dt), arr((4,), dt)]) for dt in f],
        "floor_mod": [Case([arr((3, 4), dt, 1, 5), arr((3, 4), dt, 1, 5)], grad=False) for dt in f + i],
        "mod": [Case([arr((3, 4), dt, -5, 5), arr((3, 4), dt, 1, 5)], grad=False) for dt in i],
        "eq": [Case([arr((3, 4), "int64", 0, 2), arr((4,), "int64", 0, 2)], grad=False)],
        "ne": [Case([arr((3, 4), "int64", 0, 2), arr((4,), "int64", 0, 2)], grad=False)],
        "gt": [Case([arr((3, 4)), arr((4,))], grad=False)], "ge": [Case([arr((3, 4)), arr((4,))], grad=False)],
        "lt": [Case([arr((3, 4)), arr((4,))], grad=False)], "le": [Case([arr((3, 4)), arr((4,))], grad=False)],
        "greater": [Case([arr((3, 4)), arr((4,))], grad=False)], "less": [Case([arr((3, 4)), arr((4,))], grad=False)],
        "negative": [Case([x3(dt)]) for dt in f], "positive": [Case([x3(dt)]) for dt in f],
        "sgn": [Case([x3(dt)], grad=False) for dt in f],
        "signbit": [Case([np.array([-1.0, -0.0, 0.0, 2.0], dt)], grad=False) for dt in f],
        "frac": [Case([x3(dt)]) for dt in f],
        "deg2rad": [Case([x3(dt)]) for dt in f] + [Case([arr((4,), "int64", -180, 180)], grad=False)],
        "rad2deg": [Case([x3(dt)]) for dt in f],
        "logit": [Case([arr((5,), dt, 0.05, 0.95)], kw) for dt in f for kw in ({}, {"eps": 0.2})],
        "logaddexp": [Case([arr((3, 4), dt), arr((4,), dt)]) for dt in f],
        "hypot": [Case([arr((3, 4), dt, 0.5, 2), arr((4,), dt, 0.5, 2)]) for dt in f],
        "sinc": [Case([np.array([0.0, 0.3, -1.7, 2.0], dt)]) for dt in f],
        "nansum": [Case([np.array([[1.0, np.nan, 2.0], [3.0, 4.0, np.nan]], dt)], kw, grad=False)
                   for dt in f for kw in ({}, {"axis": 1}, {"axis": 0, "keepdim": True})],
        "nanmean": [Case([np.array([[1.0, np.nan, 2.0], [3.0, 4.0, np.nan]], dt)], kw, grad=False)
                    for dt in f for kw in ({}, {"axis": 1})],
        "count_nonzero": [Case([np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]], dt)], kw, grad=False)
                          for dt in f for kw in ({}, {"axis": 1}, {"axis": 0, "keepdim": True})],
        "isin": [Case([arr((3, 4), "int64", 0, 5), arr((3,), "int64", 0, 5)], kw, grad=False)
                 for kw in ({}, {"invert": True})],
        "permute": [Case([x3(dt)], {"dims": [2, 0, 1]}) for dt in f],
        "swapaxes": [Case([x3(dt), 0, 2]) for dt in f], "swapdims": [Case([x3(dt), 1, -1]) for dt in f],
        "moveaxis": [Case([x3(dt), [0, 1], [2, 0]]) for dt in f] + [Case([x3("float32"), -1, 0])],
        "matrix_transpose": [Case([x3(dt)]) for dt in f],
        "ravel": [Case([x3(dt)]) for dt in f],
        "narrow": [Case([x3(dt), 1, 1, 2]) for dt in f] + [Case([x3("float32"), -1, -3, 2])],
        "view": [Case([x3(dt), [4, 6]]) for dt in f],
        "view_as": [Case([x3(dt), arr((6, 4), dt)], diff_args=[0]) for dt in f],
        "unflatten": [Case([x3(dt), 2, [2, 2]]) for dt in f],
        "unstack": [Case([x3(dt)], {"axis": ax}) for dt in f for ax in (0, -1)],
        "reverse": [Case([x3(dt), [0, 2]]) for dt in f],
        "atleast_1d": [Case([np.array(2.0, dt)]) for dt in f], "atleast_2d": [Case([arr((3,), dt)]) for dt in f],
        "atleast_3d": [Case([arr((2, 3), dt)]) for dt in f],
        "hstack": [Case([[arr((2, 3), dt), arr((2, 1), dt)]]) for dt in f],
        "vstack": [Case([[arr((3,), dt), arr((2, 3), dt)]]) for dt in f],
        "row_stack": [Case([[arr((3,), dt), arr((3,), dt)]]) for dt in f],
        "dstack": [Case([[arr((2, 3), dt), arr((2, 3), dt)]]) for dt in f],
        "column_stack": [Case([[arr((3,), dt), arr((3, 2), dt)]]) for dt in f],
        "tensor_split": [Case([arr((7, 2), dt), k]) for dt in f for k in (3, [2, 5], [-2])],
        "hsplit": [Case([arr((2, 6), dt), k]) for dt in f for k in (3, [1, 4])],
        "vsplit": [Case([arr((4, 3), dt), k]) for dt in f for k in (2, [1])],
        "dsplit": [Case([arr((2, 2, 4), dt), 2]) for dt in f],
        "broadcast_tensors": [Case([[arr((2, 1), dt), arr((3,), dt)]]) for dt in f],
        "meshgrid": [Case([arr((3,), dt), arr((2,), dt)]) for dt in f],
        "inner": [Case([arr((2, 3), dt), arr((4, 3), dt)]) for dt in f],
        "ger": [Case([arr((3,), dt), arr((4,), dt)]) for dt in f],
        "mv": [Case([arr((3, 4), dt), arr((4,), dt)]) for dt in f],
        "diagonal": [Case([x3(dt)], kw) for dt in f for kw in ({}, {"offset": 1, "axis1": 1, "axis2": 2},
                                                                  {"offset": -1, "axis1": 2, "axis2": 0})],
        "diag": [Case([arr((3,), dt)], kw) for dt in f for kw in ({}, {"offset": 1}, {"offset": -2, "padding_value": 5})]
                + [Case([arr((3, 4), dt)], kw) for dt in f for kw in ({}, {"offset": 2}, {"offset": -1})],
        "trace": [Case([arr((3, 4), dt)], kw) for dt in f for kw in ({}, {"offset": 1})],
        "diff": [Case([arr((5,), dt)], kw) for dt in f for kw in ({}, {"n": 2})]
                + [Case([arr((3, 4), dt)], {"axis": 0, "prepend": arr((1, 4), dt)}, diff_args=[0]) for dt in f],
        "is_complex": [Case([x3("float32")], grad=False)], "is_floating_point": [Case([x3("float32")], grad=False)],
        "is_integer": [Case([arr((2,), "int32", 0, 3)], grad=False)], "is_empty": [Case([x3("float32")], grad=False)],
        "rank": [Case([x3("float32")], grad=False)],
        "kron": [Case([arr((2, 3), dt), arr((3, 2), dt)]) for dt in f],
    }
    if name == "pow":
        pa, pc = own_stream(37)
        table["pow"] = ([Case([pa((3, 4), dt, 0.5, 2), pa((3, 4), dt, 0.5, 2)]) for dt in f]
                        + [Case([pa((2, 3, 4), dt, 0.5, 2), pa((4,), dt, -1, 2)]) for dt in f]
                        + [Case([pa((3, 4), dt, 0.5, 2), e]) for dt in f for e in (2, 2.5, -1, 0.5, 0)]
                        + [Case([pa((3, 4), dt, -3, 3), e], grad=False) for dt in i for e in (2, 3)]
                        + [Case([pc((2, 3)), pc((2, 3))]), Case([pc((2, 3)), pc((3,))])]
                        + [Case([pc((2, 3)), e]) for e in (2, 2.5, -1, 0.5)])
    return table.get(name, [])


def _function_cases(name):
    if name in UNARY_FLOAT:
        return _unary(name, *UNARY_FLOAT[name])
    if name in BINARY:
        return _binary(name, *BINARY[name])
    if name in COMPARE:
        return [Case([arr(a, dt, -2, 2), arr(b, dt, -2, 2)], grad=False)
                for dt in ("float32", "int64") for a, b in PAIRS]
    if name in LOGICAL:
        return [Case([arr(a, "bool"), arr(b, "bool")], grad=False) for a, b in PAIRS]
    if name in BITWISE:
        return [Case([arr(a, dt, -8, 8), arr(b, dt, -8, 8)], grad=False)
                for dt in ("int32", "int64") for a, b in PAIRS[:2]]
    if name in REDUCE:
        return _reduce(name, REDUCE[name])
    if name in ("argmax", "argmin"):
        return [Case([arr((3, 4, 5), dt)], {"axis": ax, "keepdim": kd}, grad=False)
                for dt in FLOATS for ax in (None, 1) for kd in (False, True)]
    if name in ("var", "std"):
        return [Case([arr((3, 4), dt)], {"axis": ax, "unbiased": ub, "keepdim": kd})
                for dt in FLOATS for ax in (None, 1) for ub in (True, False) for kd in (False, True)]
    if name in ("cumsum",):
        return [Case([arr((3, 4), dt)], {"axis": ax}) for dt in FLOATS for ax in (None, 0, -1)]
    if name == "matmul":
        return [Case([arr(a, dt), arr(b, dt)], kw) for dt in FLOATS
                for a, b, kw in [((3, 4), (4, 5), {}), ((2, 3, 4), (4,), {}), ((4,), (4,), {}),
                                 ((2, 1, 3, 4), (5, 4, 2), {}), ((4, 3), (5, 4), {"transpose_x": True, "transpose_y": True})]]
    if name in ("reshape",):
        return [Case([arr((2, 3, 4), dt)], {"shape": s}) for dt in FLOATS for s in ([6, -1], [0, 12], [24])]
    if name == "transpose":
        return [Case([arr((2, 3, 4), dt)], {"perm": [2, 0, 1]}) for dt in FLOATS]
    if name == "flatten":
        return [Case([arr((2, 3, 4), dt)], {"start_axis": s, "stop_axis": e}) for dt in FLOATS
                for s, e in ((0, -1), (1, 2))]
    if name in ("squeeze", "unsqueeze"):
        return [Case([arr((2, 1, 4), dt)], {"axis": ax}) for dt in FLOATS for ax in (1, [0, -1])
                if not (name == "squeeze" and ax == [0, -1])]
    if name in ("concat", "stack"):
        return [Case([[arr((2, 3), dt), arr((2, 3), dt)]], {"axis": ax}) for dt in FLOATS for ax in (0, -1)]
    if name in ("tril", "triu"):
        return [Case([arr((4, 5), dt)], {"diagonal": d}) for dt in FLOATS for d in (0, 1, -2)]
    if name == "clip":
        return [Case([arr((3, 4), dt)], {"min": -0.5, "max": 0.7}) for dt in FLOATS]
    if name in ("flip",):
        return [Case([arr((2, 3, 4), dt)], {"axis": [0, 2]}) for dt in FLOATS]
    if name in ("sort", "argsort"):
        return [Case([arr((3, 5, 4), dt)], {"axis": ax, "descending": d}, grad=name == "sort")
                for dt in FLOATS + ("int64",) for ax in (0, -1) for d in (False, True)]
    if name == "topk":
        # Distinct values: among equal ones Paddle's order comes from its heap selection (e.g.
        # topk([3,3,3,3,1], 2) gives indices [1, 3]), oar's is by index; both are valid top-k.
        ints = _rng.permutation(24).reshape(4, 6).astype("int64")
        return [Case([arr((4, 6), dt) if dt != "int64" else ints], {"k": 3, "axis": ax, "largest": lg},
                     grad=dt != "int64")
                for dt in FLOATS + ("int64",) for ax in (None, 0) for lg in (True, False)]
    if name == "kthvalue":
        return [Case([arr((4, 6), dt)], {"k": 2, "axis": ax, "keepdim": kd}) for dt in FLOATS
                for ax in (0, 1) for kd in (False, True)]
    if name == "msort":
        return [Case([arr((4, 3), dt)]) for dt in FLOATS]
    if name == "median":
        return [Case([arr((3, 4), dt)], kw, grad=False) for dt in FLOATS
                for kw in ({}, {"axis": 1}, {"axis": 0, "keepdim": True}, {"axis": 1, "mode": "min"},
                           {"mode": "min"}, {"mode": "min", "keepdim": True})]
    if name == "mode":
        ints = np.array([[1, 2, 2, 3, 3], [4, 4, 1, 1, 0], [5, 6, 7, 8, 9]])
        return [Case([ints.astype(dt)], {"axis": ax, "keepdim": kd}, grad=False)
                for dt in ("float32", "float64", "int64") for ax in (1, -1) for kd in (False, True)]
    if name == "argwhere":
        return [Case([arr((3, 4), "int64", -1, 1)], grad=False)]
    if name == "nonzero":
        return [Case([arr((3, 4), "int64", -1, 1)], kw, grad=False) for kw in ({}, {"as_tuple": True})]
    if name == "searchsorted":
        return [Case([np.sort(arr((6,), dt, -5, 5)), arr((2, 3), dt, -6, 6)], {"right": r}, grad=False)
                for dt in ("float64", "int64") for r in (False, True)]
    if name == "bucketize":
        return [Case([arr((2, 3), dt, -6, 6), np.sort(arr((6,), dt, -5, 5))], {"right": r}, grad=False)
                for dt in ("float64", "int64") for r in (False, True)]
    all3 = {"return_index": True, "return_inverse": True, "return_counts": True}
    rows = np.array([[1, 2, 3], [0, 5, 1], [1, 2, 3], [0, 1, 9], [0, 5, 1]])
    if name == "unique":
        return [Case([arr((12,), "int64", 0, 5)], all3, grad=False),
                Case([arr((3, 4), "float32", 0, 3).round()], grad=False)] + \
               [Case([rows.astype(dt)], dict(all3, axis=ax), grad=False)
                for dt in ("int64", "float32", "float64") for ax in (0, 1, -1)] + \
               [Case([arr((4, 3, 2), "int64", 0, 1)], dict(all3, axis=ax, dtype="int32"), grad=False)
                for ax in (0, 1, 2)]
    if name == "unique_consecutive":
        cons = np.array([[1, 2], [1, 2], [3, 4], [1, 2]])
        return [Case([np.array([1, 1, 2, 2, 3, 1, 1])], {"return_inverse": True, "return_counts": True},
                     grad=False)] + \
               [Case([cons.astype(dt)], {"return_inverse": True, "return_counts": True, "axis": ax},
                     grad=False) for dt in ("int64", "float32") for ax in (0, 1, -2)] + \
               [Case([arr((4, 3, 2), "int64", 0, 1)], {"return_counts": True, "axis": 1, "dtype": "int32"},
                     grad=False)]
    if name == "take_along_axis":
        return [Case([arr((3, 4), dt), np.array(ix), ax]) for dt in FLOATS
                for ix, ax in (([[0, 3], [1, 1], [2, 0]], 1), ([[1], [0], [2]], 1), ([[2, 0, 1, 1]], 0))]
    if name == "put_along_axis":
        return [Case([arr((3, 4), dt), np.array([[0, 3], [1, 2], [2, 0]]), arr((3, 2), dt), 1], kw)
                for dt in FLOATS for kw in ({}, {"reduce": "add"})]
    if name == "gather_nd":
        return [Case([arr((2, 3, 4), dt), np.array(ix)]) for dt in FLOATS
                for ix in ([[0, 1], [1, 2]], [[[1, 2, 3]], [[0, 0, 1]]])]
    if name == "scatter_nd_add":
        return [Case([arr((3, 4), dt), np.array([[1], [0], [1]]), arr((3, 4), dt)]) for dt in FLOATS]
    if name == "scatter_nd":
        return [Case([np.array([[0, 1], [2, 3], [0, 1]]), arr((3,), dt), [3, 4]]) for dt in FLOATS]
    if name == "scatter":
        return [Case([arr((4, 3), dt), np.array([3, 0, 3]), arr((3, 3), dt)], {"overwrite": ow}, grad=False)
                for dt in FLOATS for ow in (True, False)] + \
               [Case([arr((4, 3), dt), np.array([3, 0]), arr((2, 3), dt)], {"overwrite": ow})
                for dt in FLOATS for ow in (True, False)]
    if name == "index_sample":
        return [Case([arr((2, 3), dt), np.array([[2, 0], [1, 1]])]) for dt in FLOATS]
    if name == "take":
        return [Case([arr((2, 3), dt), np.array(ix)], {"mode": m}) for dt in FLOATS
                for ix, m in (([[5, -1], [0, 2]], "raise"), ([7, -8], "wrap"), ([7, -8], "clip"))]
    if name == "repeat_interleave":
        return [Case([arr((2, 3), dt), r], {"axis": ax}) for dt in FLOATS
                for r, ax in ((2, None), (2, 1), (np.array([1, 0, 3]), 1))]
    if name == "index_fill":
        return [Case([arr((3, 4), dt), np.array([0, 2]), 1, -1.0]) for dt in FLOATS]
    if name == "scatter_add":
        return [Case([arr((3, 4), dt), 1, np.array([[0, 1, 0, 3]]), arr((1, 4), dt)]) for dt in FLOATS]
    if name == "scatter_reduce":
        return [Case([arr((3, 4), dt), 1, np.array([[0, 1, 0, 3]]), arr((1, 4), dt), r], grad=False)
                for dt in FLOATS for r in ("sum", "prod", "amax", "amin", "mean")]
    if name == "select_scatter":
        return [Case([arr((3, 4), dt), arr((3,), dt), 1, -1]) for dt in FLOATS]
    if name == "diag_embed":
        return [Case([arr((2, 3), dt)], kw) for dt in FLOATS
                for kw in ({}, {"offset": 1}, {"offset": -2}, {"offset": 0, "dim1": 0, "dim2": 2})]
    if name == "where":
        return [Case([arr((3, 4), "bool"), arr((3, 4), dt), arr((4,), dt)]) for dt in FLOATS]
    return []


def _wc(shape, dt):
    """A well-conditioned batch of square matrices."""
    return (arr(shape, dt, 0, 1) + 2 * np.eye(shape[-1])).astype(dt)


def _spd(shape, dt):
    a = arr(shape, "float64", 0, 1)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dt)


def _linalg_cases(name):
    f = FLOATS
    table = {
        "inv": [Case([_wc((2, 3, 3), dt)]) for dt in f],
        "det": [Case([_wc((2, 3, 3), dt)]) for dt in f],
        "slogdet": [Case([_wc((3, 3), dt)]) for dt in f],
        "solve": [Case([_wc((2, 3, 3), dt), arr((2, 3, 2), dt)]) for dt in f],
        "cholesky": [Case([_spd((2, 3, 3), dt)], kw, grad=False) for dt in f for kw in ({}, {"upper": True})],
        "triangular_solve": [Case([np.triu(_wc((3, 3), dt)), arr((3, 2), dt)], kw) for dt in f
                             for kw in ({}, {"transpose": True})],
        "cholesky_solve": [Case([arr((3, 2), dt), np.linalg.cholesky(_spd((3, 3), "float64")).astype(dt)])
                           for dt in f],
        "cholesky_inverse": [Case([np.linalg.cholesky(_spd((3, 3), "float64")).astype(dt)]) for dt in f],
        "eigvalsh": [Case([_spd((2, 3, 3), dt)], grad=False) for dt in f],
        "svdvals": [Case([arr((4, 3), dt)]) for dt in f],
        "pinv": [Case([arr((4, 3), dt)]) for dt in f],
        "matrix_rank": [Case([arr((4, 3), dt)], grad=False) for dt in f],
        "matrix_power": [Case([_wc((3, 3), dt), p]) for dt in f for p in (0, 3, -2)],
        "cond": [Case([_wc((3, 3), dt)], kw) for dt in f for kw in ({}, {"p": "fro"}, {"p": 1})],
        "multi_dot": [Case([[arr((2, 3), dt), arr((3, 4), dt), arr((4, 2), dt)]]) for dt in f],
        "cross": [Case([arr((4, 3), dt), arr((4, 3), dt)]) for dt in f],
        "vecdot": [Case([arr((4, 3), dt), arr((4, 3), dt)]) for dt in f],
        "vector_norm": [Case([arr((3, 4), dt)], kw) for dt in f
                        for kw in ({}, {"p": 1.0, "axis": 1}, {"p": 3.0, "axis": 0, "keepdim": True})],
        "matrix_norm": [Case([_wc((3, 3), dt)], {"p": p}, grad=p == "fro") for dt in f
                        for p in ("fro", "nuc", 1, 2)],
        "norm": [Case([arr((3, 4), dt)], kw) for dt in f for kw in ({}, {"p": 1.0, "axis": 0})],
        "cov": [Case([arr((3, 5), dt)]) for dt in f],
        "corrcoef": [Case([arr((3, 5), dt)]) for dt in f],
        "lu": [Case([_wc((3, 3), dt)], grad=False) for dt in f],
        "lstsq": [Case([arr((5, 3), dt), arr((5, 2), dt)], kw, grad=False) for dt in f
                  for kw in ({}, {"driver": "gelsd"}, {"driver": "gelss"})],
        "matrix_exp": [Case([arr((3, 3), dt)]) for dt in f] + [Case([arr((2, 4, 4), dt, -3, 3)]) for dt in f],
        "matmul": [Case([arr((3, 4), dt), arr((4, 2), dt)]) for dt in f],
        "matrix_transpose": [Case([arr((2, 3, 4), dt)]) for dt in f],
        "diagonal": [Case([arr((3, 4), dt)]) for dt in f],
    }
    return table.get(name, [])


def lazy_table(build, namespaces):
    """cases(namespace, name) for a family file: the table that build() returns ({name: [Case]}),
    built on first use, for the given namespaces."""
    table = {}

    def cases(namespace, name):
        if namespace not in namespaces:
            return []
        if not table:
            table.update(build())
        return table.get(name, [])
    return cases


def _family_modules():
    """tools/conformance_cases_<family>.py: more cases, one file per op family. Each defines
    cases(namespace, name) -> list of Case (empty when it has none) and KNOWN (like
    KNOWN_DIFFERENCES)."""
    import glob
    import importlib
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    mods = []
    for path in sorted(glob.glob(os.path.join(here, "conformance_cases_*.py"))):
        mods.append(importlib.import_module(os.path.basename(path)[:-3]))
    return mods


FAMILIES = _family_modules()
for _m in FAMILIES:
    KNOWN_DIFFERENCES.update(getattr(_m, "KNOWN", {}))


def half_cases(generated, per_dtype=None):
    """Half-precision variants of a name's cases: those (the first per_dtype, if given) whose float arrays are
    all float32 (or, for names run in float64 only, float64), in float16 and in bfloat16. Cases
    with complex arrays are left out."""
    def floats(c):
        vals = list(c.args) + list(c.kwargs.values())
        flat = [a for v in vals for a in (v if isinstance(v, (list, tuple)) else [v])]
        arrays = [a for a in flat if isinstance(a, np.ndarray)]
        if any(a.dtype.kind == "c" for a in arrays):
            return None
        return {a.dtype.name for a in arrays if a.dtype.kind == "f"}
    kinds = [(c, floats(c)) for c in generated]
    base = [c for c, k in kinds if k == {"float32"}] or [c for c, k in kinds if k == {"float64"}]
    return [c.as_half(dt) for dt in HALF_DTYPES for c in base[:per_dtype]]


def cases_for(namespace, name):
    """The cases that `namespace.name` is run with (empty: none generated yet)."""
    for m in FAMILIES:
        found = m.cases(namespace, name)
        if found:
            return found
    return _builtin_cases(namespace, name)


def _builtin_cases(namespace, name):
    if namespace == "paddle.nn.functional":
        if name in ACTIVATIONS:
            return [Case([arr(s, dt, -4, 4) + 0.013], ACTIVATIONS[name]) for dt in FLOATS
                    for s in ((5,), (2, 3, 4))]
        return []
    if namespace == "paddle.linalg":
        return _linalg_cases(name)
    # paddle.<name> and the Tensor method of the same name share their cases; an in-place
    # variant x.op_(...) runs op's cases without gradients (a leaf that needs grad can't be
    # written in place in either framework).
    if name.endswith("_") and not name.endswith("__"):
        base = name[:-1]
        return [Case(c.args, c.kwargs, grad=False, tol=c._tol)
                for c in _function_cases(base) or _compat_cases(base)]
    return _function_cases(name) or _compat_cases(name)
