"""oar.incubate.asp (paddle.incubate.asp): n:m structured sparsity (2:4 by default) for Linear and
Conv2D weights: prune_model computes the masks, decorate keeps them applied while training. See
asp.py for the rules and utils.py for the mask algorithms."""
from . import asp  # noqa: F401
from .asp import (add_supported_layer, decorate, prune_model, reset_excluded_layers,  # noqa: F401
                  set_excluded_layers)
from .utils import (CheckMethod, MaskAlgo, calculate_density, check_mask_1d, check_mask_2d,  # noqa: F401
                    check_sparsity, create_mask, get_mask_1d, get_mask_2d_best, get_mask_2d_greedy)

__all__ = ["calculate_density", "decorate", "prune_model", "set_excluded_layers", "reset_excluded_layers",
           "add_supported_layer"]
