"""ParamAttr, as paddle.ParamAttr: how a layer should create one of its parameters."""


class ParamAttr:
    """Name, initializer, learning-rate multiplier, regularizer and flags of one parameter."""

    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None, trainable=True,
                 do_model_average=True, need_clip=True):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"ParamAttr: 'name' must be a str or None, but got {type(name).__name__}")
        if not isinstance(learning_rate, (int, float)) or isinstance(learning_rate, bool):
            raise TypeError(f"ParamAttr: 'learning_rate' must be a float, but got {type(learning_rate).__name__}")
        if not isinstance(trainable, bool):
            raise TypeError(f"ParamAttr: 'trainable' must be a bool, but got {type(trainable).__name__}")
        self.name = name
        self.initializer = initializer
        self.learning_rate = float(learning_rate)
        self.regularizer = regularizer
        self.trainable = trainable
        self.do_model_average = do_model_average
        self.need_clip = need_clip

    def __repr__(self):
        return (f"ParamAttr(name={self.name!r}, initializer={self.initializer!r}, "
                f"learning_rate={self.learning_rate}, regularizer={self.regularizer!r}, "
                f"trainable={self.trainable}, need_clip={self.need_clip})")

    @staticmethod
    def _to_attr(arg):
        """What layers accept as weight_attr/bias_attr: None, ParamAttr, a name, an initializer, a
        regularizer, a bool (False: no parameter), or a list of those."""
        from ..nn.initializer import Initializer
        if arg is None:
            return ParamAttr()
        if isinstance(arg, (list, tuple)):
            return [ParamAttr._to_attr(a) for a in arg]
        if isinstance(arg, ParamAttr):
            return arg
        if isinstance(arg, str):
            return ParamAttr(name=arg)
        if isinstance(arg, Initializer):
            return ParamAttr(initializer=arg)
        if isinstance(arg, bool):
            return ParamAttr() if arg else False
        if hasattr(arg, "_regularization_coeff") or type(arg).__name__ in ("L1Decay", "L2Decay"):
            return ParamAttr(regularizer=arg)
        raise TypeError(f"ParamAttr: cannot make a parameter attribute from {type(arg).__name__} "
                        "(expected None, ParamAttr, str, Initializer, a regularizer or bool)")
