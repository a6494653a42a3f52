"""epochcost data list|check|download: the data sets cost-to-accuracy runs train on;
make-imagefolder: a folder of random images for a timed run's --data imagefolder:PATH."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict

from engine.cli import interrupts, numbers
from engine.cli.output import print_json
from engine.workloads import data
from engine.workloads.data import download, random_folder

# make-imagefolder's numbers, in the folder maker's own limits.
IMAGES = numbers.whole(1, random_folder.MAX_IMAGES, "images")
SIZE = numbers.whole(8, random_folder.MAX_SIZE, "pixels")
CLASSES = numbers.whole(1, random_folder.MAX_CLASSES, "classes")
SEED = numbers.whole(0, 2**32 - 1)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("data", help="data sets for `epochcost accuracy`: list, check, download")
    ds = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    ls = ds.add_parser("list", help="the built-in data sets (they work offline)")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(handler=_list)
    check = ds.add_parser("check", help="check a data set folder (or name) without training")
    check.add_argument("dataset", metavar="PATH|NAME")
    check.add_argument("--json", action="store_true")
    check.set_defaults(handler=_check)
    dl = ds.add_parser("download", help="fetch CIFAR-10 (binary version, 162 MB) into a folder")
    dl.add_argument("name", choices=("cifar10",))
    dl.add_argument("--to", required=True, metavar="FOLDER", help="where to put it")
    dl.add_argument("--url", default=download.URL, help="a mirror of cifar-10-binary.tar.gz")
    dl.set_defaults(handler=_download)
    mk = ds.add_parser(
        "make-imagefolder",
        help="write a folder of random images in class folders (for --data imagefolder:PATH)",
    )
    mk.add_argument("path", metavar="PATH", help="a new or empty folder")
    mk.add_argument("--images", type=IMAGES, default=1000, help="how many (default 1000)")
    mk.add_argument("--size", type=SIZE, default=64, help="width and height in pixels (default 64)")
    mk.add_argument("--classes", type=CLASSES, default=10, help="class folders (default 10)")
    mk.add_argument("--format", choices=random_folder.FORMATS, default="jpeg")
    mk.add_argument("--seed", type=SEED, default=0)
    mk.set_defaults(handler=_make_imagefolder)


def _list(args: argparse.Namespace) -> int:
    infos = [builtin.info for builtin in data.BUILTIN.values()]
    if args.json:
        print_json([asdict(i) for i in infos])
        return 0
    for info in infos:
        print(f"{info.name:12s} {info.description}")
    print("CIFAR-10: `epochcost data download cifar10 --to FOLDER`, then --dataset FOLDER")
    return 0


def _check(args: argparse.Namespace) -> int:
    info = data.describe(args.dataset)
    if args.json:
        print_json(asdict(info))
        return 0
    shape = "x".join(map(str, info.input_shape))
    print(
        f"{info.name} ({info.source}): {info.train_samples:,} training and "
        f"{info.test_samples:,} held-out {shape} images, {info.classes} classes"
    )
    return 0


def _download(args: argparse.Namespace) -> int:
    def progress(done: int, total: int | None) -> None:
        total = total or download.ARCHIVE_BYTES
        sys.stderr.write(f"\rdownloading {done / 2**20:,.0f} of {total / 2**20:,.0f} MiB")
        sys.stderr.flush()

    folder = download.download_cifar10(args.to, url=args.url, progress=progress)
    sys.stderr.write("\n")
    print(f"CIFAR-10 is in {folder}; use --dataset {folder}")
    return 0


def _make_imagefolder(args: argparse.Namespace) -> int:
    try:
        with interrupts.as_interrupt():  # SIGTERM and SIGHUP clean up as Ctrl-C does
            folder = random_folder.make(
                args.path, args.images, args.size, args.classes, args.format, args.seed
            )
    except random_folder.Stopped as stopped:
        cause = stopped.__cause__ or KeyboardInterrupt()
        by = cause.name if isinstance(cause, interrupts.Stopped) else "Ctrl-C"
        print(f"epochcost: make-imagefolder stopped by {by}; {stopped.what()}", file=sys.stderr)
        return interrupts.exit_code(cause)
    print(
        f"{args.images:,} random {args.size}x{args.size} {args.format.upper()} images in "
        f"{args.classes} class folders under {folder}; use --data imagefolder:{folder}"
    )
    return 0
