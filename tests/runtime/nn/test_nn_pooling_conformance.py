"""MaxPool/AvgPool 1-3d, the adaptive pools, LPPool and MaxUnpool vs real torch."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from nn_conformance import agree, check_layer, construct, hypothesis_settings, real_verdict, rule_verdict, torch, zeros

from shapecheck.runtime.dims import sym
from shapecheck.runtime.nn import build


@st.composite
def input_shape(draw, n):
    rank = n + draw(st.sampled_from([1, 2, 2, 2, 0, 3]))
    shape = draw(st.lists(st.sampled_from([1, 2, 3, 4, 5, 6, 7, 0]), min_size=rank, max_size=rank))
    return tuple(shape)


@given(st.data())
@hypothesis_settings(400)
def test_max_and_avg_pool(data):
    d = data.draw
    n = d(st.integers(1, 3))
    op = d(st.sampled_from(["Max", "Avg"]))

    def spatial(values):
        return d(values) if d(st.booleans()) else tuple(d(st.lists(values, min_size=n, max_size=n)))

    kwargs = {"padding": spatial(st.integers(0, 2)), "ceil_mode": d(st.booleans())}
    if d(st.booleans()):
        kwargs["stride"] = spatial(st.integers(1, 3))
    if op == "Max":
        kwargs["dilation"] = spatial(st.integers(1, 2))
        kwargs["return_indices"] = d(st.booleans())
    check_layer(f"{op}Pool{n}d", f"{op}Pool{n}d", (spatial(st.integers(1, 3)),), kwargs,
                d(input_shape(n)))


@given(st.data())
@hypothesis_settings(250)
def test_adaptive_pools(data):
    d = data.draw
    n = d(st.integers(1, 3))
    op = d(st.sampled_from(["Max", "Avg"]))
    sizes = st.sampled_from([1, 2, 3, 5, None]) if n > 1 else st.sampled_from([1, 2, 3, 5])
    output = d(sizes.filter(lambda s: s is not None)) if d(st.booleans()) else \
        tuple(d(st.lists(sizes, min_size=n, max_size=n)))
    kwargs = {"return_indices": d(st.booleans())} if op == "Max" else {}
    check_layer(f"Adaptive{op}Pool{n}d", f"Adaptive{op}Pool{n}d", (output,), kwargs, d(input_shape(n)))


def test_pool_output_is_an_expression_of_a_symbolic_size():
    out = build("MaxPool2d", (2,), {}).forward((sym("N"), 8, sym("H"), 6)).shape
    assert str(out[2]) == "(H - 2)//2 + 1" and out[3] == 3
    assert build("AdaptiveAvgPool2d", ((1, 1),), {}).forward((sym("N"), sym("C"), sym("H"), 7)).shape \
        == (sym("N"), sym("C"), 1, 1)


@given(st.data())
@hypothesis_settings(150)
def test_lp_pools(data):
    d = data.draw
    n = d(st.integers(1, 3))
    kernel = d(st.integers(1, 3)) if n == 1 or d(st.booleans()) else \
        tuple(d(st.lists(st.integers(1, 3), min_size=n, max_size=n)))
    kwargs = {"ceil_mode": d(st.booleans())}
    if d(st.booleans()):
        kwargs["stride"] = d(st.integers(1, 3))
    check_layer(f"LPPool{n}d", f"LPPool{n}d", (d(st.sampled_from([1, 2, 3.0])), kernel), kwargs,
                d(input_shape(n)))


@given(st.data())
@hypothesis_settings(200)
def test_max_unpool(data):
    d = data.draw
    n = d(st.integers(1, 3))
    kernel, stride, padding = d(st.integers(1, 3)), d(st.sampled_from([None, 1, 2])), d(st.integers(0, 1))
    x = d(input_shape(n))
    indices = x if d(st.integers(0, 5)) else tuple(d(st.lists(st.integers(1, 3), min_size=len(x),
                                                              max_size=len(x))))
    kwargs = {}
    if d(st.integers(0, 3)) == 0 and len(x) >= n:
        s = stride or kernel
        default = [(size - 1) * s + kernel - 2 * padding for size in x[len(x) - n:]]
        sizes = [v + d(st.integers(-s, s)) for v in default]
        kwargs["output_size"] = tuple(sizes if d(st.booleans()) else list(x[:2]) + sizes)
    context = f"nn.MaxUnpool{n}d({kernel}, {stride}, {padding})({x}, {indices}, **{kwargs})"
    module, layer = construct(f"MaxUnpool{n}d", f"MaxUnpool{n}d", (kernel, stride, padding), {}, context)
    theirs = real_verdict(lambda: module(zeros(x), torch.zeros(indices, dtype=torch.int64), **kwargs))
    agree(f"MaxUnpool{n}d", rule_verdict(lambda: layer.forward(x, indices, **kwargs)), theirs, context)


@given(st.data())
@hypothesis_settings(200)
def test_fold_and_unfold(data):
    d = data.draw
    pair = st.sampled_from([0, 1, 1, 2, 3, (1, 2), (2, 1)])
    kwargs = {"dilation": d(st.sampled_from([1, 1, 2, 0])), "padding": d(st.sampled_from([0, 0, 1, -1])),
              "stride": d(st.sampled_from([1, 1, 2, 0]))}
    kernel = d(pair)
    if d(st.booleans()):
        rank = d(st.sampled_from([3, 4, 4, 5]))
        shape = tuple(d(st.lists(st.sampled_from([0, 1, 2, 3, 4, 5]), min_size=rank, max_size=rank)))
        check_layer("Unfold", "Unfold", (kernel,), kwargs, shape)
    else:
        out = d(st.sampled_from([2, 3, 4, (3, 4)]))
        k = kernel if isinstance(kernel, tuple) else (kernel, kernel)
        planes = d(st.sampled_from([1, 2])) * max(k[0] * k[1], 1) + d(st.sampled_from([0, 0, 0, 1]))
        shape = (d(st.sampled_from([0, 1, 2])), planes, d(st.sampled_from([1, 2, 4, 6, 9, 12])))
        if d(st.integers(0, 5)) == 0:
            shape = shape[1:] if d(st.booleans()) else (1,) + shape
        check_layer("Fold", "Fold", (out, kernel), kwargs, shape)


def test_unfold_and_unpool_keep_symbolic_sizes_as_expressions():
    N, C, H = sym("N"), sym("C"), sym("H")
    out = build("Unfold", (3,), {"padding": 1, "stride": 2}).forward((N, C, H, 8)).shape
    # 4 blocks across a width of 8, and (H + 2 - 3) // 2 + 1 down: L = 4 * ((H - 1)//2 + 1).
    assert out[0] == N and str(out[1]) == "9*C" and str(out[2]) == "4*((H - 1)//2) + 4"
    restored = build("MaxUnpool2d", (2,), {}).forward((N, C, H, 4), (N, C, H, 4)).shape
    assert str(restored[2]) == "2*H" and restored[3] == 8
