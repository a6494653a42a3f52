"""What can be known about a model file without running it: the path check, the content hash,
and the literal declarations (NAME, FRAMEWORK, EPOCH_SAMPLES) read from its syntax tree.

Safe in any process (CLI, GUI, config validation): nothing here imports or executes the file.
The contract itself is documented in engine/worker/workloads/model_file.py, which loads the file, in
the worker only.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from engine.core.errors import ConfigError

# An epoch when the file sets no EPOCH_SAMPLES and no --epoch-samples is given: cost per epoch
# is then the cost per million samples (the result says so in a warning).
DEFAULT_EPOCH_SAMPLES = 1_000_000

# FRAMEWORK values a file may use, and the framework each means.
FRAMEWORK_ALIASES = {
    "torch": "torch",
    "pytorch": "torch",
    "tensorflow": "tensorflow",
    "tf": "tensorflow",
    "keras": "tensorflow",
}
_FRAMEWORK_IMPORTS = {"torch": "torch", "keras": "tensorflow", "tensorflow": "tensorflow"}
_DECLARED = ("NAME", "FRAMEWORK", "EPOCH_SAMPLES")


def check_path(path: str | Path, field_name: str = "model_file") -> Path:
    """The file as a Path if it exists and is a .py file; ConfigError saying what to fix."""
    if not isinstance(path, str | Path) or not str(path).strip():
        raise ConfigError(field_name, "give the path of a Python file (.py)")
    p = Path(path).expanduser()
    if not p.exists():
        raise ConfigError(field_name, f"{p} does not exist")
    if not p.is_file():
        raise ConfigError(field_name, f"{p} is not a file; give the path of a Python file (.py)")
    if p.suffix != ".py":
        raise ConfigError(field_name, f"{p} is not a Python file; give a .py file")
    return p


def normalized(path: str | Path) -> str:
    """The absolute path the worker loads the file by (and results record)."""
    return str(Path(path).expanduser().resolve())


def file_sha256(path: str | Path) -> str | None:
    """Hex SHA-256 of the file's bytes; None when it cannot be read."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def record(path: str | Path, sha256: str | None = None) -> dict[str, str | None]:
    """How a result names the file it measured: path and content hash."""
    return {"path": str(path), "sha256": sha256 or file_sha256(path)}


@dataclass(frozen=True)
class Declared:
    """Literal top-level assignments and imported packages, as written in the file."""

    name: str | None = None
    framework: str | None = None  # normalised: torch | tensorflow
    epoch_samples: int | None = None
    imports: frozenset[str] = frozenset()
    # top-level name -> line assigned; "import PACKAGE" -> line of its first import
    lines: dict[str, int] = field(default_factory=dict)


def declared(path: str | Path) -> Declared:
    """Read NAME, FRAMEWORK, EPOCH_SAMPLES (when literals) and the imports; never raises: a file
    that cannot be read or parsed declares nothing (the worker reports what is wrong with it)."""
    try:
        tree = ast.parse(Path(path).read_bytes(), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return Declared()
    return declared_in(tree)


def declared_in(tree: ast.Module) -> Declared:
    values: dict[str, object] = {}
    lines: dict[str, int] = {}
    imports: set[str] = set()
    for node in tree.body:
        roots: list[str] = []
        if isinstance(node, ast.Import):
            roots = [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            roots = [node.module.split(".")[0]]
        for root in roots:
            imports.add(root)
            lines.setdefault(f"import {root}", node.lineno)
        for target, value in _assignments(node):
            lines[target] = node.lineno
            if target in _DECLARED:
                try:
                    values[target] = ast.literal_eval(value)
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    values.pop(target, None)
    name = values.get("NAME")
    framework = values.get("FRAMEWORK")
    epoch = values.get("EPOCH_SAMPLES")
    return Declared(
        name=name if isinstance(name, str) and name.strip() else None,
        framework=FRAMEWORK_ALIASES.get(framework.lower()) if isinstance(framework, str) else None,
        epoch_samples=epoch if isinstance(epoch, int) and not isinstance(epoch, bool) else None,
        imports=frozenset(imports),
        lines=lines,
    )


def _assignments(node: ast.stmt) -> list[tuple[str, ast.expr]]:
    """(name, value) for `NAME = value`, `NAME: T = value` and `def NAME` at the top level."""
    if isinstance(node, ast.Assign):
        return [(t.id, node.value) for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
        return [(node.target.id, node.value)]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [(node.name, ast.Constant(None))]
    return []


def guess_framework(path: str | Path) -> str:
    """The file's FRAMEWORK if it declares one, else the framework it imports, else torch."""
    found = declared(path)
    if found.framework:
        return found.framework
    for package, framework in _FRAMEWORK_IMPORTS.items():
        if package in found.imports:
            return framework
    return "torch"


def default_name(path: str | Path) -> str:
    """The model's name before the file is run: its literal NAME, else the file's stem."""
    return declared(path).name or Path(path).stem
