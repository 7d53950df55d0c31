from . import dlpack, unique_name  # noqa: F401
