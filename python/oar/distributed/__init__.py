"""oar.distributed (placeholder of the launcher branch: the collective API's __init__ replaces it and
keeps this import)."""
from .spawn import spawn  # noqa: F401
