"""paddle.distributed.split: a linear or embedding layer whose weight is split over the ranks of
a model-parallel group, for static programs."""
from ..framework import mode

__all__ = ["split"]


def split(x, size, operation, axis=0, num_partitions=1, gather_out=True, weight_attr=None, bias_attr=None,
          name=None):
    """Makes a linear (``operation='linear'``, weight [size[0], size[1]] split by rows with axis=0
    or by columns with axis=1) or embedding (``'embedding'``, table [size[0], size[1]] split by
    rows) layer split over `num_partitions` model-parallel ranks, and applies it to x. Static
    mode only, after fleet.init(): in dynamic mode Paddle points to ParallelEmbedding /
    ParallelRowLinear / ParallelColumnLinear (ValueError). oar's static programs hold no
    collective ops, so the split runs unpartitioned (num_partitions=1: the whole weight, the
    plain linear or embedding); more partitions are NotImplementedError.

    Args:
        x (Tensor): The input.
        size (list|tuple): [in, out] of the weight (or [vocabulary, width] of the table).
        operation (str): 'linear' or 'embedding'.
        axis (int, optional): The weight axis to split (0 or 1; embeddings: 0). Default: 0.
        num_partitions (int, optional): Default: 1.
        gather_out (bool, optional): Gather a column-split output. Default: True.
        weight_attr (ParamAttr, optional): Default: None.
        bias_attr (ParamAttr|bool, optional): Default: None.
        name (str, optional): Default: None.

    Returns:
        Tensor: The layer's output.

    Examples:
        >>> import oar
        >>> import oar.distributed as dist
        >>> try:
        ...     dist.split(oar.ones([2, 4]), (4, 3), "linear")
        ... except ValueError as e:
        ...     print(str(e)[:56])
        paddle.distributed.split cannot be used in dynamic graph
    """
    assert isinstance(size, (list, tuple)), "The type of size for paddle.distributed.split must be list or tuple."
    assert len(size) == 2, "Number of elements in size of paddle.distributed.split must be two."
    assert isinstance(operation, str), "The type of operation for paddle.distributed.split must be str."
    supported = ["linear", "embedding"]
    assert operation in supported, f"The operation for paddle.distributed.split must be one of {supported}."
    if mode.in_dynamic_mode():
        raise ValueError("paddle.distributed.split cannot be used in dynamic graph mode, please use "
                         "ParallelEmbedding, ParallelRowLinear, ParallelColumnLinear instead.")
    from .fleet import fleet
    assert fleet._role_maker, "To use paddle.distributed.split, you must call fleet.init() firstly."
    if operation == "embedding":
        assert axis == 0, "We only support to split the weight of embedding along the first axis now."
        assert size[0] % num_partitions == 0, ("The length of the vocabulary must be divisible by num_partitions "
                                               f"but received vocabulary={size[0]} num_partitions={num_partitions}")
    elif axis == 0:
        assert size[0] % num_partitions == 0, (f"Number of rows of the weight for linear ({size[0]}) must be"
                                               f" divisible by num_partitions ({num_partitions})")
    elif axis == 1:
        assert size[1] % num_partitions == 0, (f"Number of column of the weight for linear ({size[1]}) must be"
                                               f" divisible by num_partitions ({num_partitions})")
    else:
        raise ValueError(f"The value of axis must be 0 or 1, but the value given is {axis}.")
    if num_partitions != 1:
        raise NotImplementedError(f"paddle.distributed.split: num_partitions={num_partitions}: oar's static programs "
                                  "hold no collective ops; split a dynamic model with dist.parallelize "
                                  "(ColWiseParallel / RowWiseParallel) instead")
    from .. import nn
    from ..static.nn.common import _layer
    if operation == "embedding":
        layer = _layer("split", lambda: nn.Embedding(size[0], size[1], weight_attr=weight_attr))
    else:
        layer = _layer("split", lambda: nn.Linear(size[0], size[1], weight_attr=weight_attr, bias_attr=bias_attr))
    return layer(x)
