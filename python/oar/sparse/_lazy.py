"""`oar` for the sparse modules, looked up when a function runs rather than when the module
loads: oar's __init__ imports oar.sparse, so a module-level `import oar` here would make an
import cycle (tools/import_cycles.py); by call time oar is whole."""


class _Oar:
    def __getattr__(self, name):
        import oar
        return getattr(oar, name)


oar = _Oar()
