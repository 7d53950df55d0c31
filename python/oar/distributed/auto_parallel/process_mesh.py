"""ProcessMesh: the ranks of a job laid out on an n-dimensional grid with named dimensions
(paddle.distributed.ProcessMesh), and the process-wide default mesh (set_mesh / get_mesh)."""
import numpy as np

__all__ = ["ProcessMesh", "set_mesh", "get_mesh"]


class ProcessMesh:
    """The ranks of a job laid out on a grid whose dimensions have names.

    A tensor's placements (one per mesh dimension) say how it is laid out on the mesh: split along
    one of its axes (``Shard``), copied (``Replicate``) or summed (``Partial``) across the ranks
    of that mesh dimension.

    Args:
        mesh (array_like, optional): The process ids (global ranks), an n-dimensional nested
            list or array of distinct non-negative ints. Default: None (then `shape` and
            `process_ids` give it).
        dim_names (list[str], optional): One name per mesh dimension. Default: None
            ('d0', 'd1', ...).
        shape (list[int], optional): The mesh's shape when `mesh` is None. Default: None.
        process_ids (list[int], optional): The ranks, row-major, when `mesh` is None.
            Default: None.

    Examples:
        >>> import oar.distributed as dist
        >>> mesh = dist.ProcessMesh([[0, 1], [2, 3]], dim_names=["dp", "mp"])
        >>> print(mesh.shape, mesh.process_ids, mesh.dim_names)
        [2, 2] [0, 1, 2, 3] ['dp', 'mp']
        >>> print(mesh.get_dim_size("mp"), mesh.ndim)
        2 2
    """

    def __init__(self, mesh=None, dim_names=None, shape=None, process_ids=None):
        if mesh is None:
            if shape is None or process_ids is None:
                raise ValueError("ProcessMesh: give mesh, or both shape and process_ids")
            mesh = np.array(list(process_ids)).reshape(list(shape))
        if isinstance(mesh, ProcessMesh):
            dim_names = dim_names or mesh.dim_names
            mesh = mesh.mesh
        if hasattr(mesh, "numpy") and not isinstance(mesh, np.ndarray):
            mesh = mesh.numpy()
        arr = np.array(mesh)
        if arr.ndim == 0 or arr.size == 0:
            raise ValueError(f"ProcessMesh: mesh must be a non-empty list of ranks, got {mesh!r}")
        if not np.issubdtype(arr.dtype, np.integer):
            raise TypeError(f"ProcessMesh: the elements of mesh must be ints, got dtype {arr.dtype}")
        if len(np.unique(arr)) != arr.size:
            raise ValueError(f"ProcessMesh: all elements of mesh must be unique, got {arr.tolist()}")
        if arr.min() < 0:
            raise ValueError(f"ProcessMesh: ranks must be non-negative, got {arr.tolist()}")
        if dim_names is None:
            dim_names = [f"d{i}" for i in range(arr.ndim)]
        dim_names = list(dim_names)
        if len(dim_names) != arr.ndim:
            raise ValueError(f"ProcessMesh: dim_names must have one name per mesh dimension ({arr.ndim}), got "
                             f"{dim_names}")
        if len(set(dim_names)) != len(dim_names):
            raise ValueError(f"ProcessMesh: dim_names must be distinct, got {dim_names}")
        self._mesh = arr.astype(np.int64)
        self._dim_names = dim_names

    # ---- what it is ----
    @property
    def mesh(self):
        """The ranks as an ndarray of the mesh's shape."""
        return self._mesh

    @property
    def shape(self):
        return list(self._mesh.shape)

    @property
    def process_ids(self):
        return [int(r) for r in self._mesh.reshape(-1)]

    @property
    def dim_names(self):
        return list(self._dim_names)

    @property
    def ndim(self):
        return self._mesh.ndim

    @property
    def size(self):
        return int(self._mesh.size)

    @property
    def unique_id(self):
        return hash(self) & 0x7FFFFFFF

    def empty(self):
        return self.size == 0

    def contains(self, process_id):
        """Whether the rank `process_id` is on the mesh."""
        return int(process_id) in self.process_ids

    def _dim_index(self, dim):
        if isinstance(dim, str):
            if dim not in self._dim_names:
                raise ValueError(f"ProcessMesh: no dimension named {dim!r} (dim_names {self._dim_names})")
            return self._dim_names.index(dim)
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or not -self.ndim <= dim < self.ndim:
            raise ValueError(f"ProcessMesh: a mesh dimension must be a name in {self._dim_names} or an index "
                             f"below {self.ndim}, got {dim!r}")
        return int(dim) % self.ndim

    def get_dim_size(self, dim_name):
        """The number of ranks along a mesh dimension (a name or an index)."""
        return self.shape[self._dim_index(dim_name)]

    dim_size = get_dim_size

    def coordinate(self, process_id):
        """The coordinates of rank `process_id` on the mesh (None when it is not on it)."""
        where = np.argwhere(self._mesh == int(process_id))
        return [int(c) for c in where[0]] if len(where) else None

    def get_rank_by_dim_and_process_id(self, dim, process_id):
        """The index of rank `process_id` along mesh dimension `dim` (-1 when it is not on the mesh)."""
        c = self.coordinate(process_id)
        return -1 if c is None else c[self._dim_index(dim)]

    def get_mesh_with_dim(self, dim_name, index=None):
        """The mesh with `dim_name` moved first (or, with `index`, that slice of it)."""
        d = self._dim_index(dim_name)
        order = [d] + [i for i in range(self.ndim) if i != d]
        names = [self._dim_names[i] for i in order]
        arr = np.transpose(self._mesh, order)
        if index is not None:
            return ProcessMesh(arr[index], names[1:])
        return ProcessMesh(arr, names)

    def get_submesh_with_dim(self, dim_name, rank=None):
        """The one-dimensional mesh along `dim_name` through this process's rank (or `rank`); None
        when that rank is not on the mesh."""
        from ..collective import get_rank
        rank = get_rank() if rank is None else rank
        c = self.coordinate(rank)
        if c is None:
            return None
        d = self._dim_index(dim_name)
        index = tuple(slice(None) if i == d else c[i] for i in range(self.ndim))
        return ProcessMesh(self._mesh[index], [self._dim_names[d]])

    def get_group(self, dim_name=None):
        """The communication group of this rank's ranks along `dim_name` (a one-dimensional mesh needs
        no name). Every rank of the job must ask for the groups of a mesh dimension at the same point."""
        from .comm import mesh_dim_group
        if dim_name is None:
            if self.ndim != 1:
                raise ValueError(f"ProcessMesh.get_group: name the dimension of a {self.ndim}-D mesh "
                                 f"({self._dim_names})")
            dim_name = 0
        return mesh_dim_group(self, self._dim_index(dim_name))

    def __getitem__(self, index):
        arr = self._mesh[index]
        if not isinstance(index, tuple):
            index = (index,)
        kept = []
        for i, ix in enumerate(index):
            if isinstance(ix, slice):
                kept.append(self._dim_names[i])
        kept += self._dim_names[len(index):]
        arr = np.array(arr)
        if arr.ndim == 0:
            arr = arr.reshape(1)
            kept = kept or [self._dim_names[-1]]
        return ProcessMesh(arr, kept)

    def __eq__(self, other):
        return (isinstance(other, ProcessMesh) and self.shape == other.shape
                and self.process_ids == other.process_ids and self._dim_names == other._dim_names)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((tuple(self.shape), tuple(self.process_ids), tuple(self._dim_names)))

    def __str__(self):
        return f"shape {self.shape}, process_ids {self.process_ids}, dim_names {self._dim_names}"

    def _brief(self):
        """The form a tensor's repr shows."""
        return (f"{{shape: [{','.join(map(str, self.shape))}], process_ids: [{','.join(map(str, self.process_ids))}], "
                f"dim_names: [{','.join(self._dim_names)}]}}")

    def __enter__(self):
        _stack.append(get_mesh())
        set_mesh(self)
        return self

    def __exit__(self, *exc):
        set_mesh(_stack.pop())
        return False

    def __deepcopy__(self, memo):
        return ProcessMesh(self._mesh.copy(), list(self._dim_names))


_global = {"mesh": None}
_stack = []


def set_mesh(mesh):
    """Sets the process-wide default mesh (what parallelize and other calls without a mesh use).

    Args:
        mesh (ProcessMesh): The mesh.

    Examples:
        >>> import oar.distributed as dist
        >>> dist.set_mesh(dist.ProcessMesh([0], dim_names=["dp"]))
        >>> print(dist.get_mesh())
        shape [1], process_ids [0], dim_names ['dp']
    """
    if mesh is not None and not isinstance(mesh, ProcessMesh):
        raise TypeError(f"set_mesh: mesh must be a ProcessMesh, got {type(mesh).__name__}")
    _global["mesh"] = mesh


def get_mesh():
    """The process-wide default mesh set by set_mesh (None before).

    Examples:
        >>> import oar.distributed as dist
        >>> dist.set_mesh(dist.ProcessMesh([0, 1], dim_names=["x"]))
        >>> dist.get_mesh().shape
        [2]
    """
    return _global["mesh"]
