"""Containers, as Paddle's: Sequential, LayerList, LayerDict, ParameterList, ParameterDict."""
import collections
from collections.abc import Iterable, Mapping

from ...framework.errors import AssertTypeError
from ...framework.parameter import Parameter
from .layers import Layer


def _key_value_pairs(what, items, mappings):
    """The (key, value) pairs of a mapping (or one of `mappings`) or of an iterable of pairs, with
    Paddle's errors: AssertionError for a non-iterable, TypeError for an item without a length,
    ValueError for one that is not a pair."""
    if isinstance(items, (Mapping,) + mappings):
        return list(items.items())
    if not isinstance(items, Iterable):
        raise AssertTypeError(f"The type of {what} is not iterable of key/value pairs, the type of {what} is "
                              f"{type(items).__name__}")
    pairs = []
    for i, kv in enumerate(items):
        if not hasattr(kv, "__len__"):
            raise TypeError(f"The {i}'s element in {what} must be a (key, value) pair, but got "
                            f"{type(kv).__name__}")
        if len(kv) != 2:
            raise ValueError(f"The length of the {i}'s element in {what} is {len(kv)}, which must be 2.")
        pairs.append((kv[0], kv[1]))
    return pairs


def _index(container, idx):
    n = len(container)
    if not -n <= idx < n:
        raise IndexError(f"{type(container).__name__}: index {idx} is out of range for length {n}")
    return idx + n if idx < 0 else idx


class Sequential(Layer):
    """A container that runs its layers one after the other, each on the previous one's output.

    Layers are given positionally (named "0", "1", ...), as (name, layer) pairs, or as one
    dict / OrderedDict. Indexing by int, name or slice, ``len`` and iteration work as on a list.

    Args:
        *layers (Layer|tuple|dict): The layers, in order.

    Examples:
        >>> import oar
        >>> model = oar.nn.Sequential(oar.nn.Linear(4, 3), oar.nn.ReLU(), oar.nn.Linear(3, 2))
        >>> print(model(oar.ones([5, 4])).shape)
        [5, 2]
        >>> named = oar.nn.Sequential(("fc", oar.nn.Linear(2, 2)), ("act", oar.nn.Tanh()))
        >>> print(named)
        Sequential(
          (fc): Linear(in_features=2, out_features=2, dtype=float32)
          (act): Tanh()
        )
    """

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
    """A list of sublayers, registered with the parent layer (so their parameters are the
    parent's too) and indexed like a Python list.

    Supports indexing (negative and slices), assignment, ``del``, ``len``, iteration,
    ``append``, ``insert`` and ``extend``. ``oar.nn.ModuleList`` is the same class.

    Args:
        sublayers (iterable of Layer, optional): The initial layers. Default: None.

    Examples:
        >>> import oar
        >>> layers = oar.nn.LayerList([oar.nn.Linear(2, 2) for _ in range(3)])
        >>> layers.append(oar.nn.Linear(2, 1))
        LayerList(...)
        >>> print(len(layers), layers[-1])
        4 Linear(in_features=2, out_features=1, dtype=float32)
        >>> x = oar.ones([1, 2])
        >>> for layer in layers:
        ...     x = layer(x)
        >>> print(x.shape)
        [1, 1]
    """

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
        """Adds ``sublayer`` at the end and returns the list.

        Args:
            sublayer (Layer): The layer to add.

        Returns:
            LayerList: this list.
        """
        self.add_sublayer(str(len(self)), sublayer)
        return self

    def insert(self, index, sublayer):
        """Inserts ``sublayer`` before position ``index`` (the layers after it are renumbered).

        Args:
            index (int): The position.
            sublayer (Layer): The layer to insert.
        """
        layers = list(self._sub_layers.values())
        layers.insert(index, sublayer)
        self._renumber(layers)

    def extend(self, sublayers):
        """Appends every layer of ``sublayers`` and returns the list.

        Args:
            sublayers (iterable of Layer): The layers to add.

        Returns:
            LayerList: this list.
        """
        for layer in sublayers:
            self.append(layer)
        return self


class LayerDict(Layer):
    """An ordered dict of sublayers, registered with the parent layer.

    Supports ``d[key]``, assignment, ``del``, ``in``, ``len``, iteration over the keys, and
    ``keys``, ``values``, ``items``, ``pop``, ``clear`` and ``update``. ``oar.nn.ModuleDict`` is the
    same class.

    Args:
        sublayers (dict|LayerDict|iterable of (str, Layer), optional): The initial layers.
            Default: None.

    Examples:
        >>> import oar
        >>> layers = oar.nn.LayerDict({"fc": oar.nn.Linear(2, 3), "act": oar.nn.ReLU()})
        >>> print(list(layers.keys()), len(layers))
        ['fc', 'act'] 2
        >>> print(layers["act"](layers["fc"](oar.ones([1, 2]))).shape)
        [1, 3]
    """

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
        """Removes every sublayer."""
        self._sub_layers.clear()

    def pop(self, key):
        """Removes the sublayer under ``key`` and returns it.

        Args:
            key (str): The key.

        Returns:
            Layer: the removed layer.
        """
        return self._sub_layers.pop(key)

    def keys(self):
        """The keys, in insertion order."""
        return self._sub_layers.keys()

    def items(self):
        """The (key, layer) pairs, in insertion order."""
        return self._sub_layers.items()

    def values(self):
        """The layers, in insertion order."""
        return self._sub_layers.values()

    def update(self, sublayers):
        """Adds or replaces the layers of ``sublayers``.

        Args:
            sublayers (dict|LayerDict|iterable of (str, Layer)): The layers to add, with their keys.
        """
        for key, layer in _key_value_pairs("sublayers", sublayers, (LayerDict,)):
            self.add_sublayer(key, layer)


def _check_parameter(owner, p):
    if not isinstance(p, Parameter):
        raise AssertTypeError(f"{owner}: values must be Parameters (oar.create_parameter or "
                              f"Layer.create_parameter), but got {type(p).__name__}")


class ParameterList(Layer):
    """A list of parameters, registered with the parent layer under the names "0", "1", ...

    Supports indexing, assignment, ``len``, iteration and ``append``.

    Args:
        parameters (iterable of Parameter, optional): The initial parameters. Default: None.

    Examples:
        >>> import oar
        >>> params = oar.nn.ParameterList([oar.create_parameter([2, 3], "float32") for _ in range(2)])
        >>> print(len(params), params[0].shape)
        2 [2, 3]
        >>> print(len(params.parameters()))
        2
    """

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
        """Adds ``parameter`` at the end and returns the list.

        Args:
            parameter (Parameter): The parameter to add.

        Returns:
            ParameterList: this list.
        """
        _check_parameter("ParameterList", parameter)
        self.add_parameter(str(len(self)), parameter)
        return self

    def extra_repr(self):
        return "\n".join(f"({i}): Parameter containing: [{', '.join(map(str, p.shape))}], dtype={p.dtype}"
                         for i, p in enumerate(self)) if len(self) else ""


class ParameterDict(Layer):
    """An ordered dict of parameters, registered with the parent layer under their keys.

    Supports ``d[key]``, assignment, ``in``, ``len``, iteration over the keys, and ``keys``,
    ``values``, ``items`` and ``update``.

    Args:
        parameters (dict|iterable of (str, Parameter), optional): The initial parameters.
            Default: None.

    Examples:
        >>> import oar
        >>> params = oar.nn.ParameterDict({"w": oar.create_parameter([2], "float32")})
        >>> params["b"] = oar.create_parameter([1], "float32")
        >>> print(list(params.keys()), [n for n, _ in params.named_parameters()])
        ['w', 'b'] ['w', 'b']
    """

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
        """The keys, in insertion order."""
        return self._parameters.keys()

    def items(self):
        """The (key, parameter) pairs, in insertion order."""
        return self._parameters.items()

    def values(self):
        """The parameters, in insertion order."""
        return self._parameters.values()

    def update(self, parameters):
        """Adds or replaces the parameters of ``parameters``.

        Args:
            parameters (dict|iterable of (str, Parameter)): The parameters to add, with their keys.
        """
        for key, p in _key_value_pairs("parameters", parameters, (ParameterDict,)):
            self[key] = p
