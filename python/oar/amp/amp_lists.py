"""Paddle's auto_cast op lists, and how their names map onto oar's ops.

The lists use Paddle's kernel names (``matmul_v2``, ``lookup_table_v2``, ``reduce_sum``), as
``paddle.amp.white_list()`` / ``black_list()`` report them and as users write them in
``custom_white_list``. oar decides per op from each op's spec (``amp:`` in oar/ops/specs); the
table below translates a user's names to oar's op names.
"""
from __future__ import annotations

WHITE_LIST = {
    'conv2d', 'einsum', 'matmul', 'matmul_v2', 'linear_v2', 'max_pool2d_with_index', 'mul',
    'fused_gemm_epilogue', 'fused_rotary_position_embedding', 'flash_attn',
}
# float16 only (no bfloat16 kernels in Paddle).
ONLY_FP16_WHITE_LIST = {
    'fake_quantize_dequantize_abs_max', 'fake_quantize_dequantize_moving_average_abs_max',
    'fused_attention', 'fused_feedforward',
}
FP16_WHITE_LIST = WHITE_LIST | ONLY_FP16_WHITE_LIST

# Numerically dangerous in half precision: float32 at O1.
FP16_BLACK_LIST = {
    'tan', 'acos', 'asin', 'sinh', 'cosh', 'atanh', 'tanh_shrink', 'erfinv', 'exp', 'expm1',
    'log', 'log10', 'log2', 'reciprocal', 'rsqrt', 'pow', 'square', 'reduce_sum', 'mean',
    'reduce_mean', 'reduce_prod', 'cumprod', 'cumsum', 'dist', 'pnorm', 'frobenius_norm',
    'renorm', 'group_norm', 'layer_norm', 'softmax', 'softmin', 'softplus', 'log_softmax',
    'softmax_with_cross_entropy', 'sigmoid_cross_entropy_with_logits',
    'c_softmax_with_cross_entropy', 'c_softmax_with_multi_label_cross_entropy', 'cross_entropy',
    'cross_entropy2', 'nll_loss', 'huber_loss', 'triplet_margin_loss', 'log_loss',
    'hsigmoid_loss', 'margin_cross_entropy',
}
# Slower in half precision (their gradients): float32 at O1 and O2.
EXTRA_BLACK_LIST = {
    'linear_interp_v2', 'nearest_interp_v2', 'bilinear_interp_v2', 'bicubic_interp_v2',
    'trilinear_interp_v2', 'lookup_table', 'lookup_table_v2', 'scatter',
}
BF16_WHITE_LIST = WHITE_LIST
BF16_BLACK_LIST = FP16_BLACK_LIST


def white_list() -> dict[str, dict[str, set[str]]]:
    """The ops computed in float16/bfloat16, per dtype and level (Paddle's names)."""
    return {
        'float16': {'OD': FP16_WHITE_LIST, 'O1': FP16_WHITE_LIST, 'O2': FP16_WHITE_LIST},
        'bfloat16': {'OD': BF16_WHITE_LIST, 'O1': BF16_WHITE_LIST, 'O2': BF16_WHITE_LIST},
    }


def black_list() -> dict[str, dict[str, set[str]]]:
    """The ops kept in float32, per dtype and level (Paddle's names)."""
    return {
        'float16': {'OD': set(), 'O1': FP16_BLACK_LIST | EXTRA_BLACK_LIST, 'O2': EXTRA_BLACK_LIST},
        'bfloat16': {'OD': set(), 'O1': BF16_BLACK_LIST | EXTRA_BLACK_LIST, 'O2': EXTRA_BLACK_LIST},
    }


# Paddle's kernel name -> the oar ops it covers (names absent here are oar's own op names).
PADDLE_TO_OAR = {
    'matmul_v2': ('matmul', 'mm'), 'mul': ('matmul',), 'linear_v2': ('linear',),
    'fused_gemm_epilogue': ('fused_matmul_bias',), 'conv2d': ('conv2d', 'conv1d'),
    'tanh_shrink': ('tanhshrink',), 'reduce_sum': ('sum',), 'reduce_mean': ('mean',),
    'reduce_prod': ('prod',), 'pnorm': ('p_norm',), 'frobenius_norm': ('p_norm',),
    'cross_entropy2': ('hard_cross_entropy',), 'softmax_with_cross_entropy': ('hard_cross_entropy',),
    'cross_entropy': ('hard_cross_entropy',),
    'linear_interp_v2': ('interp',), 'nearest_interp_v2': ('interp',),
    'bilinear_interp_v2': ('interp',), 'bicubic_interp_v2': ('interp',),
    'trilinear_interp_v2': ('interp',), 'lookup_table': ('embedding',),
    'lookup_table_v2': ('embedding',),
}
