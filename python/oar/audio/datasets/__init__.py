"""oar.audio.datasets, as paddle.audio.datasets: ESC50 and TESS, read from the extracted archives
in Paddle's cache directory (oar does not download them)."""
from .esc50 import ESC50
from .tess import TESS

__all__ = ["ESC50", "TESS"]
