"""Helpers shared by the model files: channel rounding and the refusal to download weights."""


def _make_divisible(v, divisor=8, min_value=None):
    """Round a channel count to the nearest multiple of `divisor`, never more than 10% below `v`.

    MobileNetV2/V3 size their layers with this rule, so it must round exactly as Paddle's does.
    """
    if min_value is None:
        min_value = divisor
    rounded = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if rounded < 0.9 * v:
        rounded += divisor
    return rounded


def _reject_pretrained(arch, pretrained):
    """oar never downloads anything: pretrained=True is refused with the way to load Paddle's weights."""
    if pretrained:
        raise NotImplementedError(
            f"{arch}: pretrained=True is not supported: oar never downloads weights. Build the model with "
            f"pretrained=False, then load Paddle's weights from a local file: "
            f"model.set_state_dict(oar.load('/path/to/{arch}.pdparams'))")


def _check_scale(where, scale):
    """The width multiplier of the MobileNets must be a positive number (0 would make empty convolutions)."""
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not scale > 0:
        raise ValueError(f"{where}: 'scale' must be a positive number, but got {scale!r}")
