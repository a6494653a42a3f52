"""What an accuracy study takes from the configuration panel, checked before the form's part.

The panel's model, framework, device, precision and price are the study's; the rest of the
panel (the timed run's window) is not. A model file is refused here: it brings no data set,
and a study trains a built-in model on real data.
"""

from __future__ import annotations

from typing import Any

from engine.core.errors import ConfigError
from engine.pricing.cost import Price

# The panel's fields a study takes (the rest of the panel is the timed run's window): the
# whole Price (its $/h, source and date), as every run takes it.
PANEL_FIELDS = ("model", "framework", "device", "precision", *Price.FIELDS)


def panel_base(values: dict[str, Any], errors: dict[str, str]) -> dict[str, Any]:
    """The study's fields of the panel's `values` (ConfigPanel.values()); ConfigError naming
    the first of them whose text does not parse (its reason in `errors`), or the model when it
    is a model file."""
    if values.get("model_file"):
        raise ConfigError(
            "model",
            f"{values['model']} is your model file, which brings no data set: a study "
            "trains a built-in model on real data (choose one on the left)",
        )
    for name in PANEL_FIELDS:
        if name in errors:
            raise ConfigError(name, errors[name])
    return {k: values[k] for k in PANEL_FIELDS if k in values}
