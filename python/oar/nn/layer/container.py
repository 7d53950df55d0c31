"""Containers, as Paddle's: Sequential, LayerList, LayerDict, ParameterList, ParameterDict."""
import collections

from ...framework.parameter import Parameter
from .layers import Layer


def _index(container, idx):
    n = len(container)
    if not -n <= idx < n:
        raise IndexError(f"{type(container).__name__}: index {idx} is out of range for length {n}")
    return idx + n if idx < 0 else idx


class Sequential(Layer):
    """Runs its layers in order. Sequential(l1, l2) or Sequential(('name', l1), ...) or an OrderedDict."""

    def __init__(self, *layers):
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], (dict, collections.OrderedDict)):
            layers = tuple(layers[0].items())
        if layers and isinstance(layers[0], (list, tuple)):
            for name, layer in layers:
                self.add_sublayer(name, layer)
        else:
            for i, layer in enumerate(layers):
                self.add_sublayer(str(i), layer)

    def __getitem__(self, name):
        if isinstance(name, slice):
            return type(self)(*list(self._sub_layers.values())[name])
        if isinstance(name, str):
            return self._sub_layers[name]
        return list(self._sub_layers.values())[_index(self, name)]

    def __setitem__(self, name, layer):
        if isinstance(name, int):
            name = list(self._sub_layers.keys())[_index(self, name)]
        self.add_sublayer(str(name), layer)

    def __delitem__(self, name):
        if isinstance(name, int):
            name = list(self._sub_layers.keys())[_index(self, name)]
        del self._sub_layers[str(name)]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def forward(self, input):
        for layer in self._sub_layers.values():
            input = layer(input)
        return input


class LayerList(Layer):
    """A list of sublayers, indexed like a Python list."""

    def __init__(self, sublayers=None):
        super().__init__()
        for i, layer in enumerate(sublayers or []):
            self.add_sublayer(str(i), layer)

    def _renumber(self, layers):
        self._sub_layers.clear()
        for i, layer in enumerate(layers):
            self._sub_layers[str(i)] = layer

    def __getitem__(self, idx):
        layers = list(self._sub_layers.values())
        if isinstance(idx, slice):
            return type(self)(layers[idx])
        return layers[_index(self, idx)]

    def __setitem__(self, idx, sublayer):
        self._sub_layers[str(_index(self, idx))] = sublayer

    def __delitem__(self, idx):
        layers = list(self._sub_layers.values())
        if isinstance(idx, slice):
            del layers[idx]
        else:
            del layers[_index(self, idx)]
        self._renumber(layers)

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def append(self, sublayer):
        self.add_sublayer(str(len(self)), sublayer)
        return self

    def insert(self, index, sublayer):
        layers = list(self._sub_layers.values())
        layers.insert(index, sublayer)
        self._renumber(layers)

    def extend(self, sublayers):
        for layer in sublayers:
            self.append(layer)
        return self


class LayerDict(Layer):
    """An ordered dict of sublayers."""

    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key):
        return self._sub_layers[key]

    def __setitem__(self, key, sublayer):
        self.add_sublayer(key, sublayer)

    def __delitem__(self, key):
        del self._sub_layers[key]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers)

    def __contains__(self, key):
        return key in self._sub_layers

    def clear(self):
        self._sub_layers.clear()

    def pop(self, key):
        return self._sub_layers.pop(key)

    def keys(self):
        return self._sub_layers.keys()

    def items(self):
        return self._sub_layers.items()

    def values(self):
        return self._sub_layers.values()

    def update(self, sublayers):
        if isinstance(sublayers, (dict, collections.OrderedDict, LayerDict)):
            items = sublayers.items()
        else:
            items = []
            for i, kv in enumerate(sublayers):
                if not isinstance(kv, (list, tuple)) or len(kv) != 2:
                    raise ValueError(f"LayerDict.update: element {i} must be a (key, layer) pair, but got {kv!r}")
                items.append(kv)
        for key, layer in items:
            self.add_sublayer(key, layer)


def _check_parameter(owner, p):
    if not isinstance(p, Parameter):
        raise TypeError(f"{owner}: values must be Parameters (oar.create_parameter or Layer.create_parameter), "
                        f"but got {type(p).__name__}")


class ParameterList(Layer):
    """A list of parameters, registered under the names "0", "1", ..."""

    def __init__(self, parameters=None):
        super().__init__()
        for p in parameters or []:
            self.append(p)

    def __getitem__(self, idx):
        return list(self._parameters.values())[_index(self, idx)]

    def __setitem__(self, idx, param):
        _check_parameter("ParameterList", param)
        self._parameters[str(_index(self, idx))] = param

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def append(self, parameter):
        _check_parameter("ParameterList", parameter)
        self.add_parameter(str(len(self)), parameter)
        return self

    def extra_repr(self):
        return "\n".join(f"({i}): Parameter containing: [{', '.join(map(str, p.shape))}], dtype={p.dtype}"
                         for i, p in enumerate(self)) if len(self) else ""


class ParameterDict(Layer):
    """An ordered dict of parameters."""

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, param):
        _check_parameter("ParameterDict", param)
        self.add_parameter(key, param)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def __contains__(self, key):
        return key in self._parameters

    def keys(self):
        return self._parameters.keys()

    def items(self):
        return self._parameters.items()

    def values(self):
        return self._parameters.values()

    def update(self, parameters):
        items = parameters.items() if hasattr(parameters, "items") else parameters
        for key, p in items:
            self[key] = p
