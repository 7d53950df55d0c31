"""oar.inference (paddle.inference): load a model saved with oar.jit.save or
static.save_inference_model and run it through the C++ predictor."""
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
