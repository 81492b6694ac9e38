"""Build of trawl's optional compiled modules: the page's tree and block walk, the language
identifier's naive-Bayes evidence, and the charset detector's loops.

Everything else is in pyproject.toml. ``trawl.html._walk`` is Cython over the DOM that selectolax's
lexbor builds (and trawl's own tree builder); ``trawl.langid._nb`` scores a text's n-grams against
the shipped model; ``trawl.decode._detect`` builds the detector's sample and sums its candidates'
scores. When they cannot be compiled (no C compiler, no Python headers), the install goes
on without them and the pure-Python paths, which give the same results, are used.
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
            print(f"warning: trawl's compiled modules not built ({exc}); the pure-Python paths are used")

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:
            print(f"warning: {ext.name} not built ({exc}); its pure-Python path is used")


def extensions() -> list[Extension]:
    try:
        from Cython.Build import cythonize  # noqa: PLC0415 - a build requirement, maybe absent
    except ImportError:
        print("warning: Cython is not installed; trawl's compiled modules not built")
        return []
    # -O3 (loop vectorisation) is ~2 % faster on the extractor than -O2, and gives the same numbers:
    # without -ffast-math the compiler keeps every floating-point operation in order.
    walk = Extension(
        "trawl.html._walk",
        ["src/trawl/html/_walk.pyx"],
        depends=["src/trawl/html/_tree.pxi"],  # included by _walk.pyx
        extra_compile_args=["-O3", "-g0"],
    )
    # No fused multiply-add: the scores must be numpy's, bit for bit (its bincount adds products).
    nb = Extension(
        "trawl.langid._nb",
        ["src/trawl/langid/_nb.pyx"],
        extra_compile_args=["-O3", "-g0", "-ffp-contract=off"],
    )
    # The detector's sums are exact whatever the order; the lookups add as numpy does.
    detect = Extension(
        "trawl.decode._detect",
        ["src/trawl/decode/_detect.pyx"],
        extra_compile_args=["-O3", "-g0", "-ffp-contract=off"],
    )
    # The generated C goes to build/, not beside the .pyx (it is an artefact, not a source).
    return list(cythonize([walk, nb, detect], language_level=3, quiet=True, build_dir="build"))


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
