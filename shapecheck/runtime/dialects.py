"""The semantics a verdict is given under: a library and, where it changed, its era."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Dialect:
    """One library at one point in its history.

    ``legacy`` marks the old behaviour kept as a named dialect: NumPy 1's
    ``linalg.solve`` rule, and PyTorch's pre-broadcasting era (the deprecated
    1-D pointwise fallback only warned, tensors needed at least one dim to
    broadcast, the backcompat warning could be switched on).
    """

    name: str
    library: str  # "numpy" or "torch"
    legacy: bool = False

    @property
    def is_numpy(self) -> bool:
        return self.library == "numpy"

    @property
    def is_torch(self) -> bool:
        return self.library == "torch"

    def __str__(self) -> str:
        return self.name


NUMPY = Dialect("numpy", "numpy")
NUMPY1 = Dialect("numpy-1", "numpy", legacy=True)
TORCH = Dialect("torch", "torch")
TORCH_LEGACY = Dialect("torch-legacy", "torch", legacy=True)

DIALECTS: dict[str, Dialect] = {d.name: d for d in (NUMPY, NUMPY1, TORCH, TORCH_LEGACY)}
"""Every dialect by name. ``numpy`` and ``torch`` are today's libraries."""


def get_dialect(name: str) -> Dialect:
    """The dialect called ``name``; ValueError naming the choices otherwise."""
    try:
        return DIALECTS[name]
    except KeyError:
        choices = ", ".join(DIALECTS)
        raise ValueError(f"unknown dialect {name!r} (choose from {choices})") from None
