"""Conformance cases for nn.functional convolution, pooling, normalisation, common ops and losses
(python/oar/nn/functional/{conv,pooling,norm,common,input,loss}.py)."""
import numpy as np

from conformance_cases import FLOATS, Case, arr, lazy_table

_POOL = ("Paddle's float64 average-pool gradients carry float32 rounding (max abs ~3e-8 here); oar's "
         "match the float64 central-difference gradient")
_WRONG_GRAD = ("Paddle 3.3.1's gradient disagrees with the central difference of its own forward "
               "(measured: {}); oar's matches it (float64 check_grad in tests/python)")
_LABEL = "Paddle gives no gradient for the label; oar differentiates the loss in its label too"
KNOWN = {
    "paddle.nn.functional.avg_pool1d": _POOL, "paddle.nn.functional.avg_pool2d": _POOL,
    "paddle.nn.functional.adaptive_avg_pool1d": _POOL, "paddle.nn.functional.adaptive_avg_pool2d": _POOL,
    "paddle.nn.functional.avg_pool3d": _POOL, "paddle.nn.functional.adaptive_avg_pool3d": _POOL,
    "paddle.nn.functional.group_norm": _WRONG_GRAD.format(
        "group_norm without weight/bias on [2,4,3,3], max abs error 1.0"),
    "paddle.nn.functional.cross_entropy": _WRONG_GRAD.format(
        "soft_label=True with label rows not summing to 1: it uses softmax - label, max abs error 0.26"),
    "paddle.nn.functional.sigmoid_focal_loss": _WRONG_GRAD.format("gradient in the label, max abs error 0.94"),
    "paddle.nn.functional.binary_cross_entropy": _LABEL,
    "paddle.nn.functional.binary_cross_entropy_with_logits": _LABEL,
    "paddle.nn.functional.kl_div": _LABEL,
}


def _labels(n, c):
    return np.random.default_rng(n * 31 + c).integers(0, c, n).astype("int64")


def _table():
    f = FLOATS
    x4 = lambda dt, s=(2, 3, 6, 6): arr(s, dt)
    return {
        "conv2d": [Case([x4(dt), arr((4, 3, 3, 3), dt), arr((4,), dt)], kw) for dt in f
                   for kw in ({}, {"stride": 2, "padding": 1}, {"padding": "SAME", "dilation": 2}, {"padding": [1, 0]})]
                  + [Case([x4(dt), arr((3, 1, 3, 3), dt)], {"groups": 3, "padding": 1}) for dt in f],
        "conv1d": [Case([arr((2, 3, 8), dt), arr((4, 3, 3), dt)], {"padding": 1, "stride": 2}) for dt in f],
        "conv3d": [Case([arr((1, 2, 4, 4, 4), dt), arr((3, 2, 2, 2, 2), dt)], {"padding": 1}) for dt in f],
        "conv2d_transpose": [Case([x4(dt, (2, 3, 4, 4)), arr((3, 2, 3, 3), dt)], kw) for dt in f
                             for kw in ({}, {"stride": 2, "padding": 1, "output_padding": 1})],
        "conv1d_transpose": [Case([arr((2, 3, 5), dt), arr((3, 2, 3), dt)], {"stride": 2}) for dt in f],
        "max_pool2d": [Case([x4(dt)], kw) for dt in f
                       for kw in ({"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                  {"kernel_size": 3, "stride": 2, "ceil_mode": True})],
        "avg_pool2d": [Case([x4(dt)], kw) for dt in f
                       for kw in ({"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                  {"kernel_size": 3, "stride": 2, "padding": 1, "exclusive": False})],
        "max_pool1d": [Case([arr((2, 3, 9), dt)], {"kernel_size": 3, "stride": 2}) for dt in f],
        "avg_pool1d": [Case([arr((2, 3, 9), dt)], {"kernel_size": 3, "stride": 2}) for dt in f],
        "adaptive_avg_pool2d": [Case([x4(dt, (2, 3, 7, 7))], {"output_size": s}) for dt in f for s in (1, 3, [2, 4])],
        "adaptive_max_pool2d": [Case([x4(dt, (2, 3, 7, 7))], {"output_size": 3}) for dt in f],
        "adaptive_avg_pool1d": [Case([arr((2, 3, 7), dt)], {"output_size": 3}) for dt in f],
        "adaptive_max_pool1d": [Case([arr((2, 3, 7), dt)], {"output_size": 3}) for dt in f],
        "max_pool3d": [Case([arr((1, 2, 5, 4, 4), dt)], kw) for dt in f
                       for kw in ({"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1})],
        "avg_pool3d": [Case([arr((1, 2, 5, 4, 4), dt)], kw) for dt in f
                       for kw in ({"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1,
                                                       "exclusive": False})],
        "adaptive_avg_pool3d": [Case([arr((1, 2, 5, 4, 3), dt)], {"output_size": s}) for dt in f
                                for s in (1, [2, 3, 2])],
        "adaptive_max_pool3d": [Case([arr((1, 2, 5, 4, 3), dt)], {"output_size": 2}) for dt in f],
        "batch_norm": [Case([x4(dt), arr((3,), dt), arr((3,), dt, 0.5, 1.5), arr((3,), dt), arr((3,), dt)],
                            {"training": False}, diff_args=[0, 3, 4]) for dt in f],
        "layer_norm": [Case([arr((2, 3, 4), dt), [4], arr((4,), dt), arr((4,), dt)]) for dt in f]
                      + [Case([arr((2, 3, 4), dt), [3, 4]]) for dt in f],
        "group_norm": [Case([arr((2, 4, 3, 3), dt), 2]) for dt in f],
        "instance_norm": [Case([arr((2, 3, 4, 4), dt)]) for dt in f],
        "normalize": [Case([arr((3, 4), dt)], kw) for dt in f for kw in ({}, {"p": 1, "axis": 0})],
        "linear": [Case([arr((3, 4), dt), arr((4, 5), dt), arr((5,), dt)]) for dt in f],
        "embedding": [Case([np.array([[0, 2], [3, 1]]), arr((4, 3), dt)], kw) for dt in f
                      for kw in ({}, {"padding_idx": 1})],
        "one_hot": [Case([np.array([0, 2, 1]), 4], grad=False)],
        "pad": [Case([x4(dt, (1, 2, 3, 4)), [1, 2, 0, 1]], {"mode": m}) for dt in f
                for m in ("constant", "reflect", "replicate", "circular")],
        "cross_entropy": [Case([arr((5, 4), dt), _labels(5, 4)], kw) for dt in f
                          for kw in ({}, {"reduction": "sum"}, {"reduction": "none"}, {"label_smoothing": 0.1},
                                     {"ignore_index": 1})]
                         + [Case([arr((5, 4), dt), arr((5, 4), dt, 0, 1)], {"soft_label": True}) for dt in f],
        "nll_loss": [Case([arr((5, 4), dt), _labels(5, 4)], kw) for dt in f for kw in ({}, {"reduction": "sum"})],
        "mse_loss": [Case([arr((3, 4), dt), arr((3, 4), dt)], kw) for dt in f for kw in ({}, {"reduction": "none"})],
        "l1_loss": [Case([arr((3, 4), dt), arr((3, 4), dt)], kw) for dt in f for kw in ({}, {"reduction": "sum"})],
        "smooth_l1_loss": [Case([arr((3, 4), dt), arr((3, 4), dt)], kw) for dt in f for kw in ({}, {"delta": 0.5})],
        "binary_cross_entropy": [Case([arr((3, 4), dt, 0.05, 0.95), arr((3, 4), dt, 0, 1)]) for dt in f],
        "binary_cross_entropy_with_logits": [Case([arr((3, 4), dt), arr((3, 4), dt, 0, 1)], kw) for dt in f
                                             for kw in ({}, {"pos_weight": arr((4,), dt, 0.5, 2)})],
        "kl_div": [Case([np.log(arr((3, 4), dt, 0.1, 1)), arr((3, 4), dt, 0.1, 1)], kw) for dt in f
                   for kw in ({}, {"reduction": "batchmean"})],
        "margin_ranking_loss": [Case([arr((4,), dt), arr((4,), dt), np.sign(arr((4,), dt))], {"margin": 0.1}) for dt in f],
        "cosine_similarity": [Case([arr((3, 4), dt), arr((3, 4), dt)]) for dt in f],
        "pairwise_distance": [Case([arr((3, 4), dt), arr((3, 4), dt)]) for dt in f],
        "sigmoid_focal_loss": [Case([arr((3, 4), dt), arr((3, 4), dt, 0, 1).round()]) for dt in f],
    }


cases = lazy_table(_table, ("paddle.nn.functional",))
