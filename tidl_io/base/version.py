"""The package version (one place; ``tidl_io.__version__``)."""

__version__ = "0.1.0"
