"""Loss layers, as paddle.nn's: each keeps its arguments and forwards to the loss of the same
name in oar.nn.functional. As Paddle, they print without arguments ("MSELoss()"), and most check
`reduction` when built; PyTorch's removed size_average / reduce arguments are refused."""
import functools

from ... import _C
from ...framework import dtype as D
from .. import functional as F
from .activation import _param_alias
from .layers import Layer

__all__ = ["BCELoss", "BCEWithLogitsLoss", "CTCLoss", "CosineEmbeddingLoss", "CrossEntropyLoss",
           "GaussianNLLLoss", "HSigmoidLoss", "HingeEmbeddingLoss", "HuberLoss", "KLDivLoss",
           "L1Loss", "MSELoss", "MarginRankingLoss", "MultiLabelMarginLoss",
           "MultiLabelSoftMarginLoss", "MultiMarginLoss", "NLLLoss", "PoissonNLLLoss",
           "SmoothL1Loss", "SoftMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss"]

_REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(cls, reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{cls}: argument 'reduction' must be 'sum', 'mean' or 'none', got "
                         f"{reduction!r}")


def _refuse_legacy_reduction(size_average_at, reduce_at, reduction_at=None, reductions=_REDUCTIONS):
    """__init__ decorator: PyTorch's size_average / reduce (by keyword, or a bool where PyTorch's
    signature has them) raise ValueError naming the `reduction` to use instead, as Paddle does.
    reduction_at: where this class takes `reduction` positionally; a valid one there means the
    bools after it are this class's own flags."""
    def wrap(init):
        cls = init.__qualname__.split(".")[0]

        @functools.wraps(init)
        def call(self, *args, **kwargs):
            size_average = kwargs.pop("size_average", "")
            reduce = kwargs.pop("reduce", "")
            own_reduction = (reduction_at is not None and len(args) > reduction_at
                             and isinstance(args[reduction_at], str)
                             and args[reduction_at] in reductions)
            if not own_reduction:
                if size_average == "" and len(args) > size_average_at and type(args[size_average_at]) is bool:
                    size_average = args[size_average_at]
                if reduce == "" and len(args) > reduce_at and type(args[reduce_at]) is bool:
                    reduce = args[reduce_at]
            if size_average != "" or reduce != "":
                size_average = None if size_average == "" else size_average
                reduce = None if reduce == "" else reduce
                if reduce is False:
                    use = "none"
                else:
                    use = "sum" if size_average is False else "mean"
                raise ValueError(f"{cls}: arguments 'size_average' and 'reduce' are no longer "
                                 f"supported, got size_average={size_average}, reduce={reduce}; "
                                 f"use reduction='{use}' instead")
            return init(self, *args, **kwargs)
        return call
    return wrap


class BCELoss(Layer):
    """Binary cross entropy of probabilities `input` against `label`."""

    @_refuse_legacy_reduction(1, 2)
    def __init__(self, weight=None, reduction="mean", name=None):
        _check_reduction("BCELoss", reduction)
        super().__init__()
        self.weight = weight
        self.reduction = reduction
        self.name = name

    def forward(self, input, label):
        return F.binary_cross_entropy(input, label, self.weight, self.reduction, self.name)


class BCEWithLogitsLoss(Layer):
    """Binary cross entropy of sigmoid(logit) against `label`, computed stably."""

    @_refuse_legacy_reduction(1, 2)
    def __init__(self, weight=None, reduction="mean", pos_weight=None, name=None):
        _check_reduction("BCEWithLogitsLoss", reduction)
        super().__init__()
        self.weight = weight
        self.reduction = reduction
        self.pos_weight = pos_weight
        self.name = name

    def forward(self, logit, label):
        return F.binary_cross_entropy_with_logits(logit, label, self.weight, self.reduction,
                                                  self.pos_weight, self.name)


class CrossEntropyLoss(Layer):
    """Softmax (unless use_softmax=False) cross entropy with hard or soft labels. As Paddle,
    `reduction` is checked when called, not when built."""

    @_refuse_legacy_reduction(1, 3, reduction_at=2)
    def __init__(self, weight=None, ignore_index=-100, reduction="mean", soft_label=False, axis=-1,
                 use_softmax=True, label_smoothing=0.0, name=None):
        super().__init__()
        self.weight = weight
        self.reduction = reduction
        self.ignore_index = ignore_index
        self.soft_label = soft_label
        self.axis = axis
        self.use_softmax = use_softmax
        self.label_smoothing = label_smoothing
        self.name = name

    @_param_alias("label", "target", reject_both=True)
    def forward(self, input, label):
        return F.cross_entropy(input, label, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, soft_label=self.soft_label,
                               axis=self.axis, use_softmax=self.use_softmax,
                               label_smoothing=self.label_smoothing, name=self.name)


class CTCLoss(Layer):
    """Connectionist temporal classification loss of log_probs [T, N, C] against padded labels."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__()
        self.blank = blank
        self.reduction = reduction
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, labels, input_lengths, label_lengths, norm_by_times=False):
        return F.ctc_loss(log_probs, labels, input_lengths, label_lengths, self.blank,
                          self.reduction, norm_by_times=norm_by_times,
                          zero_infinity=self.zero_infinity)


class CosineEmbeddingLoss(Layer):
    """1 - cos(input1, input2) for label 1, max(0, cos - margin) for label -1."""

    @_refuse_legacy_reduction(1, 2)
    def __init__(self, margin=0, reduction="mean", name=None):
        if margin > 1 or margin < -1:
            raise ValueError(f"CosineEmbeddingLoss: argument 'margin' must be in [-1, 1], got {margin}")
        _check_reduction("CosineEmbeddingLoss", reduction)
        super().__init__()
        self.margin = margin
        self.reduction = reduction
        self.name = name

    def forward(self, input1, input2, label):
        return F.cosine_embedding_loss(input1, input2, label, margin=self.margin,
                                       reduction=self.reduction, name=self.name)


class GaussianNLLLoss(Layer):
    """Negative log likelihood of `label` under N(input, variance)."""

    def __init__(self, full=False, epsilon=1e-6, reduction="mean", name=None):
        _check_reduction("GaussianNLLLoss", reduction)
        super().__init__()
        self.full = full
        self.epsilon = epsilon
        self.reduction = reduction
        self.name = name

    def forward(self, input, label, variance):
        return F.gaussian_nll_loss(input, label, variance, self.full, self.epsilon,
                                   self.reduction, self.name)


class HSigmoidLoss(Layer):
    """Hierarchical sigmoid loss with learnable node classifiers: weight [C, feature_size]
    (Xavier-initialised) and bias [C, 1] (zeros; bias_attr=False drops it), where C is
    num_classes - 1 on the default complete binary tree and num_classes with is_custom (the
    paths then come to forward as path_table / path_code)."""

    def __init__(self, feature_size, num_classes, weight_attr=None, bias_attr=None,
                 is_custom=False, is_sparse=False, name=None):
        super().__init__()
        if num_classes < 2 and not is_custom:
            raise ValueError(f"HSigmoidLoss: argument 'num_classes' must be >= 2 with the default "
                             f"tree (is_custom=False), got {num_classes}")
        if is_sparse and not is_custom:
            is_sparse = False  # as Paddle: sparse updates need a custom tree
        self._feature_size = feature_size
        self._num_classes = num_classes
        self._is_custom = is_custom
        self._is_sparse = is_sparse
        self._weight_attr = weight_attr
        self._bias_attr = bias_attr
        self._name = name
        self._dtype = D.convert_dtype(_C.get_default_dtype())
        C = num_classes if is_custom else num_classes - 1
        self.weight = self.create_parameter([C, feature_size], attr=weight_attr, is_bias=False,
                                            dtype=self._dtype)
        self.bias = self.create_parameter([C, 1], attr=bias_attr, is_bias=True, dtype=self._dtype)

    def forward(self, input, label, path_table=None, path_code=None):
        return F.hsigmoid_loss(input, label, self._num_classes, self.weight, self.bias,
                               path_table=path_table, path_code=path_code,
                               is_sparse=self._is_sparse, name=self._name)


class HingeEmbeddingLoss(Layer):
    """input for label 1, max(0, margin - input) for label -1."""

    @_refuse_legacy_reduction(1, 2)
    def __init__(self, margin=1.0, reduction="mean", name=None):
        super().__init__()
        self.margin = margin
        self.reduction = reduction
        self.name = name

    def forward(self, input, label):
        return F.hinge_embedding_loss(input, label, reduction=self.reduction, margin=self.margin,
                                      name=self.name)


class KLDivLoss(Layer):
    """Kullback-Leibler divergence of `label` from log-probabilities `input` ('batchmean' too)."""

    @_refuse_legacy_reduction(0, 1, reduction_at=0, reductions=_REDUCTIONS + ("batchmean",))
    def __init__(self, reduction="mean", log_target=False):
        super().__init__()
        self.reduction = reduction
        self.log_target = log_target

    def forward(self, input, label):
        return F.kl_div(input, label, self.reduction, self.log_target)


class L1Loss(Layer):
    """|input - label|, reduced."""

    @_refuse_legacy_reduction(0, 1)
    def __init__(self, reduction="mean", name=None):
        _check_reduction("L1Loss", reduction)
        super().__init__()
        self.reduction = reduction
        self.name = name

    def forward(self, input, label):
        return F.l1_loss(input, label, self.reduction, name=self.name)


class MSELoss(Layer):
    """(input - label)^2, reduced."""

    @_refuse_legacy_reduction(0, 1)
    def __init__(self, reduction="mean"):
        super().__init__()
        _check_reduction("MSELoss", reduction)
        self.reduction = reduction

    def forward(self, input, label):
        return F.mse_loss(input, label, self.reduction)


class MarginRankingLoss(Layer):
    """max(0, -label * (input - other) + margin)."""

    @_refuse_legacy_reduction(1, 2)
    def __init__(self, margin=0.0, reduction="mean", name=None):
        _check_reduction("MarginRankingLoss", reduction)
        super().__init__()
        self.margin = margin
        self.reduction = reduction
        self.name = name

    def forward(self, input, other, label):
        return F.margin_ranking_loss(input, other, label, self.margin, self.reduction, self.name)


class MultiLabelMarginLoss(Layer):
    """Multi-class multi-label hinge loss; label rows list target classes up to the first -1."""

    @_refuse_legacy_reduction(0, 1)
    def __init__(self, reduction="mean", name=None):
        super().__init__()
        _check_reduction("MultiLabelMarginLoss", reduction)
        self.reduction = reduction
        self.name = name

    def forward(self, input, label):
        return F.multi_label_margin_loss(input, label, reduction=self.reduction, name=self.name)


class MultiLabelSoftMarginLoss(Layer):
    """Per-class logistic loss averaged over the classes of each sample."""

    @_refuse_legacy_reduction(1, 2)
    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__()
        _check_reduction("MultiLabelSoftMarginLoss", reduction)
        self.weight = weight
        self.reduction = reduction
        self.name = name

    def forward(self, input, label):
        return F.multi_label_soft_margin_loss(input, label, weight=self.weight,
                                              reduction=self.reduction, name=self.name)


class MultiMarginLoss(Layer):
    """Multi-class hinge loss: sum over j != y of max(0, margin - x[y] + x[j])^p / C."""

    @_refuse_legacy_reduction(3, 4)
    def __init__(self, p=1, margin=1.0, weight=None, reduction="mean", name=None):
        super().__init__()
        _check_reduction("MultiMarginLoss", reduction)
        self.p = p
        self.margin = margin
        self.weight = weight
        self.reduction = reduction
        self.name = name

    def forward(self, input, label):
        return F.multi_margin_loss(input, label, p=self.p, margin=self.margin, weight=self.weight,
                                   reduction=self.reduction, name=self.name)


class NLLLoss(Layer):
    """Negative log likelihood of log-probabilities [N, C, ...] at integer labels [N, ...]."""

    @_refuse_legacy_reduction(1, 3)
    def __init__(self, weight=None, ignore_index=-100, reduction="mean", name=None):
        _check_reduction("NLLLoss", reduction)
        super().__init__()
        self._weight = weight
        self._ignore_index = ignore_index
        self._reduction = reduction
        self._name = name

    def forward(self, input, label):
        return F.nll_loss(input, label, weight=self._weight, ignore_index=self._ignore_index,
                          reduction=self._reduction, name=self._name)


class PoissonNLLLoss(Layer):
    """Negative log likelihood of `label` under Poisson(exp(input)) (or Poisson(input))."""

    @_refuse_legacy_reduction(2, 4)
    def __init__(self, log_input=True, full=False, epsilon=1e-8, reduction="mean", name=None):
        if epsilon <= 0:
            raise ValueError(f"PoissonNLLLoss: argument 'epsilon' must be > 0, got {epsilon}")
        _check_reduction("PoissonNLLLoss", reduction)
        super().__init__()
        self._log_input = log_input
        self._full = full
        self._epsilon = epsilon
        self._reduction = reduction
        self._name = name

    def forward(self, input, label):
        return F.poisson_nll_loss(input, label, log_input=self._log_input, full=self._full,
                                  epsilon=self._epsilon, reduction=self._reduction, name=self._name)


class SmoothL1Loss(Layer):
    """Huber loss (is_huber) or smooth L1 loss with threshold delta. As Paddle, `reduction` and
    `delta` are checked when called, not when built."""

    @_refuse_legacy_reduction(0, 1)
    def __init__(self, reduction="mean", delta=1.0, is_huber=True, name=None):
        super().__init__()
        self.reduction = reduction
        self.delta = delta
        self.is_huber = is_huber
        self.name = name

    @_param_alias("label", "target")
    def forward(self, input, label):
        return F.smooth_l1_loss(input, label, reduction=self.reduction, delta=self.delta,
                                is_huber=self.is_huber, name=self.name)


HuberLoss = SmoothL1Loss


class SoftMarginLoss(Layer):
    """log(1 + exp(-label * input)), reduced."""

    @_refuse_legacy_reduction(0, 1)
    def __init__(self, reduction="mean", name=None):
        _check_reduction("SoftMarginLoss", reduction)
        super().__init__()
        self.reduction = reduction
        self.name = name

    def forward(self, input, label):
        return F.soft_margin_loss(input, label, self.reduction, self.name)


class TripletMarginLoss(Layer):
    """max(0, d(input, positive) - d(input, negative) + margin), d the pairwise p-distance."""

    @_refuse_legacy_reduction(4, 5)
    def __init__(self, margin=1.0, p=2.0, epsilon=1e-6, swap=False, reduction="mean", name=None):
        super().__init__()
        _check_reduction("TripletMarginLoss", reduction)
        self.margin = margin
        self.p = p
        self.epsilon = epsilon
        self.swap = swap
        self.reduction = reduction
        self.name = name

    def forward(self, input, positive, negative):
        return F.triplet_margin_loss(input, positive, negative, margin=self.margin, p=self.p,
                                     epsilon=self.epsilon, swap=self.swap,
                                     reduction=self.reduction, name=self.name)


class TripletMarginWithDistanceLoss(Layer):
    """TripletMarginLoss with a distance_function(a, b) of one's own (default: the pairwise
    2-norm distance)."""

    def __init__(self, distance_function=None, margin=1.0, swap=False, reduction="mean", name=None):
        super().__init__()
        _check_reduction("TripletMarginWithDistanceLoss", reduction)
        self.margin = margin
        self.swap = swap
        self.reduction = reduction
        self.distance_function = distance_function
        self.name = name

    def forward(self, input, positive, negative):
        # Paddle 3.3.1's layer drops distance_function here (always the default distance); oar
        # uses it, as the argument documents.
        return F.triplet_margin_with_distance_loss(input, positive, negative,
                                                   distance_function=self.distance_function,
                                                   margin=self.margin, swap=self.swap,
                                                   reduction=self.reduction, name=self.name)
