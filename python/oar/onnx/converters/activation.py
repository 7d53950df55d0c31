"""Activations and unary math: one ONNX operator each, or a short composition where the ONNX
operator is newer than the opset being written (HardSwish 14, Gelu 20, Mish 18) or computes
something else (Paddle's softplus with beta, thresholded_relu with a value)."""
import math

from .registry import converts

# oar op -> (ONNX operator, the opset it appeared in): one node, same input, same result.
_UNARY = {
    "relu": ("Relu", 6), "sigmoid": ("Sigmoid", 6), "tanh": ("Tanh", 6), "exp": ("Exp", 6),
    "log": ("Log", 6), "sqrt": ("Sqrt", 6), "abs": ("Abs", 6), "neg": ("Neg", 6),
    "reciprocal": ("Reciprocal", 6), "floor": ("Floor", 6), "ceil": ("Ceil", 6),
    "erf": ("Erf", 9), "sign": ("Sign", 9), "sin": ("Sin", 7), "cos": ("Cos", 7),
    "tan": ("Tan", 7), "asin": ("Asin", 7), "acos": ("Acos", 7), "atan": ("Atan", 7),
    "sinh": ("Sinh", 9), "cosh": ("Cosh", 9), "asinh": ("Asinh", 9), "acosh": ("Acosh", 9),
    "atanh": ("Atanh", 9), "softsign": ("Softsign", 1), "logical_not": ("Not", 1),
    "isnan": ("IsNaN", 9), "isinf": ("IsInf", 10), "assign": ("Identity", 1),
    "detach_value": ("Identity", 1),
}


@converts(*_UNARY)
def unary(ctx):
    op_type, version = _UNARY[ctx.op.name]
    ctx.require(version, op_type)
    ctx.node(op_type, [ctx.inp(0)], [ctx.out()])


def _mul_const(ctx, x, value, out=1):
    return ctx.node("Mul", [x, ctx.scalar(value, ctx.dtype(0))], out)


def _add_const(ctx, x, value, out=1):
    return ctx.node("Add", [x, ctx.scalar(value, ctx.dtype(0))], out)


# oar op -> (ONNX operator, opset, {ONNX attribute: oar attribute}): one node with float attributes.
_WITH_ATTRS = {
    "hardsigmoid": ("HardSigmoid", 6, {"alpha": "slope", "beta": "offset"}),
    "leaky_relu": ("LeakyRelu", 6, {"alpha": "negative_slope"}),
    "elu": ("Elu", 6, {"alpha": "alpha"}),
    "selu": ("Selu", 6, {"alpha": "alpha", "gamma": "scale"}),
    "celu": ("Celu", 12, {"alpha": "alpha"}),
}


@converts(*_WITH_ATTRS)
def with_attrs(ctx):
    op_type, version, attrs = _WITH_ATTRS[ctx.op.name]
    ctx.require(version, op_type)
    ctx.node(op_type, [ctx.inp(0)], [ctx.out()], **{k: float(ctx.attr(v)) for k, v in attrs.items()})


@converts("relu6")
def relu6(ctx):
    ctx.clip(ctx.inp(0), 0.0, 6.0, ctx.dtype(0), [ctx.out()])


@converts("hardtanh")
def hardtanh(ctx):
    ctx.clip(ctx.inp(0), ctx.attr("min"), ctx.attr("max"), ctx.dtype(0), [ctx.out()])


@converts("hardswish")
def hardswish(ctx):
    x = ctx.inp(0)
    if ctx.opset >= 14:
        ctx.node("HardSwish", [x], [ctx.out()])
    else:  # x * relu6(x + 3) / 6
        gate = ctx.node("HardSigmoid", [x], 1, alpha=1.0 / 6.0, beta=0.5)
        ctx.node("Mul", [x, gate], [ctx.out()])


@converts("silu", "swish")
def silu(ctx):
    x = ctx.inp(0)
    ctx.node("Mul", [x, ctx.node("Sigmoid", [x])], [ctx.out()])


@converts("gelu")
def gelu(ctx):
    x, approximate = ctx.inp(0), bool(ctx.attr("approximate"))
    if ctx.opset >= 20:
        ctx.node("Gelu", [x], [ctx.out()], approximate="tanh" if approximate else "none")
        return
    half = _mul_const(ctx, x, 0.5)
    if approximate:  # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        cube = ctx.node("Mul", [ctx.node("Mul", [x, x]), x])
        inner = ctx.node("Add", [x, _mul_const(ctx, cube, 0.044715)])
        t = ctx.node("Tanh", [_mul_const(ctx, inner, math.sqrt(2.0 / math.pi))])
    else:  # 0.5 x (1 + erf(x / sqrt(2)))
        t = ctx.node("Erf", [_mul_const(ctx, x, 1.0 / math.sqrt(2.0))])
    ctx.node("Mul", [half, _add_const(ctx, t, 1.0)], [ctx.out()])


def _softplus(ctx, x, beta=1.0):
    if beta == 1.0:
        return ctx.node("Softplus", [x])
    return _mul_const(ctx, ctx.node("Softplus", [_mul_const(ctx, x, beta)]), 1.0 / beta)


@converts("softplus")
def softplus(ctx):
    # Paddle returns x where beta * x > threshold; log(1 + exp(beta x)) / beta differs from x
    # there by less than exp(-threshold) / beta (2e-9 at the default 20), so one formula serves.
    x, beta, threshold = ctx.inp(0), float(ctx.attr("beta")), float(ctx.attr("threshold"))
    soft = _softplus(ctx, x, beta)
    if threshold >= 15.0:
        ctx.node("Identity", [soft], [ctx.out()])
        return
    over = ctx.node("Greater", [_mul_const(ctx, x, beta), ctx.scalar(threshold, ctx.dtype(0))])
    ctx.node("Where", [over, x, soft], [ctx.out()])


@converts("mish")
def mish(ctx):
    x = ctx.inp(0)
    if ctx.opset >= 18:
        ctx.node("Mish", [x], [ctx.out()])
    else:
        ctx.node("Mul", [x, ctx.node("Tanh", [_softplus(ctx, x)])], [ctx.out()])


@converts("log_sigmoid")
def log_sigmoid(ctx):
    ctx.node("Neg", [_softplus(ctx, ctx.node("Neg", [ctx.inp(0)]))], [ctx.out()])


@converts("tanhshrink")
def tanhshrink(ctx):
    x = ctx.inp(0)
    ctx.node("Sub", [x, ctx.node("Tanh", [x])], [ctx.out()])


@converts("softshrink", "hardshrink")
def shrink(ctx):
    t = float(ctx.attr("threshold"))
    ctx.node("Shrink", [ctx.inp(0)], [ctx.out()], lambd=t, bias=t if ctx.op.name == "softshrink" else 0.0)


@converts("thresholded_relu")
def thresholded_relu(ctx):
    x, t, value = ctx.inp(0), float(ctx.attr("threshold")), float(ctx.attr("value"))
    if value == 0.0 and ctx.opset >= 10:
        ctx.node("ThresholdedRelu", [x], [ctx.out()], alpha=t)
        return
    over = ctx.node("Greater", [x, ctx.scalar(t, ctx.dtype(0))])
    ctx.node("Where", [over, x, ctx.scalar(value, ctx.dtype(0))], [ctx.out()])


@converts("rsqrt")
def rsqrt(ctx):
    ctx.node("Reciprocal", [ctx.node("Sqrt", [ctx.inp(0)])], [ctx.out()])


@converts("square")
def square(ctx):
    x = ctx.inp(0)
    ctx.node("Mul", [x, x], [ctx.out()])


@converts("log1p")
def log1p(ctx):
    ctx.node("Log", [_add_const(ctx, ctx.inp(0), 1.0)], [ctx.out()])


@converts("expm1")
def expm1(ctx):
    ctx.node("Sub", [ctx.node("Exp", [ctx.inp(0)]), ctx.scalar(1.0, ctx.dtype(0))], [ctx.out()])


@converts("log2", "log10")
def log_base(ctx):
    base = 2.0 if ctx.op.name == "log2" else 10.0
    _mul_const(ctx, ctx.node("Log", [ctx.inp(0)]), 1.0 / math.log(base), [ctx.out()])


@converts("stanh")
def stanh(ctx):
    a, b = float(ctx.attr("scale_a")), float(ctx.attr("scale_b"))
    _mul_const(ctx, ctx.node("Tanh", [_mul_const(ctx, ctx.inp(0), a)]), b, [ctx.out()])


@converts("trunc")
def trunc(ctx):  # sign(x) * floor(|x|)
    x = ctx.inp(0)
    ctx.node("Mul", [ctx.node("Sign", [x]), ctx.node("Floor", [ctx.node("Abs", [x])])], [ctx.out()])
