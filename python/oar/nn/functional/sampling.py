"""class_center_sample (paddle.nn.functional.class_center_sample): the class-centre sampling of
PartialFC (An et al. 2021) for margin losses over very many classes. Host bookkeeping over the
(small) label vector; the random negatives come from oar's generator (oar.seed)."""
from __future__ import annotations

import numpy as np

from ... import _C

__all__ = ["class_center_sample"]


def class_center_sample(label, num_classes, num_samples, group=None):
    r"""Samples class centres: every class in ``label`` (the positives, in ascending order), then
    classes drawn at random from the others until ``num_samples`` are chosen (no negatives when the
    positives already reach num_samples). Labels are remapped to their position in that list.

    Args:
        label (Tensor): 1-D int32 or int64 class labels, in [0, num_classes).
        num_classes (int): The number of classes.
        num_samples (int): The number of class centres to sample, at most num_classes.
        group (Group|bool|None, optional): The model-parallel group. One process only here: None
            or False (a process group of more than one rank is not supported).

    Returns:
        tuple: (remapped_label, sampled_class_center), label's dtype: remapped_label has label's
        shape; sampled_class_center has max(num_samples, number of distinct labels) entries.

    Examples:
        >>> import oar
        >>> import oar.nn.functional as F
        >>> oar.seed(1)
        >>> label = oar.to_tensor([9, 5, 5, 1])
        >>> remapped, centres = F.class_center_sample(label, 10, 5)
        >>> print(remapped.numpy().tolist(), centres.numpy()[:3].tolist(), centres.shape)
        [2, 1, 1, 0] [1, 5, 9] [5]
    """
    op = "class_center_sample"
    if not isinstance(label, _C.Tensor):
        raise TypeError(f"{op}: argument 'label' should be a Tensor, got {type(label).__name__}")
    if label.dtype.name not in ("int32", "int64"):
        raise TypeError(f"{op}: argument 'label' should be an int32 or int64 tensor, got {label.dtype.name}")
    if label.ndim != 1:
        raise ValueError(f"{op}: argument 'label' should be 1-D, got shape {list(label.shape)}")
    if num_samples > num_classes:
        raise ValueError(f"Expected num_samples less than or equal to {num_classes}, got num_samples "
                         f"{num_samples}")
    if group not in (None, False, True) and getattr(group, "nranks", 1) > 1:
        raise NotImplementedError(f"{op}: sampling across a model-parallel group of {group.nranks} ranks "
                                  "is not supported")
    from ...tensor.creation import to_tensor
    lab = label.numpy().astype(np.int64)
    if lab.size and (lab.min() < 0 or lab.max() >= num_classes):
        raise ValueError(f"{op}: labels should be in [0, {num_classes}), got values in "
                         f"[{lab.min()}, {lab.max()}]")
    pos = np.unique(lab)
    centres = pos
    if pos.size < num_samples:
        perm = _C.randperm(num_classes).numpy().astype(np.int64)
        is_pos = np.zeros(num_classes, bool)
        is_pos[pos] = True
        neg = perm[~is_pos[perm]][:num_samples - pos.size]
        centres = np.concatenate([pos, neg])
    remapped = np.searchsorted(pos, lab)
    dt = label.dtype.name
    return to_tensor(remapped.astype(dt)), to_tensor(centres.astype(dt))
