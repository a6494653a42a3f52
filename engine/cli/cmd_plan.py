"""epochcost plan: time, cost, energy and CO2 of a training run of any size, from its FLOPs."""

from __future__ import annotations

import argparse
from typing import Any

from engine.cli import numbers
from engine.cli.catalog_options import check_clouds, check_gpu, load_reporting
from engine.cli.common import UsageError, option_name
from engine.cli.output import print_json
from engine.cli.owned_options import add_owned_options
from engine.cli.plan_text import render_comparison, render_plan
from engine.cli.profile_options import add_profile_option, plan_profile
from engine.cli.result_options import load_result
from engine.core.errors import ConfigError
from engine.core.placeholders import worded, worded_data
from engine.plan import memory as plan_memory
from engine.plan import planner
from engine.plan import presets as plan_presets
from engine.plan import report as plan_report
from engine.plan import targets as plan_targets
from engine.plan.options import PRECISIONS, PlanOptions
from engine.plan.planner import Compute, Power, Target
from engine.plan.presets import Preset
from engine.plan.report import Inputs
from engine.pricing.catalog import Catalog

# What can be planned: a model to 10 trillion parameters on a quadrillion tokens, a million GPUs;
# every figure of the plan stays finite.
PARAMS = numbers.number(1, 1e13, "parameters")
TOKENS = numbers.number(1, 1e15, "tokens")
LAYERS = numbers.whole(1, 10_000, "layers")
SEQ_LEN = numbers.whole(1, 100_000_000, "tokens")
D_ATTN = numbers.whole(1, 1_000_000)
SAMPLES = numbers.number(1, 1e13, "samples")
FLOPS_PER_SAMPLE = numbers.number(1, 1e21, "FLOPs")
COUNT = numbers.whole(1, 1_000_000, "GPUs")
BATCH = numbers.whole(1, 1_048_576, "sequences")
MFU = numbers.fraction(0.001)
POWER_FRACTION = numbers.number(0.01, 1.5, "(draw / TDP)")
RUNS = numbers.number(1, 1_000_000, "runs")
PUE = numbers.number(1, 5)

# The engine's ConfigError field -> this command's option (engine/cli/numbers.py, Named).
FIELDS = {
    "n_layers": "layers",
    "g_co2e_per_kwh": "grid_g_per_kwh",
    "region": "grid_region",
    "relative_size": "runs_table",  # a row of the run-count table
    "power_w": "power_fraction",  # one GPU's draw: its TDP x the fraction
}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "plan",
        help="time, cost, energy and CO2 of a training run of any size (from its FLOPs)",
        description="Plan a training run: FLOPs from parameters x tokens (6ND + attention, "
        "Kaplan et al. 2020) or FLOPs per sample x samples x epochs, on catalog GPUs at a "
        "measured (--from-result) or assumed (--mfu) utilisation.",
    )
    what = p.add_argument_group("what is trained")
    what.add_argument("--preset", default=None, help="a published model (--list-presets)")
    what.add_argument("--list-presets", action="store_true", help="list the presets and exit")
    what.add_argument("--params", type=PARAMS, default=None, help="parameters N (110e6)")
    what.add_argument("--tokens", type=TOKENS, default=None, help="training tokens D (3.3e9)")
    what.add_argument("--layers", type=LAYERS, default=None, help="for the attention term")
    what.add_argument("--seq-len", type=SEQ_LEN, default=None, help="context length, same")
    what.add_argument("--d-attn", type=D_ATTN, default=None, help="attention width, same")
    what.add_argument("--attention", choices=("causal", "full"), default=None)
    what.add_argument("--samples", type=SAMPLES, default=None, help="samples per epoch (non-LM)")
    what.add_argument(
        "--epochs", type=numbers.EPOCHS, default=1.0, help="with --samples (default 1)"
    )
    what.add_argument(
        "--flops-per-sample", type=FLOPS_PER_SAMPLE, default=None, help="default: the result's"
    )
    hw = p.add_argument_group("on what")
    hw.add_argument(
        "--gpu", default=None, help="a catalog GPU (V100, 'A100 SXM4 80GB'); all: compare"
    )
    hw.add_argument("--instance", default=None, help="a catalog instance type (p3.16xlarge)")
    hw.add_argument("--compare", action="store_true", help="one row per catalog GPU")
    hw.add_argument("--count", type=COUNT, default=None, help="GPUs (default 1, or the instance's)")
    hw.add_argument("--cloud", default=None, help="comma-separated clouds to price on")
    hw.add_argument(
        "--precision",
        default=None,
        choices=PRECISIONS,
        help="peak used (default: the result's, else fp16 = the FP16/BF16 tensor rate where "
        "the GPU has one, else its fastest: fp32 on a GTX 1080 Ti)",
    )
    hw.add_argument(
        "--optimizer",
        default="adam",
        choices=plan_memory.OPTIMIZERS,
        help="for the memory check: its state per parameter (default adam)",
    )
    hw.add_argument(
        "--batch-size",
        type=BATCH,
        default=None,
        help="sequences per GPU per step: the memory check's activations (with the shape)",
    )
    use = p.add_argument_group("utilisation")
    use.add_argument("--mfu", type=MFU, default=None, help="assumed MFU, a fraction (0.35)")
    use.add_argument("--from-result", default=None, metavar="ID", help="measured MFU (and power)")
    use.add_argument(
        "--power-fraction", type=POWER_FRACTION, default=None, help="GPU draw / TDP (default 1)"
    )
    runs = p.add_argument_group("fully loaded")
    runs.add_argument("--runs", type=RUNS, default=None, help="N full-size runs in all")
    runs.add_argument(
        "--runs-table",
        default=None,
        help="sharir-2020 (default), strubell-2019-"
        "tuning, strubell-2019-project, or a CSV: label,runs,relative_size",
    )
    env = p.add_argument_group("energy, CO2 and owning")
    add_owned_options(
        env,
        ("grid_region", "grid_g_per_kwh"),
        {"grid_region": "grid for CO2: us-east-1 or aws:us-east-1 (default: the instance's)"},
    )
    env.add_argument("--pue", type=PUE, default=None, help="default: the region's, else 1")
    env.add_argument("--owned", action="store_true", help="price owning (needs --usd-per-kwh)")
    add_owned_options(
        env,
        (
            *("usd_per_kwh", "purchase_usd", "lifetime_years", "hours_per_day"),
            *("rest_of_system_w", "psu_efficiency"),
        ),
        {"usd_per_kwh": "tariff ($/kWh); prices owning"},
    )
    p.add_argument("--limit", type=numbers.LIMIT, default=30, help="comparison rows shown (0: all)")
    p.add_argument("--json", action="store_true", help="numbers and the assumptions used")
    add_profile_option(p)
    p.set_defaults(handler=numbers.Named(handle, FIELDS))


def handle(args: argparse.Namespace) -> int:
    if args.list_presets:
        return _list_presets(args.json)
    cat = load_reporting()
    plan_profile(args, cat)
    result = load_result(args.from_result) if args.from_result else None
    inputs = _inputs(args, cat, result)
    if args.compare or (args.gpu or "").lower() == "all":
        return _compare(args, cat, inputs)
    target = _single_target(args, cat, inputs.options, inputs.power)
    row, target = plan_targets.plan_on(
        target,
        inputs.compute,
        inputs.utilisation,
        inputs.options.precision,
        inputs.power,
        inputs.runs,
    )
    data = plan_report.single(row, target, inputs, cat)
    if args.json:
        print_json(worded_data(data, option_name))  # "give {usd_per_kwh}": "give --usd-per-kwh"
    else:
        text = render_plan(row, target, inputs, data.get("published"), data.get("memory"))
        print(worded(text, option_name))
    return 0


def _inputs(args: argparse.Namespace, cat: Catalog, result: dict[str, Any] | None) -> Inputs:
    preset = plan_presets.preset(args.preset) if args.preset else None
    compute = _compute(args, preset, result)
    if args.mfu is not None:
        utilisation = planner.assumed(args.mfu)
    elif result is not None:
        utilisation = plan_targets.utilisation_from_result(result, cat)
    else:
        raise UsageError(
            "mfu", "give an assumed MFU (--mfu 0.35) or a measured one (--from-result ID)"
        )
    precision = (
        args.precision
        or (utilisation.precision if utilisation.measured else None)
        or _gpu_precision(args, cat)
    )
    options = PlanOptions(
        count=args.count,
        precision=precision,
        clouds=check_clouds(cat, args.cloud),
        region=args.grid_region,
        g_co2e_per_kwh=args.grid_g_per_kwh,
        pue=args.pue,
        owned=args.owned,
        usd_per_kwh=args.usd_per_kwh,
        purchase_usd=args.purchase_usd,
        lifetime_years=args.lifetime_years,
        hours_per_day=args.hours_per_day,
        psu_efficiency=args.psu_efficiency,
        rest_of_system_w=args.rest_of_system_w,
        owned_profile=getattr(args, "owned_profile", None),
        rented_profile=getattr(args, "rented_profile", None),
        optimizer=args.optimizer,
        batch_size=args.batch_size,
    ).validated()
    if args.runs is not None and args.runs_table:
        raise UsageError("runs", "give --runs or --runs-table, not both")
    if args.runs is not None:
        runs, runs_name = plan_presets.full_size_runs(args.runs), "given"
    else:
        runs = plan_presets.runs_table(args.runs_table)
        runs_name = args.runs_table or plan_presets.DEFAULT_RUNS_TABLE
    planner.runs_multiplier(runs)  # validates
    return Inputs(compute, preset, utilisation, _power(args, cat, result), runs, runs_name, options)


def _gpu_precision(args: argparse.Namespace, cat: Catalog) -> str:
    """fp16 (the tensor rate), unless the one GPU planned on has none: then its fastest."""
    if args.compare or (args.gpu or "").lower() == "all" or not (args.gpu or args.instance):
        return "fp16"
    try:
        if args.instance:
            found = plan_targets.find_instance(cat, args.instance, check_clouds(cat, args.cloud))
            spec = cat.gpu_of(found)
        else:
            spec = plan_targets.find_gpu(cat, args.gpu)[0]
    except ConfigError:
        return "fp16"  # the target's own lookup says what is wrong
    return plan_targets.default_precision(spec) if spec is not None else "fp16"


def _compute(
    args: argparse.Namespace, preset: Preset | None, result: dict[str, Any] | None
) -> Compute:
    if preset is not None or args.params is not None:
        return _transformer(args, preset)
    if args.samples is not None:
        per_sample = args.flops_per_sample
        if per_sample is None and result is not None:
            per_sample = (result.get("flops") or {}).get("per_sample")
            if per_sample is None:
                raise UsageError(
                    "from_result", f"{result['run_id']} has no FLOP count; give --flops-per-sample"
                )
        if per_sample is None:
            raise UsageError(
                "flops_per_sample", "give it, or --from-result ID to take the result's"
            )
        return planner.per_sample(per_sample, args.samples, args.epochs)
    raise UsageError(
        "params",
        "say what is trained: --preset NAME, --params N --tokens D, or --samples S "
        "(with --from-result ID or --flops-per-sample F)",
    )


def _transformer(args: argparse.Namespace, preset: Preset | None) -> Compute:
    def pick(given: Any, field: str) -> Any:
        return given if given is not None else (getattr(preset, field) if preset else None)

    params, tokens = pick(args.params, "params"), pick(args.tokens, "tokens")
    if tokens is None:
        what = f"{preset.name} has no published token count" if preset else "the training tokens D"
        raise UsageError("tokens", f"{what}: give --tokens")
    causal = (args.attention or ("causal" if not preset or preset.causal else "full")) == "causal"
    return planner.transformer(
        params,
        tokens,
        pick(args.layers, "n_layers"),
        pick(args.seq_len, "seq_len"),
        pick(args.d_attn, "d_attn"),
        causal,
    )


def _power(args: argparse.Namespace, cat: Catalog, result: dict[str, Any] | None) -> Power:
    if args.power_fraction is not None:
        return Power(args.power_fraction, f"given: {args.power_fraction:.0%} of TDP")
    measured = plan_targets.power_from_result(result, cat) if result else None
    return measured or planner.TDP


def _single_target(
    args: argparse.Namespace, cat: Catalog, options: PlanOptions, power: Power
) -> Target:
    if args.instance and args.gpu:
        raise UsageError("instance", "give --instance or --gpu, not both")
    if args.instance:
        instance = plan_targets.find_instance(cat, args.instance, options.clouds)
        return plan_targets.target_for_instance(cat, instance, options, power)
    if not args.gpu:
        raise UsageError("gpu", "say on what: --gpu NAME, --instance TYPE, or --compare")
    check_gpu(cat, args.gpu)
    spec, note = plan_targets.find_gpu(cat, args.gpu)
    target = plan_targets.target_for_gpu(cat, spec, options, power)
    return plan_targets.with_notes(target, (note,) if note else ())


def _compare(args: argparse.Namespace, cat: Catalog, inputs: Inputs) -> int:
    if args.instance:
        raise UsageError("compare", "--compare prices every GPU: leave out --instance")
    rows, left_out = plan_targets.compare(
        cat, inputs.compute, inputs.utilisation, inputs.options, inputs.power, inputs.runs
    )
    if args.json:
        data = {
            "rows": plan_report.comparison_rows(rows),
            "left_out": [{"gpu": gpu, "why": why} for gpu, why in left_out],
            "assumptions": plan_report.assumptions(inputs),
        }
        print_json(worded_data(data, option_name))
        return 0
    print(worded(render_comparison(rows, left_out, inputs, args.limit), option_name))
    return 0


def _list_presets(as_json: bool) -> int:
    presets = plan_presets.load_presets()
    if as_json:
        print_json([vars(p) for p in presets.values()])
        return 0
    for p in presets.values():
        tokens = f"{p.tokens:.3g} tokens" if p.tokens else "tokens not published"
        shape = f", {p.n_layers} layers x {p.seq_len} context x {p.d_attn}" if p.n_layers else ""
        print(f"{p.name:12s} {p.params:.3g} parameters, {tokens}{shape}")
        print(f"{'':12s} {p.params_source}")
        if p.tokens_source:
            print(f"{'':12s} {p.tokens_source}")
        if p.notes:
            print(f"{'':12s} note: {p.notes}")
    return 0
