"""Builds the Cython core (ext/*.pyx) into the advisor package."""
import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

extensions = [
    Extension("advisor._core", ["ext/_core.pyx"], include_dirs=[numpy.get_include()],
              extra_compile_args=["-O2"],
              define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]),
]

setup(ext_modules=cythonize(extensions, include_path=["ext"],
                            compiler_directives={"language_level": 3}))
