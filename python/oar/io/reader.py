"""Reader decorators: paddle.batch (a reader of lists of samples from a reader of samples)."""

__all__ = ["batch"]


def batch(reader, batch_size, drop_last=False):
    """paddle.batch: a reader of lists of batch_size samples from a reader of samples."""
    def batched():
        buf = []
        for item in reader():
            buf.append(item)
            if len(buf) == batch_size:
                yield buf
                buf = []
        if buf and not drop_last:
            yield buf
    return batched
