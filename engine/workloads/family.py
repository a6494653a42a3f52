"""A model's family, the published models its projection compares it with, and why: stated by
a model file (FAMILY), else read from what the model is made of, else the built-in model's.

What a model is made of (`composition`, which a result keeps as `workload.composition`) is the
share of its counted FLOPs in each kind of layer, as the worker's FLOP counter saw them
(engine/worker/frameworks/torch/composition.py, .../tensorflow/flops.py), or of its
parameters where no FLOPs were counted:

    convolution   convolutions (transposed, depthwise and separable ones too)
    attention     attention scores and their weighted sums, batched matrix products
    linear        matrix products of linear (dense) layers, attention's projections among them
    recurrent     recurrent layers (LSTM, GRU, RNN), their own matrix products included
    other         what a custom layer counts itself (Keras's forward_flops)

The family it gives (`measured`):

- **recurrent** where recurrent layers hold at least a third: a recurrent layer runs its steps
  one after another, so it takes more of a step's time than of its FLOPs, and the published
  recurrent models (GNMT, Tacotron 2) spend much of their FLOPs in projections and embeddings'
  output layers, as a language model's softmax does;
- **convolutional** where convolutions hold at least half;
- **transformer** where attention and matrix products together hold at least half (a
  multilayer perceptron too: its work is the same large matrix products);
- none otherwise: no family holds most of it, and every family's published models are used.

The order, one function for every reader (`decide`, `of_result`): a FAMILY stated in the model
file, else the measured composition, else the built-in model's own family, else none.

Pure data: safe in both programs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.workloads import registry
from engine.workloads.registry import Workload

FAMILIES = ("convolutional", "transformer", "recurrent")
KINDS = ("convolution", "attention", "linear", "recurrent", "other")
BASES = ("flops", "parameters")  # what the shares are of
RECURRENT_SHARE = 1 / 3
MAJORITY = 0.5

_WORDS = {
    "convolution": "convolutions",
    "attention": "attention",
    "linear": "matrix products",
    "recurrent": "recurrent layers",
    "other": "other layers",
}


def composition(totals: dict[str, float], by: str) -> dict[str, Any] | None:
    """What a result keeps: `by` (flops or parameters) and each kind's share of `totals` (FLOPs
    or parameters per kind); None where nothing was counted."""
    total = sum(max(float(totals.get(kind, 0.0)), 0.0) for kind in KINDS)
    if not total > 0:
        return None
    return {"by": by} | {kind: max(float(totals.get(kind, 0.0)), 0.0) / total for kind in KINDS}


def described(comp: dict[str, Any] | None) -> str:
    """'82% convolutions, 18% matrix products (of FLOPs)': the kinds that round to 1% or more."""
    if not comp:
        return "not counted"
    parts = [
        f"{comp.get(kind, 0.0):.0%} {_WORDS[kind]}"
        for kind in sorted(KINDS, key=lambda k: -float(comp.get(k) or 0.0))
        if float(comp.get(kind) or 0.0) >= 0.005
    ]
    return f"{', '.join(parts) or 'nothing counted'} (of {_of(comp)})"


@dataclass(frozen=True)
class Family:
    """A family (one of FAMILIES, or "": every family's published models) and why it is this."""

    name: str
    why: str
    source: str  # stated | measured | built-in | none

    def text(self) -> str:
        """'family: convolutional (82% of FLOPs in convolutions)', as an estimate says it."""
        if not self.name:
            return f"family: none ({self.why}; every family's published models)"
        return f"family: {self.name} ({self.why})"


def measured(comp: dict[str, Any] | None) -> Family | None:
    """The family a composition gives (the rules above); None where no family holds most."""
    if not comp:
        return None

    def share(*kinds: str) -> float:
        return sum(float(comp.get(kind) or 0.0) for kind in kinds)

    of = _of(comp)
    if share("recurrent") >= RECURRENT_SHARE:
        return Family(
            "recurrent", f"{share('recurrent'):.0%} of {of} in recurrent layers", "measured"
        )
    if share("convolution") >= MAJORITY:
        why = f"{share('convolution'):.0%} of {of} in convolutions"
        return Family("convolutional", why, "measured")
    if share("attention", "linear") >= MAJORITY:
        words = "attention and matrix products" if share("attention") else "matrix products"
        why = f"{share('attention', 'linear'):.0%} of {of} in {words}"
        return Family("transformer", why, "measured")
    return None


def stated_problem(value: Any) -> str | None:
    """What is wrong with a model file's FAMILY (None: nothing), in words that say what to write."""
    if isinstance(value, str) and value.strip().lower() in FAMILIES:
        return None
    return (
        f"FAMILY = {value!r} is not a family; use 'convolutional' (a CNN), 'transformer' "
        "(attention or large matrix products) or 'recurrent' (LSTM, GRU), whichever published "
        "models yours is most like, or leave FAMILY out to have it read from the model's layers"
    )


def decide(
    stated: str = "",
    comp: dict[str, Any] | None = None,
    builtin: tuple[str, str] | None = None,
) -> Family:
    """The family an estimate uses: `stated` by a model file; for a built-in model
    (`builtin`: its name and family) the registry's, which knows what the model is (tiny-mlp,
    all matrix products, is no transformer); else the one `comp` (a composition) gives; else
    none."""
    if stated in FAMILIES:
        return Family(stated, "stated by the model file's FAMILY", "stated")
    if builtin is not None:
        if builtin[1]:
            return Family(builtin[1], f"the built-in {builtin[0]}", "built-in")
        return Family("", f"the built-in {builtin[0]} is of none of them", "none")
    found = measured(comp)
    if found is not None:
        return found
    if comp:
        return Family("", f"{described(comp)}: no family holds most of it", "none")
    return Family("", "not known: what the model is made of is not recorded", "none")


def builtin_of(result: dict[str, Any]) -> Workload | None:
    """The built-in workload a result measured; None for a model file's result (whatever its
    name: a file may call itself resnet50) or a model this registry does not know."""
    if _is_file(result):
        return None
    model = (result.get("config") or {}).get("model")
    return registry.get(model) if isinstance(model, str) and registry.exists(model) else None


def of_result(result: dict[str, Any]) -> Family:
    """`decide` for a result: its model file's FAMILY, its `workload.composition`, and the
    registry's family of its built-in model."""
    workload = result.get("workload") or {}
    known = builtin_of(result)
    builtin = None if known is None else (known.name, known.family)
    stated = workload.get("family_stated") if _is_file(result) else None
    return decide(stated if isinstance(stated, str) else "", workload.get("composition"), builtin)


def _is_file(result: dict[str, Any]) -> bool:
    workload = result.get("workload") or {}
    return bool((result.get("config") or {}).get("model_file") or workload.get("model_file"))


def _of(comp: dict[str, Any]) -> str:
    return "parameters" if comp.get("by") == "parameters" else "FLOPs"
