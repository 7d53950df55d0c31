"""paddle.utils.deprecated: the decorator that marks an API deprecated (a warning on each call, or
an error), with Paddle's message text."""
import functools
import inspect
import sys
import warnings

from .install_check import PADDLE_API_VERSION

__all__ = ["deprecated", "VisibleDeprecationWarning"]


class VisibleDeprecationWarning(UserWarning):
    """The warning deprecated() raises: a UserWarning, so Python shows it by default (its
    DeprecationWarning is hidden outside __main__), as Paddle's."""


def deprecated(update_to="", since="", reason="", level=0):
    """Decorates an API as deprecated. Its docstring (when it has one) starts with the notice
    'API "<module>.<name>" is deprecated since <since>, and will be removed in future versions.
    Please use "<update_to>" instead.\\n    Reason: <reason>'. Level 0 only changes the docstring;
    level 1 also warns (VisibleDeprecationWarning) on each call; level 2 makes each call raise
    RuntimeError. The warning is given when `since` is empty or not newer than the Paddle API
    version oar implements (3.3.1): `since` names a Paddle version, not oar's own.

    Args:
        update_to (str, optional): The API to use instead; must start with "paddle.". Default: "".
        since (str, optional): The version it was deprecated in. Default: "".
        reason (str, optional): Why. Default: "".
        level (int, optional): 0, 1 or 2. Default: 0.

    Returns:
        Callable: The decorator.

    Examples:
        >>> import warnings
        >>> import oar
        >>> @oar.utils.deprecated(since="2.0.0", update_to="paddle.add", reason="use add", level=1)
        ... def plus(a, b):
        ...     return a + b
        >>> with warnings.catch_warnings(record=True) as w:
        ...     warnings.simplefilter("always")
        ...     print(plus(1, 2))
        3
        >>> print("is deprecated since 2.0.0" in str(w[0].message))
        True
    """

    def decorator(func):
        assert isinstance(update_to, str), 'type of "update_to" must be str.'
        assert isinstance(since, str), 'type of "since" must be str.'
        assert isinstance(reason, str), 'type of "reason" must be str.'
        assert isinstance(level, int) and 0 <= level < 3, (
            f'type of "level" must be int and must be one of 0, 1, 2. But received: {level}.')
        since_, update_to_, reason_ = since.strip(), update_to.strip(), reason.strip()
        name = f"{func.__module__}.{func.__name__}"
        msg = f'API "{name}" is deprecated'
        if since_:
            msg += f" since {since_}"
        msg += ", and will be removed in future versions."
        if update_to_:
            assert update_to_.startswith("paddle."), (
                f'Argument update_to must start with "paddle.", your value is "{update_to}"')
            msg += f' Please use "{update_to_}" instead.'
        if reason_:
            msg += f"\n    Reason: {reason_}"
        if func.__doc__:
            func.__doc__ = "\n\nWarning:\n    " + msg + "\n\n" + inspect.cleandoc(func.__doc__)
        if level == 0:
            return func

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if level == 2:
                raise RuntimeError(f'API "{name}" has been deprecated.')
            text = f"\nWarning:\n{msg} " if sys.platform.lower() == "win32" else f"\033[93m\nWarning:\n{msg} \033[0m"
            current = (_numbers(PADDLE_API_VERSION) + [0] * 4)[:4]
            since_v = (_numbers(since) + [0] * 4)[:4]
            if not since_ or current >= since_v:
                warnings.warn(text, category=VisibleDeprecationWarning, stacklevel=2)
            return func(*args, **kwargs)

        return wrapper

    return decorator


def _numbers(version):
    return [int(p) for p in version.split(".") if p.isdigit()]
