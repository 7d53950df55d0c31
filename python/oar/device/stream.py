"""Streams and events of a device (paddle.device.Stream, Event, current_stream, set_stream,
stream_guard), and the place key of a device argument; oar.device and oar.device.cuda export them."""
import contextlib

from .. import _C
from ..framework.place import from_key, to_key

__all__ = ["Stream", "Event", "current_stream", "set_stream", "stream_guard"]


def _key(fn, device):
    """The place key of a device argument (None: the expected place, when it is a device)."""
    if device is None:
        return _C._get_device()
    return to_key(fn, device)


def _device_key(fn, device):
    key = _key(fn, device)
    if key in ("cpu", "gpu_pinned"):
        raise ValueError(f"{fn}: streams and events belong to a device, not to {key}; "
                         "call oar.set_device('gpu') or pass device='gpu:0'")
    return key


class Stream:
    """A queue of device work (paddle.device.Stream). Work on one stream runs in order; work on
    different streams may overlap unless ordered with events (wait_event, wait_stream)."""

    def __init__(self, device=None, priority=2, stream_base=None):
        self.device = from_key(_device_key("Stream", device))
        self._key = self.device._key()
        self._owned = stream_base is None
        self.stream_base = _C._stream_create(self._key) if stream_base is None else stream_base

    def __del__(self):
        if getattr(self, "_owned", False) and self.stream_base:
            try:
                _C._stream_destroy(self._key, self.stream_base)
            except Exception:  # interpreter shutdown: the backend may be gone
                pass

    def synchronize(self):
        _C._stream_synchronize(self._key, self.stream_base)

    def wait_event(self, event):
        _C._stream_wait_event(self._key, self.stream_base, event.event_base)

    def wait_stream(self, stream):
        e = Event(self.device)
        e.record(stream)
        self.wait_event(e)

    def record_event(self, event=None):
        event = event or Event(self.device)
        event.record(self)
        return event

    def query(self):
        return self.record_event().query()

    def __eq__(self, other):
        return isinstance(other, Stream) and (self._key, self.stream_base) == (other._key, other.stream_base)

    def __hash__(self):
        return hash((self._key, self.stream_base))

    def __repr__(self):
        return f"<oar.device.Stream(device={self.device}, stream_base={self.stream_base:#x})>"


class Event:
    """A marker in a stream (paddle.device.Event): record it, then query, synchronize or time it."""

    def __init__(self, device=None, enable_timing=False, blocking=False, interprocess=False):
        self.device = from_key(_device_key("Event", device))
        self._key = self.device._key()
        self.event_base = _C._event_create(self._key)

    def __del__(self):
        if getattr(self, "event_base", 0):
            try:
                _C._event_destroy(self._key, self.event_base)
            except Exception:
                pass

    def record(self, stream=None):
        s = current_stream(self.device) if stream is None else stream
        _C._event_record(self._key, self.event_base, s.stream_base)

    def query(self):
        return _C._event_query(self._key, self.event_base)

    def synchronize(self):
        _C._event_synchronize(self._key, self.event_base)

    def elapsed_time(self, end_event):
        return _C._event_elapsed(self._key, self.event_base, end_event.event_base)


def current_stream(device=None):
    """The stream new work on the device goes to (its default stream unless set_stream chose one)."""
    key = _device_key("current_stream", device)
    return Stream(key, stream_base=_C._current_stream(key))


def set_stream(stream):
    """Makes `stream` the current stream of its device; returns the previous one."""
    previous = _C._set_stream(stream._key, stream.stream_base)
    return Stream(stream._key, stream_base=previous)


@contextlib.contextmanager
def stream_guard(stream):
    """Runs the block's device work on `stream`, then restores the previous current stream."""
    if stream is None:
        yield
        return
    previous = set_stream(stream)
    try:
        yield
    finally:
        set_stream(previous)
