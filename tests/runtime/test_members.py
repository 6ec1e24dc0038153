"""runtime/members.py lists torch.Tensor's public members as the installed torch has them."""

import pytest

from shapecheck.runtime.members import TENSOR_MEMBERS


def test_the_member_list_is_torch_tensors_own():
    torch = pytest.importorskip("torch")
    public = {n for n in dir(torch.Tensor) if not n.startswith("_")}
    # A newer torch may add members; every listed one must still exist, and the common ones too.
    assert TENSOR_MEMBERS <= public
    assert len(public - TENSOR_MEMBERS) <= len(public) // 50
