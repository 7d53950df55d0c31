"""oar.hub, as paddle.hub: list, help and load the entry points of a repository's hubconf.py,
and load_state_dict_from_url (python/oar/hapi/hub.py)."""
from .hapi.hub import help, list, load, load_state_dict_from_url  # noqa: F401,A004

__all__ = ["list", "help", "load", "load_state_dict_from_url"]
