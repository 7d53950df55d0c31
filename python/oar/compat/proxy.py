"""The `import torch` switch of oar.enable_compat / oar.disable_compat (paddle.enable_compat, that is
paddle.compat.enable_torch_proxy).

While it is on, an import finder placed first on sys.meta_path answers `import torch` and
`import torch.<sub>` with proxy modules over oar and oar.<sub>: `torch.sin is oar.sin`, and the
names of oar.compat, oar.compat.nn and oar.compat.nn.functional stand in for their torch
namesakes (torch.split is oar.compat.split, torch.nn.Linear is oar.compat.nn.Linear, ...).
torch.relu is oar.nn.functional.relu.

- Globally (scope=None) every `import torch` is answered.
- With a scope (a module name or names), only the code of those modules (and their submodules)
  gets the proxy: their `import torch` statements, run while they load or later from their
  functions, see oar; elsewhere `import torch` behaves as without the switch.
- Blocked modules (tvm_ffi by default, more with blocked_modules= or
  extend_torch_proxy_blocked_modules) never get the proxy.
A real torch that was imported before is set aside while the switch is on and put back by
disable_compat."""
import contextlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
import warnings

__all__ = ["enable_torch_proxy", "disable_torch_proxy", "use_torch_proxy_guard",
           "extend_torch_proxy_blocked_modules"]

_ENABLED_MARK = "__oar_torch_proxy_enabled__"
_DISABLED_MARK = "__oar_torch_proxy_disabled__"
_BLOCKED = {"tvm_ffi"}
_EXTRA = {"torch.relu": ("oar.nn.functional", "relu")}
_real_torch = {}  # the real torch modules set aside while the proxy is on


def _under(name, roots):
    return any(name == r or name.startswith(r + ".") for r in roots)


def _is_torch(name):
    return _under(name, ("torch",))


def _called_from(mark):
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_globals.get(mark):
            return True
        frame = frame.f_back
    return False


def _overrides(torch_name):
    """{attribute: value} that replace oar's own names in the proxy of torch_name."""
    import oar.compat
    import oar.compat.nn
    import oar.compat.nn.functional
    table = {"torch": oar.compat, "torch.nn": oar.compat.nn, "torch.nn.functional": oar.compat.nn.functional}
    out = {}
    module = table.get(torch_name)
    if module is not None:
        out.update({n: getattr(module, n) for n in module.__all__})
    for full, (mod, attr) in _EXTRA.items():
        parent, _, leaf = full.rpartition(".")
        if parent == torch_name:
            out[leaf] = getattr(importlib.import_module(mod), attr)
    return out


class TorchProxyModule(types.ModuleType):
    """A module named torch[.sub] whose attributes are oar[.sub]'s, with oar.compat's overrides."""

    def __init__(self, source, name, overrides):
        super().__init__(name)
        object.__setattr__(self, "_oar_source", source)
        object.__setattr__(self, "_oar_overrides", overrides)

    def __getattr__(self, name):
        overrides = object.__getattribute__(self, "_oar_overrides")
        if name in overrides:
            return overrides[name]
        return getattr(object.__getattribute__(self, "_oar_source"), name)


class _ProxyLoader(importlib.abc.Loader):
    def __init__(self, source, name):
        self._source, self._name = source, name

    def create_module(self, spec):
        module = TorchProxyModule(self._source, self._name, _overrides(self._name))
        module.__file__ = getattr(self._source, "__file__", None)
        if hasattr(self._source, "__path__"):
            module.__path__ = []
        return module

    def exec_module(self, module):
        overrides = object.__getattribute__(module, "_oar_overrides")
        for key, value in vars(self._source).items():
            if key in ("__name__", "__package__", "__path__", "__spec__", "__loader__") or key in overrides:
                continue
            if isinstance(value, types.ModuleType) and value.__name__.startswith("oar."):
                sub = self._name + "." + key
                value = sys.modules.get(sub) or TorchProxyModule(value, sub, _overrides(sub))
            module.__dict__[key] = value
        module.__dict__.update(overrides)


class _MarkingLoader(importlib.abc.Loader):
    """Runs another loader and marks the module it made as inside (or outside) the proxy's scope."""

    def __init__(self, inner, mark):
        self._inner, self._mark = inner, mark

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module):
        # The mark is in the module's globals before its code runs, so its own `import torch`
        # statements (at load time or later, from its functions) find it on the call stack.
        module.__dict__[self._mark] = True
        self._inner.exec_module(module)


class _TorchProxyFinder(importlib.abc.MetaPathFinder):
    def __init__(self):
        self.scope = set()
        self.globally = True

    def _marked_spec(self, fullname, mark):
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _MarkingLoader(spec.loader, mark)
        return spec

    def find_spec(self, fullname, path=None, target=None):
        if _under(fullname, _BLOCKED):
            return self._marked_spec(fullname, _DISABLED_MARK)
        if not self.globally and _under(fullname, self.scope):
            return self._marked_spec(fullname, _ENABLED_MARK)
        if not _is_torch(fullname):
            return None
        if _called_from(_DISABLED_MARK):
            return self._real_spec(fullname)
        if not self.globally and not _called_from(_ENABLED_MARK):
            return self._real_spec(fullname)
        source_name = "oar" + fullname[len("torch"):]
        try:
            source = importlib.import_module(source_name)
        except ImportError:
            return None
        return importlib.util.spec_from_loader(fullname, _ProxyLoader(source, fullname),
                                               is_package=hasattr(source, "__path__"),
                                               origin=getattr(source, "__file__", None))

    @staticmethod
    def _real_spec(fullname):
        module = _real_torch.get(fullname)
        if module is None:
            return None  # the other finders decide (the real torch, or ModuleNotFoundError)

        class _Cached(importlib.abc.Loader):
            def create_module(self, spec):
                return module

            def exec_module(self, module):
                pass

        return importlib.util.spec_from_loader(fullname, _Cached(), is_package=hasattr(module, "__path__"))


_FINDER = _TorchProxyFinder()


def _installed():
    return _FINDER in sys.meta_path


def _as_set(scope):
    if scope is None:
        return None
    if isinstance(scope, str):
        return {scope}
    return set(scope)


def _drop_torch_modules(keep_real):
    for name, module in list(sys.modules.items()):
        if _is_torch(name):
            if keep_real and not isinstance(module, TorchProxyModule):
                _real_torch[name] = module
            del sys.modules[name]


def enable_torch_proxy(*, scope=None, blocked_modules=None, backend="torch", silent=False):
    """Turns the `import torch` switch on (paddle.enable_compat): `import torch` then gives a proxy
    of oar whose functions and layers are oar's, with oar.compat's PyTorch-style versions where
    the signatures differ.

    Args:
        scope (str|Iterable[str], optional): Only these modules (and their submodules) get the proxy
            when they import torch; None: every import. Default: None.
        blocked_modules (str|Iterable[str], optional): Modules that never get it. Default: None.
        backend (str, optional): Only "torch". Default: "torch".
        silent (bool, optional): No warning when a scope is widened. Default: False.

    Examples:
        >>> import oar
        >>> oar.enable_compat()
        >>> import torch
        >>> print(torch.sin is oar.sin, torch.split is oar.compat.split)
        True True
        >>> oar.disable_compat()
    """
    if backend != "torch":
        raise AssertionError(f"Unsupported backend: {backend}")
    blocked = _as_set(blocked_modules)
    if blocked:
        extend_torch_proxy_blocked_modules(blocked)
    scope = _as_set(scope)
    _drop_torch_modules(keep_real=True)

    def say(message):
        if not silent:
            warnings.warn(message)

    if not _installed():
        _FINDER.scope, _FINDER.globally = (scope or set()), scope is None
    elif _FINDER.globally:
        if scope is not None:
            say("PyTorch already enabled globally, scope modification ignored.")
        _FINDER.scope, _FINDER.globally = (scope or set()), scope is None
    elif scope is None:
        say("Enabling PyTorch compat globally, previous scope will be ignored.")
        _FINDER.globally = True
    else:
        if scope != _FINDER.scope:
            say(f"Extending PyTorch compat scope, previous scope: {_FINDER.scope}, new scope: {scope}.")
        _FINDER.scope |= scope
    if _installed():
        sys.meta_path.remove(_FINDER)
    sys.meta_path.insert(0, _FINDER)


def disable_torch_proxy():
    """Turns the `import torch` switch off (paddle.disable_compat): the proxy modules leave
    sys.modules and a real torch imported before comes back. Warns when the switch was off.

    Examples:
        >>> import oar
        >>> oar.enable_compat()
        >>> oar.disable_compat()
        >>> import sys
        >>> print(isinstance(sys.modules.get('torch'), oar.compat.proxy.TorchProxyModule))
        False
    """
    if not _installed():
        warnings.warn("torch compat is not installed.")
        return
    sys.meta_path.remove(_FINDER)
    _drop_torch_modules(keep_real=False)
    sys.modules.update(_real_torch)
    _real_torch.clear()


@contextlib.contextmanager
def use_torch_proxy_guard(*, enable=True, scope=None, silent=False):
    """A with block with the `import torch` switch on (enable=True) or off, restored afterwards.

    Args:
        enable (bool, optional): On or off inside the block. Default: True.
        scope (str|Iterable[str], optional): As enable_torch_proxy's. Default: None.
        silent (bool, optional): As enable_torch_proxy's. Default: False.

    Examples:
        >>> import oar
        >>> with oar.compat.use_torch_proxy_guard():
        ...     import torch
        ...     print(torch.cos is oar.cos)
        True
    """
    scope = _as_set(scope)
    was_on = _installed()
    old_scope, old_global = set(_FINDER.scope), _FINDER.globally
    if enable == was_on and ((old_global and scope is None) or old_scope == (scope or set())):
        yield
        return
    if enable:
        enable_torch_proxy(scope=scope, silent=silent)
        try:
            yield
        finally:
            _FINDER.scope, _FINDER.globally = old_scope, old_global
            disable_torch_proxy()
            if was_on:
                enable_torch_proxy(scope=None if old_global else old_scope, silent=True)
    else:
        disable_torch_proxy()
        try:
            yield
        finally:
            enable_torch_proxy(scope=None if old_global else old_scope, silent=True)


def extend_torch_proxy_blocked_modules(modules):
    """Adds modules that never get the `import torch` proxy (their imports and the code they run).

    Args:
        modules (Iterable[str]): Module names.

    Examples:
        >>> import oar
        >>> oar.compat.extend_torch_proxy_blocked_modules(['my_module'])
    """
    _BLOCKED.update([modules] if isinstance(modules, str) else modules)
