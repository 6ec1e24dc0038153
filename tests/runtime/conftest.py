"""Runtime tests compare tiny arrays with real torch: its intra-op thread pool only adds latency."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session", autouse=True)
def single_threaded_torch():
    # torch.max(x, dim) took ~25 ms per call with 2 threads on these machines.
    try:
        import torch
    except ImportError:
        yield
        return
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
