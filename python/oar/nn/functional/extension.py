"""paddle.nn.functional's sequence helpers: temporal_shift (TSM, Lin et al. 2019: a share of the
channels shifted one frame back and another forward in time) and gather_tree (beam-search
backtracking). Both are compositions of C++ ops."""
from ... import _C

__all__ = ["temporal_shift", "gather_tree"]


def temporal_shift(x, seg_num, shift_ratio=0.25, name=None, data_format="NCHW"):
    """x: [N*T, C, H, W] (or NHWC) with T = seg_num frames per clip. Channels [0, C*r) take the
    previous frame's values, [C*r, 2*C*r) the next frame's (zeros past either end); the rest stay.
    Differentiable through the slices and concatenations."""
    op = "temporal_shift"
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"{op}: argument 'data_format' should be 'NCHW' or 'NHWC', got "
                         f"{data_format!r}")
    if x.ndim != 4:
        raise ValueError(f"{op}: argument 'x' must be 4-D ([N*T, C, H, W]), got shape {list(x.shape)}")
    if not isinstance(seg_num, int) or seg_num <= 0:
        raise ValueError(f"{op}: argument 'seg_num' must be a positive int, got {seg_num!r}")
    if x.shape[0] % seg_num != 0:
        raise ValueError(f"{op}: x's dim 0 ({x.shape[0]}) must be divisible by seg_num ({seg_num})")
    if not shift_ratio < 0.5:
        raise ValueError(f"{op}: argument 'shift_ratio' must be less than 0.5, got {shift_ratio}")
    if x.dtype.name not in ("float32", "float64"):
        raise TypeError(f"{op}: argument 'x' must be a float32 or float64 tensor (Paddle's CPU "
                        f"kernels), got {x.dtype.name}")
    last = data_format == "NHWC"
    n, c = x.shape[0] // seg_num, x.shape[3 if last else 1]
    c1, c2 = int(c * shift_ratio), int(c * 2 * shift_ratio)
    frames = _C.reshape(x, [n, seg_num] + list(x.shape[1:]))
    ca = 4 if last else 2  # the channel axis of frames
    end = frames.shape[ca]

    def part(lo, hi):
        return _C.slice(frames, [ca], [lo], [hi])

    def shifted(p, step):
        """p moved `step` frames along time (+1: each frame takes the previous one's)."""
        if seg_num == 1 or p.shape[ca] == 0:
            return _C.zeros_like(p)
        pad = _C.zeros_like(_C.slice(p, [1], [0], [1]))
        if step > 0:
            return _C.concat([pad, _C.slice(p, [1], [0], [seg_num - 1])], 1)
        return _C.concat([_C.slice(p, [1], [1], [seg_num]), pad], 1)

    out = _C.concat([shifted(part(0, c1), 1), shifted(part(c1, c2), -1), part(c2, end)], ca)
    return _C.reshape(out, list(x.shape))


def gather_tree(ids, parents):
    """Full beam-search sequences from step ids and parent beams ([max_time, batch, beam], int32
    or int64): the last step's ids, then backwards out[t] = ids[t] at the beam that the following
    step's parent pointer names."""
    op = "gather_tree"
    if list(ids.shape) != list(parents.shape):
        raise ValueError(f"{op}: 'parents' must have the shape of 'ids' ({list(ids.shape)}), got "
                         f"{list(parents.shape)}")
    for arg, t in (("ids", ids), ("parents", parents)):
        if t.dtype.name not in ("int32", "int64"):
            raise TypeError(f"{op}: argument '{arg}' must be an int32 or int64 tensor, got "
                            f"{t.dtype.name}")
    if ids.ndim != 3:
        raise ValueError(f"{op}: 'ids' must be 3-D [max_time, batch, beam], got shape {list(ids.shape)}")
    steps = ids.shape[0]
    if steps == 0:
        return ids.clone()
    parents = _C.cast(parents, ids.dtype)
    step = lambda t, src: _C.reshape(_C.slice(src, [0], [t], [t + 1]), list(src.shape[1:]))
    rows = [step(steps - 1, ids)]
    beam = step(steps - 1, parents)
    for t in range(steps - 2, -1, -1):
        rows.append(_C.take_along_axis(step(t, ids), beam, 1, False))
        beam = _C.take_along_axis(step(t, parents), beam, 1, False)
    return _C.stack(rows[::-1], 0)
