"""torch.nn layers and torch.nn.functional as shape rules over the Dim algebra.

    layer = build("Conv2d", (3, 16, 3), {"stride": 2})   # torch's constructor checks
    layer.forward((8, 3, 32, 32)).shape                   # (8, 16, 15, 15)
    functional("conv2d", (8, 3, 32, 32), (16, 3, 3, 3), stride=2)

build answers a Layer, raises a ShapeError with torch's construction error,
or answers None for a class or arguments it does not model. forward and
functional answer a Result, raise a ShapeError with torch's own text, or
answer None ("unknown", never a false error). A forward of several outputs
answers one shape per output, and None where torch returns None
(MultiheadAttention's weights when need_weights is false). One module per
family; each registers its classes and functional twins on import.
"""

from . import (  # noqa: F401  (they register themselves)
           attention,
           basic,
           conv,
           embedding,
           margin_loss,
           norm,
           packed,
           padding,
           pooling,
           resample,
           rnn,
)
from .base import (
    CHECK_ONLY,
    CONTAINERS,
    FUNCTIONAL,
    LAYERS,
    RETURNS_SELF,
    Layer,
    build,
    functional,
    functional_keeps_shape,
    is_layer_subclass,
    keeps_shape,
    with_unknowns_left_out,
)
from .loss import FUNCTIONAL_LOSSES, LOSSES, loss

__all__ = ["CHECK_ONLY", "CONTAINERS", "FUNCTIONAL", "FUNCTIONAL_LOSSES", "LAYERS", "LOSSES", "RETURNS_SELF", "Layer", "build",
           "functional", "functional_keeps_shape", "is_layer_subclass", "keeps_shape", "loss",
           "with_unknowns_left_out"]
