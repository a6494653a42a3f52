import pytest

from engine.core.errors import ConfigError
from engine.measure.config import RunConfig


def test_defaults_are_valid_and_use_the_small_default_model():
    config = RunConfig().validated()
    assert config.model == "resnet18-cifar"
    assert config.resolved_epoch_samples == 50_000


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"batch_size": 0}, "batch_size", "out of range"),
        ({"batch_size": 2.5}, "batch_size", "whole number"),
        ({"model": "resnet9000"}, "model", "known: resnet18-cifar"),
        ({"device": "gpu"}, "device", "cuda:N"),
        ({"precision": "fp8"}, "precision", "fp32"),
        ({"max_steps": 5, "min_steps": 10}, "max_steps", "allowed 10"),
        ({"usd_per_hour": -1.0}, "usd_per_hour", "out of range"),
        ({"price_as_of": "yesterday"}, "price_as_of", "YYYY-MM-DD"),
        ({"framework": "jax"}, "framework", "torch"),
    ],
)
def test_bad_fields_name_the_field_and_the_fix(change, field, words):
    with pytest.raises(ConfigError) as info:
        RunConfig(**change).validated()
    assert info.value.field == field
    assert words in info.value.message


def test_from_dict_ignores_unknown_keys_and_validates():
    config = RunConfig.from_dict({"model": "tiny-mlp", "batch_size": 8, "future_option": 1})
    assert config.batch_size == 8
    with pytest.raises(ConfigError):
        RunConfig.from_dict({"batch_size": -3})
