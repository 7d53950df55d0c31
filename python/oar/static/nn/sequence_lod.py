"""paddle.static.nn's sequence layers over LoD tensors (sequence_conv, sequence_pool, ...). oar
has no LoD tensors, and Paddle 3's PIR programs do not take these layers either: each raises
the AssertionError Paddle 3.3.1 raises in its default (PIR) static mode and in dynamic mode."""

def _refuse(api):
    from ...framework import mode
    where = "pir mode" if mode.in_static_mode() else "dygraph mode yet"
    raise AssertionError(f"{api}: sequence layer is not supported in {where} (sequence layers work on LoD "
                         f"tensors, which oar does not have)")


def sequence_conv(input, num_filters, filter_size=3, filter_stride=1, padding=True, padding_start=None,
                  bias_attr=None, param_attr=None, act=None, name=None):
    """A convolution over the steps of LoD sequences; refused (AssertionError) as in Paddle's
    PIR mode, since oar has no LoD tensors.

    Examples:
        >>> import oar
        >>> oar.enable_static()
        >>> with oar.static.program_guard(oar.static.Program()):
        ...     x = oar.static.data('x', [4, 3], 'float32')
        ...     try:
        ...         oar.static.nn.sequence_conv(x, 2)
        ...     except AssertionError as e:
        ...         print(str(e)[:51])
        sequence_conv: sequence layer is not supported in p
        >>> oar.disable_static()
    """
    _refuse("sequence_conv")


def sequence_softmax(input, use_cudnn=False, name=None):
    """Softmax within each LoD sequence; refused (AssertionError) as in Paddle's PIR mode.

    Examples:
        >>> import oar
        >>> try:
        ...     oar.static.nn.sequence_softmax(oar.ones([4, 1]))
        ... except AssertionError as e:
        ...     print('not supported in dygraph mode' in str(e))
        True
    """
    _refuse("sequence_softmax")


def sequence_pool(input, pool_type, is_test=False, pad_value=0.0):
    """Pooling of each LoD sequence; refused (AssertionError) as in Paddle's PIR mode.

    Examples:
        >>> import oar
        >>> try:
        ...     oar.static.nn.sequence_pool(oar.ones([4, 1]), 'sum')
        ... except AssertionError as e:
        ...     print('not supported in dygraph mode' in str(e))
        True
    """
    _refuse("sequence_pool")


def sequence_first_step(input):
    """The first step of each LoD sequence; refused (AssertionError) as in Paddle's PIR mode.

    Examples:
        >>> import oar
        >>> try:
        ...     oar.static.nn.sequence_first_step(oar.ones([4, 1]))
        ... except AssertionError as e:
        ...     print('not supported in dygraph mode' in str(e))
        True
    """
    _refuse("sequence_first_step")


def sequence_last_step(input):
    """The last step of each LoD sequence; refused (AssertionError) as in Paddle's PIR mode.

    Examples:
        >>> import oar
        >>> try:
        ...     oar.static.nn.sequence_last_step(oar.ones([4, 1]))
        ... except AssertionError as e:
        ...     print('not supported in dygraph mode' in str(e))
        True
    """
    _refuse("sequence_last_step")


def sequence_expand(x, y, ref_level=-1, name=None):
    """Repeats x's sequences by y's LoD; refused (AssertionError) as in Paddle's PIR mode.

    Examples:
        >>> import oar
        >>> try:
        ...     oar.static.nn.sequence_expand(oar.ones([4, 1]), oar.ones([4, 1]))
        ... except AssertionError as e:
        ...     print('not supported in dygraph mode' in str(e))
        True
    """
    _refuse("sequence_expand")
