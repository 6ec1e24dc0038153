"""Import resolution and jaxtyping / comment annotations, unit by unit."""

from __future__ import annotations

import libcst as cst
import pytest

from shapecheck.analysis.annotations import array_from_annotation, parse_dims, shape_comments
from shapecheck.analysis.imports import canonical, import_bindings
from shapecheck.analysis.values import (UNKNOWN_VALUE, AbstractArray, IntValue, ModuleRef,
                                        TupleValue, join_values)
from shapecheck.runtime.dims import UNKNOWN, sym


@pytest.mark.parametrize("statement,expected", [
    ("import numpy as np", [("np", "numpy")]),
    ("import numpy", [("numpy", "numpy")]),
    ("import numpy.linalg as la", [("la", "numpy.linalg")]),
    ("import numpy.linalg", [("numpy", "numpy")]),
    ("import torch.nn.functional as F", [("F", "torch.nn.functional")]),
    ("from torch import nn", [("nn", "torch.nn")]),
    ("from torch.nn import functional as F", [("F", "torch.nn.functional")]),
    ("from numpy import zeros, ones as o", [("zeros", "numpy.zeros"), ("o", "numpy.ones")]),
    ("import numpyish as np", [("np", None)]),
    ("from . import numpy", [("numpy", None)]),
    ("from .numpy import zeros", [("zeros", None)]),
    ("import os, torch", [("os", None), ("torch", "torch")]),
])
def test_import_bindings_resolve_only_numpy_and_torch(statement, expected):
    node = cst.parse_statement(statement).body[0]
    assert import_bindings(node) == expected


def test_private_numpy_modules_map_to_public_names():
    assert canonical("numpy._core.numeric.zeros") == "numpy.zeros"
    assert canonical("numpy.linalg.solve") == "numpy.linalg.solve"


@pytest.mark.parametrize("text,shape,tail", [
    ("b t c", (sym("b"), sym("t"), sym("c")), ()),
    ("batch 3", (sym("batch"), 3), ()),
    ("*batch n 3", None, (sym("n"), 3)),
    ("... 64", None, (64,)),
    ("#b 4", (UNKNOWN, 4), ()),
    ("_ n=5", (UNKNOWN, 5), ()),
])
def test_jaxtyping_dims(text, shape, tail):
    assert parse_dims(text) == (shape, tail)


def _resolver(names):
    def resolve(node):
        if isinstance(node, cst.Name):
            return names.get(node.value, UNKNOWN_VALUE)
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
            base = names.get(node.value.value)
            return base.attr(node.attr.value) if isinstance(base, ModuleRef) else UNKNOWN_VALUE
        return UNKNOWN_VALUE
    return resolve


def test_annotation_library_comes_from_what_the_array_type_resolves_to():
    resolve = _resolver({"np": ModuleRef("numpy"), "Tensor": ModuleRef("torch.Tensor"),
                         "Float32": ModuleRef("jaxtyping.Float32")})
    numpy_ann = cst.parse_expression('Float32[np.ndarray, "n 3"]')
    torch_ann = cst.parse_expression('Float32[Tensor, "b"]')
    other_ann = cst.parse_expression('Float32[Array, "b"]')
    a = array_from_annotation(numpy_ann, resolve, 1, "a")
    assert (a.shape, a.library, a.dtype) == ((sym("n"), 3), "numpy", "float32")
    assert array_from_annotation(torch_ann, resolve, 1, "t").library == "torch"
    assert array_from_annotation(other_ann, resolve, 1, "o") is None
    plain = array_from_annotation(cst.parse_expression("Tensor"), resolve, 1, "p")
    assert plain.shape is None and plain.library == "torch"


def test_shape_comments_trailing_and_standalone():
    source = "x = f()  # shape: x (B, 3)\n# shape: y [N]\n\ny = g()\n"
    trailing, standalone = shape_comments(source)
    assert trailing == {1: [("x", ["B", "3"])]}
    assert standalone == {4: [("y", ["N"])]}


def test_joins_keep_agreed_dims_and_forget_the_rest():
    a = AbstractArray((3, sym("n")), "float64", "numpy")
    b = AbstractArray((3, 4), "float64", "numpy")
    joined = join_values(a, b)
    assert joined.shape == (3, UNKNOWN)
    assert join_values(a, AbstractArray((3,), "float64", "numpy")).shape is None
    assert join_values(IntValue(2), IntValue(2)) == IntValue(2)
    assert join_values(TupleValue((IntValue(1),)), IntValue(1)) is UNKNOWN_VALUE
