"""oar.incubate.nn (paddle.incubate.nn): layers over the fused ops of oar.incubate.nn.functional."""
from . import functional  # noqa: F401
from .fused_linear import FusedDropoutAdd, FusedLinear
from .fused_transformer import (FusedBiasDropoutResidualLayerNorm, FusedFeedForward, FusedMultiHeadAttention,
                                FusedMultiTransformer, FusedTransformerEncoderLayer)

__all__ = ["FusedMultiHeadAttention", "FusedFeedForward", "FusedTransformerEncoderLayer", "FusedMultiTransformer",
           "FusedLinear", "FusedBiasDropoutResidualLayerNorm", "FusedDropoutAdd"]
