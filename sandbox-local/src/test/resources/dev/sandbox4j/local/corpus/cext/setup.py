from setuptools import setup, Extension
setup(name='cext', version='1.0', ext_modules=[Extension('cext', ['src/cext.c'])])
