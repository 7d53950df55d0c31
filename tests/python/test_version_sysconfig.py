"""oar.version and oar.sysconfig, as paddle.version and paddle.sysconfig: the build's numbers and
target, and where the installed C++ headers and libraries are (what a C++ extension builds with)."""
import os

import oar


def test_version_fields_and_show(capsys):
    assert oar.version.full_version == oar.__version__
    assert [oar.version.major, oar.version.minor, oar.version.patch] == oar.__version__.split(".")
    assert oar.version.cuda() is False and oar.version.cudnn() is False and oar.version.nccl() == 0
    oar.version.show()
    shown = dict(line.split(": ", 1) for line in capsys.readouterr().out.strip().splitlines())
    assert shown["full_version"] == oar.__version__
    assert shown["build_target"] == oar.version.build_target()
    assert shown["cpu_isa"] == oar.version.cpu_isa()


def test_sysconfig_points_at_the_library_and_headers():
    lib = oar.sysconfig.get_lib()
    assert os.path.exists(os.path.join(lib, "liboar.so"))
    include = oar.sysconfig.get_include()
    # The headers are installed with the package (pip install); a developer tree copied by
    # tools/dev_rebuild.sh has them only after one pip install.
    header = os.path.join(include, "oar", "oar.h")
    assert os.path.exists(header), f"{header} missing: the package install should put the headers there"
    assert os.path.exists(os.path.join(include, "oar", "ops", "generated", "api.h"))
