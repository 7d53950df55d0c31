"""``python -m oar.distributed.launch``: the job starter of Paddle's ``paddle.distributed.launch``
(collective mode); see main.py for the options, the environment of each rank and how nodes agree."""
from .main import launch  # noqa: F401

__all__ = ["launch"]
