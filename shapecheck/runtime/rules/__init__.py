"""One function per shape rule, written against the Dim algebra.

The engine calls these with ints, the analyzer with symbols. Families live
in their own modules and are re-exported here.
"""

from .broadcast import broadcast_dim, broadcast_pair, broadcast_shapes, broadcastable

__all__ = ["broadcast_dim", "broadcast_pair", "broadcast_shapes", "broadcastable"]
