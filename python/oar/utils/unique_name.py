"""Unique names, as paddle.utils.unique_name: generate("linear") gives linear_0, linear_1, ...

Layers take their full name from here ("linear_0") and their parameters add a suffix ("linear_0.w_0"),
which is how optimizer state and Paddle checkpoints refer to parameters.
"""
import contextlib
import threading


class UniqueNameGenerator:
    """Counts how many names each key has given out; an optional prefix goes in front of every name."""

    def __init__(self, prefix=None):
        self.ids = {}
        self.prefix = prefix or ""
        self._lock = threading.Lock()

    def __call__(self, key):
        with self._lock:
            n = self.ids.get(key, 0)
            self.ids[key] = n + 1
        return f"{self.prefix}{key}_{n}"


_generator = UniqueNameGenerator()


def generate(key):
    """The next unique name for `key`: key_0, key_1, ..."""
    return _generator(key)


def switch(new_generator=None, new_para_name_checker=None):
    """Installs `new_generator` (a fresh one when None) and returns the previous one."""
    global _generator
    old = _generator
    _generator = new_generator if new_generator is not None else UniqueNameGenerator()
    return old


@contextlib.contextmanager
def guard(new_generator=None):
    """Names generated inside the block come from a fresh (or the given) generator; a str is a prefix."""
    if isinstance(new_generator, (str, bytes)):
        new_generator = UniqueNameGenerator(new_generator.decode() if isinstance(new_generator, bytes)
                                            else new_generator)
    old = switch(new_generator)
    try:
        yield
    finally:
        switch(old)
