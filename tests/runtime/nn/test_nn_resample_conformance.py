"""F.pad in every mode and the padding layers, F.interpolate and Upsample, F.grid_sample and
F.affine_grid vs real torch."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from nn_conformance import check_functional, check_layer, hypothesis_settings

from shapecheck.runtime.dims import add, mul, sym
from shapecheck.runtime.nn import build, functional

SIZES = st.sampled_from([0, 1, 2, 3, 3, 4, 5])


@given(st.data())
@hypothesis_settings(300)
def test_pad_in_every_mode(data):
    d = data.draw
    mode = d(st.sampled_from(["constant", "reflect", "replicate", "circular", "bogus"]))
    shape = tuple(d(st.lists(SIZES, max_size=5)))
    if mode == "constant":
        amounts = tuple(d(st.lists(st.integers(-3, 2), max_size=7)))
    else:
        count = d(st.sampled_from([2, 2, 4, 4, 6, 6, 3, 8]))
        # Negative amounts crop in every mode.
        amounts = tuple(d(st.lists(st.integers(-3, 4), min_size=count, max_size=count)))
    kwargs = {"mode": mode}
    if d(st.integers(0, 5)) == 0:
        kwargs["value"] = d(st.sampled_from([0.0, 1.0]))
    check_functional("F.pad", "pad", (shape,), (amounts,), kwargs)


@given(st.data())
@hypothesis_settings(200)
def test_padding_layers(data):
    d = data.draw
    n = d(st.integers(1, 3))
    prefix = d(st.sampled_from(["Reflection", "Replication", "Circular", "Zero", "Constant"]))
    padding = d(st.integers(0, 3)) if d(st.booleans()) else \
        tuple(d(st.lists(st.integers(0, 3), min_size=2 * n, max_size=2 * n)))
    args = (padding, 1.5) if prefix == "Constant" else (padding,)
    rank = d(st.sampled_from([n, n + 1, n + 2, n + 2, n + 3]))
    shape = tuple(d(st.lists(SIZES, min_size=rank, max_size=rank)))
    check_layer("padding layers", f"{prefix}Pad{n}d", args, {}, shape)


@st.composite
def interpolate_case(draw):
    rank = draw(st.sampled_from([2, 3, 3, 4, 4, 4, 5, 5]))
    shape = tuple(draw(st.lists(st.sampled_from([0, 1, 2, 3, 4, 5]), min_size=rank, max_size=rank)))
    mode = draw(st.sampled_from(["nearest", "nearest", "linear", "bilinear", "bilinear", "bicubic",
                                 "trilinear", "area", "nearest-exact", "bogus"]))
    n = max(rank - 2, 1)
    kwargs = {"mode": mode}
    which = draw(st.sampled_from(["size", "scale", "scale", "both", "neither"]))
    sizes = st.integers(0, 6)
    scales = st.sampled_from([0.5, 1.0, 1.5, 2.0, 2, 3, 0.2, 1.7])
    if which in ("size", "both"):
        kwargs["size"] = draw(sizes) if draw(st.booleans()) else tuple(
            draw(st.lists(sizes, min_size=n, max_size=n + draw(st.sampled_from([0, 0, 0, 1])))))
    if which in ("scale", "both"):
        kwargs["scale_factor"] = draw(scales) if draw(st.booleans()) else tuple(
            draw(st.lists(scales, min_size=n, max_size=n + draw(st.sampled_from([0, 0, 0, 1])))))
    if draw(st.integers(0, 3)) == 0:
        kwargs["align_corners"] = draw(st.booleans())
    if draw(st.integers(0, 3)) == 0:
        kwargs["recompute_scale_factor"] = draw(st.booleans())
    return shape, kwargs


@given(interpolate_case(), st.booleans())
@hypothesis_settings(400)
def test_interpolate_and_upsample(case, as_layer):
    shape, kwargs = case
    if as_layer:
        check_layer("Upsample", "Upsample", (), kwargs, shape)
    else:
        check_functional("F.interpolate", "interpolate", (shape,), (), kwargs)


@given(st.data())
@hypothesis_settings(60)
def test_fixed_mode_upsampling_layers(data):
    d = data.draw
    kind = d(st.sampled_from(["UpsamplingNearest2d", "UpsamplingBilinear2d"]))
    kwargs = {"scale_factor": d(st.sampled_from([2, 0.5, 3]))} if d(st.booleans()) else \
        {"size": d(st.sampled_from([1, 4, (2, 3)]))}
    rank = d(st.sampled_from([3, 4, 4, 5]))
    check_layer("Upsample", kind, (), kwargs, tuple(d(st.lists(SIZES, min_size=rank, max_size=rank))))


@given(st.data())
@hypothesis_settings(200)
def test_grid_sample(data):
    d = data.draw
    rank = d(st.sampled_from([3, 4, 4, 4, 5, 5, 6]))
    x = tuple(d(st.lists(st.sampled_from([0, 1, 2, 3]), min_size=rank, max_size=rank)))
    grank = d(st.sampled_from([rank, rank, rank, rank - 1, rank + 1]))
    grid = [d(st.sampled_from([1, 2, 3])) for _ in range(grank)]
    if d(st.integers(0, 4)):
        grid[0] = x[0]
    if d(st.integers(0, 4)):
        grid[-1] = rank - 2
    kwargs = {"mode": d(st.sampled_from(["bilinear", "nearest", "bicubic", "bilinear", "cubic"])),
              "padding_mode": d(st.sampled_from(["zeros", "border", "reflection", "zeros", "wrap"])),
              "align_corners": False}
    check_functional("F.grid_sample", "grid_sample", (x, tuple(grid)), (), kwargs)


@given(st.data())
@hypothesis_settings(150)
def test_affine_grid(data):
    d = data.draw
    size = tuple(d(st.lists(st.sampled_from([0, 1, 2, 3]), min_size=3, max_size=6)))
    k = len(size) - 2
    theta = [d(st.sampled_from([1, 2, 3])), k, k + 1]
    if d(st.integers(0, 3)) == 0:
        theta[d(st.integers(0, 2))] += 1
    if d(st.integers(0, 2)):
        theta[0] = size[0]
    if d(st.integers(0, 8)) == 0:
        theta = theta[1:]
    check_functional("F.affine_grid", "affine_grid", (tuple(theta),), (size,),
                     {"align_corners": d(st.booleans())})


def test_interpolate_keeps_symbolic_sizes_as_expressions():
    N, H, W = sym("N"), sym("H"), sym("W")
    assert functional("interpolate", (N, 3, H, W), scale_factor=2).shape == (N, 3, mul(H, 2), mul(W, 2))
    out = build("Upsample", (), {"scale_factor": 1.5, "mode": "bilinear"}).forward((N, 3, H, 8)).shape
    assert out[3] == 12 and not isinstance(out[2], int)
    assert functional("pad", (N, 3, H, W), (1, 1, 2, 2), mode="reflect").shape[2:] == (add(H, 4), add(W, 2))
