"""TranslatedLayer (paddle.jit.TranslatedLayer): a saved program as a Layer. forward runs the
program on the C++ executor with autograd recording, and its weights are Parameters, so it can
be fine-tuned and saved again."""
from .. import _C
from ..framework.parameter import Parameter
from ..nn import Layer
from ..static.program import Program
from .to_static import ConcreteProgram

_ir = _C._ir


class TranslatedLayer(Layer):
    """The Layer oar.jit.load returns: it runs a program saved by oar.jit.save or by real Paddle
    (path + '.json'; oar's own format: path + '.pdmodel') with its parameters (path + '.pdiparams'),
    which become this layer's parameters (fine-tunable).
    Call it like the original layer; program() gives the loaded program.

    Args:
        program: The loaded program (internal).
        params (dict): Parameter name to tensor, as saved.
        trainable (collection of str, optional): Names of the trainable parameters; None makes all
            of
            them trainable. Default: None.
    """

    def __init__(self, program, params, trainable=None):
        super().__init__()
        for name, t in params.items():
            if name.startswith("_const_"):  # constants the traced code made: not trainable
                self._buffers[name] = t
                continue
            p = Parameter(t, name=name, trainable=trainable is None or name in trainable)
            self._parameters[name] = p  # keyed by the saved names, which the program reads
        program_obj = Program(program)
        program_obj._parameters = self._weights  # the program reads this layer's current weights
        self._input_names = program.input_names()
        indices = _ir.output_indices(program)
        spec = ("T",) if len(indices) == 1 else (list, [("T",)] * len(indices))
        self._concrete = ConcreteProgram(program_obj, self._input_names, spec, indices)

    def _weights(self):
        out = dict(self._buffers)
        out.update(self._parameters)
        return out

    def forward(self, *inputs):
        if len(inputs) != len(self._input_names):
            raise ValueError(f"TranslatedLayer: the model takes {len(self._input_names)} input(s) "
                             f"{self._input_names}, got {len(inputs)}")
        from ..tensor.creation import to_tensor
        # The program runs where the inputs are (arrays: on the expected place).
        feeds = {n: (x if isinstance(x, _C.Tensor) else to_tensor(x)) for n, x in zip(self._input_names, inputs)}
        outs = self._concrete.run(feeds, self._weights())
        return outs[0] if len(outs) == 1 else list(outs)

    def program(self, method_name="forward"):
        return self._concrete.main_program
