"""The op table: oar op name -> converter, the one place that says which oar ops export.

A converter is `fn(ctx)` over a GraphBuilder (`..graph`) whose `op` is the operation to convert.
Each topic module (activation, math, nn, rnn, shape) registers its converters here with
`@converts("op", ...)`; `oar.onnx.supported_ops()` lists the table.
"""
CONVERTERS = {}


def converts(*names):
    def register(fn):
        for name in names:
            if name in CONVERTERS:
                raise RuntimeError(f"oar.onnx: two converters for '{name}'")
            CONVERTERS[name] = fn
        return fn
    return register
