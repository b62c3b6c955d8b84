"""The command line: argument parsing and printing only, one module per command family.
"""

from .app import main

__all__ = ["main"]
