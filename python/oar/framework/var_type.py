"""VarType: the kind of variable a tensor is (Paddle's core.VarDesc.VarType), with Paddle's numbers.

Every oar tensor is dense, so Tensor.type is always VarType.DENSE_TENSOR; the other members exist
so that comparisons against them read as in Paddle.
"""
import enum


class VarType(int, enum.Enum):
    BOOL = 0
    INT16 = 1
    INT32 = 2
    INT64 = 3
    FP16 = 4
    FP32 = 5
    FP64 = 6
    DENSE_TENSOR = 7
    SELECTED_ROWS = 8
    FEED_MINIBATCH = 9
    FETCH_LIST = 10
    STEP_SCOPES = 11
    DENSE_TENSOR_ARRAY = 13
    PLACE_LIST = 14
    READER = 15
    RAW = 17
    UINT8 = 20
    INT8 = 21
    BF16 = 22
    COMPLEX64 = 23
    COMPLEX128 = 24
    STRING = 25
    STRINGS = 26
    VOCAB = 27
    SPARSE_COO = 30
    # Paddle's old names for the same numbers.
    LOD_TENSOR = 7
    LOD_TENSOR_ARRAY = 13

    def __str__(self):
        return f"VarType.{self.name}"
