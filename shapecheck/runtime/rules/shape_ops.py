"""The reduction rule under its old module name, for one importer still being edited elsewhere.

The shape-op rules now live one family per module (reductions, reshaping,
transposes, broadcast_views, joins, splits, repetition, scatter_gather, over
axes). analysis/interpret/calls.py imports this name while that package is
being reworked; once it imports rules.reductions, delete this module.
"""

from .reductions import reduce

__all__ = ["reduce"]
