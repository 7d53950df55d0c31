"""Paddle's tensor functions written in Python over the C++ ops, one module per family (as
python/paddle/tensor/): creation, random, attribute, logic, math, linalg (small linear algebra;
oar/linalg.py is paddle.linalg), manipulation, search, statistics, contraction (einsum, tensordot,
distances), special, inplace (in-place variants the C++ specs lack), strided, diagonal_fill,
indexing (x[...]), repr (printing), conversion (casts, copies, small properties), legacy_attrs
and typed_tensor (Paddle's legacy names). methods.py attaches the Tensor methods among them.
oar/__init__.py imports the public names by name from these modules."""

# paddle.tensor's public names that are not also paddle's: top_p_sampling (tensor/search.py).
from .search import top_p_sampling  # noqa: E402,F401
