"""The error dy2static raises for control flow it cannot turn into IR control flow.

Paddle raises `Dygraph2StaticException` (or NotImplementedError from its transformers) for these;
ours is a NotImplementedError, since each one names a construct the converter does not support,
and its message always starts with the user's `file:line` and ends with what to change.
"""


class Dy2StaticError(NotImplementedError):
    """A construct in a function given to `oar.jit.to_static` cannot be converted."""

    def __init__(self, site, what, fix):
        self.filename, self.lineno = site[0], site[1]
        self.what, self.fix = what, fix
        super().__init__(f"{site[0]}:{site[1]}: {what}. {fix}")


def site_text(site):
    """`file:line` of a site tuple (filename, lineno, kind)."""
    return f"{site[0]}:{site[1]}"
