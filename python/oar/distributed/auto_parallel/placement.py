"""How a distributed tensor lies along one mesh dimension (paddle.distributed.Placement):
Shard(dim) splits tensor axis `dim` across the ranks of that mesh dimension, Replicate() copies it,
Partial(reduce_type) means the ranks' values combine (sum by default) into the tensor. DistAttr is
the older form: a mesh and one mesh-dimension name (or None) per tensor axis."""
import enum

__all__ = ["ReduceType", "Placement", "Shard", "Replicate", "Partial", "DistAttr"]


class ReduceType(enum.IntEnum):
    """How the ranks of a Partial placement combine (paddle.distributed.ReduceType).

    Examples:
        >>> import oar.distributed as dist
        >>> print(dist.ReduceType.kRedSum, int(dist.ReduceType.kRedMax))
        ReduceType.kRedSum 1
    """
    kRedSum = 0
    kRedMax = 1
    kRedMin = 2
    kRedProd = 3
    kRedAvg = 4
    kRedAny = 5
    kRedAll = 6

    def __str__(self):
        return f"ReduceType.{self.name}"


class Placement:
    """The base of Shard, Replicate and Partial.

    Examples:
        >>> import oar.distributed as dist
        >>> isinstance(dist.Shard(0), dist.Placement)
        True
    """

    def is_shard(self, dim=None):
        return False

    def is_replicated(self):
        return False

    def is_partial(self):
        return False

    def __ne__(self, other):
        return not self == other


class Shard(Placement):
    """Tensor axis `dim` is split across the ranks of the mesh dimension, in order; an axis of n
    elements over k ranks gives each ceil(n / k) of them (the last ones fewer, or none).

    Args:
        dim (int): The tensor axis.

    Examples:
        >>> import oar.distributed as dist
        >>> s = dist.Shard(1)
        >>> print(s, s.get_dim(), s.is_shard())
        Shard(dim=1) 1 True
    """

    def __init__(self, dim, *, split_factor=1):
        if isinstance(dim, bool) or not isinstance(dim, int):
            raise TypeError(f"Shard: dim must be an int, got {type(dim).__name__}")
        self._dim = dim
        self._split_factor = int(split_factor)

    def get_dim(self):
        return self._dim

    def get_split_factor(self):
        return self._split_factor

    def set_split_factor(self, factor):
        self._split_factor = int(factor)

    def is_shard(self, dim=None):
        return dim is None or dim == self._dim

    def __eq__(self, other):
        return isinstance(other, Shard) and other._dim == self._dim

    def __hash__(self):
        return hash(("Shard", self._dim))

    def __repr__(self):
        return f"Shard(dim={self._dim})"


class Replicate(Placement):
    """Every rank of the mesh dimension holds the whole tensor.

    Examples:
        >>> import oar.distributed as dist
        >>> print(dist.Replicate(), dist.Replicate().is_replicated())
        Replicate() True
    """

    def is_replicated(self):
        return True

    def __eq__(self, other):
        return isinstance(other, Replicate)

    def __hash__(self):
        return hash("Replicate")

    def __repr__(self):
        return "Replicate()"


class Partial(Placement):
    """Each rank of the mesh dimension holds a part; the tensor is their combination
    (`reduce_type`, a sum by default).

    Args:
        reduce_type (ReduceType, optional): How the parts combine. Default: ReduceType.kRedSum.

    Examples:
        >>> import oar.distributed as dist
        >>> print(dist.Partial(), dist.Partial(dist.ReduceType.kRedMax))
        Partial(reduce_type=SUM) Partial(reduce_type=MAX)
    """

    def __init__(self, reduce_type=ReduceType.kRedSum):
        try:
            self._reduce_type = ReduceType(int(reduce_type))
        except (TypeError, ValueError):
            raise TypeError(f"Partial: reduce_type must be a ReduceType, got {reduce_type!r}") from None

    def reduce_type(self):
        return self._reduce_type

    def is_partial(self):
        return True

    def __eq__(self, other):
        return isinstance(other, Partial) and other._reduce_type == self._reduce_type

    def __hash__(self):
        return hash(("Partial", int(self._reduce_type)))

    def __repr__(self):
        return f"Partial(reduce_type={self._reduce_type.name[4:].upper()})"


def check_placements(placements, mesh, ndim, where):
    """The placements as a list, checked against the mesh and the tensor's rank."""
    if not isinstance(placements, (list, tuple)):
        raise TypeError(f"{where}: placements must be a list of Placement, got {type(placements).__name__}")
    placements = list(placements)
    for p in placements:
        if not isinstance(p, Placement):
            raise TypeError(f"{where}: placements must be Shard, Replicate or Partial, got {p!r}")
        if isinstance(p, Shard) and not -max(ndim, 1) <= p.get_dim() < max(ndim, 1):
            raise ValueError(f"{where}: {p} names an axis the {ndim}-D tensor does not have")
    if len(placements) > mesh.ndim:
        raise ValueError(f"{where}: {len(placements)} placements for a {mesh.ndim}-D mesh (one per mesh "
                         "dimension at most)")
    placements += [Replicate()] * (mesh.ndim - len(placements))
    return [Shard(p.get_dim() % ndim) if isinstance(p, Shard) and p.get_dim() < 0 else p for p in placements]


class DistAttr:
    """The older description of a distributed tensor: a mesh and, per tensor axis, the name of the
    mesh dimension it is split along (or None: not split).

    Args:
        mesh (ProcessMesh): The mesh.
        sharding_specs (list[str|None]): One entry per tensor axis.

    Examples:
        >>> import oar.distributed as dist
        >>> mesh = dist.ProcessMesh([[0, 1], [2, 3]], dim_names=["x", "y"])
        >>> attr = dist.DistAttr(mesh=mesh, sharding_specs=["x", None])
        >>> print(attr.dims_mapping, attr.placements)
        [0, -1] [Shard(dim=0), Replicate()]
    """

    def __init__(self, mesh, sharding_specs):
        from .process_mesh import ProcessMesh
        if not isinstance(mesh, ProcessMesh):
            raise TypeError(f"DistAttr: mesh must be a ProcessMesh, got {type(mesh).__name__}")
        if not isinstance(sharding_specs, (list, tuple)):
            raise TypeError(f"DistAttr: sharding_specs must be a list of mesh dimension names or None, got "
                            f"{type(sharding_specs).__name__}")
        for s in sharding_specs:
            if s is not None and (not isinstance(s, str) or s not in mesh.dim_names):
                raise ValueError(f"DistAttr: each sharding spec must be None or one of {mesh.dim_names}, got {s!r}")
        named = [s for s in sharding_specs if s is not None]
        if len(set(named)) != len(named):
            raise ValueError(f"DistAttr: a mesh dimension may split one tensor axis only, got {list(sharding_specs)}")
        self.process_mesh = mesh
        self.sharding_specs = list(sharding_specs)
        self.batch_dim = 0

    @property
    def dims_mapping(self):
        return [self.process_mesh.dim_names.index(s) if s is not None else -1 for s in self.sharding_specs]

    @property
    def placements(self):
        out = [Replicate() for _ in range(self.process_mesh.ndim)]
        for axis, s in enumerate(self.sharding_specs):
            if s is not None:
                out[self.process_mesh.dim_names.index(s)] = Shard(axis)
        return out

    def __repr__(self):
        return (f"DistAttr(process_mesh={self.process_mesh._brief()}, sharding_specs={self.sharding_specs}, "
                f"dims_mapping={self.dims_mapping})")
