"""jit.save / jit.load (paddle.jit): a Layer's forward traced into a program and written as
`<path>.pdmodel` (the program's text form) + `<path>.pdiparams` (the weights, safetensors);
loading gives a TranslatedLayer that runs the program, trains, and saves again
(docs/model_format.md)."""
import os
import warnings

from .. import _C
from ..framework import mode
from ..framework.atomic_files import write_prefixed_files
from ..static.input_spec import InputSpec
from .to_static import StaticFunction
from .translated_layer import TranslatedLayer

_ir = _C._ir


def _prefix(path, api):
    if not isinstance(path, str) or not path:
        raise ValueError(f"{api}: path must be a non-empty str (a file prefix such as 'out/model'), got {path!r}")
    if path.endswith(os.sep) or os.path.basename(path) == "":
        raise ValueError(f"{api}: path '{path}' is a directory; give a file prefix such as '{path}model'")
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    return path


def _save_program(path, program, params=None):
    """Writes program and the weights it reads (from `params`, default its captured tensors),
    with the trainable names so that jit.load makes only those Parameters. Paddle's format
    (`<path>.json` + `<path>.pdiparams`) when every op has a Paddle form, else oar's own
    (`<path>.pdmodel` + safetensors `<path>.pdiparams`, with a warning naming the ops)."""
    params = program._parameters() if params is None else params
    needed = program._program.parameter_names()
    trainable = [n for n in needed if not params[n].stop_gradient]
    missing = _ir.ops_without_paddle_form(program._program)
    if missing:
        warnings.warn(f"jit.save: '{path}' is written in oar's own format ({path}.pdmodel), which real Paddle "
                      f"cannot load: these ops have no Paddle form yet: {'; '.join(missing)}", stacklevel=3)
    program_suffix, stale_suffix = (".pdmodel", ".json") if missing else (".json", ".pdmodel")

    def write(prefix):  # <prefix>.pdiparams, then the program file, each fsynced
        _ir.save_model(prefix, program._program, {n: params[n] for n in needed}, {"trainable": ",".join(trainable)})
    # Both files are written before either replaces its old file, so a kill mid-save leaves the
    # previous pair (bar the instant between the two renames), never a new program beside old
    # weights. The other format's program file, left by an earlier save, would be read first or
    # mislead: it goes.
    write_prefixed_files(path, (".pdiparams", program_suffix), write)
    if os.path.exists(path + stale_suffix):
        os.remove(path + stale_suffix)


def traced_program(layer, input_spec=None, api="jit.save"):
    """The program jit.save writes for `layer` (a Layer, a to_static function or a TranslatedLayer):
    an object whose `_program` is the IR program and `_parameters()` the weights it reads. Shared
    with the exporters (oar.onnx)."""
    from ..nn import Layer
    if isinstance(layer, TranslatedLayer):
        return layer._concrete.main_program
    if isinstance(layer, StaticFunction):
        static, target = layer, None
    elif isinstance(layer, Layer):
        fwd = layer.__dict__.get("forward")
        static = fwd if isinstance(fwd, StaticFunction) else StaticFunction(type(layer).forward, None, layer=layer)
        target = layer
    elif callable(layer):
        static, target = StaticFunction(layer, None), None
    else:
        raise TypeError(f"{api}: expected a Layer or a function, got {type(layer).__name__}")
    specs = input_spec if input_spec is not None else static._input_spec
    if specs is None:
        if static._cache:
            return next(reversed(static._cache.values())).main_program
        raise ValueError(f"{api}: give input_spec (a list of oar.static.InputSpec), or call the to_static "
                         "layer once before saving, so that the input shapes are known")
    specs = [s if isinstance(s, InputSpec) else InputSpec.from_tensor(s) for s in specs]
    entry = StaticFunction(static._function, specs, layer=target if target is not None else static._layer)._build(
        specs, [], {})
    return entry.main_program


def save(layer, path, input_spec=None, **configs):
    """Saves layer's forward as a program plus its weights (paddle.jit.save)."""
    path = _prefix(path, "jit.save")
    _save_program(path, traced_program(layer, input_spec))


def model_file_of(prefix):
    """The program file of a saved model: `<prefix>.json` (Paddle 3's PIR program, what Paddle
    reads first) when it exists, else `<prefix>.pdmodel`."""
    return prefix + ".json" if os.path.exists(prefix + ".json") else prefix + ".pdmodel"


def load(path, **configs):
    """Loads a model saved by jit.save (oar's or real Paddle's) as a TranslatedLayer (paddle.jit.load)."""
    if not isinstance(path, str):
        raise TypeError(f"jit.load: path must be a str, got {type(path).__name__}")
    model_file, params_file = model_file_of(path), path + ".pdiparams"
    with mode.eager():
        program, params, meta = _ir.load_model(model_file, params_file)
        trainable = set(meta.get("trainable", "").split(",")) if "trainable" in meta else None
        return TranslatedLayer(program, params, trainable)
