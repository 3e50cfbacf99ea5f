"""Builds the engine's compiled core; falls back to pure Python without a compiler."""
import os
import platform
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """A failed compile leaves the pure-Python engine in place instead of failing the install."""

    def run(self):
        try:
            super().run()
        except Exception as exc:  # no compiler, no headers, no Cython
            self._warn(exc)

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:
            self._warn(exc)

    @staticmethod
    def _warn(exc):
        sys.stderr.write(
            "\nWARNING: the engine's compiled core was not built (%s).\n"
            "Everything still works on the slower pure-Python path; "
            "`python -m engine info` shows which path is active.\n\n" % exc
        )


def cpu_flags():
    """The engine is built where it runs: use the CPU's popcount, AVX2 and BMI2 when it has them
    (Linux on x86-64).  BMI2 is left out on AMD's family 23 (Zen 1 and 2), whose pext is slow.
    OTHELLO_PORTABLE=1 builds for any CPU."""
    if os.environ.get("OTHELLO_PORTABLE") or platform.machine().lower() not in ("x86_64", "amd64"):
        return []
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            info = {}
            for line in f:
                key, _, value = line.partition(":")
                info.setdefault(key.strip(), value.strip())
                if key.strip() == "flags":
                    break
    except OSError:
        return []
    flags = set(info.get("flags", "").split())
    wanted = ["popcnt", "avx2"]
    if not (info.get("vendor_id") == "AuthenticAMD" and info.get("cpu family") == "23"):
        wanted.append("bmi2")
    return [f"-m{name}" for name in wanted if name in flags]


def extensions():
    try:
        from Cython.Build import cythonize
    except ImportError:
        OptionalBuildExt._warn("Cython is not installed")
        return []
    args = ["/O2"] if sys.platform == "win32" else ["-O3"] + cpu_flags()
    ext = Extension("engine._core", ["engine/_core.pyx"], include_dirs=["engine"],
                    extra_compile_args=args)
    return cythonize([ext], language_level=3, quiet=True)


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
