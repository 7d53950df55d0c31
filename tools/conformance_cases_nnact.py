"""Conformance cases for the activations and losses of activation2.yaml / loss2.yaml
(paddle.nn.functional; python/oar/nn/functional/activation.py and loss.py).
Random ops run in evaluation mode here (training draws are compared statistically in the tests)."""
import numpy as np

from conformance_cases import FLOATS, Case, arr

_F32_ATTR = ("Paddle stores float attributes in float32 (e.g. alpha=0.7 becomes 0.699999988), so "
             "its float64 results differ from the exact value by ~1e-8 relative; oar keeps the double")
_CPU_ONLY_GPU = ("Paddle 3.3 registers no CPU kernel for this op (RuntimeError: kernel not "
                 "registered), so Paddle raises on every case while oar computes it; oar is "
                 "checked against NumPy references in tests/python")
KNOWN = {
    "paddle.nn.functional.celu": _F32_ATTR,
    "paddle.nn.functional.selu": _F32_ATTR,
    "paddle.nn.functional.softshrink": _F32_ATTR,
    "paddle.nn.functional.hardshrink": _F32_ATTR,
    "paddle.nn.functional.thresholded_relu": _F32_ATTR,
    "paddle.nn.functional.hardtanh": _F32_ATTR,
    "paddle.nn.functional.hardtanh_": _F32_ATTR,
    "paddle.nn.functional.label_smooth": _F32_ATTR + " (epsilon)",
    "paddle.nn.functional.rrelu": _F32_ATTR + " (the evaluation slope (lower + upper) / 2)",
    "paddle.nn.functional.gaussian_nll_loss": (
        "Paddle 3.3 clamps variance inside paddle.no_grad(), so no gradient reaches 'variance' "
        "at all; oar clamps only the forward value (max(var, epsilon)) and gives variance the "
        "gradient of the formula, checked by central differences in tests/python/test_loss2.py"),
    "paddle.nn.functional.log_loss": (
        "Paddle 3.3 registers log_loss for float32 only (float64 raises NotFound); oar computes "
        "float64 too"),
    "paddle.nn.functional.npair_loss": (
        "Paddle 3.3's npair_loss fails on float64 inputs (InvalidArgument: an internal tensor is "
        "float32); oar computes float64 too, checked against NumPy in tests/python/test_loss2.py"),
    "paddle.nn.functional.margin_cross_entropy": (
        "Paddle 3.3 has margin_cross_entropy on GPU only (no CPU kernel: it raises here); oar's "
        "single-process version is checked against a NumPy reference in tests/python/test_loss2.py"),
}

# name -> keyword sets (the first: defaults)
_ELEMENTWISE = {
    "celu": [{}, {"alpha": 0.7}],
    "selu": [{}, {"scale": 1.2, "alpha": 1.5}],
    "mish": [{}],
    "softsign": [{}],
    "softshrink": [{}, {"threshold": 0.3}],
    "hardshrink": [{}, {"threshold": 0.3}],
    "hardtanh": [{}, {"min": -0.5, "max": 0.8}],
    "tanhshrink": [{}],
    "thresholded_relu": [{}, {"threshold": 0.2, "value": -0.3}],
    "log_sigmoid": [{}],
    "logsigmoid": [{}],
    "swish": [{}],
}
_INPLACE = {"hardtanh_": {"min": -0.5, "max": 0.8}, "thresholded_relu_": {"threshold": 0.2},
            "elu_": {"alpha": 0.5}, "leaky_relu_": {"negative_slope": 0.2}, "tanh_": {}}


def _act(name):
    out = []
    for dt in FLOATS:
        for s in ((5,), (2, 3, 9)):
            for kw in _ELEMENTWISE[name]:
                out.append(Case([arr(s, dt, -4, 4) + 0.013], kw))
    return out


def _losses(name):
    out = []
    for dt in FLOATS:
        x, y = arr((4, 5), dt), arr((4, 5), dt)
        reds = [{"reduction": r} for r in ("mean", "sum", "none")]
        if name == "gaussian_nll_loss":
            v = arr((4, 5), dt, 0.1, 2)
            out += [Case([x, y, v], r) for r in reds]
            out += [Case([x, y, v[:, 0]], {"full": True}), Case([x, y, v[:, :1]], {"epsilon": 0.5})]
        elif name == "poisson_nll_loss":
            lab = arr((4, 5), dt, 0, 4)
            out += [Case([x, lab], r, diff_args=[0]) for r in reds]
            out.append(Case([np.abs(x) + 0.1, lab], {"log_input": False, "full": True}, diff_args=[0]))
        elif name == "soft_margin_loss":
            sgn = np.sign(y).astype(dt)
            out += [Case([x, sgn], r, diff_args=[0]) for r in reds]
        elif name == "multi_label_soft_margin_loss":
            lab = (y > 0).astype(dt)
            w = arr((5,), dt, 0.5, 1.5)
            out += [Case([x, lab], r, diff_args=[0]) for r in reds]
            out.append(Case([x, lab, w], {}, diff_args=[0, 2]))
        elif name == "multi_margin_loss":
            lab = np.array([0, 3, 4, 1])
            w = arr((5,), dt, 0.5, 1.5)
            out += [Case([x, lab], r) for r in reds]
            out.append(Case([x, lab], {"p": 2, "margin": 0.7, "weight": w}))
        elif name == "multi_label_margin_loss":
            lab = np.array([[3, 0, -1, 1, 1], [1, 2, 4, -1, -1], [-1, 2, 2, 2, 2], [0, 1, 2, 3, 4]])
            out += [Case([x, lab], r) for r in reds]
        elif name == "log_loss":
            p = arr((4, 1), dt, 0.05, 0.95)
            lab = (arr((4, 1), dt) > 0).astype(dt)
            out += [Case([p, lab], diff_args=[0]), Case([p, lab], {"epsilon": 0.01}, diff_args=[0])]
        elif name == "dice_loss":
            p = arr((2, 3, 4), dt, 0, 1)
            lab = np.array([[[0], [3], [1]], [[2], [2], [0]]])
            out += [Case([p, lab]), Case([p, lab], {"epsilon": 0.1})]
        elif name == "square_error_cost":
            out.append(Case([x, y]))
        elif name == "npair_loss":
            out += [Case([arr((4, 3), dt), arr((4, 3), dt), np.array([1, 2, 1, 0])]),
                    Case([arr((4, 3), dt), arr((4, 3), dt), np.array([1, 2, 1, 0])], {"l2_reg": 0.1})]
        elif name == "triplet_margin_with_distance_loss":
            a, p, n = arr((5, 3), dt), arr((5, 3), dt), arr((5, 3), dt)
            out += [Case([a, p, n], r) for r in reds]
            out.append(Case([a, p, n], {"margin": 0.5, "swap": True}))
        elif name == "ctc_loss":
            lp = arr((5, 3, 4), dt)
            lab = np.array([[1, 2, 2], [3, 1, 1], [2, 2, 1]], np.int32)
            il, ll = np.array([5, 4, 5], np.int64), np.array([3, 1, 2], np.int64)
            out += [Case([lp, lab, il, ll], r) for r in reds]
            lab0 = np.array([[0, 1, 1], [2, 0, 0], [1, 1, 0]], np.int32)
            out.append(Case([lp, lab0, il, ll], {"blank": 3, "reduction": "sum"}))
            out.append(Case([lp, lab, il, ll], {"norm_by_times": True, "reduction": "sum"}))
    return out


_LOSSES = {"gaussian_nll_loss", "poisson_nll_loss", "soft_margin_loss",
           "multi_label_soft_margin_loss", "multi_margin_loss", "multi_label_margin_loss",
           "log_loss", "dice_loss", "square_error_cost", "npair_loss",
           "triplet_margin_with_distance_loss", "ctc_loss"}


def _other(name):
    out = []
    for dt in FLOATS:
        if name == "prelu":
            x = arr((2, 3, 4), dt) + 0.013
            out += [Case([x, arr((3,), dt, 0, 1)]), Case([x, arr((1,), dt, 0, 1)]),
                    Case([x, arr((4,), dt, 0, 1)], {"data_format": "NLC"})]
        elif name == "rrelu":
            out.append(Case([arr((2, 3, 4), dt) + 0.013], {"training": False}))
            out.append(Case([arr((6,), dt) + 0.013], {"lower": 0.2, "upper": 0.4, "training": False}))
        elif name == "glu":
            out += [Case([arr((2, 4, 6), dt)]), Case([arr((2, 4, 6), dt)], {"axis": 1})]
        elif name == "swiglu":
            out += [Case([arr((2, 6), dt)]), Case([arr((2, 3), dt), arr((2, 3), dt)])]
        elif name == "maxout":
            out += [Case([arr((2, 6, 3, 2), dt)], {"groups": 3}),
                    Case([arr((2, 3, 2, 6), dt)], {"groups": 2, "axis": -1})]
        elif name == "label_smooth":
            lab = np.eye(4, dtype=dt)[[0, 2, 3]]
            out += [Case([lab]), Case([lab, np.array([[0.1, 0.2, 0.3, 0.4]], dt)], {"epsilon": 0.2})]
        elif name == "sequence_mask":
            out += [Case([np.array([[1, 3], [0, 2]])], grad=False),
                    Case([np.array([1, 4, 2])], {"maxlen": 5, "dtype": "float32"}, grad=False)]
            break
        elif name in ("alpha_dropout", "feature_alpha_dropout"):
            out.append(Case([arr((2, 3, 4), dt)], {"p": 0.3, "training": False}))
        elif name == "dropout1d":
            out.append(Case([arr((2, 3, 4), dt)], {"p": 0.3, "training": False}))
        elif name == "margin_cross_entropy":
            out.append(Case([arr((4, 6), dt, -0.9, 0.9), np.array([0, 5, 2, 2])],
                            {"margin1": 0.9, "margin2": 0.4, "margin3": 0.1, "scale": 8.0}))
        elif name == "hsigmoid_loss":
            x, w, b = arr((4, 3), dt), arr((5, 3), dt), arr((5, 1), dt)
            lab = np.array([0, 5, 3, 2])
            table = np.array([[0, 2, -1], [1, 3, 4], [0, -1, -1], [2, 1, 0]])
            code = np.array([[1, 0, 0], [0, 1, 1], [1, 0, 0], [0, 0, 1]])
            out += [Case([x, lab, 6, w]), Case([x, lab, 6, w, b]),
                    Case([x, lab, 6, w, b, table, code])]
    return out


def cases(namespace, name):
    if namespace != "paddle.nn.functional":
        return []
    if name in _ELEMENTWISE:
        return _act(name)
    if name in _INPLACE:
        return [Case([arr(s, dt, -4, 4) + 0.013], _INPLACE[name], grad=False)
                for dt in FLOATS for s in ((5,), (2, 3, 9))]
    if name in _LOSSES:
        return _losses(name)
    return _other(name)
