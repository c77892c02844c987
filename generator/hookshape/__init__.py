"""hookshape: one declarative hook-shape spec, rendered into POSIX-sh hook harnesses."""

__version__ = "0.1.0"
