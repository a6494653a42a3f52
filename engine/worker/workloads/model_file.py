"""Your own model, from a Python file: the contract, and its loader (worker process only).

A model file is a plain Python file that defines:

    build_model(batch_size, hints)   required. Returns the model: a torch.nn.Module (PyTorch) or
                                     a keras.Model (TensorFlow), with random or loaded weights.
                                     It may take fewer arguments: build_model() is fine.
                                     hints: {"framework", "device", "precision", "seed"}.
    INPUT_SHAPE = (3, 32, 32)        one sample's shape, as the model takes it (no batch axis).
    INPUT_DTYPE = "float32"          optional; float32 (default), float16, bfloat16, float64,
                                     int32 or int64. Integer inputs are drawn from 0..vocab-1.
    TARGET = ("classes", 10)         the kind of target, and its size:
                                       ("classes", N)     one label per sample, 0..N-1; the model
                                                          returns logits (batch, N)
                                       ("tokens", V)      one label per position (next token),
                                                          shape (batch, INPUT_SHAPE[0]), 0..V-1;
                                                          the model returns (batch, T, V) logits
                                       ("regression", D)  float targets (batch, D); mean squared
                                                          error against outputs (batch, D)
    loss(outputs, targets)           optional; returns a scalar. Default: cross-entropy on logits
                                     for classes and tokens, mean squared error for regression.
    make_batch(batch_size, device)   optional, replaces INPUT_SHAPE/INPUT_DTYPE/TARGET: returns
                                     (inputs, targets) on the device (Keras: called inside the
                                     device scope; `device` is "cpu" or "cuda:N").
    make_dataset(hints)              optional: your data, read every step (docs/own-model.md):
                                     a torch Dataset of (input, target), or a tf.data.Dataset.
    INPUT_VOCAB = 256                optional; the range of integer inputs when TARGET is not
                                     ("tokens", V) (whose V is used otherwise).
    EPOCH_SAMPLES = 50_000           optional; samples in one epoch of your data set (default:
                                     1,000,000, so the cost per epoch is per million samples).
    NAME = "my-net"                  optional; default: the file's name.
    FAMILY = "convolutional"         optional; convolutional, transformer or recurrent: the
                                     published models a projection to another GPU compares it
                                     with (engine/workloads/family.py). Default: read from the
                                     model's layers (its FLOPs by kind of layer).
    FRAMEWORK = "torch"              optional; torch or tensorflow (keras). Default: guessed
                                     from the file's imports.

The model is trained on synthetic batches of that shape, unless make_dataset or --data gives it
real data to load; `inputs` is passed to the model as its one argument: model(inputs).

The file runs as a training script would: with the user's rights, its folder first on sys.path
(so it can import its neighbours). It is loaded only inside the worker process; every mistake in
it becomes a ModelFileError (a `config` failure) that names the file and the line.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import io
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.core.errors import is_out_of_memory
from engine.worker.workloads.model_file_errors import ModelFileError, from_exception
from engine.workloads.family import stated_problem
from engine.workloads.model_file_source import (
    FRAMEWORK_ALIASES,
    check_path,
    declared_in,
)

TARGET_KINDS = ("classes", "tokens", "regression")
INPUT_DTYPES = ("float32", "float16", "bfloat16", "float64", "int32", "int64")
_TARGET_EXAMPLE = "TARGET = ('classes', 10), ('tokens', 65) or ('regression', 1)"


@dataclass(frozen=True)
class SourceFile:
    """The file's text and where its top-level names are defined, for messages with a line."""

    path: str
    sha256: str
    lines: dict[str, int] = field(default_factory=dict)  # top-level name -> line
    text_lines: tuple[str, ...] = ()

    def error(self, detail: str, name: str | None = None) -> ModelFileError:
        """A ModelFileError at the line where the top-level `name` is defined."""
        line = self.lines.get(name) if name else None
        code = self.text_lines[line - 1].strip() if line and line <= len(self.text_lines) else ""
        return ModelFileError(self.path, detail, line, code)

    def call(self, what: str, fn: Callable[..., Any], *args: Any) -> Any:
        """Call the user's function with as many of `args` as it takes; see wrap()."""
        return self.wrap(what, fn, len(args))(*args)

    def wrap(self, what: str, fn: Callable[..., Any], offered: int) -> Callable[..., Any]:
        """`fn` called with as many of `offered` positional arguments as it takes (counted
        once, here); a failure (or an exit) becomes a ModelFileError at the deepest line of this
        file in the traceback. Running out of memory stays what it is: an `oom` result."""
        n = _arity(fn, offered)

        def called(*args: Any) -> Any:
            try:
                return fn(*args[:n])
            except (Exception, SystemExit) as exc:
                if is_out_of_memory(exc):
                    raise
                raise from_exception(self.path, what, exc) from exc

        return called


@dataclass(frozen=True)
class Target:
    kind: str  # classes | tokens | regression
    size: int


def default_loss_help(target: Target, outputs: Any, exc: Exception) -> str:
    """Why the default loss for TARGET could not use the model's outputs, and what to change
    (the same words for both frameworks)."""
    got = f"shape {tuple(outputs.shape)}" if hasattr(outputs, "shape") else type(outputs).__name__
    wanted = {
        "classes": f"logits of shape (batch, {target.size})",
        "tokens": f"logits of shape (batch, sequence, {target.size})",
        "regression": f"values of shape (batch, {target.size})",
    }[target.kind]
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return (
        f"the default loss for TARGET ({target.kind!r}, {target.size}) cannot use the model's "
        f"outputs ({got}); the model must return {wanted}, or define loss(outputs, targets) "
        f"({type(exc).__name__}: {first})"
    )


@dataclass(frozen=True)
class ModelFileSpec:
    """A loaded model file: its declarations checked, its functions ready to call."""

    source: SourceFile
    name: str
    framework: str
    build_model: Callable[..., Any]
    input_shape: tuple[int, ...] | None
    input_dtype: str
    input_vocab: int | None
    target: Target | None
    epoch_samples: int | None  # as declared; None: not declared
    make_batch: Callable[..., Any] | None = None
    loss: Callable[[Any, Any], Any] | None = None
    make_dataset: Callable[..., Any] | None = None
    family: str = ""  # FAMILY as stated (engine/workloads/family.py FAMILIES); "": not stated

    @property
    def path(self) -> str:
        return self.source.path

    def error(self, detail: str, name: str | None = None) -> ModelFileError:
        return self.source.error(detail, name)

    def call(self, what: str, fn: Callable[..., Any], *args: Any) -> Any:
        return self.source.call(what, fn, *args)

    def wrap(self, what: str, fn: Callable[..., Any], offered: int) -> Callable[..., Any]:
        return self.source.wrap(what, fn, offered)


def hints(framework: str, device: str, precision: str, seed: int) -> dict[str, Any]:
    """What build_model(batch_size, hints) is told about the run."""
    return {"framework": framework, "device": device, "precision": precision, "seed": seed}


_OTHER_FRAMEWORK = {"torch": ("tensorflow", "keras"), "tensorflow": ("torch",)}


def load(path: str, framework: str) -> ModelFileSpec:
    """Run the file (in this process: call only in the worker) and check its declarations."""
    try:
        p = check_path(path)
        source = p.read_bytes()
    except Exception as exc:  # ConfigError, or a file we may not read
        raise ModelFileError(str(path), str(getattr(exc, "message", exc))) from None
    path = str(p.resolve())
    text_lines = tuple(source.decode("utf-8", errors="replace").splitlines())
    try:
        tree = ast.parse(source, filename=path)
    except (SyntaxError, ValueError) as exc:
        raise from_exception(path, "syntax error", exc) from None
    found = declared_in(tree)
    file = SourceFile(path, hashlib.sha256(source).hexdigest(), found.lines, text_lines)
    # Never two frameworks in one process: refuse before the file's imports run.
    if found.framework and found.framework != framework:
        raise _framework_mismatch(file, found.framework, framework)
    other = [m for m in _OTHER_FRAMEWORK[framework] if m in found.imports]
    if other:
        raise file.error(
            f"the file imports {other[0]}, but the run is {framework}; a model file uses one "
            f"framework (use --framework {'torch' if other[0] == 'torch' else 'tensorflow'})",
            f"import {other[0]}",
        )
    module = _execute(file, compile(tree, path, "exec"))
    return _spec(file, vars(module), framework)


def _framework_mismatch(file: SourceFile, declared: str, framework: str) -> ModelFileError:
    return file.error(
        f"the file says FRAMEWORK = {declared!r}, but the run asks for {framework}; use "
        f"--framework {declared} (or leave --framework out)",
        "FRAMEWORK",
    )


def _execute(file: SourceFile, code: types.CodeType) -> types.ModuleType:
    """Run the compiled file as a fresh module, its folder first on sys.path."""
    folder = str(Path(file.path).resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    # An input() in the file gets end-of-file at once, instead of reading the worker's control
    # channel (the watcher thread keeps its own reference to the real stdin).
    sys.stdin = io.StringIO("")
    module = types.ModuleType(f"epochcost_model_{Path(file.path).stem}")
    module.__file__ = file.path
    sys.modules[module.__name__] = module  # so dataclasses and pickling in the file work
    try:
        exec(code, module.__dict__)
    except (Exception, SystemExit) as exc:
        raise from_exception(file.path, "loading the file failed", exc) from exc
    return module


def _spec(file: SourceFile, ns: dict[str, Any], framework: str) -> ModelFileSpec:
    build = ns.get("build_model")
    if not callable(build):
        raise file.error(
            "no build_model function; define build_model(batch_size, hints) that returns "
            "the model" + (" (build_model is not a function)" if build is not None else ""),
            "build_model",
        )
    declared_framework = ns.get("FRAMEWORK")
    if declared_framework is not None:
        normal = FRAMEWORK_ALIASES.get(str(declared_framework).lower())
        if normal is None:
            raise file.error(
                f"FRAMEWORK = {declared_framework!r}: use 'torch' or 'tensorflow'", "FRAMEWORK"
            )
        if normal != framework:
            raise _framework_mismatch(file, normal, framework)
    make_batch = _optional_callable(file, ns, "make_batch")
    loss = _optional_callable(file, ns, "loss")
    target = _target(file, ns.get("TARGET"), required=make_batch is None or loss is None)
    shape = _input_shape(file, ns.get("INPUT_SHAPE"), required=make_batch is None)
    dtype = ns.get("INPUT_DTYPE", "float32")
    if dtype not in INPUT_DTYPES:
        raise file.error(
            f"INPUT_DTYPE = {dtype!r} is not one of {', '.join(INPUT_DTYPES)}", "INPUT_DTYPE"
        )
    vocab = _input_vocab(file, ns.get("INPUT_VOCAB"), dtype, target, make_batch is None)
    epoch = ns.get("EPOCH_SAMPLES")
    if epoch is not None and (isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1):
        raise file.error(f"EPOCH_SAMPLES = {epoch!r} must be a whole number >= 1", "EPOCH_SAMPLES")
    name = ns.get("NAME", Path(file.path).stem)
    if not isinstance(name, str) or not name.strip():
        raise file.error(f"NAME = {name!r} must be a non-empty string", "NAME")
    functions = (make_batch, loss, _optional_callable(file, ns, "make_dataset"))
    family = ns.get("FAMILY")
    if family is not None and stated_problem(family):
        raise file.error(str(stated_problem(family)), "FAMILY")
    return ModelFileSpec(
        file,
        name.strip(),
        framework,
        build,
        shape,
        dtype,
        vocab,
        target,
        epoch,
        *functions,
        family=family.strip().lower() if isinstance(family, str) else "",
    )


def _optional_callable(file: SourceFile, ns: dict[str, Any], name: str) -> Any:
    value = ns.get(name)
    if value is not None and not callable(value):
        raise file.error(f"{name} must be a function, not {type(value).__name__}", name)
    return value


def _target(file: SourceFile, value: Any, required: bool) -> Target | None:
    if value is None:
        if required:
            raise file.error(f"no TARGET; add {_TARGET_EXAMPLE}", "TARGET")
        return None
    ok = (
        isinstance(value, tuple | list)
        and len(value) == 2
        and value[0] in TARGET_KINDS
        and isinstance(value[1], int)
        and not isinstance(value[1], bool)
        and value[1] >= 1
    )
    if not ok:
        raise file.error(f"TARGET = {value!r} is not valid; use {_TARGET_EXAMPLE}", "TARGET")
    return Target(value[0], value[1])


def _input_shape(file: SourceFile, value: Any, required: bool) -> tuple[int, ...] | None:
    if value is None:
        if required:
            raise file.error(
                "no INPUT_SHAPE; add the shape of one sample, e.g. INPUT_SHAPE = (3, 32, 32), "
                "or define make_batch(batch_size, device)",
                "INPUT_SHAPE",
            )
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        value = (value,)
    if not (
        isinstance(value, tuple | list)
        and value
        and all(isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in value)
    ):
        raise file.error(
            f"INPUT_SHAPE = {value!r} must be a tuple of positive whole numbers, e.g. (3, 32, 32)",
            "INPUT_SHAPE",
        )
    return tuple(value)


def _input_vocab(
    file: SourceFile, value: Any, dtype: str, target: Target | None, needed: bool
) -> int | None:
    if value is not None:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise file.error(f"INPUT_VOCAB = {value!r} must be a whole number >= 1", "INPUT_VOCAB")
        return value
    if target is not None and target.kind == "tokens":
        return target.size
    if needed and dtype.startswith("int"):
        raise file.error(
            f"integer inputs ({dtype}) need a range: add INPUT_VOCAB = N (inputs 0..N-1)",
            "INPUT_DTYPE",
        )
    return None


def _arity(fn: Callable[..., Any], offered: int) -> int:
    """How many positional arguments fn takes, at most `offered`."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return offered
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return offered
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return min(offered, len(positional))
