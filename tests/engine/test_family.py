"""A model's family (engine/workloads/family.py): the rules, the result's fields, and what an
estimate says of it. No worker here: tests/engine/test_model_file_family.py checks real files
through the worker, and tests/engine/test_flops_composition.py PyTorch's count in this process."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from engine.core.errors import ConfigError
from engine.pricing import catalog
from engine.pricing.compare import CompareOptions, compare
from engine.pricing.projection import Basis, project
from engine.pricing.result_projection import family_of, project_result
from engine.results.schema import validate
from engine.workloads import family
from engine.workloads.family import Family
from tests.engine.price_results import result

CAT = catalog.load()
BASIS = Basis.of(CAT)
GTX_1080_TI = CAT.gpu("GeForce GTX 1080 Ti")
V100 = CAT.gpu("Tesla V100 SXM2 16GB")


def _shares(by: str = "flops", **kinds: float) -> dict[str, Any]:
    return {"by": by} | {k: kinds.get(k, 0.0) for k in family.KINDS}


def _file_result(
    composition: dict[str, Any] | None = None, stated: str | None = None, name: str = "my-net"
) -> dict[str, Any]:
    """A GTX 1080 Ti result of a model file, as an imported one would be."""
    data = copy.deepcopy(result())
    data["config"]["model"] = name
    data["config"]["model_file"] = f"/home/someone/{name}.py"
    workload: dict[str, Any] = {
        "name": name,
        "parameters": 1000,
        "model_file": {"path": f"/home/someone/{name}.py", "sha256": None},
    }
    if composition is not None:
        workload["composition"] = composition
    if stated is not None:
        workload["family_stated"] = stated
    data["workload"] = workload
    return validate(data)


# ---- the rules --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("shares", "name", "why"),
    [
        (_shares(convolution=0.82, linear=0.18), "convolutional", "82% of FLOPs in convolutions"),
        (
            _shares(attention=0.1, linear=0.85, other=0.05),
            "transformer",
            "95% of FLOPs in attention and matrix products",
        ),
        (_shares(linear=1.0), "transformer", "100% of FLOPs in matrix products"),  # an MLP
        # lstm-char-cnn's own shares (PyTorch and Keras alike): its LSTMs are a third and more
        (
            _shares(linear=0.55, recurrent=0.39, convolution=0.06),
            "recurrent",
            "39% of FLOPs in recurrent layers",
        ),
        (
            _shares("parameters", convolution=0.6, linear=0.4),
            "convolutional",
            "60% of parameters in convolutions",
        ),
    ],
)
def test_what_holds_most_of_the_model_gives_its_family(shares, name, why):
    assert family.measured(shares) == Family(name, why, "measured")


def test_a_model_no_family_holds_most_of_is_of_none():
    mixed = _shares(convolution=0.45, linear=0.3, recurrent=0.25)
    assert family.measured(mixed) is None
    chosen = family.decide("", mixed)
    assert chosen.name == "" and chosen.source == "none"
    assert "45% convolutions, 30% matrix products, 25% recurrent layers" in chosen.why
    assert "every family's published models" in chosen.text()


def test_stated_wins_then_the_builtins_own_then_measured():
    conv = _shares(convolution=1.0)
    assert family.decide("transformer", conv, ("resnet50", "convolutional")) == Family(
        "transformer", "stated by the model file's FAMILY", "stated"
    )
    # a built-in's registry family knows the model: tiny-mlp's matrix products are no
    # transformer's, and it stays of none
    assert family.decide("", conv, ("bert-base", "transformer")).name == "transformer"
    mlp = family.decide("", _shares(linear=1.0), ("tiny-mlp", ""))
    assert mlp.name == "" and mlp.why == "the built-in tiny-mlp is of none of them"
    assert family.decide("", conv).name == "convolutional"  # a model file: what it is made of
    old = family.decide("", None, ("bert-base", "transformer"))  # a result from before
    assert old == Family("transformer", "the built-in bert-base", "built-in")
    assert (
        family.decide("", None, ("tiny-mlp", "")).why == "the built-in tiny-mlp is of none of them"
    )
    assert family.decide().name == ""


def test_a_bad_family_says_what_to_write():
    for bad in ("cnn", "", 3, None, ["convolutional"]):
        problem = family.stated_problem(bad)
        assert problem is not None and f"FAMILY = {bad!r} is not a family" in problem
        assert "'convolutional'" in problem and "'transformer'" in problem
        assert "'recurrent'" in problem and "leave FAMILY out" in problem
    assert family.stated_problem(" Recurrent") is None  # the loader keeps it as "recurrent"


# ---- a result's fields ------------------------------------------------------------------------


def test_a_result_keeps_what_its_model_is_made_of_and_an_older_one_still_loads():
    shares = _shares(convolution=0.82, linear=0.18)
    found = _file_result(shares, "convolutional")["workload"]
    assert found["composition"] == shares and found["family_stated"] == "convolutional"
    older = _file_result()  # no composition, no family_stated: as results were before
    assert "composition" not in older["workload"]
    assert family.of_result(older).name == ""


@pytest.mark.parametrize(
    ("workload", "words"),
    [
        ({"composition": _shares(convolution=0.9, linear=0.5)}, "shares add up to 1.4, not 1"),
        ({"composition": _shares(convolution=1.5)}, "must be at most 1"),
        ({"composition": {"convolution": 1.0}}, "workload.composition.by' is missing"),
        ({"composition": _shares("luck", linear=1.0)}, "must be one of flops, parameters"),
        ({"family_stated": "cnn"}, "must be one of convolutional, transformer, recurrent"),
    ],
)
def test_a_result_whose_composition_cannot_be_is_refused(workload, words):
    data = copy.deepcopy(result())
    data["workload"] = workload
    with pytest.raises(ConfigError) as error:
        validate(data)
    assert words in str(error.value)


def test_a_model_file_named_like_a_builtin_is_not_that_builtin():
    # A file may call itself resnet50: it is not Lambda's resnet50, and not convolutional unless
    # it says so or is made of convolutions.
    chosen, published_as = family_of(_file_result(name="resnet50"))
    assert (chosen.name, published_as) == ("", "")
    chosen, _ = family_of(_file_result(_shares(linear=1.0), name="resnet50"))
    assert chosen.name == "transformer"


# ---- what an estimate says --------------------------------------------------------------------


def test_an_estimate_of_a_model_file_uses_its_family_and_says_why():
    measured = project_result(
        _file_result(_shares(convolution=0.82, linear=0.18)), GTX_1080_TI, V100, BASIS
    )
    same = project(1000.0, GTX_1080_TI, V100, "fp32", basis=BASIS, family="convolutional")
    assert measured.samples_per_s == pytest.approx(same.samples_per_s)
    assert "published convolutional models" in measured.basis
    assert measured.basis.endswith("; family: convolutional (82% of FLOPs in convolutions)")

    stated = project_result(
        _file_result(_shares(convolution=1.0), "transformer"), GTX_1080_TI, V100, BASIS
    )
    assert "published transformer models" in stated.basis
    assert "family: transformer (stated by the model file's FAMILY)" in stated.basis

    unknown = project_result(_file_result(), GTX_1080_TI, V100, BASIS)
    every = project(1000.0, GTX_1080_TI, V100, "fp32", basis=BASIS, family="")
    assert unknown.samples_per_s == pytest.approx(every.samples_per_s)
    assert "family: none (not known: what the model is made of is not recorded; " in (unknown.basis)


def test_an_estimate_of_a_builtin_names_its_family_and_compare_says_it_once():
    builtin = project_result(result(), GTX_1080_TI, V100, BASIS)
    assert "family: convolutional (the built-in resnet50-cifar)" in builtin.basis
    notes = compare(_file_result(_shares(recurrent=0.5, linear=0.5)), CAT, CompareOptions()).notes
    assert any(
        "The model's family: recurrent (50% of FLOPs in recurrent layers)." in n for n in notes
    )
