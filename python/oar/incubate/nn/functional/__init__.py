"""oar.incubate.nn.functional (paddle.incubate.nn.functional): fused ops of transformer models.
Paddle runs most of them as GPU kernels; here each is a composition of oar's ops, the norms
through _norm.fused_norm and the masked softmax through incubate._softmax_mask.softmax_mask, the
seams where fused C++ kernels go."""
from ....nn.functional import swiglu  # noqa: F401  (Paddle's deprecated alias, outside __all__)
from .bias_act import fused_bias_act
from .dropout_add import fused_dropout_add
from .matmul_bias import fused_linear, fused_linear_activation, fused_matmul_bias
from .norm import fused_layer_norm, fused_rms_norm
from .multi_transformer import fused_multi_transformer
from .rotary import fused_rotary_position_embedding
from .transformer import fused_bias_dropout_residual_layer_norm, fused_feedforward, fused_multi_head_attention
from .variable_length_attention import variable_length_memory_efficient_attention
from .fast_norm import fast_ln, fast_rms_norm, fused_rms_norm_ext
from .moe import (blha_get_max_len, build_src_rank_and_local_expert_id, cal_aux_loss, embedding_grad_add_to_,
                  expand_modality_expert_id, fused_swiglu_weighted_bwd, int_bincount, moe_combine)

__all__ = ["fused_multi_head_attention", "fused_feedforward", "fused_multi_transformer",
           "fused_matmul_bias", "fused_linear", "fused_linear_activation",
           "fused_bias_dropout_residual_layer_norm", "fused_dropout_add", "fused_rotary_position_embedding",
           "variable_length_memory_efficient_attention", "fused_rms_norm", "fused_layer_norm",
           "fused_bias_act", "fast_ln", "fast_rms_norm", "fused_rms_norm_ext", "moe_combine",
           "expand_modality_expert_id", "build_src_rank_and_local_expert_id", "cal_aux_loss", "int_bincount",
           "embedding_grad_add_to_", "blha_get_max_len", "fused_swiglu_weighted_bwd"]
