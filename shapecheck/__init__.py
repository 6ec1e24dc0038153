"""shapecheck: shape and aliasing analysis for NumPy and PyTorch code."""

__version__ = "0.1.0"
