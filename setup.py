"""Build hook: compile the optional native kernels (tidl_io/native/*.c) into a plain shared library.

Everything else about the package is declared in pyproject.toml. The library goes into the wheel
and also into the source tree's tidl_io/native/ (git-ignored), so that ``import tidl_io`` from a
checkout (the README's test command runs from the repository root) finds it too. Without a C
compiler the build prints one line and the package uses its NumPy path.
"""

import importlib.util
from pathlib import Path

from setuptools import Distribution, find_packages, setup
from setuptools.command.build_py import build_py

try:  # setuptools >= 70.1
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # pragma: no cover - older setuptools
    from wheel.bdist_wheel import bdist_wheel

HERE = Path(__file__).resolve().parent


def _native_build():
    spec = importlib.util.spec_from_file_location("_tidl_io_native_build", HERE / "tidl_io" / "native" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class build_py_native(build_py):
    def run(self):
        super().run()
        targets = [HERE / "tidl_io" / "native"]
        if not getattr(self, "editable_mode", False):
            targets.append(Path(self.build_lib) / "tidl_io" / "native")
        _native_build().try_build(targets)


class BinaryDistribution(Distribution):
    """The wheel carries a shared library: platform files at the wheel's root (platlib)."""

    def has_ext_modules(self):
        return True


class bdist_wheel_native(bdist_wheel):
    """Tagged for this platform, any Python 3 (the library does not use Python.h)."""

    def get_tag(self):
        _, _, plat = super().get_tag()
        return "py3", "none", plat


# Every code package is found (a new part of tidl_io/ cannot be left out of the wheel); the data
# packages have no __init__.py and are named.
PACKAGES = sorted(find_packages(include=["tidl_io", "tidl_io.*"])) + ["tidl_io.examples", "tidl_io.schemas"]

setup(packages=PACKAGES, distclass=BinaryDistribution,
      cmdclass={"build_py": build_py_native, "bdist_wheel": bdist_wheel_native})
