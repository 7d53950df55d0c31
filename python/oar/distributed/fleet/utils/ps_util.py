"""DistributedInfer (paddle.distributed.fleet.utils.DistributedInfer): inference of a static
program whose embedding tables live on parameter servers."""

__all__ = []


class DistributedInfer:
    """Prepares a static program for inference against parameter servers: keeps a clone of the
    main program (the default one when none is given) and the startup program. oar runs
    collective jobs only: ``init_distributed_infer_env`` needs parameter-server mode
    (NotImplementedError, as fleet.init_worker), and without a parameter-server runtime there are
    no sparse tables for ``get_dist_infer_program`` to look up (AttributeError, as Paddle's build
    without one).

    Args:
        main_program (Program, optional): Default: None (oar.static.default_main_program()).
        startup_program (Program, optional): Default: None (oar.static.default_startup_program()).

    Examples:
        >>> from oar.distributed.fleet.utils import DistributedInfer
        >>> infer = DistributedInfer()
        >>> print(type(infer.origin_main_program).__name__)
        Program
    """

    def __init__(self, main_program=None, startup_program=None):
        from .... import static
        if main_program is not None and not isinstance(main_program, static.Program):
            raise TypeError(f"DistributedInfer: main_program must be an oar.static.Program, got "
                            f"{type(main_program).__name__}")
        self.origin_main_program = (main_program or static.default_main_program()).clone()
        self.origin_startup_program = startup_program or static.default_startup_program()
        self.sparse_table_maps = None

    def init_distributed_infer_env(self, exe, loss, role_maker=None, dirname=None):
        """Starts the parameter-server runtime for inference (parameter-server mode:
        NotImplementedError in oar).

        Examples:
            >>> from oar.distributed.fleet.utils import DistributedInfer
            >>> try:
            ...     DistributedInfer().init_distributed_infer_env(None, None)
            ... except NotImplementedError as e:
            ...     print("parameter-server" in str(e))
            True
        """
        raise NotImplementedError("DistributedInfer.init_distributed_infer_env: parameter-server mode is not "
                                  "implemented in oar (collective jobs only)")

    def get_dist_infer_program(self):
        """The main program with its sparse lookups turned into parameter-server pulls; needs
        the runtime of init_distributed_infer_env (AttributeError without one, as Paddle).

        Examples:
            >>> from oar.distributed.fleet.utils import DistributedInfer
            >>> try:
            ...     DistributedInfer().get_dist_infer_program()
            ... except AttributeError as e:
            ...     print("runtime" in str(e))
            True
        """
        raise AttributeError("DistributedInfer.get_dist_infer_program: there is no parameter-server runtime "
                             "(its send context names the sparse tables); call init_distributed_infer_env first")
