"""Step-by-step decoding (paddle.nn.decode): the Decoder interface, BeamSearchDecoder and
dynamic_decode, the loop that runs a decoder until every sequence has finished.

Beam search keeps beam_size hypotheses per batch item. Each step takes log_softmax of the cell's
logits, adds them to the hypotheses' scores (a finished hypothesis may only extend with the end
token, at no cost), keeps the beam_size best of beam_size * vocab_size candidates, and reorders
the cell states to follow their parent beams; at the end the sequences are traced back through
the parent pointers (oar.nn.functional.gather_tree). Everything runs eagerly on oar's ops;
static graphs (Paddle's while-loop form) are not supported."""
from __future__ import annotations

import numpy as np

from .. import _C
from ..framework.mode import in_dynamic_mode

__all__ = ["Decoder", "BeamSearchDecoder", "dynamic_decode"]

_KINF = 1e9


def _is_tensor(x):
    return isinstance(x, _C.Tensor)


def _map(fn, *structs):
    """fn over the tensors of equally nested tuples/lists/dicts/namedtuples (leaves may be None)."""
    first = structs[0]
    if isinstance(first, dict):
        return type(first)((k, _map(fn, *(s[k] for s in structs))) for k in first)
    if isinstance(first, tuple) and hasattr(first, "_fields"):
        return type(first)(*(_map(fn, *parts) for parts in zip(*structs)))
    if isinstance(first, (list, tuple)):
        return type(first)(_map(fn, *parts) for parts in zip(*structs))
    return fn(*structs)


def _leaves(struct):
    if isinstance(struct, dict):
        return [leaf for k in struct for leaf in _leaves(struct[k])]
    if isinstance(struct, (list, tuple)):
        return [leaf for part in struct for leaf in _leaves(part)]
    return [struct]


class Decoder:
    """The interface dynamic_decode drives: initialize, step, finalize.

    A subclass implements ``initialize(inits) -> (initial_inputs, initial_states, finished)``,
    ``step(time, inputs, states, **kwargs) -> (outputs, next_states, next_inputs, finished)`` and
    optionally ``finalize(outputs, final_states, sequence_lengths) -> (final_outputs,
    final_states)``; ``tracks_own_finished`` says whether step's finished already includes the
    sequences finished before (then dynamic_decode takes the lengths from next_states.lengths).

    Examples:
        >>> import oar
        >>> from oar.nn.decode import Decoder
        >>> try:
        ...     Decoder().initialize(None)
        ... except NotImplementedError:
        ...     print("abstract")
        abstract
    """

    def initialize(self, inits):
        raise NotImplementedError

    def step(self, time, inputs, states, **kwargs):
        raise NotImplementedError

    def finalize(self, outputs, final_states, sequence_lengths):
        raise NotImplementedError

    @property
    def tracks_own_finished(self):
        return False


class _Out(tuple):
    """A named tuple (scores, predicted_ids, parent_ids)."""
    _fields = ("scores", "predicted_ids", "parent_ids")

    def __new__(cls, scores, predicted_ids, parent_ids):
        return super().__new__(cls, (scores, predicted_ids, parent_ids))

    scores = property(lambda self: self[0])
    predicted_ids = property(lambda self: self[1])
    parent_ids = property(lambda self: self[2])


class _State(tuple):
    """A named tuple (cell_states, log_probs, finished, lengths)."""
    _fields = ("cell_states", "log_probs", "finished", "lengths")

    def __new__(cls, cell_states, log_probs, finished, lengths):
        return super().__new__(cls, (cell_states, log_probs, finished, lengths))

    cell_states = property(lambda self: self[0])
    log_probs = property(lambda self: self[1])
    finished = property(lambda self: self[2])
    lengths = property(lambda self: self[3])


class BeamSearchDecoder(Decoder):
    """A decoder that runs beam search over a cell's output distribution.

    The cell's inputs and states are tiled to ``[batch_size * beam_size, ...]`` inside; any other
    ``[batch_size, ...]`` tensor the cell uses (an attention memory, say) must be tiled the same
    way by the caller, with :meth:`tile_beam_merge_with_batch`.

    Args:
        cell (RNNCellBase): The cell (or any callable ``cell(inputs, states, **kwargs) ->
            (outputs, new_states)``).
        start_token (int): The start token id.
        end_token (int): The end token id.
        beam_size (int): The beam width.
        embedding_fn (callable, optional): Maps the chosen ids to the cell's next inputs.
        output_fn (callable, optional): Maps the cell's outputs to logits.

    Examples:
        >>> import oar
        >>> from oar.nn import BeamSearchDecoder, dynamic_decode, GRUCell, Linear, Embedding
        >>> oar.seed(0)
        >>> cell = GRUCell(input_size=8, hidden_size=8)
        >>> decoder = BeamSearchDecoder(cell, start_token=0, end_token=1, beam_size=2,
        ...                             embedding_fn=Embedding(10, 8), output_fn=Linear(8, 10))
        >>> outputs, states = dynamic_decode(decoder, inits=cell.get_initial_states(oar.zeros([3, 8])),
        ...                                  max_step_num=4)
        >>> print(outputs.shape)
        [3, 5, 2]
    """

    OutputWrapper = _Out
    StateWrapper = _State

    def __init__(self, cell, start_token, end_token, beam_size, embedding_fn=None, output_fn=None):
        if not isinstance(beam_size, int) or beam_size < 1:
            raise ValueError(f"BeamSearchDecoder: argument 'beam_size' should be a positive int, got {beam_size!r}")
        self.cell = cell
        self.embedding_fn = embedding_fn
        self.output_fn = output_fn
        self.start_token = start_token
        self.end_token = end_token
        self.beam_size = beam_size

    @staticmethod
    def tile_beam_merge_with_batch(x, beam_size):
        """Repeats each batch entry beam_size times: [batch_size, ...] -> [batch_size * beam_size, ...]
        (rows b * beam_size .. b * beam_size + beam_size - 1 are copies of row b).

        Examples:
            >>> import oar
            >>> from oar.nn import BeamSearchDecoder
            >>> x = oar.to_tensor([[1.0], [2.0]])
            >>> print(BeamSearchDecoder.tile_beam_merge_with_batch(x, 2).numpy().ravel().tolist())
            [1.0, 1.0, 2.0, 2.0]
        """
        x = _C.unsqueeze(x, [1])
        times = [1] * x.ndim
        times[1] = beam_size
        x = _C.tile(x, times)
        return _C.reshape(x, [-1] + list(x.shape[2:]))

    def _split_batch_beams(self, x):
        return _C.reshape(x, [-1, self.beam_size] + list(x.shape[1:]))

    def _merge_batch_beams(self, x):
        return _C.reshape(x, [-1] + list(x.shape[2:]))

    def _expand_to_beam_size(self, x):
        x = _C.unsqueeze(x, [1])
        times = [1] * x.ndim
        times[1] = self.beam_size
        return _C.tile(x, times)

    def _gather(self, x, indices):
        """x [batch, beam_or_more, ...] picked along dim 1 by indices [batch, beam]."""
        b = indices.shape[0]
        rows = _C.tile(_C.unsqueeze(_C.arange(0, b, 1, indices.dtype), [1]), [1, self.beam_size])
        coords = _C.stack([rows, indices], 2).detach()
        return _C.gather_nd(x, coords)

    def initialize(self, initial_cell_states):
        """The first inputs (start tokens, embedded), states and finished flags (all False).

        Examples:
            >>> import oar
            >>> from oar.nn import BeamSearchDecoder, GRUCell
            >>> dec = BeamSearchDecoder(GRUCell(2, 2), 0, 1, beam_size=3)
            >>> inputs, state, finished = dec.initialize(oar.zeros([4, 2]))
            >>> print(inputs.shape, state.log_probs.numpy()[0].tolist(), finished.shape)
            [4, 3] [0.0, -1000000000.0, -1000000000.0] [4, 3]
        """
        from ..framework.dtype import get_default_dtype
        first = _leaves(initial_cell_states)[0]
        batch = first.shape[0]
        self.batch_size = batch
        cell_states = _map(self._expand_to_beam_size, initial_cell_states)
        inputs = _C.full([batch, self.beam_size], int(self.start_token), "int64")
        row = np.array([[0.0] + [-_KINF] * (self.beam_size - 1)], dtype=np.float32)
        fdt = "float64" if str(get_default_dtype()).endswith("float64") else "float32"
        log_probs = _C.tile(_C.cast(_host(row), fdt), [batch, 1])
        finished = _C.full([batch, self.beam_size], False, "bool")
        lengths = _C.zeros_like(inputs)
        if self.embedding_fn is not None:
            inputs = self.embedding_fn(inputs)
        return inputs, _State(cell_states, log_probs, finished, lengths), finished

    def _beam_search_step(self, time, logits, next_cell_states, beam_state):
        vocab = logits.shape[-1]
        self.vocab_size = vocab
        noend = np.full([vocab], -_KINF, dtype=np.float32)
        noend[self.end_token] = 0.0
        noend = _C.cast(_host(noend), logits.dtype)
        step = _C.log(_C.softmax(logits, -1))
        fin = _C.unsqueeze(_C.cast(beam_state.finished, step.dtype), [2])
        # A finished beam may only emit the end token, at no cost.
        step = fin * noend + (1.0 - fin) * step
        log_probs = step + _C.unsqueeze(beam_state.log_probs, [2])
        flat = _C.reshape(log_probs, [-1, self.beam_size * vocab])
        top_scores, top_idx = _C.topk(flat, self.beam_size, -1, True, True)
        v = _C.full([1], vocab, top_idx.dtype)
        beam_idx = _C.floor_divide(top_idx, v)
        token_idx = top_idx - beam_idx * vocab
        next_log_probs = self._gather(flat, top_idx)
        next_cell_states = _map(lambda s: self._gather(s, beam_idx), next_cell_states)
        next_finished = self._gather(beam_state.finished, beam_idx)
        next_lengths = self._gather(beam_state.lengths, beam_idx)
        next_lengths = next_lengths + _C.cast(_C.logical_not(next_finished), next_lengths.dtype)
        end = _C.full([1], int(self.end_token), token_idx.dtype)
        next_finished = _C.logical_or(next_finished, _C.equal(token_idx, end))
        return (_Out(top_scores, token_idx, beam_idx),
                _State(next_cell_states, next_log_probs, next_finished, next_lengths))

    def step(self, time, inputs, states, **kwargs):
        """One beam-search step: runs the cell on every hypothesis and keeps the best beam_size.

        Returns:
            tuple: (OutputWrapper(scores, predicted_ids, parent_ids), StateWrapper(cell_states,
            log_probs, finished, lengths), next_inputs, finished).

        Examples:
            >>> import oar
            >>> from oar.nn import BeamSearchDecoder, GRUCell
            >>> dec = BeamSearchDecoder(GRUCell(4, 4), 0, 1, beam_size=2, embedding_fn=oar.nn.Embedding(5, 4))
            >>> inputs, states, _ = dec.initialize(oar.zeros([1, 4]))
            >>> out, states, inputs, finished = dec.step(oar.zeros([1], "int64"), inputs, states)
            >>> print(out.predicted_ids.shape, inputs.shape)
            [1, 2] [1, 2, 4]
        """
        inputs = _map(self._merge_batch_beams, inputs)
        cell_states = _map(self._merge_batch_beams, states.cell_states)
        cell_outputs, next_cell_states = self.cell(inputs, cell_states, **kwargs)
        cell_outputs = _map(self._split_batch_beams, cell_outputs)
        next_cell_states = _map(self._split_batch_beams, next_cell_states)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        out, state = self._beam_search_step(time, cell_outputs, next_cell_states, states)
        ids = out.predicted_ids.detach()
        next_inputs = self.embedding_fn(ids) if self.embedding_fn is not None else ids
        return out, state, next_inputs, state.finished

    def finalize(self, outputs, final_states, sequence_lengths):
        """Traces the beams back: the full predicted ids [time, batch, beam] (gather_tree).

        Examples:
            >>> import oar
            >>> from oar.nn import BeamSearchDecoder, GRUCell
            >>> dec = BeamSearchDecoder(GRUCell(2, 2), 0, 1, beam_size=2)
            >>> ids = oar.to_tensor([[[2, 3]], [[4, 5]]])
            >>> parents = oar.to_tensor([[[0, 0]], [[1, 0]]])
            >>> out = BeamSearchDecoder.OutputWrapper(None, ids, parents)
            >>> print(dec.finalize(out, None, None)[0].numpy().tolist())
            [[[3, 2]], [[4, 5]]]
        """
        from .functional.extension import gather_tree
        ids = gather_tree(outputs.predicted_ids, outputs.parent_ids)
        return _C.cast(ids, outputs.predicted_ids.dtype), final_states

    @property
    def tracks_own_finished(self):
        return True


def _host(a):
    from ..tensor.creation import to_tensor
    return to_tensor(np.ascontiguousarray(a))


def dynamic_decode(decoder, inits=None, max_step_num=None, output_time_major=False, impute_finished=False,
                   is_test=False, return_length=False, **kwargs):
    r"""Runs ``decoder`` step by step until every sequence has finished or ``max_step_num`` steps
    have run past the first (at most max_step_num + 1 steps).

    Args:
        decoder (Decoder): The decoder (BeamSearchDecoder or a Decoder subclass).
        inits (object, optional): Passed to decoder.initialize (the cell's initial states).
        max_step_num (int, optional): The step limit (see above). Default: None (no limit).
        output_time_major (bool, optional): Outputs [time, batch, ...] instead of
            [batch, time, ...]. Default: False.
        impute_finished (bool, optional): For decoders that do not track their own finished
            sequences: keep the states of finished sequences unchanged. Default: False.
        is_test (bool, optional): Unused (a memory hint in Paddle's static graphs).
        return_length (bool, optional): Also return the sequence lengths. Default: False.
        **kwargs: Passed to decoder.step.

    Returns:
        tuple: (final_outputs, final_states) or (final_outputs, final_states, sequence_lengths).

    Examples:
        >>> import oar
        >>> from oar.nn import BeamSearchDecoder, dynamic_decode, GRUCell, Linear, Embedding
        >>> cell = GRUCell(input_size=4, hidden_size=4)
        >>> decoder = BeamSearchDecoder(cell, start_token=0, end_token=1, beam_size=2,
        ...                             embedding_fn=Embedding(6, 4), output_fn=Linear(4, 6))
        >>> ids, states, lengths = dynamic_decode(decoder, cell.get_initial_states(oar.zeros([2, 4])),
        ...                                       max_step_num=3, return_length=True)
        >>> print(ids.shape[0], ids.shape[2], lengths.shape)
        2 2 [2, 2]
    """
    if not in_dynamic_mode():
        raise NotImplementedError("dynamic_decode: static graphs are not supported; run it in dynamic mode")
    if not isinstance(decoder, Decoder) and not all(hasattr(decoder, m) for m in ("initialize", "step")):
        raise TypeError(f"dynamic_decode: argument 'decoder' should be a Decoder, got {type(decoder).__name__}")

    def keep_finished(state, new_state, mask):
        """new_state where a sequence is still running, state where it had finished."""
        dt = state.dtype
        s, n = state, new_state
        if dt.name == "bool":
            s, n = _C.cast(s, "float32"), _C.cast(n, "float32")
        m = _C.cast(mask, s.dtype)
        m = _C.reshape(m, list(m.shape) + [1] * (s.ndim - m.ndim)).detach()
        out = s * m + n * (1.0 - m)
        return _C.cast(out, dt) if dt.name == "bool" else out

    inputs, states, finished = decoder.initialize(inits)
    lengths = _C.cast(_C.zeros_like(finished), "int64")
    collected = None
    step = 0
    time = _C.full([1], 0, "int64")
    running = not bool(_C.all(finished).item())
    while running:
        outs, next_states, next_inputs, next_finished = decoder.step(time, inputs, states, **kwargs)
        if not decoder.tracks_own_finished:
            next_finished = _C.logical_or(next_finished, finished)
            next_lengths = lengths + _C.cast(_C.logical_not(finished), lengths.dtype)
            if impute_finished:
                next_states = _map(lambda a, b: keep_finished(a, b, finished), states, next_states)
        else:
            next_lengths = getattr(next_states, "lengths", lengths)
        collected = _map(lambda x: _Steps([x]), outs) if collected is None else _append(collected, outs)
        inputs, states, finished, lengths = next_inputs, next_states, next_finished, next_lengths
        step += 1
        time = time + 1
        running = not bool(_C.all(finished).item())
        if max_step_num is not None and step > max_step_num:
            break
    if collected is None:
        raise ValueError("dynamic_decode: every sequence had finished before the first step; nothing to decode")
    final_outputs = _stack(collected)
    final_states = states
    try:
        final_outputs, final_states = decoder.finalize(final_outputs, final_states, lengths)
    except NotImplementedError:
        pass
    if not output_time_major:
        final_outputs = _map(lambda x: _C.transpose(x, [1, 0] + list(range(2, x.ndim))), final_outputs)
    return (final_outputs, final_states, lengths) if return_length else (final_outputs, final_states)


class _Steps(list):
    """The per-step values of one output leaf (a list, kept apart from the structure's lists)."""


def _append(collected, outs):
    def walk(acc, x):
        if isinstance(acc, _Steps):
            acc.append(x)
            return acc
        if isinstance(acc, dict):
            return type(acc)((k, walk(acc[k], x[k])) for k in acc)
        if isinstance(acc, tuple) and hasattr(acc, "_fields"):
            return type(acc)(*(walk(a, b) for a, b in zip(acc, x)))
        return type(acc)(walk(a, b) for a, b in zip(acc, x))
    return walk(collected, outs)


def _stack(collected):
    def walk(acc):
        if isinstance(acc, _Steps):
            return _C.stack(list(acc), 0)
        if isinstance(acc, dict):
            return type(acc)((k, walk(acc[k])) for k in acc)
        if isinstance(acc, tuple) and hasattr(acc, "_fields"):
            return type(acc)(*(walk(a) for a in acc))
        return type(acc)(walk(a) for a in acc)
    return walk(collected)
