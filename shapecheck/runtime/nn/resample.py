"""Resampling: F.interpolate and the Upsample layers, F.grid_sample and F.affine_grid.

interpolate reads (N, C, d1, ..., dk): the k spatial dims become ``size`` or
``floor(d * scale_factor)``; the mode fixes k (linear 1, bilinear and bicubic
2, trilinear 3; nearest and area any of 1-3), and "area" is an adaptive
average pool. With a symbolic dim, an integral scale keeps an expression
(2*H); any other scale makes the dim unknown.
"""

from __future__ import annotations

from ..dims import UNKNOWN, Dim, Shape, eq, mul
from ..verdicts import Result
from .base import (
    FUNCTIONAL,
    NotModelled,
    is_dim,
    known_int,
    layer_error,
    less,
    register,
    size_repr,
    torch_size,
)
from .pooling import adaptive_pool

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_SPATIAL_RANK = {"linear": 1, "bilinear": 2, "bicubic": 2, "lanczos": 2, "trilinear": 3}
_LETTERS = {1: ("W",), 2: ("H", "W"), 3: ("D", "H", "W")}


def _is_scale(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _scaled(size: Dim, scale: float) -> Dim:
    """ATen's output size for a scale: the product truncated toward zero, as sym_int does."""
    if isinstance(size, int):
        return int(size * scale)
    if float(scale).is_integer():
        return mul(size, int(scale))
    return UNKNOWN


def _python_repr(value) -> str:
    """How Python prints the size or scale_factor argument inside torch's f-strings."""
    if isinstance(value, tuple):
        return "(" + ", ".join(map(repr, value)) + ("," if len(value) == 1 else "") + ")"
    return "[" + ", ".join(map(repr, value)) + "]"


def _sizes_positive(x: Shape, out: tuple, n: int) -> None:
    """upsample_{1,2,3}d_common_check: positive sizes in and out, then no empty channel."""
    spatial = x[2:]
    verdicts = [less(d, 1) for d in spatial + out]
    if True in verdicts:
        letters = _LETTERS[n]
        shown_in = ", ".join(f"{a}: {d}" for a, d in zip(letters, spatial))
        shown_out = ", ".join(f"{a}: {d}" for a, d in zip(letters, out))
        joint = " and output" if n == 1 else " output"
        raise layer_error(f"Input and output sizes should be greater than 0, but got input ({shown_in})"
                          f"{joint} ({shown_out})", "RuntimeError", x)
    if known_int(x[1]) == 0:
        raise layer_error(f"Non-empty {n + 2}D data tensor expected but got a tensor with sizes "
                          f"{torch_size(x)}", "RuntimeError", x)


def interpolate(x: Shape, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False) -> Result:
    """F.interpolate, with torch's Python checks in their order, then the kernel's."""
    x = tuple(x)
    if not isinstance(mode, str) or not all(isinstance(f, bool) or f is None
                                            for f in (align_corners, recompute_scale_factor)) \
            or not isinstance(antialias, bool):
        raise NotModelled("a mode or flag not known")
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise layer_error("align_corners option can only be set with the interpolating modes: "
                          "linear | bilinear | bicubic | trilinear", "ValueError", x)
    n = len(x) - 2
    scales = None
    if size is not None and scale_factor is not None:
        raise layer_error("only one of size or scale_factor should be defined", "ValueError", x)
    if size is not None:
        if isinstance(size, (tuple, list)):
            if not all(is_dim(s) for s in size):
                raise NotModelled("sizes that are not ints")
            if len(size) != n:
                # Certain whatever the sizes; torch prints them, here as the code names them.
                raise layer_error(
                    "Input and output must have the same number of spatial dimensions, but got input "
                    f"with spatial dimensions of {list(x[2:])} and output size of {_python_repr(size)}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                    "(o1, o2, ...,oK) format.", "ValueError", x)
            out = tuple(size)
        elif is_dim(size):
            out = (size,) * max(n, 0)
        else:
            raise NotModelled("a size that is not an int")
    elif scale_factor is not None:
        out = None
        if isinstance(scale_factor, (tuple, list)):
            if not all(_is_scale(s) for s in scale_factor):
                raise NotModelled("scale factors not known")
            if len(scale_factor) != n:
                raise layer_error(
                    "Input and scale_factor must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(x[2:])} and scale_factor of shape "
                    f"{_python_repr(scale_factor)}. Please provide input tensor in (N, C, d1, d2, "
                    "...,dK) format and scale_factor in (s1, s2, ...,sK) format.", "ValueError", x)
            scales = tuple(scale_factor)
        elif _is_scale(scale_factor):
            scales = (scale_factor,) * max(n, 0)
        else:
            raise NotModelled("a scale factor not known")
    else:
        raise layer_error("either size or scale_factor should be defined", "ValueError", x)
    if recompute_scale_factor and size is not None:
        raise layer_error("recompute_scale_factor is not meaningful with an explicit size.",
                          "ValueError", x)
    if scales is not None:
        out = tuple(_scaled(d, s) for d, s in zip(x[2:], scales))
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and len(x) == 4):
        raise layer_error("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and "
                          "requires a 4-D tensor as input", "ValueError", x)
    wanted = _SPATIAL_RANK.get(mode)
    if mode in ("nearest", "nearest-exact", "area") and n in (1, 2, 3) or wanted == n:
        if mode == "lanczos":
            if align_corners:
                raise layer_error("Lanczos mode does not support align_corners=True", "ValueError", x)
            if not antialias:
                raise layer_error("Lanczos mode requires antialias=True", "ValueError", x)
        if mode == "area":
            if scales is not None and any(isinstance(d, int) and d * s < 0 for d, s in zip(x[2:], scales)):
                raise NotModelled("a negative recomputed size")
            return adaptive_pool(x, out, n=n, op="avg")
        _sizes_positive(x, out, n)
        return Result.of(x[:2] + out)
    if mode in ("linear", "bilinear", "trilinear") and n in (1, 2, 3):
        raise layer_error(f"Got {len(x)}D input, but {mode} mode needs {wanted + 2}D input",
                          "NotImplementedError", x)
    raise layer_error(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {len(x)}D) for the "
                      f"modes: {_MODES} (got {mode})", "NotImplementedError", x)


def _upsample_args(args: dict) -> dict:
    scale = args["scale_factor"]
    if isinstance(scale, (tuple, list)):
        if not all(_is_scale(s) for s in scale):
            raise NotModelled("scale factors not known")
        scale = tuple(float(s) for s in scale)
    elif scale is not None:
        if not _is_scale(scale):
            raise NotModelled("a scale factor not known")
        scale = float(scale) if scale else None  # nn.Upsample drops a zero scale
    return dict(args, scale_factor=scale)


def _upsample_forward(layer, x: Shape) -> Result:
    return interpolate(x, layer["size"], layer["scale_factor"], layer["mode"], layer["align_corners"],
                       layer["recompute_scale_factor"])


register("Upsample", [("size", None), ("scale_factor", None), ("mode", "nearest"),
                      ("align_corners", None), ("recompute_scale_factor", None)], _upsample_args,
         _upsample_forward)
register("UpsamplingNearest2d", [("size", None), ("scale_factor", None)],
         lambda a: dict(_upsample_args(a), mode="nearest", align_corners=None,
                        recompute_scale_factor=None), _upsample_forward)
register("UpsamplingBilinear2d", [("size", None), ("scale_factor", None)],
         lambda a: dict(_upsample_args(a), mode="bilinear", align_corners=True,
                        recompute_scale_factor=None), _upsample_forward)
FUNCTIONAL["interpolate"] = interpolate
FUNCTIONAL["upsample"] = interpolate


# --------------------------------------------------------------------------- grid_sample


def grid_sample(x: Shape, grid: Shape, mode="bilinear", padding_mode="zeros", align_corners=None) -> Result:
    """F.grid_sample: input (N, C, *in) sampled at grid (N, *out, k) gives (N, C, *out)."""
    x, grid = tuple(x), tuple(grid)
    if not isinstance(mode, str) or not isinstance(padding_mode, str):
        raise NotModelled("a mode not known")
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise layer_error(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
                          f"'bicubic', but got: '{mode}'", "ValueError", x)
    if padding_mode not in ("zeros", "border", "reflection"):
        raise layer_error("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', "
                          f"or 'reflection', but got: '{padding_mode}'", "ValueError", x)
    if not x or not grid:
        raise NotModelled("a 0-d input or grid")
    if eq(x[0], grid[0]) is False:
        raise layer_error(f"grid_sampler(): expected grid and input to have same batch size, but got "
                          f"input with sizes {torch_size(x)} and grid with sizes {torch_size(grid)}",
                          "RuntimeError", x, grid, dim=0)
    if eq(grid[-1], len(x) - 2) is False:
        raise layer_error(f"grid_sampler(): expected grid to have size {len(x) - 2} in last dimension, "
                          f"but got grid with sizes {torch_size(grid)}", "RuntimeError", x, grid)
    for axis in range(2, len(x)):
        if known_int(x[axis]) == 0:
            raise layer_error(f"grid_sampler(): expected input to have non-empty spatial dimensions, but "
                              f"input has sizes {torch_size(x)} with dimension {axis} being empty",
                              "RuntimeError", x, dim=axis)
    want = 4 if len(x) == 4 else 5
    if not (len(x) == want and len(grid) == want):
        raise layer_error(f"grid_sampler(): expected {want}D input and grid with same number of "
                          f"dimensions, but got input with sizes {torch_size(x)} and grid with sizes "
                          f"{torch_size(grid)}", "RuntimeError", x, grid)
    if mode == "bicubic" and want == 5:
        raise layer_error("grid_sampler(): bicubic interpolation only supports 4D input",
                          "RuntimeError", x)
    return Result.of(x[:2] + grid[1:-1])


def affine_grid(theta: Shape, size, align_corners=None) -> Result:
    """F.affine_grid(theta (N, 2, 3) or (N, 3, 4), size (N, C, *spatial)) -> (N, *spatial, 2 or 3)."""
    theta = tuple(theta)
    if not isinstance(size, (tuple, list)) or not all(isinstance(s, int) for s in size):
        raise NotModelled("a size not known")
    if len(size) in (4, 5):
        k = len(size) - 2
        if len(theta) != 3 or eq(theta[-2], k) is False or eq(theta[-1], k + 1) is False:
            if not all(isinstance(d, int) for d in theta):
                raise NotModelled("the message prints sizes not known")
            raise layer_error(f"Expected a batch of {k}D affine matrices of shape Nx{k}x{k + 1} for size "
                              f"{_python_repr(size)}. Got {size_repr(theta)}.", "ValueError", theta)
    else:
        raise layer_error("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                          f"respectively. Got size {_python_repr(size)}.", "NotImplementedError", theta)
    spatial = tuple(size[2:])
    if align_corners and min(spatial) == 1:
        pass  # torch warns and goes on
    elif min(size) <= 0:
        raise layer_error(f"Expected non-zero, positive output size. Got {_python_repr(size)}",
                          "ValueError", theta)
    if eq(theta[0], size[0]) is False:
        raise layer_error(f"Expected size for first two dimensions of batch2 tensor to be: "
                          f"[{size[0]}, {k + 1}] but got: [{theta[0]}, {k + 1}].", "RuntimeError", theta)
    return Result.of((size[0],) + spatial + (k,))


FUNCTIONAL.update(grid_sample=grid_sample, affine_grid=affine_grid)

__all__ = ["affine_grid", "grid_sample", "interpolate"]
