"""A feature pipeline over a table of samples."""

import numpy as np


def load(n_samples: int = 100, n_features: int = 8):
    rng = np.random.default_rng(0)
    features = rng.normal(size=(n_samples, n_features))
    labels = rng.integers(0, 3, size=n_samples)
    return features, labels


def standardize(features):
    # shape: features (N, D)
    centered = features - features.mean(axis=1)  # expect: SC103
    scale = features.std(axis=0)
    return centered / scale


def add_bias_column(features):
    ones = np.ones((features.shape[0], 1))
    return np.hstack([features, ones])


def pipeline():
    features, labels = load()
    with_bias = add_bias_column(features)
    extra = np.zeros((50, 9))
    both = np.concatenate([with_bias, extra], axis=1)  # expect: SC108
    batches = features.reshape(3, -1, 8)  # expect: SC109
    counts = np.arange(10)
    counts += 0.5  # expect: SC202
    first = features[100]  # expect: SC111
    total = np.empty(8)
    np.sum(features, axis=1, out=total)  # expect: SC203
    return both, batches, counts, first
