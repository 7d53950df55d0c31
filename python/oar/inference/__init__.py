"""oar.inference (paddle.inference): load a model saved with oar.jit.save or
static.save_inference_model and run it through the C++ predictor."""
import enum

from .. import _C

_inf = _C._inference

Config = _inf.Config
DataType = _inf.DataType
Predictor = _inf.Predictor
Tensor = _inf.Tensor


def create_predictor(config):
    """A predictor for the model that config names (paddle.inference.create_predictor)."""
    if not isinstance(config, Config):
        raise TypeError(f"create_predictor: config must be an oar.inference.Config, but received "
                        f"{type(config).__name__}")
    return _inf.create_predictor(config)


class PredictorPool:
    """`size` predictors over one loaded model (paddle.inference.PredictorPool; the C++ pool):
    each serves one request at a time; they share the program and the weights."""

    def __init__(self, config, size=1):
        if not isinstance(config, Config):
            raise TypeError(f"PredictorPool: config must be an oar.inference.Config, but received "
                            f"{type(config).__name__}")
        if not isinstance(size, int) or size < 1:
            raise ValueError(f"PredictorPool: size must be a positive int, got {size!r}")
        self._pool = _inf.PredictorPool(config, size)

    def retrive(self, idx):  # Paddle's spelling
        if not 0 <= idx < self._pool.size():
            raise IndexError(f"PredictorPool: index {idx} is out of range for {self._pool.size()} predictors")
        return self._pool.retrieve(idx)

    retrieve = retrive


def get_version():
    from .. import __version__
    return f"oar {__version__}"


_NUM_BYTES = {"FLOAT32": 4, "FLOAT64": 8, "INT64": 8, "INT32": 4, "INT8": 1, "UINT8": 1, "BOOL": 1,
              "FLOAT16": 2, "BFLOAT16": 2}


def get_num_bytes_of_data_type(dtype):
    """The size in bytes of one element of an inference DataType.

    Paddle 3.3.1 answers only FLOAT32, INT64, INT32 and UINT8 and returns -1 for the others;
    oar answers every DataType with its real size (8 for FLOAT64, 2 for FLOAT16 and BFLOAT16,
    1 for INT8 and BOOL).

    Args:
        dtype (DataType): The data type.

    Returns:
        int

    Examples:
        >>> import oar
        >>> print(oar.inference.get_num_bytes_of_data_type(oar.inference.DataType.FLOAT32))
        4
    """
    if not isinstance(dtype, DataType):
        raise TypeError(f"get_num_bytes_of_data_type: argument 'dtype' must be an oar.inference.DataType, "
                        f"but got {type(dtype).__name__}")
    return _NUM_BYTES[dtype.name]


def get_trt_compile_version():
    """The TensorRT version oar was compiled with: (0, 0, 0), since oar does not use TensorRT
    (as Paddle's builds without TensorRT answer).

    Returns:
        tuple[int, int, int]

    Examples:
        >>> import oar
        >>> print(oar.inference.get_trt_compile_version())
        (0, 0, 0)
    """
    return (0, 0, 0)


def get_trt_runtime_version():
    """The TensorRT version found at run time: (0, 0, 0), since oar does not use TensorRT.

    Returns:
        tuple[int, int, int]

    Examples:
        >>> import oar
        >>> print(oar.inference.get_trt_runtime_version())
        (0, 0, 0)
    """
    return (0, 0, 0)


class PlaceType(enum.IntEnum):
    """Where a predictor runs (paddle.inference.PlaceType): UNK, CPU, GPU, XPU, CUSTOM, with
    Paddle's values.

    Examples:
        >>> import oar
        >>> print(int(oar.inference.PlaceType.GPU), oar.inference.PlaceType.CPU.name)
        1 CPU
    """
    UNK = -1
    CPU = 0
    GPU = 1
    XPU = 2
    CUSTOM = 4


class PrecisionType(enum.IntEnum):
    """The precision of a predictor's computation (paddle.inference.PrecisionType): Float32, Int8,
    Half, Bfloat16, with Paddle's values.

    Examples:
        >>> import oar
        >>> print(int(oar.inference.PrecisionType.Half))
        2
    """
    Float32 = 0
    Int8 = 1
    Half = 2
    Bfloat16 = 3


class XpuConfig:
    """The settings of an XPU predictor (paddle.inference.XpuConfig), with Paddle's defaults. oar
    has no XPU backend: the object only holds its fields.

    Examples:
        >>> import oar
        >>> cfg = oar.inference.XpuConfig()
        >>> cfg.device_id, cfg.l3_size
        (0, 0)
    """

    def __init__(self):
        self.device_id = 0
        self.l3_size = 0
        self.l3_ptr = None
        self.l3_autotune_size = 0
        self.context_gm_size = -1
        self.context = None
        self.stream = None
        self.conv_autotune_level = 0
        self.conv_autotune_file = ""
        self.conv_autotune_file_writeback = False
        self.fc_autotune_level = 0
        self.fc_autotune_file = ""
        self.fc_autotune_file_writeback = False
        self.gemm_compute_precision = 1
        self.transformer_softmax_optimize_level = 0
        self.transformer_encoder_adaptive_seqlen = True
        self.quant_post_static_gelu_out_threshold = 10.0
        self.quant_post_dynamic_activation_method = 0
        self.quant_post_dynamic_weight_precision = 1
        self.quant_post_dynamic_op_types = []
