"""Strided layouts agree with the strides, overlaps and view refusals of real NumPy and torch."""

import itertools
import random

import numpy as np
import pytest

from shapecheck.runtime.layout import Layout, overlap, partial_overlap, torch_view_strides

ITEM = np.dtype(np.float64).itemsize


def random_view(rng: random.Random, base_shape):
    """A random chain of view ops applied both to a real array and to a Layout."""
    arr = np.arange(int(np.prod(base_shape))).reshape(base_shape)
    lay = Layout.contiguous(base_shape)
    for _ in range(rng.randint(0, 3)):
        choice = rng.choice(["slice", "transpose", "select", "unsqueeze", "diagonal", "expand"])
        nd = arr.ndim
        if choice == "slice" and nd:
            d = rng.randrange(nd)
            start, stop, step = rng.randint(-3, 3), rng.choice([None, rng.randint(-3, 4)]), rng.choice([1, 2, -1, 3])
            key = (slice(None),) * d + (slice(start, stop, step),)
            arr = arr[key]
            lay = lay.slice(d, start, stop, step)
        elif choice == "transpose" and nd >= 2:
            a, b = rng.sample(range(nd), 2)
            arr = np.swapaxes(arr, a, b)
            lay = lay.transpose(a, b)
        elif choice == "select" and nd and arr.shape[0]:
            i = rng.randrange(arr.shape[0])
            arr = arr[i]
            lay = lay.select(0, i)
        elif choice == "unsqueeze":
            d = rng.randint(0, nd)
            arr = np.expand_dims(arr, d)
            lay = lay.unsqueeze(d)
        elif choice == "diagonal" and nd >= 2:
            off = rng.randint(-2, 2)
            arr = np.diagonal(arr, off)
            lay = lay.diagonal(off, 0, 1)
        elif choice == "expand":
            target = tuple(s if s != 1 else rng.choice([1, 3]) for s in arr.shape)
            arr = np.broadcast_to(arr, (2,) + target)
            lay = lay.expand((2,) + target)
    return arr, lay


def test_layout_strides_and_offsets_match_numpy_views():
    rng = random.Random(1)
    checked = 0
    for _ in range(3000):
        shape = tuple(rng.randint(0, 4) for _ in range(rng.randint(1, 3)))
        arr, lay = random_view(rng, shape)
        assert arr.shape == lay.shape
        if arr.size:
            assert tuple(s // arr.itemsize for s in arr.strides) == tuple(
                st if sz > 1 else (arr.strides[i] // arr.itemsize) for i, (sz, st) in enumerate(zip(lay.shape, lay.strides)))
            # the elements it reaches are the ones numpy reaches
            assert sorted(lay.addresses().tolist()) == sorted(arr.reshape(-1).tolist())
            checked += 1
    assert checked > 1500


def test_overlap_agrees_with_numpy_shares_memory():
    rng = random.Random(2)
    verdicts = set()
    for _ in range(2000):
        shape = tuple(rng.randint(1, 5) for _ in range(rng.randint(1, 3)))
        base = np.zeros(shape)
        a_arr, a = random_view(random.Random(rng.random()), shape)
        b_arr, b = random_view(random.Random(rng.random()), shape)
        ra, rb = (np.lib.stride_tricks.as_strided(
            base.reshape(-1)[lay.offset:], shape=lay.shape,
            strides=tuple(st * ITEM for st in lay.strides)) for lay in (a, b))
        expected = bool(a.numel and b.numel and np.shares_memory(ra, rb, max_work=None))
        assert overlap(a, b) is expected
        verdicts.add(expected)
    assert verdicts == {True, False}


def test_repeated_elements_only_for_expanded_layouts():
    lay = Layout.contiguous((3, 1))
    assert lay.has_repeated_elements() is False
    assert lay.expand((3, 4)).has_repeated_elements() is True
    assert lay.expand((3, 1)).has_repeated_elements() is False
    assert Layout.contiguous((2, 3)).transpose(0, 1).has_repeated_elements() is False



@pytest.fixture(scope="module")
def real_torch():
    return pytest.importorskip("torch")


def test_torch_view_strides_match_torch_including_refusals(real_torch):
    rng = random.Random(3)
    refusals = accepted = 0
    for _ in range(3000):
        nd = rng.randint(1, 4)
        shape = [rng.choice([1, 2, 3, 4]) for _ in range(nd)]
        t = real_torch.zeros(shape)
        lay = Layout.contiguous(shape)
        order = list(range(nd))
        rng.shuffle(order)
        t, lay = t.permute(order), lay.permute(order)
        d = rng.randrange(nd)
        if t.shape[d] > 1 and rng.random() < 0.5:
            t = t[(slice(None),) * d + (slice(0, None, 2),)]
            lay = lay.slice(d, 0, None, 2)
        numel = t.numel()
        targets = [s for s in itertools.product(*[[1, 2, 3, 4, 6, 8, 12]] * rng.randint(1, 3))
                   if int(np.prod(s)) == numel] or [(numel,)]
        target = rng.choice(targets)
        try:
            expected = tuple(t.view(target).stride())
            accepted += 1
        except RuntimeError as exc:
            assert "view size is not compatible" in str(exc)
            expected = None
            refusals += 1
        assert torch_view_strides(lay.shape, lay.strides, target) == expected
    assert refusals > 100 and accepted > 100


@pytest.mark.parametrize("write, read", [
    (lambda a: a[1:], lambda a: a[:-1]),
    (lambda a: a[:, :], lambda a: a.t()),
    (lambda a: a[0], lambda a: a[:, 0]),
    (lambda a: a, lambda a: a),
    (lambda a: a[0], lambda a: a[1]),
    (lambda a: a[:, 1:], lambda a: a[:, :-1]),
])
def test_partial_overlap_matches_torch_refusal_to_copy(real_torch, write, read):
    def as_layout(view):
        return Layout(view.storage_offset(), tuple(view.shape), tuple(view.stride()))

    base = real_torch.arange(16.0).view(4, 4)
    w, r = write(base), read(base)
    if w.shape != r.shape:
        r = r.expand_as(w) if r.dim() <= w.dim() else r
    try:
        w.copy_(r)
        raised = False
    except RuntimeError as exc:
        assert "refer to a single memory location" in str(exc)
        raised = True
    assert partial_overlap(as_layout(write(real_torch.arange(16.0).view(4, 4))),
                           as_layout(read(real_torch.arange(16.0).view(4, 4)))) is raised
