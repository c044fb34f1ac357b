"""For tools and install steps that expect a setup.py (``pip install -e .`` as GymVerse's README runs it).

Everything (name, version, dependencies, packages) is declared in pyproject.toml; setuptools reads it from there.
"""

from setuptools import setup

setup()
