from . import dlpack, unique_name, download  # noqa: F401
from .deprecated import deprecated  # noqa: F401
from .install_check import require_version, run_check  # noqa: F401


def try_import(module_name, err_msg=None):
    """paddle.utils.try_import: imports module_name; when that fails, raises ImportError with
    err_msg or a message naming the pip package to install (the top-level name; opencv-python
    for cv2)."""
    import importlib
    try:
        return importlib.import_module(module_name)
    except ImportError:
        install = "opencv-python" if module_name == "cv2" else module_name.split(".")[0]
        if err_msg is None:
            err_msg = (f"Failed importing {module_name}. This likely means that some paddle modules "
                       "require additional dependencies that have to be manually installed (usually "
                       f"with `pip install {install}`). ")
        raise ImportError(err_msg) from None
