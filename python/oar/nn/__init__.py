"""oar.nn, as paddle.nn: Layer and its containers, the layer classes, initializers and functional."""
from . import functional, initializer  # noqa: F401
from ..framework.parameter import Parameter  # noqa: F401
from .layer.layers import Layer  # noqa: F401
from .clip import ClipGradByValue, ClipGradByNorm, ClipGradByGlobalNorm  # noqa: F401
from .layer.container import Sequential, LayerList, LayerDict, ParameterList, ParameterDict  # noqa: F401
from .layer.activation import (  # noqa: F401
    CELU, ELU, GELU, GLU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU, LogSigmoid,
    LogSoftmax, Maxout, Mish, PReLU, ReLU, ReLU6, RReLU, SELU, Sigmoid, Silu, SiLU, Softmax,
    Softmax2D, Softplus, Softshrink, Softsign, Swish, Tanh, Tanhshrink, ThresholdedReLU)
from .layer.loss import (  # noqa: F401
    BCELoss, BCEWithLogitsLoss, CTCLoss, CosineEmbeddingLoss, CrossEntropyLoss, GaussianNLLLoss,
    HSigmoidLoss, HingeEmbeddingLoss, HuberLoss, KLDivLoss, L1Loss, MSELoss, MarginRankingLoss,
    MultiLabelMarginLoss, MultiLabelSoftMarginLoss, MultiMarginLoss, NLLLoss, PoissonNLLLoss,
    SmoothL1Loss, SoftMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss, RNNTLoss)

# PyTorch spellings that Paddle 3 also accepts.
Module, ModuleList, ModuleDict = Layer, LayerList, LayerDict
from .layer.common import (  # noqa: F401,E402
    Identity, Linear, Bilinear, Flatten, Unflatten, Dropout, Dropout2D, Dropout3D, AlphaDropout,
    FeatureAlphaDropout, Embedding, Upsample, UpsamplingNearest2D, UpsamplingBilinear2D, Pad1D, Pad2D, Pad3D,
    ZeroPad1D, ZeroPad2D, ZeroPad3D, ConstantPad1D, ConstantPad2D, ConstantPad3D, ReflectionPad1D,
    ReflectionPad2D, ReflectionPad3D, ReplicationPad1D, ReplicationPad2D, ReplicationPad3D, CircularPad1D,
    CircularPad2D, CircularPad3D, PixelShuffle, PixelUnshuffle, ChannelShuffle, Fold, Unfold, CosineSimilarity,
    PairwiseDistance)
from .layer.conv import Conv1D, Conv2D, Conv3D, Conv1DTranspose, Conv2DTranspose, Conv3DTranspose  # noqa: F401,E402
from .layer.norm import (  # noqa: F401,E402
    BatchNorm, BatchNorm1D, BatchNorm2D, BatchNorm3D, SyncBatchNorm, LayerNorm, GroupNorm, InstanceNorm1D,
    InstanceNorm2D, InstanceNorm3D, LocalResponseNorm, SpectralNorm)
from .layer.pooling import (  # noqa: F401,E402
    MaxPool1D, MaxPool2D, MaxPool3D, AvgPool1D, AvgPool2D, AvgPool3D, AdaptiveAvgPool1D, AdaptiveAvgPool2D,
    AdaptiveAvgPool3D, AdaptiveMaxPool1D, AdaptiveMaxPool2D, AdaptiveMaxPool3D, MaxUnPool1D, MaxUnPool2D,
    MaxUnPool3D, LPPool1D, LPPool2D)
from .layer.fractional_pool import FractionalMaxPool2D, FractionalMaxPool3D  # noqa: F401,E402

# The lower-case-d spellings Paddle 3 also exports (Conv2d, ZeroPad2d, AdaptiveAvgPool2d, ...).
for _name in [n for n in dir() if n[-2:] in ("1D", "2D", "3D") and n.startswith((
        "Adaptive", "CircularPad", "ConstantPad", "Conv", "ReflectionPad", "ReplicationPad", "ZeroPad", "LPPool",
        "Upsampling")) and "Transpose" not in n]:
    globals()[_name[:-1] + "d"] = globals()[_name]
MaxUnpool1d, MaxUnpool2d, MaxUnpool3d = MaxUnPool1D, MaxUnPool2D, MaxUnPool3D

# Recurrent layers.
from .layer.rnn import (  # noqa: F401,E402
    RNNCellBase, SimpleRNNCell, LSTMCell, GRUCell, RNN, BiRNN, SimpleRNN, LSTM, GRU,
)
from .layer.transformer import (  # noqa: F401,E402
    MultiHeadAttention, TransformerEncoderLayer, TransformerEncoder, TransformerDecoderLayer,
    TransformerDecoder, Transformer,
)
from .layer.adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: F401,E402
from . import decode  # noqa: F401,E402
from .decode import BeamSearchDecoder, dynamic_decode  # noqa: F401,E402
from . import quant  # noqa: F401,E402  (paddle.nn.quant: the layers of quantized models)
from . import utils  # noqa: F401,E402  (paddle.nn.utils: weight/spectral norm hooks, clip_grad_*_)
from . import attention  # noqa: F401,E402  (paddle.nn.attention: sdpa_kernel, SDPBackend)
