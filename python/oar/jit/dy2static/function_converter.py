"""convert_function: a user function rewritten so that its tensor-dependent control flow builds IR.

Pipeline: source AST (source.py) -> private-name mangling for methods -> return lowering ->
break/continue lowering -> control-flow and call conversion -> variables the generated functions
carry start as UndefinedVar -> compile with the user's file name (line numbers kept, so tracebacks
and errors point at the user's lines).

The new `def` is compiled inside a factory function whose parameters are the original's free
variables and `_oar_jst` (the runtime converters), so the new code refers to them as closure cells;
the function object is then built from that code with the original's globals, defaults and its
own closure cells, so globals and nonlocals stay live and zero-argument `super()` keeps working.
Compiled code is cached per original code object, converted functions per function object.
"""
import __future__
import ast
import types
import weakref

from . import ast_build as b
from .break_continue_lowering import BreakContinueLowering
from .control_flow_transformer import ControlFlowTransformer
from .errors import Dy2StaticError
from . import logging_utils
from .name_analysis import declared_outside, first_of
from .return_lowering import lower_returns
from .source import ExplicitSuper, PrivateNameMangling, function_ast, owning_class_name

_code_cache = {}                                  # original code -> converted code
_source_cache = {}                                # original code -> converted source text
_function_cache = weakref.WeakKeyDictionary()     # original function -> converted function
_unconvertible = weakref.WeakSet()               # functions convert_call leaves as they are
_FUTURE_FLAGS = __future__.annotations.compiler_flag  # `from __future__ import annotations`


def _parameter_names(fdef):
    a = fdef.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
    return set(names)


def _converted_code(fn):
    code = fn.__code__
    if code in _code_cache:
        return _code_cache[code]
    fdef = function_ast(fn)
    generator = first_of(fdef.body, (ast.Yield, ast.YieldFrom, ast.Await))
    if generator is not None or isinstance(fdef, ast.AsyncFunctionDef):
        line = generator.lineno if generator is not None else fdef.lineno
        raise Dy2StaticError((code.co_filename, line),
                             f"{fn.__qualname__} is a generator or coroutine function",
                             "Return the values (e.g. as a list or a stacked tensor) instead of "
                             "yielding them")
    cls = owning_class_name(fn)
    if cls is not None:
        fdef = PrivateNameMangling(cls).visit(fdef)
    positional = fdef.args.posonlyargs + fdef.args.args
    if "__class__" in code.co_freevars and positional:
        fdef.body = [ExplicitSuper(positional[0].arg).visit(s) for s in fdef.body]
    declared = declared_outside(fdef.body)
    lower_returns(fdef)
    fdef.body = [BreakContinueLowering().visit(s) for s in fdef.body]
    fdef.body = [s for item in fdef.body for s in (item if isinstance(item, list) else [item])]
    transformer = ControlFlowTransformer(code.co_filename, declared)
    body = []
    for stmt in fdef.body:
        new = transformer.visit(stmt)
        body.extend(new if isinstance(new, list) else [new])
    params = _parameter_names(fdef)
    first = fdef.body[0]
    init = [b.located(b.assign(n, b.call_jst("UndefinedVar", b.const(n))), first)
            for n in sorted(transformer.carried - params) if n not in (b.RETURN_VALUE,)]
    fdef.body = init + body
    fdef.name = "_oar_converted"       # its own name inside the factory would shadow the global
    factory_args = list(code.co_freevars) + [b.JST]
    factory = b.function("_oar_factory", factory_args, [fdef])
    module = ast.Module(body=[b.located(factory, fdef)], type_ignores=[])
    ast.fix_missing_locations(module)
    compiled = compile(module, code.co_filename, "exec", flags=code.co_flags & _FUTURE_FLAGS,
                       dont_inherit=True)
    factory_code = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))
    new_code = next(c for c in factory_code.co_consts
                    if isinstance(c, types.CodeType) and c.co_name == fdef.name)
    new_code = new_code.replace(co_name=code.co_name, co_qualname=code.co_qualname)
    fdef.name = code.co_name
    _code_cache[code] = new_code
    _source_cache[code] = ast.unparse(fdef)
    logging_utils.log(1, f"Convert callable object: convert {code.co_qualname}.")
    logging_utils.log_code(code.co_qualname, _source_cache[code])
    return new_code


def convert_function(fn):
    """The converted twin of a Python function or bound method (cached).

    On Python values and eager tensors it returns exactly what `fn` returns; while a program is
    being built (some predicate symbolic) its tensor-dependent control flow builds IR ops.
    """
    if isinstance(fn, types.MethodType):
        return types.MethodType(convert_function(fn.__func__), fn.__self__)
    if not isinstance(fn, types.FunctionType):
        raise TypeError(f"convert_function expects a Python function or method, got "
                        f"{type(fn).__name__}")
    if getattr(fn, "__oar_dy2static_original__", None) is not None:
        return fn                                     # already converted
    cached = _function_cache.get(fn)
    if cached is not None:
        return cached
    from . import jst
    code = _converted_code(fn)
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    cells[b.JST] = types.CellType(jst)
    closure = tuple(cells[name] for name in code.co_freevars)
    new = types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__annotations__ = fn.__annotations__
    new.__qualname__, new.__module__, new.__doc__ = fn.__qualname__, fn.__module__, fn.__doc__
    new.__dict__.update(fn.__dict__)
    new.__wrapped__ = fn
    new.__oar_dy2static_original__ = fn
    _function_cache[fn] = new
    return new


def converted_source(fn):
    """The Python source of `fn`'s converted twin (to read what the converter made of it)."""
    fn = getattr(fn, "__func__", fn)
    fn = getattr(fn, "__oar_dy2static_original__", None) or fn
    _converted_code(fn)
    return _source_cache[fn.__code__]


def converted_or_none(fn):
    """convert_function(fn), or None when fn cannot be converted (convert_call then calls fn)."""
    if fn in _unconvertible:
        return None
    try:
        return convert_function(fn)
    except (Dy2StaticError, SyntaxError):   # no source, or source inspect cannot isolate
        _unconvertible.add(fn)
        return None


def convert_layer_call(layer):
    """A callable that runs `layer` (with its hooks) with its `forward` converted (the layer
    itself when its forward cannot be converted, e.g. it has no source)."""
    converted = converted_or_none(type(layer).forward)
    if converted is None:
        return layer
    forward = converted.__get__(layer, type(layer))

    def call(*inputs, **kwargs):
        return layer._run_forward(forward, inputs, kwargs)
    call.__wrapped__ = layer
    return call


