"""The hazards of samples/training_hazards.py and samples/preprocessing.py happen for real: each
buggy function is run beside its fixed twin (the codes and lines are test_samples.py's)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def load_sample(name: str):
    """Import one of our own sample programs to run its functions."""
    spec = importlib.util.spec_from_file_location(f"sample_{name}", SAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.pop(spec.name, None)
    spec.loader.exec_module(module)
    return module


def test_editing_a_saved_sigmoid_output_breaks_backward():
    pytest.importorskip("torch")
    sample = load_sample("training_hazards")
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        sample.smoothed_step()
    assert sample.smoothed_step_fixed().abs().sum() > 0


def test_initialising_an_indexed_copy_of_the_embedding_leaves_it_unchanged():
    pytest.importorskip("torch")
    sample = load_sample("training_hazards")
    known = [3, 7, 11]
    assert sample.init_known_words().embed.weight[known].abs().sum() > 0
    assert sample.init_known_words_fixed().embed.weight[known].abs().sum() == 0


def test_early_stopping_on_a_live_state_dict_restores_the_last_weights(monkeypatch):
    torch = pytest.importorskip("torch")
    sample = load_sample("training_hazards")
    generator = torch.Generator().manual_seed(1)
    batches = [(torch.randint(0, 50, (8, 5), generator=generator),
                torch.randint(0, 2, (8,), generator=generator).float()) for _ in range(3)]

    def restored(train):
        # Validation is best after the first epoch; every epoch's weights are recorded.
        seen = []
        losses = iter([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])

        def evaluate(model, _batches):
            seen.append(model.head.weight.detach().clone())
            return next(losses)
        monkeypatch.setattr(sample, "evaluate", evaluate)
        return train(batches).head.weight.detach(), seen

    weights, seen = restored(sample.train)
    assert torch.equal(weights, seen[-1]) and not torch.equal(weights, seen[0])
    weights, seen = restored(sample.train_fixed)
    assert torch.equal(weights, seen[0])


def test_a_scaler_that_centers_in_place_changes_the_caller_features(tmp_path):
    sample = load_sample("preprocessing")
    path = tmp_path / "features.csv"
    np.savetxt(path, np.random.default_rng(0).normal(5.0, 2.0, size=(100, 3)), delimiter=",")
    scaled, raw_mean = sample.load_and_scale(path)
    fixed_scaled, fixed_mean = sample.load_and_scale_fixed(path)
    assert np.allclose(scaled, fixed_scaled)
    assert np.allclose(raw_mean, 0.0)  # the "raw" features were centered under the caller
    assert np.all(fixed_mean > 4.0)


def _batch(torch):
    generator = torch.Generator().manual_seed(2)
    return (torch.randint(0, 50, (16, 5), generator=generator),
            torch.randint(0, 2, (16,), generator=generator).float())


def test_a_gradient_kept_before_clipping_is_clipped_under_it():
    torch = pytest.importorskip("torch")
    sample = load_sample("training_hazards")
    tokens, labels = _batch(torch)
    raw = sample.clipped_step_fixed(tokens, labels, max_norm=1e-3)
    assert raw > 1e-2  # the head's own gradient norm, taken before clipping
    assert sample.clipped_step(tokens, labels, max_norm=1e-3) <= 1e-3 + 1e-6


def test_weights_kept_by_a_product_break_backward_when_centered_in_place():
    pytest.importorskip("torch")
    sample = load_sample("training_hazards")
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        sample.distill_step()
    assert sample.distill_step_fixed().abs().sum() > 0


def test_a_loss_module_that_clamps_in_place_changes_the_scores_its_caller_reports():
    pytest.importorskip("torch")
    sample = load_sample("training_hazards")
    loss, mean_score = sample.validation_report()
    fixed_loss, fixed_mean = sample.validation_report_fixed()
    assert loss == pytest.approx(fixed_loss)
    assert mean_score != pytest.approx(fixed_mean)  # the scores were clamped under the caller


def test_normalizing_rows_through_iteration_changes_the_caller_counts(tmp_path):
    sample = load_sample("preprocessing")
    path = tmp_path / "counts.csv"
    np.savetxt(path, np.random.default_rng(1).integers(1, 20, size=(10, 4)), delimiter=",")
    profile, totals = sample.profile_report(path)
    fixed_profile, fixed_totals = sample.profile_report_fixed(path)
    assert np.allclose(profile, fixed_profile)
    assert np.allclose(totals, 1.0) and np.all(fixed_totals > 4.0)  # the raw counts are gone
