"""Build of trawl's one optional compiled module, the extractor's block walk.

Everything else is in pyproject.toml. ``trawl.html._walk`` is Cython over the DOM that selectolax's
lexbor builds; when it cannot be compiled (no C compiler, no Python headers), the install goes on
without it and ``trawl.html.blocks`` uses its pure-Python walk, which gives the same blocks.
"""

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.extension import Extension


class OptionalBuildExt(build_ext):
    """A failed compilation is a warning, not a failed install (the Python walk stands in)."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # any compiler or Cython failure
            print(f"warning: trawl.html._walk not built ({exc}); the pure-Python walk is used")

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
            print(f"warning: {ext.name} not built ({exc}); the pure-Python walk is used")


def extensions() -> list[Extension]:
    try:
        from Cython.Build import cythonize  # noqa: PLC0415 - a build requirement, maybe absent
    except ImportError:
        print("warning: Cython is not installed; trawl.html._walk not built")
        return []
    # -O3 (loop vectorisation) is ~2 % faster on the extractor than -O2, and gives the same numbers:
    # without -ffast-math the compiler keeps every floating-point operation in order.
    ext = Extension(
        "trawl.html._walk",
        ["src/trawl/html/_walk.pyx"],
        depends=["src/trawl/html/_tree.pxi"],  # included by _walk.pyx
        extra_compile_args=["-O3", "-g0"],
    )
    # The generated C goes to build/, not beside the .pyx (it is an artefact, not a source).
    return list(cythonize([ext], language_level=3, quiet=True, build_dir="build"))


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
