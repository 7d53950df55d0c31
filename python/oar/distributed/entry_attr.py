"""The admission rules of a parameter-server sparse embedding table (paddle.distributed's
EntryAttr family): each says when a feature id gets a row, as the attribute string the table
reads (``_to_attr()``)."""

__all__ = ["EntryAttr", "ProbabilityEntry", "CountFilterEntry", "ShowClickEntry"]


class EntryAttr:
    """The base of the entry rules.

    Examples:
        >>> import oar.distributed as dist
        >>> isinstance(dist.CountFilterEntry(3), dist.entry_attr.EntryAttr)
        True
    """

    def __init__(self):
        self._name = None

    def _to_attr(self):
        raise NotImplementedError("EntryAttr is base class")


class ProbabilityEntry(EntryAttr):
    """A new feature id gets a row with probability `probability`.

    Args:
        probability (float): In (0, 1).

    Examples:
        >>> import oar.distributed as dist
        >>> dist.ProbabilityEntry(0.1)._to_attr()
        'probability_entry:0.1'
    """

    def __init__(self, probability):
        super().__init__()
        if not isinstance(probability, float) or not 0 < probability < 1:
            raise ValueError(f"ProbabilityEntry: probability must be a float in (0,1), got {probability!r}")
        self._name = "probability_entry"
        self._probability = probability

    def _to_attr(self):
        return ":".join([self._name, str(self._probability)])


class CountFilterEntry(EntryAttr):
    """A feature id gets a row once it has been seen `count_filter` times.

    Args:
        count_filter (int): >= 0.

    Examples:
        >>> import oar.distributed as dist
        >>> dist.CountFilterEntry(10)._to_attr()
        'count_filter_entry:10'
    """

    def __init__(self, count_filter):
        super().__init__()
        if isinstance(count_filter, bool) or not isinstance(count_filter, int):
            raise ValueError(f"CountFilterEntry: count_filter must be a valid integer greater or equal than 0, got "
                             f"{count_filter!r}")
        if count_filter < 0:
            raise ValueError(f"CountFilterEntry: count_filter must be a valid integer greater or equal than 0, got "
                             f"{count_filter}")
        self._name = "count_filter_entry"
        self._count_filter = count_filter

    def _to_attr(self):
        return ":".join([self._name, str(self._count_filter)])


class ShowClickEntry(EntryAttr):
    """Rows are admitted and scored by the show and click counts fed in the named variables.

    Args:
        show_name (str): The show variable's name.
        click_name (str): The click variable's name.

    Examples:
        >>> import oar.distributed as dist
        >>> dist.ShowClickEntry("show", "click")._to_attr()
        'show_click_entry:show:click'
    """

    def __init__(self, show_name, click_name):
        super().__init__()
        if not isinstance(show_name, str) or not isinstance(click_name, str):
            raise ValueError(f"ShowClickEntry: show_name and click_name must be str, got {show_name!r}, {click_name!r}")
        self._name = "show_click_entry"
        self._show_name = show_name
        self._click_name = click_name

    def _to_attr(self):
        return ":".join([self._name, self._show_name, self._click_name])
