"""What a result ran on, as the price code reads it: a CPU or not, the device's name, its
power draw while training (measured, else the catalog's TDP), and whether its price is another
device's (a CPU measurement priced as an owned GPU).

A device name the catalog does not hold as such (`stand_in_for`) is read as a product, a memory
size and a form: "Tesla V100-DGXS-32GB" is the product V100 with 32 GB on an SXM module, the
same chip and memory as the catalog's "Tesla V100 SXM2 32GB". Such a device is stood in for by
the catalog GPU of the same product and memory (the same form first): a GPU of its own name
with that GPU's rates, so that the projection steps from it through its chip (same compute
capability, engine/pricing/projection.py) and nothing of the catalog GPU's own is taken for a
measurement on it. A name whose memory differs from every row of its product (a P100 12GB,
whose bandwidth is not the 16GB's), that could be several rows ("V100") or whose product no
row holds gets no stand-in.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any, Protocol

from engine.pricing.rows import GpuSpec


class Catalog(Protocol):
    """What of the catalog (engine/pricing/catalog.py, which resolves device names here) this
    module reads."""

    def gpu(self, name: str) -> GpuSpec | None: ...


# An owned price's source (engine/pricing/profiles.py owned_source), after a profile's name:
# "owned GeForce GTX 1080 Ti: $699 over 3 y ..." or "profile home: owned GeForce GTX ...".
_OWNED_SOURCE = re.compile(r"(?:^|: )owned (?P<hardware>[^:]+): \$")


def is_cpu(result: dict[str, Any]) -> bool:
    env = result.get("environment") or {}
    return (env.get("device") or result["config"].get("device")) == "cpu"


def device_label(result: dict[str, Any]) -> str:
    env = result.get("environment") or {}
    return env.get("device_name") or env.get("cpu") or env.get("device") or "unknown device"


def device_power_w(result: dict[str, Any], spec: GpuSpec | None) -> tuple[float | None, str]:
    """The device's draw while training, in watts, and where the figure comes from: the mean of
    the power readings (NVML), else the energy counter over the measured windows (RAPL; the
    monitor's energy covers those windows only), else the GPU's TDP from the catalog."""
    energy = result.get("energy") or {}
    if energy.get("mean_power_w"):
        return energy["mean_power_w"], "measured"
    seconds = result.get("window_seconds")
    if energy.get("energy_j") and energy.get("energy_method") == "counter" and seconds:
        return energy["energy_j"] / seconds, "measured (energy counter)"
    if spec is not None and spec.tdp_w and not is_cpu(result):
        return spec.tdp_w, f"TDP of {spec.name} (catalog)"
    return None, "unknown (no power reading, no TDP in the catalog)"


def owned_gpu_priced(result: dict[str, Any], catalog: Catalog) -> str | None:
    """The catalog GPU a result's price is the owned price of (its source names it), or None."""
    source = (result.get("price") or {}).get("source") or ""
    found = _OWNED_SOURCE.search(source)
    if found is None:
        return None
    spec = catalog.gpu(found["hardware"].strip())
    return spec.name if spec is not None else None


def cpu_at_gpu_price(result: dict[str, Any], catalog: Catalog) -> str | None:
    """What a CPU result priced as an owned GPU means, in a sentence (None for any other): the
    cost is the CPU's speed at that GPU's price, not what the GPU would do."""
    if not is_cpu(result):
        return None
    gpu = owned_gpu_priced(result, catalog)
    if gpu is None:
        return None
    return (
        f"Measured on the CPU ({device_label(result)}) and priced as an owned {gpu}: this is "
        f"the CPU's speed at the {gpu}'s price, not the {gpu}'s speed. Measure on the GPU "
        "to price what it does."
    )


# Words of a device name that say who made it, how it is packaged or what memory it carries,
# not which product it is: a V100 on a PCIe card, an SXM2, SXM3 or DGX Station module is the
# V100 chip; "Rev. A" is a board revision.
_VENDOR = {"nvidia", "tesla", "geforce"}
_FORM = re.compile(r"^(pcie|sxm\d?|dgxs|gen\d|hbm\d?e?|gddr\d\w?|rev)$")
_MEMORY = re.compile(r"^(\d+)g(b)?$")
_SXM = ("sxm", "dgxs", "hbm")


def _tokens(name: str) -> list[str]:
    words = re.findall(r"[a-z0-9]+", name.lower().replace("rev. a", "rev"))
    return [w for w in words if w not in _VENDOR]


def device_parts(name: str) -> tuple[str, float | None, str]:
    """(product, memory in GB or None, form: "sxm", "pcie" or "") of a GPU name as NVML or the
    catalog writes it: ("v100", 32.0, "sxm") for "Tesla V100-SXM3-32GB"."""
    product, memory, form = [], None, ""
    for word in _tokens(name):
        found = _MEMORY.match(word)
        if found:
            memory = float(found[1])
        elif _FORM.match(word):
            form = form or ("pcie" if word == "pcie" else "sxm" if word.startswith(_SXM) else "")
        else:
            product.append(word)
    return "".join(product), memory, form


def stand_in_for(gpus: Sequence[GpuSpec], device_name: str) -> GpuSpec | None:
    """A GPU named `device_name` stood in for by the one catalog GPU of its product and memory
    (of its form, where several are), or None; see the module's docstring."""
    return _stand_in(tuple(gpus), device_name.strip())


@lru_cache(maxsize=64)
def _stand_in(gpus: tuple[GpuSpec, ...], device_name: str) -> GpuSpec | None:
    product, memory, form = device_parts(device_name)
    if not product:
        return None
    found = []
    for g in gpus:
        for name in (g.name, *g.aliases):
            theirs, their_memory, their_form = device_parts(name)
            their_memory = their_memory or g.memory_gb
            if theirs != product or g.vendor not in ("", "NVIDIA"):
                continue
            if memory and their_memory and abs(memory - their_memory) > 1:
                continue
            found.append((their_form == form, g))
            break
    # One GPU, of the name's form where several are of its product and memory; a name that
    # could be several ("v100") is none of them.
    same_form = [g for same, g in found if same and form]
    group = same_form or [g for _, g in found]
    if len(group) != 1:
        return None
    spec = group[0]
    why = f"stood in for by {spec.name}: the same product and memory (its rates)"
    return replace(spec, name=device_name, aliases=(device_name,), notes=why)
