"""The op table is well formed, and its view kinds are what real NumPy and torch do today."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from shapecheck.runtime import ops
from shapecheck.runtime.dialects import NUMPY, TORCH, TORCH_LEGACY
from shapecheck.runtime.engine import Engine
from shapecheck.runtime.ops import VIEW_KINDS, ArrayArg, call_view_kind, lookup
from shapecheck.runtime.verdicts import Result


def test_every_rule_is_callable_with_a_dialect_keyword():
    for spec in ops.all_specs():
        assert callable(spec.rule), spec.name
        params = inspect.signature(spec.rule).parameters
        assert "dialect" in params and params["dialect"].kind is inspect.Parameter.KEYWORD_ONLY, \
            spec.name


def test_every_inplace_op_destroys_its_first_input_and_views_nothing():
    inplace = [s for s in ops.all_specs() if s.inplace]
    assert {"add_", "__iadd__", "copy_", "__setitem__", "np.copyto", "masked_fill_"} <= {
        s.name for s in inplace}
    for spec in inplace:
        assert spec.destroy_map == {0: [0]} and spec.view_map == {}, spec.name
    for spec in ops.all_specs():
        if not spec.inplace:
            assert spec.destroy_map == {}, spec.name


def test_view_map_is_declared_exactly_for_ops_whose_output_may_alias_input_zero():
    for spec in ops.all_specs():
        assert spec.view_kind in VIEW_KINDS, spec.name
        if not spec.inplace:
            assert (spec.view_map == {0: [0]}) == (spec.view_kind != "none"), spec.name


def test_names_in_dunder_or_trailing_underscore_spelling_are_inplace_exactly_when_they_say_so():
    for spec in ops.all_specs():
        if spec.name.startswith("__i") and spec.name.endswith("__") and spec.name != "__invert__":
            assert spec.inplace, spec.name
        elif spec.name.endswith("_") and not spec.name.endswith("__"):
            assert spec.inplace, spec.name


def test_lookup_keeps_each_library_to_its_own_names():
    assert lookup("np.add", TORCH) is None and lookup("torch.add", NUMPY) is None
    assert lookup("add_", NUMPY) is None and lookup("add_", TORCH).inplace
    assert lookup("no.such.op", NUMPY) is None
    # the same method name, different ops: ndarray.view(dtype) vs Tensor.view(*shape)
    assert lookup("view", NUMPY).library == "numpy" and lookup("view", TORCH).library == "torch"
    assert lookup("flatten", NUMPY).view_kind == "none"
    assert lookup("flatten", TORCH).view_kind == "maybe"
    assert lookup("__add__", TORCH_LEGACY) is lookup("__add__", TORCH)


def test_legacy_fallback_marks_exactly_the_ops_of_the_broadcasting_notes():
    from shapecheck.runtime.rules.pointwise import FALLBACK_OPS
    marked = {s.name for s in ops.all_specs() if s.legacy_fallback and s.name.startswith("torch.")}
    assert {"torch.add", "torch.sub", "torch.mul", "torch.div", "torch.pow", "torch.fmod",
            "torch.remainder", "torch.addcmul", "torch.addcdiv"} <= marked
    assert all(name.split(".")[1] in FALLBACK_OPS | {"subtract", "multiply", "divide"}
               for name in marked)


def test_rules_answer_with_results_for_calls_in_user_spelling():
    a, b = ArrayArg((5, 1, 4)), ArrayArg((3, 1))
    assert lookup("np.add", NUMPY).rule(a, b, dialect=NUMPY) == Result.of((5, 3, 4))
    assert lookup("__add__", TORCH).rule(a, 2.0, dialect=TORCH).shape == (5, 1, 4)
    assert lookup("view", TORCH).rule(a, 4, -1, dialect=TORCH).shape == (4, 5)
    assert lookup("transpose", TORCH).rule(a, 0, 2, dialect=TORCH).shape == (4, 1, 5)
    assert lookup("transpose", NUMPY).rule(a, dialect=NUMPY).shape == (4, 1, 5)
    assert lookup("__getitem__", NUMPY).rule(a, (0, slice(None), [1, 2]),
                                             dialect=NUMPY).shape == (2, 1)
    assert lookup("torch.cat", TORCH).rule([a, a], 1, dialect=TORCH).shape == (5, 2, 4)
    assert lookup("np.linalg.svd", NUMPY).rule(ArrayArg((2, 3)), dialect=NUMPY).outputs == (
        (2, 2), (2,), (3, 3))


def test_call_view_kind_depends_on_the_index_and_on_copy_false():
    x = ArrayArg((3, 4))
    getitem = lookup("__getitem__", NUMPY)
    assert call_view_kind(getitem, (x, (slice(None), 1)), {}, NUMPY) == "view"
    assert call_view_kind(getitem, (x, ([0, 1],)), {}, NUMPY) == "none"
    assert call_view_kind(getitem, (x, ArrayArg((3, 4), "bool")), {}, NUMPY) == "none"
    assert call_view_kind(getitem, (x, (0, 1)), {}, NUMPY) == "none"  # a scalar copy
    assert call_view_kind(lookup("__getitem__", TORCH), (x, (0, 1)), {}, TORCH) == "view"
    astype = lookup("astype", NUMPY)
    assert call_view_kind(astype, (x, "float64"), {}, NUMPY) == "none"
    assert call_view_kind(astype, (x, "float64"), {"copy": False}, NUMPY) == "same"


# ---------------------------------------------------------------------------
# view kinds against the real libraries

NUMPY_CASES = [
    # (op, input shape, dtype, extra args, kwargs)
    ("__getitem__", (3, 4), "float64", ((slice(None), 1),), {}),
    ("__getitem__", (3, 4), "float64", (([0, 2],),), {}),
    ("T", (3, 4), "float64", (), {}),
    ("mT", (2, 3, 4), "float64", (), {}),
    ("transpose", (2, 3, 4), "float64", (), {}),
    ("swapaxes", (2, 3, 4), "float64", (0, 2), {}),
    ("np.moveaxis", (2, 3, 4), "float64", (0, -1), {}),
    ("squeeze", (1, 3), "float64", (), {}),
    ("np.expand_dims", (3, 4), "float64", (0,), {}),
    ("reshape", (3, 4), "float64", (-1,), {}),
    ("ravel", (3, 4), "float64", (), {}),
    ("np.ravel", (3, 4), "float64", (), {}),
    ("flatten", (3, 4), "float64", (), {}),
    ("np.ascontiguousarray", (3, 4), "float64", (), {}),
    ("diagonal", (3, 4), "float64", (), {}),
    ("np.diagonal", (3, 4), "float64", (1,), {}),
    ("np.broadcast_to", (3, 1), "float64", ((2, 3, 4),), {}),
    ("np.split", (4, 3), "float64", (2,), {}),
    ("copy", (3, 4), "float64", (), {}),
    ("np.copy", (3, 4), "float64", (), {}),
    ("np.array", (3, 4), "float64", (), {}),
    ("np.asarray", (3, 4), "float64", (), {}),
    ("astype", (3, 4), "float64", ("float64",), {"copy": False}),
    ("astype", (3, 4), "float64", ("float32",), {}),
    ("view", (3, 4), "float64", (), {}),
    ("real", (3, 4), "complex128", (), {}),
    ("imag", (3, 4), "complex128", (), {}),
    ("np.sum", (3, 4), "float64", (0,), {}),
]

TORCH_CASES = [
    ("__getitem__", (3, 4), "float32", ((slice(None), 1),), {}),
    ("__getitem__", (3, 4), "float32", (([0, 2],),), {}),
    ("T", (3, 4), "float32", (), {}),
    ("mT", (2, 3, 4), "float32", (), {}),
    ("t", (3, 4), "float32", (), {}),
    ("transpose", (2, 3, 4), "float32", (0, 2), {}),
    ("permute", (2, 3, 4), "float32", (2, 0, 1), {}),
    ("squeeze", (1, 3), "float32", (0,), {}),
    ("unsqueeze", (3, 4), "float32", (0,), {}),
    ("view", (3, 4), "float32", (-1,), {}),
    ("narrow", (3, 4), "float32", (1, 1, 2), {}),
    ("select", (3, 4), "float32", (1, 2), {}),
    ("unfold", (3, 4), "float32", (1, 2, 1), {}),
    ("split", (4, 3), "float32", (2,), {}),
    ("chunk", (4, 3), "float32", (2,), {}),
    ("unbind", (4, 3), "float32", (), {}),
    ("diagonal", (3, 4), "float32", (), {}),
    ("expand", (3, 1), "float32", (3, 4), {}),
    ("torch.broadcast_to", (3, 1), "float32", ((2, 3, 4),), {}),
    ("detach", (3, 4), "float32", (), {}),
    ("real", (3, 4), "complex64", (), {}),
    ("imag", (3, 4), "complex64", (), {}),
    ("reshape", (3, 4), "float32", (-1,), {}),
    ("flatten", (3, 4), "float32", (), {}),
    ("contiguous", (3, 4), "float32", (), {}),
    ("clone", (3, 4), "float32", (), {}),
    ("torch.sum", (3, 4), "float32", (0,), {}),
]


def _call(obj, op, args, kwargs, module):
    if op.startswith(("np.", "torch.")):
        fn = getattr(module, op.split(".", 1)[1])
        return fn(obj, *args, **kwargs)
    if op == "__getitem__":
        return obj[args[0]]
    attr = getattr(obj, op)
    return attr(*args, **kwargs) if callable(attr) else attr


def _outputs(value):
    return list(value) if isinstance(value, (tuple, list)) else [value]


def _numpy_relation(x, out):
    """What real NumPy did: "same", "none", "readonly", "repeated" or "view"."""
    if out is x:
        return "same"
    if not np.shares_memory(out, x):
        return "none"
    if not out.flags.writeable:
        return "readonly"
    if any(st == 0 and n > 1 for st, n in zip(out.strides, out.shape)):
        return "repeated"
    return "view"


@pytest.mark.parametrize("case", NUMPY_CASES, ids=lambda c: c[0])
def test_numpy_view_kind_matches_real_numpy(case):
    op, shape, dtype, args, kwargs = case
    spec = lookup(op, NUMPY)
    x = np.arange(int(np.prod(shape))).astype(dtype).reshape(shape)
    real = {_numpy_relation(x, o) for o in _outputs(_call(x, op, args, kwargs, np))}
    kind = call_view_kind(spec, (ArrayArg(shape, dtype),) + args, kwargs, NUMPY)
    if kind == "maybe":  # a view (or the input itself) here, a copy when strides forbid one
        assert real <= {"view", "same"}
        t = x.T
        assert not np.shares_memory(_call(t, op, args, kwargs, np), x)
    else:
        assert real == {kind}
    engine = Engine("numpy")
    ours = engine.array(shape, dtype)
    got = _outputs(engine.apply(op, ours, *args, **kwargs)[0])
    for g in got:
        relation = ("same" if g is ours else "none" if not g.is_view else
                    "readonly" if not g.writeable else "repeated" if g.repeated else "view")
        assert {relation} == real


def _torch_relation(torch, x, out):
    if out is x:
        return "same"
    if out.untyped_storage().data_ptr() != x.untyped_storage().data_ptr():
        return "none"
    if any(st == 0 and n > 1 for st, n in zip(out.stride(), out.shape)):
        return "repeated"
    return "view"


@pytest.mark.parametrize("case", TORCH_CASES, ids=lambda c: c[0])
def test_torch_view_kind_matches_real_torch(case):
    torch = pytest.importorskip("torch")
    op, shape, dtype, args, kwargs = case
    spec = lookup(op, TORCH)
    x = torch.arange(int(np.prod(shape))).to(getattr(torch, dtype)).reshape(shape).clone()
    outs = _outputs(_call(x, op, args, kwargs, torch))
    real = {_torch_relation(torch, x, o) for o in outs}
    kind = call_view_kind(spec, (ArrayArg(shape, dtype),) + args, kwargs, TORCH)
    if kind == "maybe":
        assert real <= {"view", "same"}
        t = x.t()
        assert _torch_relation(torch, t, _call(t, op, args, kwargs, torch)) == "none"
    else:
        assert real == {kind}
    if kind in ("view", "repeated") and op != "detach":
        assert all(o._is_view() and o._base is x for o in outs)
    if op == "detach":  # shares memory, yet autograd does not call it a view
        assert not outs[0]._is_view() and outs[0].data_ptr() == x.data_ptr()
    engine = Engine("torch")
    ours = engine.array(shape, dtype)
    for g in _outputs(engine.apply(op, ours, *args, **kwargs)[0]):
        relation = ("same" if g is ours else "none" if not g.is_view else
                    "repeated" if g.repeated else "view")
        assert {relation} == real


def _resolves(root, dotted):
    for part in dotted.split("."):
        if not hasattr(root, part):
            return False
        root = getattr(root, part)
    return True


def test_every_name_exists_in_its_library_as_spelled():
    import operator
    torch = pytest.importorskip("torch")
    for (name, library), spec in ops._TABLE.items():
        if name.startswith("np."):
            assert library == "numpy" and _resolves(np, name[3:]), name
        elif name.startswith("torch."):
            assert library == "torch" and _resolves(torch, name[6:]), name
        elif name.startswith("F."):
            assert library == "torch" and _resolves(torch.nn.functional, name[2:]), name
        elif name.startswith("__") and hasattr(operator, name):
            continue  # an operator: Python's protocol, reflected or in place
        else:
            owner = np.ndarray if library == "numpy" else torch.Tensor
            assert hasattr(owner, name), (name, library)


def test_index_items_reads_an_empty_list_as_an_integer_index_like_numpy():
    from shapecheck.runtime.dialects import NUMPY
    from shapecheck.runtime.rules.indexing import index

    for key in ([], ([], 0), (slice(None), [])):
        expected = np.zeros((5, 3))[key].shape
        assert tuple(index((5, 3), ops.index_items(key), dialect=NUMPY).shape) == expected


def test_index_items_keeps_symbolic_integers_for_the_indexing_rule():
    from shapecheck.runtime.dialects import NUMPY
    from shapecheck.runtime.dims import sym
    from shapecheck.runtime.rules.indexing import IntIndex, index

    items = ops.index_items((sym("i"), slice(None)))
    assert items[0] == IntIndex(sym("i"))
    assert tuple(index((sym("B"), 3), items, dialect=NUMPY).shape) == (3,)


# Arguments some shape-keeping ops cannot do without (a dim, a dtype).
_REQUIRED_ARGS = {"softmax": (1,), "log_softmax": (1,), "torch.softmax": (1,),
                  "torch.log_softmax": (1,), "F.softmax": (1,), "F.log_softmax": (1,),
                  "F.softmin": (1,), "F.threshold": (0.5, 0.0), "astype": ("float32",),
                  "np.roll": (1,), "torch.roll": (1,), "roll": (1,), "torch.flip": ((0,),),
                  "flip": ((0,),)}


def _run_real(name, library, x):
    import torch
    extra = _REQUIRED_ARGS.get(name, ())
    if name.startswith("np."):
        return getattr(np, name[3:])(x, *extra)
    if name.startswith("torch."):
        return getattr(torch, name[6:])(x, *extra)
    if name.startswith("F."):
        return getattr(torch.nn.functional, name[2:])(x, *extra)
    if name.startswith("__"):
        import operator
        return getattr(operator, name)(x)
    member = getattr(x, name)
    return member(*extra) if callable(member) else member  # .real, .imag are attributes


def test_every_shape_keeping_op_returns_its_input_shape_in_the_real_library():
    torch = pytest.importorskip("torch")
    keeping = [s for s in ops.all_specs() if s.keeps_shape]
    assert {"np.exp", "F.gelu", "torch.isnan", "float", "clone", "np.copy"} <= {
        s.name for s in keeping}
    for spec in keeping:
        if spec.name == "cuda":
            continue  # no device here; torch documents it as a copy of the same shape
        for values in ([[0.5, -1.0, 2.0], [1.5, 0.0, -0.25]], [[1, 0, 3], [2, 1, 0]],
                       [[1j, 0, 3], [2, 1 + 1j, 0]],
                       [[0.5, 0.25, 1.0], [0.0, 0.75, 0.5]]):  # probabilities (bernoulli)
            x = np.array(values) if spec.library == "numpy" else torch.tensor(values)
            try:
                out = _run_real(spec.name, spec.library, x)
            except (TypeError, RuntimeError):
                continue  # this dtype is refused (~ of a float, torch's imag of a real)
            assert tuple(out.shape) == (2, 3), spec.name
            break
        else:
            raise AssertionError(f"{spec.name} ran on no input")
        # The rule is asked with the dtype the library took (~ refuses a float).
        dtype = str(x.dtype).removeprefix("torch.")
        rule_out = spec.rule(ArrayArg((2, 3), dtype), *_REQUIRED_ARGS.get(spec.name, ()),
                             dialect=NUMPY if spec.library == "numpy" else TORCH)
        assert tuple(rule_out.shape) == (2, 3), spec.name


def test_keeps_shape_is_not_claimed_for_ops_whose_bounds_broadcast():
    torch = pytest.importorskip("torch")
    assert not ops.keeps_shape("clip") and not ops.keeps_shape("torch.clamp")
    x = torch.zeros(3, 1)
    assert tuple(torch.clamp(x, min=torch.zeros(4)).shape) == (3, 4)
    assert tuple(lookup("torch.clamp", TORCH).rule(
        ArrayArg((3, 1), "float32"), min=ArrayArg((4,), "float32"), dialect=TORCH).shape) == (3, 4)
    assert np.clip(np.zeros((3, 1)), np.zeros(4), 1).shape == tuple(lookup("np.clip", NUMPY).rule(
        ArrayArg((3, 1), "float64"), ArrayArg((4,), "float64"), 1, dialect=NUMPY).shape)


def test_sizes_in_the_arguments_give_the_result_shape_without_the_input():
    from shapecheck.runtime.dims import UNKNOWN, sym
    torch = pytest.importorskip("torch")
    b = sym("B")
    assert ops.shape_from_arguments("view", (b, -1, 4), TORCH) == (b, UNKNOWN, 4)
    assert ops.shape_from_arguments("reshape", ((2, 6),), NUMPY) == (2, 6)
    assert ops.shape_from_arguments("view", ("float32",), NUMPY) is None  # a dtype view
    assert ops.shape_from_arguments("permute", (0, 2, 1), TORCH) == (UNKNOWN,) * 3
    assert ops.shape_from_arguments("new_zeros", ((2, 3),), TORCH) == (2, 3)
    x = torch.zeros(4, 6)
    assert tuple(x.view(2, -1, 4).shape)[::2] == (2, 4)
    assert tuple(x.new_zeros((2, 3)).shape) == (2, 3)
    assert tuple(x.unsqueeze(0).permute(0, 2, 1).shape) == (1, 6, 4)


_NOT_SIZES = [("expand", "torch", (-1, "auto")), ("expand", "torch", (2, 3.0)),
              ("view", "torch", (6.0,)), ("reshape", "torch", ("a",)),
              ("reshape", "numpy", (2, 3.0)), ("reshape", "numpy", ("ab",)),
              ("np.broadcast_to", "numpy", ((2, 3.0),)), ("permute", "torch", (1, 0.0)),
              ("repeat", "torch", (1, 2.0)), ("transpose", "numpy", (1, 0.0)),
              ("new_zeros", "torch", (2, 3.0))]


@pytest.mark.parametrize("name,library,sizes", _NOT_SIZES)
def test_a_str_or_float_size_is_refused_by_the_library_and_never_becomes_a_dim(name, library,
                                                                               sizes):
    dialect = NUMPY if library == "numpy" else TORCH
    x = np.zeros((2, 3)) if library == "numpy" else pytest.importorskip("torch").zeros(2, 3)
    with pytest.raises(TypeError):
        getattr(np, name[3:])(x, *sizes) if name.startswith("np.") else getattr(x, name)(*sizes)
    with pytest.raises(NotImplementedError):  # an unknown answer: a str may spell a dtype
        lookup(name, dialect).rule(ArrayArg((2, 3), "float32"), *sizes, dialect=dialect)


def test_sequence_broadcast_and_new_axis_facts_match_the_libraries():
    torch = pytest.importorskip("torch")
    for spec in ops.all_specs():
        numpy_op = spec.library == "numpy"
        dialect = NUMPY if numpy_op else TORCH
        if spec.takes_sequence:  # a list there is the arrays themselves
            func = np if numpy_op else torch
            for part in spec.name.split(".")[1:]:
                func = getattr(func, part)
            make = np.ones if numpy_op else torch.ones
            # a chain of products needs matching inner sizes; a join, matching outer ones
            shapes = ((2, 3), (3, 2)) if spec.name.endswith("multi_dot") else ((2, 3), (2, 3))
            # torch.einsum takes its operands' list after the equation
            head = ("ij,ij->ij",) if spec.name == "torch.einsum" else ()
            real = func(*head, [make(s) for s in shapes])
            ruled = spec.rule(*head, [ArrayArg(s, "float32") for s in shapes], dialect=dialect)
            assert tuple(real.shape) == tuple(ruled.shape), spec.name
        if spec.adds_axis:
            x = np.ones((2, 3)) if numpy_op else torch.ones(2, 3)
            out = np.expand_dims(x, 0) if spec.name == "np.expand_dims" else x.unsqueeze(0)
            assert tuple(out.shape) == (1, 2, 3)
        if spec.broadcasts and spec.name.startswith("np.") and spec.name != "np.where":
            a, b = np.ones((3, 1), dtype=int), np.ones(3, dtype=int)
            assert getattr(np, spec.name[3:])(a, b).shape == (3, 3), spec.name


@pytest.mark.parametrize("method", ["new_zeros", "new_ones", "new_empty", "new_full"])
def test_new_tensor_methods_take_symbolic_and_unknown_sizes(method):
    """timm's drop_path makes ``x.new_empty((x.shape[0], 1, 1, 1))``: a size nobody knows as
    an int is still one dim of the result (the rule refused it, and the whole block's output
    lost its rank). A float is refused as before."""
    from shapecheck.runtime.dims import UNKNOWN, sym
    torch = pytest.importorskip("torch")
    b = sym("B")
    rule = lookup(method, TORCH).rule
    extra = (0.5,) if method == "new_full" else ()
    x = ArrayArg((b, 8, 4, 4), "float32")
    assert tuple(rule(x, (b, 1, 1, 1), *extra, dialect=TORCH).shape) == (b, 1, 1, 1)
    assert tuple(rule(x, (UNKNOWN, 3), *extra, dialect=TORCH).shape) == (UNKNOWN, 3)
    with pytest.raises(NotImplementedError):
        rule(x, (2, 3.0), *extra, dialect=TORCH)
    real = getattr(torch.zeros(2, 8, 4, 4), method)((2, 1, 1, 1), *extra)
    assert tuple(real.shape) == (2, 1, 1, 1)
