"""A small optimizer and data-cleaning toolkit with the classic NumPy aliasing slips."""

import numpy as np


def gradient_descent(grad, x0, lr=0.1, tol=1e-8, max_iter=100):
    x = np.array(x0, dtype=float)
    for _ in range(max_iter):
        x_old = x  # expect: SC304
        x -= lr * grad(x)
        if np.linalg.norm(x - x_old) < tol:
            break
    return x


def gradient_descent_fixed(grad, x0, lr=0.1, tol=1e-8, max_iter=100):
    x = np.array(x0, dtype=float)
    for _ in range(max_iter):
        x_old = x.copy()
        x -= lr * grad(x)
        if np.linalg.norm(x - x_old) < tol:
            break
    return x


def clip_outliers(n_samples=200):
    data = np.random.randn(n_samples, 3)
    outliers = np.abs(data) > 3
    data[outliers][:] = 0  # expect: SC301
    data[outliers] = 0
    return data


def to_probabilities(counts):
    counts /= counts.sum()
    return counts


def report_histogram():
    hist = np.array([3.0, 1.0, 4.0, 1.0, 5.0])
    probs = to_probabilities(hist)  # expect: SC305
    print("raw counts:", hist, "probabilities:", probs)


def regularize(n=4, eps=1e-3):
    cov = np.cov(np.random.randn(n, 50))
    cov.diagonal()[:] += eps  # expect: SC302
    return cov


def regularize_fixed(n=4, eps=1e-3):
    cov = np.cov(np.random.randn(n, 50))
    cov[np.diag_indices(n)] += eps
    return cov


def tile_pattern():
    row = np.linspace(0.0, 1.0, 5)
    board = np.broadcast_to(row, (5, 5))
    board[2, 2] = -1.0  # expect: SC302
    return board


def center_rows(images):
    flat = images.reshape(len(images), -1)
    flat -= flat.mean(axis=1, keepdims=True)  # expect: SC306
    return images


def snapshot_weights():
    weights = np.ones(4)
    history = [weights[:]]  # a list holding a view, not a value: not reported (no binding)
    previous = weights[:]  # expect: SC304
    weights *= 0.9
    return previous.sum() - weights.sum(), history


def smooth(signal):
    out = signal.copy()
    out[1:-1] = (signal[:-2] + signal[1:-1] + signal[2:]) / 3
    return out


def shift_in_place():
    buf = np.arange(6.0)
    buf[1:] = buf[:-1]  # NumPy copies overlapping input first: correct, not reported
    return buf
