"""Build information, as paddle.version: the version numbers, what the build supports, and
(oar's addition) the CPU target it was compiled for and the vector paths this CPU takes."""
from . import _C

full_version = "0.1.0"
major, minor, patch = full_version.split(".")
rc = "0"
cuda_archs = []
__all__ = ["full_version", "major", "minor", "patch", "rc", "show", "cuda", "cudnn", "nccl", "xpu",
           "cpu_isa", "build_target", "xpu_xre", "xpu_xccl", "xpu_xhpc", "tensorrt", "hip"]

# The ROCm build's HIP version; None in a build without HIP (Paddle's attribute, not a function).
hip = None


def cuda():
    """The CUDA version the build uses, or False (the CUDA backend is a plug-in: oar.device)."""
    return False


def cudnn():
    """The cuDNN version the build uses, or False."""
    return False


def nccl():
    """The NCCL version the build uses, or 0."""
    return 0


def xpu():
    """The XPU version the build uses, or False."""
    return False


def xpu_xre():
    """The XPU runtime (XRE) version the build uses: the string 'False' without XPU (as Paddle)."""
    return "False"


def xpu_xccl():
    """The XPU collective library (XCCL) version: 'False' without XPU."""
    return "False"


def xpu_xhpc():
    """The XPU high-performance library (XHPC) version: 'False' without XPU."""
    return "False"


def tensorrt():
    """The TensorRT version the build links: the string 'None' without TensorRT (as Paddle)."""
    return "None"


def build_target():
    """The CPU the library was compiled for: 'x86-64-v3' (portable: AVX2 and FMA, the default)
    or 'native' (the build machine's CPU only, OAR_NATIVE=ON)."""
    return _C._build_info()["build_target"]


def cpu_isa():
    """The vector paths this CPU takes at run time: 'avx512', 'avx2' or 'baseline'
    (the environment variable OAR_CPU_ISA=avx2|baseline lowers it, for testing)."""
    return _C._build_info()["cpu_isa"]


def show():
    """Prints the build information.

    Examples:
        >>> import oar
        >>> oar.version.show()  # doctest: +ELLIPSIS
        full_version: 0.1.0
        ...
    """
    print(f"full_version: {full_version}")
    print(f"major: {major}")
    print(f"minor: {minor}")
    print(f"patch: {patch}")
    print(f"rc: {rc}")
    print(f"cuda: {cuda()}")
    print(f"cudnn: {cudnn()}")
    print(f"nccl: {nccl()}")
    print(f"build_target: {build_target()}")
    print(f"cpu_isa: {cpu_isa()}")
