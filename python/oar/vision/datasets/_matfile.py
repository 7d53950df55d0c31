"""A reader of the numeric arrays in MATLAB 5 .mat files (what Flowers' imagelabels.mat and
setid.mat hold), so that oar needs no SciPy: loadmat(path) -> {name: ndarray (2-D, MATLAB's
column-major order)} for the real numeric arrays; other kinds of variables are skipped."""
import struct
import zlib

import numpy as np

_MI = {1: "i1", 2: "u1", 3: "i2", 4: "u2", 5: "i4", 6: "u4", 7: "f4", 9: "f8", 12: "i8", 13: "u8"}
_MI_MATRIX, _MI_COMPRESSED = 14, 15
_NUMERIC_CLASSES = set(range(6, 16))  # mxDOUBLE_CLASS .. mxUINT64_CLASS


def _elements(buf, order):
    """(type, payload) of each data element of buf."""
    pos = 0
    while pos + 8 <= len(buf):
        typ, size = struct.unpack_from(order + "II", buf, pos)
        if typ >> 16:  # small element: size in the upper half, data in the 4 bytes of the tag
            size, typ = typ >> 16, typ & 0xFFFF
            yield typ, buf[pos + 4:pos + 4 + size]
            pos += 8
            continue
        yield typ, buf[pos + 8:pos + 8 + size]
        pos += 8 + size + (-size % 8 if typ != _MI_COMPRESSED else 0)


def _matrix(payload, order):
    parts = list(_elements(payload, order))
    if len(parts) < 4:
        return None
    flags = np.frombuffer(parts[0][1], dtype=order + "u4")
    if (int(flags[0]) & 0xFF) not in _NUMERIC_CLASSES or int(flags[0]) & 0x800:  # complex
        return None
    dims = np.frombuffer(parts[1][1], dtype=order + _MI[parts[1][0]]).astype(np.int64)
    name = parts[2][1].decode("latin-1")
    typ, data = parts[3]
    if typ not in _MI:
        return None
    arr = np.frombuffer(data, dtype=order + _MI[typ])
    return name, arr.reshape(tuple(dims), order="F")


def loadmat(path):
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 128:
        raise ValueError(f"{path!r} is not a MATLAB 5 .mat file (too short)")
    order = "<" if raw[126:128] == b"IM" else ">" if raw[126:128] == b"MI" else None
    if order is None:
        raise ValueError(f"{path!r} is not a MATLAB 5 .mat file (no endian mark)")
    out = {}
    for typ, payload in _elements(raw[128:], order):
        if typ == _MI_COMPRESSED:
            payload = zlib.decompress(payload)
            typ, payload = next(_elements(payload, order))
        if typ == _MI_MATRIX:
            got = _matrix(payload, order)
            if got is not None:
                out[got[0]] = got[1]
    return out
