"""A scikit-learn style scaler that centers its input in place, and the pipeline code that
reads the caller's array afterwards; beside it the fixed scaler."""

import numpy as np


class StandardScaler:
    def fit(self, X):
        self.mean_ = X.mean(axis=0)
        self.scale_ = X.std(axis=0) + 1e-12
        return self

    def _center(self, X):
        X -= self.mean_
        return X

    def transform(self, X):
        X = self._center(X)
        return X / self.scale_


class StandardScalerFixed(StandardScaler):
    def transform(self, X):
        return (X - self.mean_) / self.scale_


def load_and_scale(path):
    features = np.loadtxt(path, delimiter=",")
    scaler = StandardScaler().fit(features)
    scaled = scaler.transform(features)  # expect: SC305
    raw_mean = features.mean(axis=0)
    return scaled, raw_mean


def load_and_scale_fixed(path):
    features = np.loadtxt(path, delimiter=",")
    scaler = StandardScalerFixed().fit(features)
    scaled = scaler.transform(features)
    raw_mean = features.mean(axis=0)
    return scaled, raw_mean


def row_profiles(counts):
    """The mean of the rows of ``counts``, each scaled to sum to one."""
    for row in counts:
        row /= row.sum()
    return counts.mean(axis=0)


def row_profiles_fixed(counts):
    return (counts / counts.sum(axis=1, keepdims=True)).mean(axis=0)


def profile_report(path):
    counts = np.loadtxt(path, delimiter=",")
    profile = row_profiles(counts)  # expect: SC305
    totals = counts.sum(axis=1)
    return profile, totals


def profile_report_fixed(path):
    counts = np.loadtxt(path, delimiter=",")
    profile = row_profiles_fixed(counts)
    totals = counts.sum(axis=1)
    return profile, totals
