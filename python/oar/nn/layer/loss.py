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
           "SmoothL1Loss", "SoftMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss",
           "RNNTLoss"]

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
    """Binary cross entropy between probabilities and binary labels:
    ``loss = -weight * (label * log(input) + (1 - label) * log(1 - input))``.

    Args:
        weight (Tensor, optional): Rescaling weight of each element, broadcast against the
            loss. Default: None.
        reduction (str, optional): How the per-element losses are combined: 'none' (returned as
            they are), 'mean' or 'sum'. Default: 'mean'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: probabilities in [0, 1], any shape [N, *]; label: the same shape.
        - output: a 0-D Tensor, or the input's shape with reduction 'none'.

    Examples:
        >>> import oar
        >>> loss = oar.nn.BCELoss()
        >>> input = oar.to_tensor([0.5, 0.6, 0.7])
        >>> label = oar.to_tensor([1.0, 0.0, 1.0])
        >>> print(loss(input, label))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.65537...)
    """

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
    """Binary cross entropy on logits: ``sigmoid`` followed by BCELoss, computed in one
    numerically stable step.

    ``loss = -weight * (pos_weight * label * log(sigmoid(logit)) + (1 - label) *
    log(1 - sigmoid(logit)))``.

    Args:
        weight (Tensor, optional): Rescaling weight of each element, broadcast against the
            loss. Default: None.
        reduction (str, optional): How the per-element losses are combined: 'none' (returned as
            they are), 'mean' or 'sum'. Default: 'mean'.
        pos_weight (Tensor, optional): Weight of the positive examples, one per class
            (broadcast along the last dimension). Default: None.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - logit: any shape [N, *]; label: the same shape, values in [0, 1].
        - output: a 0-D Tensor, or the input's shape with reduction 'none'.

    Examples:
        >>> import oar
        >>> loss = oar.nn.BCEWithLogitsLoss()
        >>> logit = oar.to_tensor([0.0, 2.0, -1.0])
        >>> label = oar.to_tensor([1.0, 0.0, 1.0])
        >>> print(loss(logit, label))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               1.37777...)
    """

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
    """Cross entropy between logits (softmax taken inside) and hard or soft labels.

    For a hard label y the loss of a sample is ``-weight[y] * log(softmax(input)[y])``.
    ``reduction`` is checked when the layer is called, not when it is built, as in Paddle.

    Args:
        weight (Tensor, optional): Weight of each class, [C]. Default: None.
        ignore_index (int, optional): A hard label value that contributes no loss (and is left
            out of the mean). Default: -100.
        reduction (str, optional): How the per-element losses are combined: 'none' (returned as
            they are), 'mean' or 'sum'. Default: 'mean'.
        soft_label (bool, optional): Labels are probability distributions over the classes
            instead of class indices. Default: False.
        axis (int, optional): The class axis. Default: -1.
        use_softmax (bool, optional): Apply softmax to the input; False when it already holds
            probabilities. Default: True.
        label_smoothing (float, optional): Mix the one-hot labels with the uniform
            distribution by this amount, in [0, 1). Default: 0.0.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, *, C] (C along ``axis``).
        - label: int64 class indices [N, *] or [N, *, 1]; or with soft_label, the input's shape.
          ``target`` is accepted as a keyword for ``label``.
        - output: a 0-D Tensor, or the per-sample losses with reduction 'none'.

    Examples:
        >>> import oar
        >>> logits = oar.to_tensor([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]])
        >>> label = oar.to_tensor([0, 1])
        >>> print(oar.nn.CrossEntropyLoss()(logits, label))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.31853...)
        >>> print(oar.nn.CrossEntropyLoss(reduction="none")(logits, label))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.41703..., 0.22004...])
    """

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
    """Connectionist temporal classification (CTC) loss, for sequence labelling without a known
    alignment (speech, handwriting).

    Softmax is taken over the classes of ``log_probs`` inside (they are unnormalised scores,
    as in Paddle's warpctc).

    Args:
        blank (int, optional): Index of the blank class. Default: 0.
        reduction (str, optional): 'none' (per-sample losses), 'mean' (the mean of each loss
            divided by its label length) or 'sum'. Default: 'mean'.
        zero_infinity (bool, optional): Infeasible samples (infinite loss) get loss 0 and no
            gradient. Default: False.

    Call:
        ``forward(log_probs, labels, input_lengths, label_lengths, norm_by_times=False)``:
        log_probs [T, N, C] float, labels [N, L_max] int32, input_lengths and label_lengths [N]
        int64; norm_by_times divides the gradient by the input lengths.

    Shape:
        - output: a 0-D Tensor, or [N] with reduction 'none'.

    Examples:
        >>> import oar
        >>> log_probs = oar.zeros([4, 1, 3])
        >>> labels = oar.to_tensor([[1, 2]], dtype="int32")
        >>> input_lengths = oar.to_tensor([4], dtype="int64")
        >>> label_lengths = oar.to_tensor([2], dtype="int64")
        >>> loss = oar.nn.CTCLoss(blank=0, reduction="none")
        >>> print(loss(log_probs, labels, input_lengths, label_lengths))
        Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.68639...])
    """

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__()
        self.blank = blank
        self.reduction = reduction
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, labels, input_lengths, label_lengths, norm_by_times=False):
        return F.ctc_loss(log_probs, labels, input_lengths, label_lengths, self.blank,
                          self.reduction, norm_by_times=norm_by_times,
                          zero_infinity=self.zero_infinity)


class RNNTLoss(Layer):
    """The RNN-T transducer loss (Graves 2012) with FastEmit, as oar.nn.functional.rnnt_loss.

    Args:
        blank (int, optional): The blank class. Default: 0.
        fastemit_lambda (float, optional): FastEmit: the label emissions' gradient is scaled by
            1 + fastemit_lambda. Default: 0.001.
        reduction (str, optional): 'none', 'sum' or 'mean' (the sum over batch_size). Default: 'mean'.
        name (str, optional): Unused.

    Call:
        ``forward(input, label, input_lengths, label_lengths)``: input [B, T, U + 1, C] log
        probabilities (float32/float64, used as given), label int32 [B, U], lengths int32 [B].

    Examples:
        >>> import oar
        >>> acts = oar.zeros([1, 2, 2, 3], dtype="float64")
        >>> label = oar.to_tensor([[1]], dtype="int32")
        >>> lens = oar.to_tensor([2], dtype="int32")
        >>> loss = oar.nn.RNNTLoss(reduction="sum")(acts, label, lens, oar.to_tensor([1], dtype="int32"))
        >>> print(round(float(loss), 6))
        -0.693147
    """

    def __init__(self, blank=0, fastemit_lambda=0.001, reduction="mean", name=None):
        super().__init__()
        if reduction not in _REDUCTIONS:
            raise ValueError(f"RNNTLoss: argument 'reduction' must be one of 'mean', 'sum', 'none', got "
                             f"{reduction!r}")
        self.blank = blank
        self.fastemit_lambda = fastemit_lambda
        self.reduction = reduction
        self.name = name

    def forward(self, input, label, input_lengths, label_lengths):
        return F.rnnt_loss(input, label, input_lengths, label_lengths, blank=self.blank,
                           fastemit_lambda=self.fastemit_lambda, reduction=self.reduction, name=self.name)


class CosineEmbeddingLoss(Layer):
    """Cosine embedding loss: pulls pairs labelled 1 together and pushes pairs labelled -1 apart.

    ``loss = 1 - cos(input1, input2)`` for label 1, ``max(0, cos(input1, input2) - margin)``
    for label -1.

    Args:
        margin (float, optional): In [-1, 1]; values around 0 to 0.5 are usual. Default: 0.
        reduction (str, optional): How the per-element losses are combined: 'none' (returned as
            they are), 'mean' or 'sum'. Default: 'mean'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input1, input2: [N, M] (or [M]); label: [N] of 1 and -1.
        - output: a 0-D Tensor, or [N] with reduction 'none'.

    Examples:
        >>> import oar
        >>> input1 = oar.to_tensor([[1.0, 0.0], [0.0, 1.0]])
        >>> input2 = oar.to_tensor([[1.0, 0.0], [1.0, 0.0]])
        >>> label = oar.to_tensor([1, 1])
        >>> print(oar.nn.CosineEmbeddingLoss()(input1, input2, label))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.50000000)
    """

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
    """Gaussian negative log likelihood: ``label`` scored under N(input, variance).

    ``loss = 0.5 * (log(max(variance, epsilon)) + (input - label)^2 / max(variance, epsilon))``,
    plus ``0.5 * log(2 * pi)`` when ``full``.

    Args:
        full (bool, optional): Include the constant term. Default: False.
        epsilon (float, optional): Lower clamp of the variance. Default: 1e-6.
        reduction (str, optional): How the per-element losses are combined: 'none' (returned as
            they are), 'mean' or 'sum'. Default: 'mean'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, *] (the means); label: the same shape; variance: the same shape, or with
          one dimension of size 1 (shared variance).
        - output: a 0-D Tensor, or [N, *] with reduction 'none'.

    Examples:
        >>> import oar
        >>> loss = oar.nn.GaussianNLLLoss()
        >>> input = oar.to_tensor([1.0, 2.0])
        >>> label = oar.to_tensor([1.0, 3.0])
        >>> variance = oar.to_tensor([1.0, 1.0])
        >>> print(loss(input, label, variance))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.25000000)
    """

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
    """Hierarchical sigmoid loss: classifies into ``num_classes`` classes through binary decisions
    along a tree, cheaper than a softmax over many classes.

    By default the classes are the leaves of a complete binary tree with ``num_classes - 1``
    learnable node classifiers; with ``is_custom`` the tree is given at each call as
    ``path_table`` (node ids, -1 padded) and ``path_code`` (the branch bits).

    Args:
        feature_size (int): Size of each input feature vector.
        num_classes (int): Number of classes (>= 2 for the default tree).
        weight_attr (ParamAttr, optional): Attribute of the node weights [C, feature_size].
            Default: None.
        bias_attr (ParamAttr|bool, optional): Attribute of the node biases [C, 1]; False for
            none. Default: None.
        is_custom (bool, optional): Use a custom tree (path_table / path_code); C is then
            num_classes, else num_classes - 1. Default: False.
        is_sparse (bool, optional): Sparse gradient updates (custom trees only). Default: False.
        name (str, optional): Layer name; usually left unset. Default: None.

    Call:
        ``forward(input, label, path_table=None, path_code=None)``: input [N, feature_size],
        label [N] or [N, 1] int64.

    Shape:
        - output: [N, 1], the loss of each sample.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> loss = oar.nn.HSigmoidLoss(feature_size=3, num_classes=5)
        >>> out = loss(oar.randn([4, 3]), oar.to_tensor([0, 1, 4, 3]))
        >>> print(out.shape)
        [4, 1]
    """

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
    """Hinge embedding loss, for learning whether inputs (often distances) are similar.

    ``loss = input`` for label 1, ``max(0, margin - input)`` for label -1.

    Args:
        margin (float, optional): The margin of the -1 pairs. Default: 1.0.
        reduction (str, optional): How the per-element losses are combined: 'none' (returned as
            they are), 'mean' or 'sum'. Default: 'mean'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: any shape; label: the same shape, values 1 or -1.
        - output: a 0-D Tensor, or the input's shape with reduction 'none'.

    Examples:
        >>> import oar
        >>> loss = oar.nn.HingeEmbeddingLoss(margin=1.0)
        >>> print(loss(oar.to_tensor([0.5, 0.3]), oar.to_tensor([1.0, -1.0])))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.60000...)
    """

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
    """Kullback-Leibler divergence of ``label`` from the log-probabilities ``input``:
    ``loss = label * (log(label) - input)`` (or ``exp(label) * (label - input)`` with log_target).

    Args:
        reduction (str, optional): 'none', 'mean' (over all elements), 'batchmean' (the sum
            divided by the batch size, the true KL divergence) or 'sum'. Default: 'mean'.
        log_target (bool, optional): ``label`` holds log-probabilities too. Default: False.

    Shape:
        - input: [N, *] log-probabilities; label: the same shape.
        - output: a 0-D Tensor, or [N, *] with reduction 'none'.

    Examples:
        >>> import oar
        >>> loss = oar.nn.KLDivLoss(reduction="batchmean")
        >>> input = oar.to_tensor([[-1.0, -1.0]])
        >>> label = oar.to_tensor([[0.5, 0.5]])
        >>> print(loss(input, label))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.30685...)
    """

    @_refuse_legacy_reduction(0, 1, reduction_at=0, reductions=_REDUCTIONS + ("batchmean",))
    def __init__(self, reduction="mean", log_target=False):
        super().__init__()
        self.reduction = reduction
        self.log_target = log_target

    def forward(self, input, label):
        return F.kl_div(input, label, self.reduction, self.log_target)


class L1Loss(Layer):
    """Mean absolute error: ``loss = |input - label|``, reduced.

    Args:
        reduction (str, optional): How the per-element losses are combined: 'none' (returned as
            they are), 'mean' or 'sum'. Default: 'mean'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: any shape [N, *]; label: the same shape.
        - output: a 0-D Tensor, or the input's shape with reduction 'none'.

    Examples:
        >>> import oar
        >>> input = oar.to_tensor([1.0, 2.0, 4.0])
        >>> label = oar.to_tensor([1.0, 4.0, 3.0])
        >>> print(oar.nn.L1Loss()(input, label))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               1.)
        >>> print(oar.nn.L1Loss(reduction="none")(input, label))
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0., 2., 1.])
    """

    @_refuse_legacy_reduction(0, 1)
    def __init__(self, reduction="mean", name=None):
        _check_reduction("L1Loss", reduction)
        super().__init__()
        self.reduction = reduction
        self.name = name

    def forward(self, input, label):
        return F.l1_loss(input, label, self.reduction, name=self.name)


class MSELoss(Layer):
    """Mean squared error: ``loss = (input - label)^2``, reduced.

    Args:
        reduction (str, optional): How the per-element losses are combined: 'none' (returned as
            they are), 'mean' or 'sum'. Default: 'mean'.

    Shape:
        - input: any shape; label: the same shape.
        - output: a 0-D Tensor, or the input's shape with reduction 'none'.

    Examples:
        >>> import oar
        >>> input = oar.to_tensor([1.0, 2.0, 4.0])
        >>> label = oar.to_tensor([1.0, 4.0, 3.0])
        >>> print(oar.nn.MSELoss(reduction="sum")(input, label))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               5.)
    """

    @_refuse_legacy_reduction(0, 1)
    def __init__(self, reduction="mean"):
        super().__init__()
        _check_reduction("MSELoss", reduction)
        self.reduction = reduction

    def forward(self, input, label):
        return F.mse_loss(input, label, self.reduction)


class MarginRankingLoss(Layer):
    """Margin ranking loss: asks ``input`` to rank above ``other`` where label is 1, below where
    it is -1: ``loss = max(0, -label * (input - other) + margin)``.

    Args:
        margin (float, optional): The margin. Default: 0.0.
        reduction (str, optional): How the per-element losses are combined: 'none' (returned as
            they are), 'mean' or 'sum'. Default: 'mean'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input, other, label: the same shape (label values 1 or -1).
        - output: a 0-D Tensor, or that shape with reduction 'none'.

    Examples:
        >>> import oar
        >>> loss = oar.nn.MarginRankingLoss(margin=0.5)
        >>> input = oar.to_tensor([1.0, 2.0])
        >>> other = oar.to_tensor([2.0, 1.0])
        >>> print(loss(input, other, oar.to_tensor([1.0, 1.0])))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.75000000)
    """

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
    """Multi-class multi-label hinge loss: every target class should score at least 1 above
    every non-target class.

    ``loss(x, y) = sum over targets j and non-targets i of max(0, 1 - (x[j] - x[i])) / C``.

    Args:
        reduction (str, optional): How the per-element losses are combined: 'none' (returned as
            they are), 'mean' or 'sum'. Default: 'mean'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C] (or [C]); label: int64 of the same shape, the target classes of each
          row followed by -1 (the rest is ignored).
        - output: a 0-D Tensor, or [N] with reduction 'none'.

    Examples:
        >>> import oar
        >>> input = oar.to_tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> label = oar.to_tensor([[3, 0, -1, 1]])
        >>> print(oar.nn.MultiLabelMarginLoss()(input, label))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.84999...)
    """

    @_refuse_legacy_reduction(0, 1)
    def __init__(self, reduction="mean", name=None):
        super().__init__()
        _check_reduction("MultiLabelMarginLoss", reduction)
        self.reduction = reduction
        self.name = name

    def forward(self, input, label):
        return F.multi_label_margin_loss(input, label, reduction=self.reduction, name=self.name)


class MultiLabelSoftMarginLoss(Layer):
    """Multi-label one-versus-all loss: a logistic loss per class, averaged over the classes.

    ``loss = -mean_c(weight[c] * (y[c] * log(sigmoid(x[c])) + (1 - y[c]) * log(sigmoid(-x[c]))))``.

    Args:
        weight (Tensor, optional): Weight of each class, [C]. Default: None.
        reduction (str, optional): How the per-element losses are combined: 'none' (returned as
            they are), 'mean' or 'sum'. Default: 'mean'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C]; label: [N, C] of 0 and 1.
        - output: a 0-D Tensor, or [N] with reduction 'none'.

    Examples:
        >>> import oar
        >>> loss = oar.nn.MultiLabelSoftMarginLoss()
        >>> print(loss(oar.to_tensor([[0.0, 0.0]]), oar.to_tensor([[1.0, 0.0]])))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.69314...)
    """

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
    """Multi-class hinge loss:
    ``loss(x, y) = sum over i != y of max(0, margin - x[y] + x[i])^p / C``.

    Args:
        p (int, optional): The exponent, 1 or 2. Default: 1.
        margin (float, optional): The margin. Default: 1.0.
        weight (Tensor, optional): Weight of each class, [C]. Default: None.
        reduction (str, optional): How the per-element losses are combined: 'none' (returned as
            they are), 'mean' or 'sum'. Default: 'mean'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C]; label: [N] int64 class indices.
        - output: a 0-D Tensor, or [N] with reduction 'none'.

    Examples:
        >>> import oar
        >>> input = oar.to_tensor([[0.1, 0.2, 0.4, 0.8]])
        >>> print(oar.nn.MultiMarginLoss()(input, oar.to_tensor([3])))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.32499...)
    """

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
    """Negative log likelihood of log-probabilities at integer labels:
    ``loss = -weight[y] * input[y]``; usually after LogSoftmax.

    Args:
        weight (Tensor, optional): Weight of each class, [C]. Default: None.
        ignore_index (int, optional): A label value that contributes no loss. Default: -100.
        reduction (str, optional): 'none' (per-element losses), 'mean' (divided by the sum of
            the weights of the counted labels) or 'sum'. Default: 'mean'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C] or [N, C, d1, d2, ...]; label: [N] or [N, d1, d2, ...] int64.
        - output: a 0-D Tensor, or the label's shape with reduction 'none'.

    Examples:
        >>> import oar
        >>> log_probs = oar.log(oar.to_tensor([[0.5, 0.25, 0.25], [0.1, 0.8, 0.1]]))
        >>> print(oar.nn.NLLLoss()(log_probs, oar.to_tensor([0, 1])))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.45814...)
    """

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
    """Poisson negative log likelihood of ``label`` given the rate ``input``:
    ``loss = exp(input) - label * input`` (log_input), or ``input - label * log(input + epsilon)``.

    Args:
        log_input (bool, optional): ``input`` is the log of the rate. Default: True.
        full (bool, optional): Add the Stirling term ``label * log(label) - label +
            0.5 * log(2 * pi * label)`` (for label > 1). Default: False.
        epsilon (float, optional): Added inside the log when log_input is False; > 0.
            Default: 1e-8.
        reduction (str, optional): How the per-element losses are combined: 'none' (returned as
            they are), 'mean' or 'sum'. Default: 'mean'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: any shape; label: the same shape.
        - output: a 0-D Tensor, or the input's shape with reduction 'none'.

    Examples:
        >>> import oar
        >>> loss = oar.nn.PoissonNLLLoss()
        >>> print(loss(oar.to_tensor([0.0, 1.0]), oar.to_tensor([1.0, 2.0])))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.85914...)
    """

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
    """Smooth L1 (Huber) loss: quadratic for small errors, linear for large ones.

    With ``is_huber`` (the default): ``0.5 * d^2`` where ``|d| < delta``, else
    ``delta * (|d| - 0.5 * delta)``, d = input - label. Without it, the smooth L1 form:
    ``0.5 * d^2 / delta`` where ``|d| < delta``, else ``|d| - 0.5 * delta``. ``oar.nn.HuberLoss``
    is the same class. ``reduction`` and ``delta`` are checked when the layer is called.

    Args:
        reduction (str, optional): How the per-element losses are combined: 'none' (returned as
            they are), 'mean' or 'sum'. Default: 'mean'.
        delta (float, optional): Where the loss turns from quadratic to linear. Default: 1.0.
        is_huber (bool, optional): Huber form (True) or smooth L1 form (False). Default: True.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: any shape; label: the same shape (``target`` is accepted as its keyword).
        - output: a 0-D Tensor, or the input's shape with reduction 'none'.

    Examples:
        >>> import oar
        >>> loss = oar.nn.SmoothL1Loss()
        >>> print(loss(oar.to_tensor([0.5, 3.0]), oar.to_tensor([0.0, 0.0])))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               1.31250000)
    """

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
    """Two-class logistic loss with labels 1 and -1: ``loss = log(1 + exp(-label * input))``.

    Args:
        reduction (str, optional): How the per-element losses are combined: 'none' (returned as
            they are), 'mean' or 'sum'. Default: 'mean'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: any shape; label: the same shape, values 1 or -1.
        - output: a 0-D Tensor, or the input's shape with reduction 'none'.

    Examples:
        >>> import oar
        >>> loss = oar.nn.SoftMarginLoss()
        >>> print(loss(oar.to_tensor([0.0, 2.0]), oar.to_tensor([1.0, -1.0])))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               1.41003...)
    """

    @_refuse_legacy_reduction(0, 1)
    def __init__(self, reduction="mean", name=None):
        _check_reduction("SoftMarginLoss", reduction)
        super().__init__()
        self.reduction = reduction
        self.name = name

    def forward(self, input, label):
        return F.soft_margin_loss(input, label, self.reduction, self.name)


class TripletMarginLoss(Layer):
    """Triplet margin loss: the anchor ``input`` should be nearer to ``positive`` than to
    ``negative`` by ``margin``: ``loss = max(0, d(input, positive) - d(input, negative) + margin)``,
    d the pairwise p-norm distance.

    Args:
        margin (float, optional): The margin. Default: 1.0.
        p (float, optional): The order of the distance norm. Default: 2.0.
        epsilon (float, optional): Added to the differences to avoid a zero norm. Default: 1e-6.
        swap (bool, optional): Use ``min(d(input, negative), d(positive, negative))`` as the
            negative distance. Default: False.
        reduction (str, optional): How the per-element losses are combined: 'none' (returned as
            they are), 'mean' or 'sum'. Default: 'mean'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input, positive, negative: [N, D] (or [D]).
        - output: a 0-D Tensor, or [N] with reduction 'none'.

    Examples:
        >>> import oar
        >>> loss = oar.nn.TripletMarginLoss()
        >>> anchor = oar.to_tensor([[0.0, 0.0]])
        >>> print(loss(anchor, oar.to_tensor([[0.0, 1.0]]), oar.to_tensor([[0.0, 1.5]])))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.49999...)
    """

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
    """Triplet margin loss with a distance function of one's own:
    ``loss = max(0, d(input, positive) - d(input, negative) + margin)``.

    Args:
        distance_function (callable, optional): ``d(a, b)`` returning one distance per row;
            None uses the pairwise 2-norm distance. Default: None.
        margin (float, optional): The margin. Default: 1.0.
        swap (bool, optional): Use ``min(d(input, negative), d(positive, negative))`` as the
            negative distance. Default: False.
        reduction (str, optional): How the per-element losses are combined: 'none' (returned as
            they are), 'mean' or 'sum'. Default: 'mean'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input, positive, negative: [N, D].
        - output: a 0-D Tensor, or [N] with reduction 'none'.

    Examples:
        >>> import oar
        >>> l1 = lambda a, b: oar.abs(a - b).sum(-1)
        >>> loss = oar.nn.TripletMarginWithDistanceLoss(distance_function=l1, margin=2.0)
        >>> anchor = oar.to_tensor([[0.0, 0.0]])
        >>> print(loss(anchor, oar.to_tensor([[0.0, 1.0]]), oar.to_tensor([[1.0, 1.5]])))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.50000000)
    """

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
