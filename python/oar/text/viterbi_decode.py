"""Viterbi decoding of a linear-chain CRF (paddle.text.viterbi_decode and ViterbiDecoder).

The forward pass keeps, for each sequence, the best score of a path ending in each tag
(alpha) and, at every step, which previous tag that path came from; the backward pass follows
those pointers from the best final tag. Both are loops over time of oar ops (max / argmax over
the previous tag, take_along_axis for the pointers), batched over the sequences.

Lengths: a sequence stops updating alpha after its last step (t >= length), and its path is 0
past its end; the path has max(lengths) columns, as Paddle's. With include_bos_eos_tag, the
transition matrix's last row holds the scores of starting in each tag and its second-to-last
row those of stopping after each tag (added at a sequence's last step).
"""
from __future__ import annotations

from .. import _C
from ..framework.dtype import float32, float64
from ..nn.layer.layers import Layer
from ..tensor.search import where

__all__ = ["viterbi_decode", "ViterbiDecoder"]


def _check(potentials, transition_params, lengths):
    # Paddle's shape checks and messages (its InferMeta); dtypes checked before any arithmetic.
    if potentials.ndim != 3:
        raise ValueError(f"The rank of Input in ViterbiDecode  must be 3. But received Input's rank is "
                         f"{potentials.ndim}.")
    if transition_params.ndim != 2:
        raise ValueError(f"The rank of Transition in ViterbiDecode must be 2. But received Transition's "
                         f"rank is {transition_params.ndim}.")
    if lengths.ndim != 1:
        raise ValueError(f"The rank of Length in ViterbiDecode must be 1. But received Length's rank is "
                         f"{lengths.ndim}.")
    batch, _, tags = potentials.shape
    if lengths.shape[0] != batch:
        raise ValueError("The batch size of Input and Length should be equal.")
    if transition_params.shape != [tags, tags]:
        raise ValueError(f"The number of tags of Input ({tags}) and Transition "
                         f"({transition_params.shape}) should be equal.")
    if potentials.dtype not in (float32, float64):
        raise TypeError(f"viterbi_decode: potentials should be float32 or float64, but got {potentials.dtype}")
    if transition_params.dtype != potentials.dtype:
        raise TypeError(f"viterbi_decode: transition_params should have the dtype of potentials "
                        f"({potentials.dtype}), but got {transition_params.dtype}")
    if lengths.dtype.name not in ("int64", "int32", "int16", "int8", "uint8"):
        raise TypeError(f"viterbi_decode: lengths should be an integer tensor (int64), but got {lengths.dtype}")


def viterbi_decode(potentials, transition_params, lengths, include_bos_eos_tag=True, name=None):
    """The highest scoring tag sequence of each input under a linear-chain CRF, and its score.

    The score of tags y_0 .. y_{L-1} is sum_t potentials[t, y_t] + sum_t
    transition_params[y_{t-1}, y_t] (plus the start and stop scores with include_bos_eos_tag).

    Args:
        potentials (Tensor): Emission scores, [batch_size, sequence_length, num_tags], float32
            or float64.
        transition_params (Tensor): Transition scores, [num_tags, num_tags] (row: from, column:
            to), of potentials' dtype.
        lengths (Tensor): The length of each sequence, [batch_size], int64; at most
            sequence_length.
        include_bos_eos_tag (bool, optional): True: transition_params' last row scores starting in
            each tag, and its second-to-last row stopping after each tag. Default: True.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        tuple: (scores, paths): scores [batch_size] of potentials' dtype, the best path's score;
        paths [batch_size, max(lengths)] int64, the tags, 0 past each sequence's end.

    Examples:
        >>> import oar
        >>> emission = oar.to_tensor([[[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]],
        ...                           [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [5.0, 5.0, 5.0]]])
        >>> transition = oar.to_tensor([[0.0, 0.5, -1.0], [0.0, 0.0, 1.0], [-1.0, 0.0, 0.0]])
        >>> lengths = oar.to_tensor([3, 2], dtype='int64')
        >>> scores, paths = oar.text.viterbi_decode(emission, transition, lengths, include_bos_eos_tag=False)
        >>> print(scores.numpy())
        [7.5 2. ]
        >>> print(paths.numpy())
        [[0 1 2]
         [1 0 0]]
    """
    _check(potentials, transition_params, lengths)
    batch, seq_len, tags = potentials.shape
    lengths = _C.cast(lengths, "int64")
    max_len = int(lengths.max().item()) if batch > 0 else 0
    if max_len > seq_len:
        raise ValueError(f"viterbi_decode: the lengths ({max_len} at most) should not exceed the "
                         f"sequence length of potentials ({seq_len})")
    length = lengths.unsqueeze(1)  # [batch, 1], against [batch, tags]
    if include_bos_eos_tag:
        stop, start = transition_params[tags - 2], transition_params[tags - 1]

    alpha = potentials[:, 0]
    if include_bos_eos_tag:
        alpha = alpha + start
        alpha = where(length == 1, alpha + stop, alpha)
    pointers = []  # pointers[t - 1][b, j]: the best previous tag of a path in tag j at step t
    for t in range(1, max_len):
        scores = alpha.unsqueeze(2) + transition_params  # [batch, from, to]
        pointers.append(_C.argmax(scores, 1))
        advanced = _C.max(scores, 1) + potentials[:, t]
        alpha = where(length > t, advanced, alpha)  # finished sequences keep their score
        if include_bos_eos_tag:
            alpha = where(length == t + 1, alpha + stop, alpha)
    best_scores = _C.max(alpha, 1)
    best_last = _C.argmax(alpha, 1)

    # backward: at position t a sequence of length L has its last tag (t == L - 1), the tag its
    # successor's pointer names (t < L - 1), or 0 (t >= L).
    zeros = _C.zeros_like(best_last)
    columns = [None] * max_len
    tag = best_last
    for t in range(max_len - 1, -1, -1):
        if t < max_len - 1:
            previous = _C.take_along_axis(pointers[t], tag.unsqueeze(1), 1).squeeze(1)
        else:
            previous = zeros
        column = where(lengths - 1 > t, previous, where(lengths - 1 == t, best_last, zeros))
        tag = where(lengths - 1 >= t, column, tag)
        columns[t] = column
    paths = _C.stack(columns, 1) if columns else _C.zeros([batch, 0], "int64")
    return best_scores, paths


class ViterbiDecoder(Layer):
    """A layer holding a CRF's transition matrix that decodes emissions with viterbi_decode.

    Args:
        transitions (Tensor): The transition scores, [num_tags, num_tags].
        include_bos_eos_tag (bool, optional): As viterbi_decode's. Default: True.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Shape:
        potentials: [batch_size, sequence_length, num_tags]; lengths: [batch_size] int64.
        Output: (scores [batch_size], paths [batch_size, max(lengths)]).

    Examples:
        >>> import oar
        >>> oar.seed(2023)
        >>> emission = oar.rand([2, 4, 3])
        >>> lengths = oar.to_tensor([4, 2], dtype='int64')
        >>> decoder = oar.text.ViterbiDecoder(oar.rand([3, 3]), include_bos_eos_tag=False)
        >>> scores, paths = decoder(emission, lengths)
        >>> print(scores.shape, paths.shape, paths.dtype)
        [2] [2, 4] paddle.int64
    """

    def __init__(self, transitions, include_bos_eos_tag=True, name=None):
        super().__init__()
        self.transitions = transitions
        self.include_bos_eos_tag = include_bos_eos_tag
        self.name = name

    def forward(self, potentials, lengths):
        """(scores, paths) of viterbi_decode(potentials, self.transitions, lengths)."""
        return viterbi_decode(potentials, self.transitions, lengths, self.include_bos_eos_tag, self.name)
