"""shapecheck: shape and aliasing analysis for NumPy and PyTorch code."""

import sys

__version__ = "0.1.0"


def reveal_shape(x):
    """At run time, print what ``x`` really is (shape, dtype, library) to stderr and return ``x``.

    ``shapecheck lint`` reports, at the same call, what it believes statically
    (SC004), so the two can be compared, as with mypy's ``reveal_type``.
    """
    shape = getattr(x, "shape", None)
    if shape is None:
        print(f"reveal_shape: not an array: {type(x).__name__}", file=sys.stderr)
        return x
    dims = tuple(int(d) for d in shape)
    text = f"({dims[0]},)" if len(dims) == 1 else "(" + ", ".join(map(str, dims)) + ")"
    library = type(x).__module__.split(".", 1)[0]
    dtype = str(getattr(x, "dtype", "?")).removeprefix("torch.")
    print(f"reveal_shape: {text} {dtype} {library}", file=sys.stderr)
    return x
