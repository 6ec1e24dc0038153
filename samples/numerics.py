"""Batched linear solves and a finite-difference stencil."""

import numpy as np


def batched_solve(n_systems: int = 5):
    a = np.eye(4) + 0.1 * np.random.rand(n_systems, 4, 4)
    b = np.random.rand(n_systems, 4)
    return np.linalg.solve(a, b)  # expect: SC106


def rotations(n_frames: int = 3):
    frames = np.eye(3) + 0.01 * np.random.randn(n_frames, 3, 3)
    points = np.random.randn(n_frames, 3)
    return np.linalg.solve(frames, points)  # expect: SC110


def stencil(n: int = 50):
    u = np.linspace(0.0, 1.0, n)
    lap = np.zeros(n)
    lap[1:-1] = u[:-2] - 2 * u[1:-1] + u[2:]
    lap[1:-1] = u[2:] - u[:-2] + u  # expect: SC101
    return lap


def write_back(grid):
    # shape: grid (32, 32)
    patch = np.ones((16, 16))
    grid[:16, :16] = patch
    grid[:16] = patch  # expect: SC201
    np.copyto(patch, grid)  # expect: SC201
    return grid
