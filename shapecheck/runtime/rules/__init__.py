"""One function per shape rule, written against the Dim algebra.

The engine calls these with ints, the analyzer with symbols. Families live
in their own modules and are re-exported here.
"""

from .broadcast import broadcast_dim, broadcast_pair, broadcast_shapes, broadcastable

__all__ = ["broadcast_dim", "broadcast_pair", "broadcast_shapes", "broadcastable"]

# The function pointwise() stays at rules.pointwise.pointwise: re-exporting it
# here would hide the submodule that `from .rules import pointwise` imports.
from .pointwise import (
                        FALLBACK_OPS,
                        POINTWISE_BINARY,
                        POINTWISE_OPS,
                        TERNARY_OPS,
                        copy_into,
                        inplace,
                        inplace_dtype,
                        masked_fill,
                        out_param,
)

__all__ += ["FALLBACK_OPS", "POINTWISE_BINARY", "POINTWISE_OPS", "TERNARY_OPS", "copy_into",
            "inplace", "inplace_dtype", "masked_fill", "out_param"]

from .contractions import einsum, tensordot
from .lapack import (
                        cholesky,
                        det,
                        eig,
                        eigh,
                        eigvals,
                        eigvalsh,
                        inv,
                        pinv,
                        qr,
                        slogdet,
                        solve,
                        solve_b_is_vector,
                        svd,
)
from .products import (
                        addbmm,
                        addmm,
                        addmv,
                        addr,
                        baddbmm,
                        bmm,
                        dot,
                        ger,
                        inner,
                        matmul,
                        mm,
                        mv,
                        outer,
                        vdot,
)

__all__ += ["addbmm", "addmm", "addmv", "addr", "baddbmm", "bmm", "cholesky", "det", "dot", "eig",
            "eigh", "eigvals", "eigvalsh", "einsum", "ger", "inner", "inv", "matmul", "mm", "mv",
            "outer", "pinv", "qr", "slogdet", "solve", "solve_b_is_vector", "svd", "tensordot",
            "vdot"]

from .broadcast_views import broadcast_arrays, broadcast_to, expand
from .joins import concatenate, hstack, stack, vstack
from .reductions import REDUCE_OPS, reduce
from .repetition import repeat, repeat_interleave, tile
from .reshaping import expand_dims, flatten, ravel, reshape, squeeze, unsqueeze, view
from .scatter_gather import index_add, index_copy, index_select, scatter
from .splits import array_split, chunk, diagonal, narrow, select, split, unbind, unfold
from .transposes import T_attr, matrix_transpose, moveaxis, permute, swapaxes, transpose

__all__ += ["REDUCE_OPS", "T_attr", "array_split", "broadcast_arrays", "broadcast_to", "chunk",
            "concatenate", "diagonal", "expand", "expand_dims", "flatten", "hstack",
            "index_add", "index_copy", "index_select", "matrix_transpose", "moveaxis", "narrow",
            "permute", "ravel", "reduce", "repeat", "repeat_interleave", "reshape", "scatter", "select",
            "split", "squeeze", "stack", "swapaxes", "tile", "transpose", "unbind",
            "unfold", "unsqueeze", "view", "vstack"]

from .indexing import (
                        ArrayIndex,
                        EllipsisIndex,
                        IntIndex,
                        NoneIndex,
                        SliceIndex,
                        gather,
                        index,
                        index_is_view,
                        setitem,
                        slice_length,
                        take_along_axis,
)

__all__ += ["ArrayIndex", "EllipsisIndex", "IntIndex", "NoneIndex", "SliceIndex", "gather", "index",
            "index_is_view", "setitem", "slice_length", "take_along_axis"]
