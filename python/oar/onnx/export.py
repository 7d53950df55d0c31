"""oar.onnx.export (paddle.onnx.export): a Layer's forward, traced as jit.save traces it, written
as an ONNX model `<path>.onnx` (docs/onnx.md).

The program (`traced_program`) is read through Program.describe(): its `data` ops become the
graph inputs (named as the InputSpecs, -1 dims as symbolic dims), its parameters initializers,
its `fetch` ops the outputs in order, and every other op that an output depends on goes through
its converter (converters.CONVERTERS). The model is built with the onnx package's protobuf
classes, checked with onnx.checker and written crash-safely (framework/atomic_files.py).

Opsets: Paddle's default opset_version is 9, which most models outgrow (ceil-mode pools want 10,
Trilu 14, ...). As paddle2onnx does by default, the export raises the opset to the lowest one that
every op needs and warns, naming the ops; with auto_upgrade_opset=False it raises a ValueError
naming them instead. Converters prefer forms that work at low opsets, so a raise is rare.
"""
import warnings

from ..jit.save_load import _prefix, traced_program
from ..static.input_spec import InputSpec
from ..framework.atomic_files import write_file

MIN_OPSET = 9
# paddle.jit.save's options: accepted for compatibility; only output_spec and
# input_names_after_prune change an ONNX file.
_JIT_SAVE_CONFIGS = ("output_spec", "with_hook", "combine_params", "clip_extra", "skip_forward",
                     "input_names_after_prune", "skip_prune_program", "separate_parameters")
# paddle2onnx's options that mean something here.
_P2O_CONFIGS = ("auto_upgrade_opset", "enable_onnx_checker", "verbose")


def _import_onnx():
    try:
        import onnx
    except ImportError as e:
        raise ImportError("oar.onnx.export needs the 'onnx' package: pip install onnx") from e
    return onnx


def max_opset():
    """The newest opset the installed onnx package defines."""
    return _import_onnx().defs.onnx_opset_version()


def export(layer, path, input_spec=None, opset_version=9, **configs):
    """Exports layer's forward as an ONNX model written to ``path + '.onnx'`` (paddle.onnx.export).

    Args:
        layer (Layer|function): The Layer (or to_static function) to export.
        path (str): The file prefix, ``dirname/file_prefix`` or ``file_prefix``; the model is
            written to ``path + '.onnx'`` (missing directories are made).
        input_spec (list[InputSpec|Tensor], optional): The forward's inputs; a None or -1 dim is
            dynamic (a symbolic dim of the ONNX input). Default: None (the shapes of the
            to_static layer's last call).
        opset_version (int, optional): The ONNX opset to write, at least 9. When an op needs a
            newer one, the export uses the lowest that suffices and warns (see auto_upgrade_opset).
            Default: 9.
        **configs: output_spec (list[int]): the positions of the forward's outputs to keep (the
            graph is pruned to them); input_names_after_prune (list[str]): the inputs to keep
            (the others must be unused); auto_upgrade_opset (bool, default True): raise the opset
            when an op needs it, else a ValueError; enable_onnx_checker (bool, default True): run
            onnx.checker.check_model before writing. paddle.jit.save's other options are accepted
            and ignored.

    Raises:
        NotImplementedError: an op of the program has no ONNX conversion (named, with its place
            in the program).
        ValueError: a bad path, opset_version or config; an op that needs a newer opset than
            opset_version when auto_upgrade_opset is False.

    Examples:
        >>> import oar
        >>> model = oar.nn.Linear(128, 10)
        >>> x_spec = oar.static.InputSpec(shape=[None, 128], dtype='float32', name='x')
        >>> oar.onnx.export(model, 'linear_net', input_spec=[x_spec])  # doctest: +SKIP
    """
    for key in configs:
        if key not in _JIT_SAVE_CONFIGS + _P2O_CONFIGS:
            raise ValueError(f"The additional config ({key}) of `oar.onnx.export` is not supported.")
    if isinstance(opset_version, bool) or not isinstance(opset_version, int):
        raise TypeError(f"oar.onnx.export: opset_version must be an int, got {type(opset_version).__name__}")
    onnx = _import_onnx()
    newest = onnx.defs.onnx_opset_version()
    if not MIN_OPSET <= opset_version <= newest:
        raise ValueError(f"oar.onnx.export: opset_version must be between {MIN_OPSET} and {newest} (the "
                         f"newest of the installed onnx {onnx.__version__}), got {opset_version}")
    if input_spec is not None:
        if not isinstance(input_spec, (list, tuple)):
            raise TypeError("oar.onnx.export: input_spec must be a list of oar.static.InputSpec or "
                            f"Tensor, got {type(input_spec).__name__}")
        from .. import Tensor
        for i, spec in enumerate(input_spec):
            if not isinstance(spec, (InputSpec, Tensor)):
                raise TypeError(f"oar.onnx.export: input_spec[{i}] must be an oar.static.InputSpec or a "
                                f"Tensor, got {type(spec).__name__}")
    if isinstance(path, str) and path.endswith(".onnx"):
        warnings.warn(f"oar.onnx.export: path is a file prefix; the model is written to '{path}.onnx' "
                      "(as paddle.onnx.export)", stacklevel=2)
    path = _prefix(path, "onnx.export")
    program = traced_program(layer, input_spec, api="onnx.export")
    model = program_to_onnx(program, opset_version, output_spec=configs.get("output_spec"),
                            input_names=configs.get("input_names_after_prune"),
                            auto_upgrade=configs.get("auto_upgrade_opset", True))
    data = _serialize(model)
    if configs.get("enable_onnx_checker", True):
        onnx.checker.check_model(data)  # the bytes: the checker would serialize the model again
    write_file(path + ".onnx", lambda f: f.write(data))


def _serialize(model):
    try:
        return model.SerializeToString()
    except ValueError as e:  # protobuf's 2 GiB message limit
        raise ValueError(f"oar.onnx.export: the model does not fit one ONNX file (protobuf's 2 GiB limit; "
                         f"ONNX external data is not written by oar): {e}") from e


# ---- the program as an ONNX model ---------------------------------------------------------------
def _select_fetches(fetches, output_spec):
    if output_spec is None:
        return fetches
    if not isinstance(output_spec, (list, tuple)):
        raise TypeError(f"The config `output_spec` should be 'list', but received input type is "
                        f"{type(output_spec).__name__}.")
    positions = []
    for spec in output_spec:
        if isinstance(spec, bool) or not isinstance(spec, int):
            if len(output_spec) == len(fetches):  # Paddle keeps every output then, warning
                warnings.warn("oar.onnx.export: output_spec selects outputs by position (ints); the "
                              f"given {type(spec).__name__} is ignored and every output is kept")
                return fetches
            raise ValueError(f"oar.onnx.export: output_spec selects outputs by position (an int below "
                             f"{len(fetches)}), got {type(spec).__name__}")
        if not -len(fetches) <= spec < len(fetches):
            raise ValueError(f"oar.onnx.export: output_spec position {spec} should be smaller than the "
                             f"output count {len(fetches)}")
        positions.append(spec % len(fetches))
    return [fetches[p] for p in positions]


def _live_values(ops, fetches):
    """The value ids that the fetched values depend on (the rest of the program is not exported)."""
    live = {op.operands[0][0] for op in fetches}
    for op in reversed(ops):
        if any(r[0] in live for r in op.results):
            live.update(v for slot in op.operands for v in slot)
    return live


def _value_info(name, dtype, shape):
    from onnx import helper

    from .graph import onnx_dtype
    dims = [d if d >= 0 else f"{name}_dim{i}" for i, d in enumerate(shape)]
    return helper.make_tensor_value_info(name, onnx_dtype(dtype, name), dims)


def _text_of(program, op):
    """The op's line in the program's text form (for error messages)."""
    if not op.results:
        return ""
    head = f"%{op.results[0][0]}"
    for line in str(program).splitlines():
        if line.strip().startswith((head + " ", head + ",")):
            return f": {line.strip()}"
    return ""


def program_to_onnx(program, opset_version=9, output_spec=None, input_names=None, auto_upgrade=True):
    """The ONNX ModelProto of a traced program (see export)."""
    from onnx import helper

    from .converters import CONVERTERS
    from .graph import NeedsOpset, Op

    ops = [Op(i, d) for i, d in enumerate(program._program.describe())]
    data = [op for op in ops if op.name == "data"]
    fetches = _select_fetches([op for op in ops if op.name == "fetch"], output_spec)
    body = [op for op in ops if op.name not in ("data", "fetch", "parameter")]
    live = _live_values(body, fetches)
    body = [op for op in body if any(r[0] in live for r in op.results)]
    for op in body:
        if op.name not in CONVERTERS or op.regions:
            raise NotImplementedError(
                f"oar.onnx.export: the oar op '{op.name}' has no ONNX conversion (at opset "
                f"{opset_version}); it is {op.where()} of the program{_text_of(program._program, op)}. "
                "oar.onnx.supported_ops() lists the ops that export (docs/onnx.md)")
    weights = program._parameters()
    parameters = {}
    for op in ops:
        if op.name == "parameter" and op.results[0][0] in live:
            parameters[op.results[0][0]] = (op.attrs["name"], weights[op.attrs["name"]].numpy())
    values = {r[0]: (r[1], list(r[2])) for op in ops for r in op.results}

    opset, raised = opset_version, []
    while True:
        try:
            ctx = _convert(body, data, fetches, values, parameters, live, opset)
            break
        except NeedsOpset as need:
            raised.append(need)
            where = f"the oar op '{need.op.name}' ({need.why}, {need.op.where()}) needs opset {need.version}"
            if not auto_upgrade:
                raise ValueError(f"oar.onnx.export: {where}, but opset_version is {opset_version}; "
                                 f"export with opset_version={need.version} or higher") from None
            opset = need.version
    if raised:
        ops_needing = "; ".join(f"'{n.op.name}' ({n.why}) needs {n.version}" for n in raised)
        warnings.warn(f"oar.onnx.export: opset_version {opset_version} is raised to {opset}: {ops_needing}",
                      stacklevel=3)
    if ctx.training:
        warnings.warn("oar.onnx.export: the model is exported for inference; these training-mode forms are "
                      "written as their inference forms (call layer.eval() before exporting): "
                      + "; ".join(ctx.training), stacklevel=3)

    inputs = [_value_info(op.attrs["name"], op.results[0][1], op.results[0][2]) for op in data]
    if input_names is not None:
        keep = set(input_names)
        unknown = keep - {op.attrs["name"] for op in data}
        if unknown:
            raise ValueError(f"oar.onnx.export: input_names_after_prune names unknown inputs {sorted(unknown)}")
        read = {n for node in ctx.nodes for n in node.input}
        for info in inputs:
            if info.name not in keep and info.name in read:
                raise ValueError(f"oar.onnx.export: input '{info.name}' is pruned by input_names_after_prune, "
                                 "but the outputs depend on it")
        inputs = [info for info in inputs if info.name in keep]
    outputs = [_value_info(op.attrs["name"], *values[op.operands[0][0]]) for op in fetches]
    graph = helper.make_graph(ctx.nodes, "oar", inputs, outputs, initializer=list(ctx.initializers.values()))
    opsets = [helper.make_opsetid("", opset)]
    from .. import __version__
    model = helper.make_model(graph, opset_imports=opsets, producer_name="oar", producer_version=__version__)
    model.ir_version = helper.find_min_ir_version_for(opsets)
    return model


def _convert(body, data, fetches, values, parameters, live, opset):
    from .converters import CONVERTERS
    from .graph import GraphBuilder, Unsupported
    ctx = GraphBuilder(opset, values, parameters, live)
    for name, _ in parameters.values():
        ctx.reserve(name)
    for op in data:
        ctx.names[op.results[0][0]] = ctx.reserve(op.attrs["name"])
    produced = {r[0] for op in body for r in op.results}
    late = []  # fetches of inputs, weights or values fetched twice: an Identity each
    for op in fetches:
        vid, name = op.operands[0][0], ctx.reserve(op.attrs["name"])
        if vid in produced and vid not in ctx.names:
            ctx.names[vid] = name
        else:
            late.append((vid, name))
    for op in body:
        ctx.op = op
        try:
            CONVERTERS[op.name](ctx)
        except Unsupported as e:
            raise Unsupported(f"oar.onnx.export (opset {opset}): {e}") from None
    ctx.op = None
    for vid, name in late:
        ctx.node("Identity", [ctx.name_of(vid)], [name])
    return ctx
