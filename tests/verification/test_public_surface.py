"""The engine's surface: the console reaches it only through its public names, and helpers are private."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import verification

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "verification"
# The modules whose names are the contract itself (see the docstring of verification/__init__.py).
DOCUMENTED_MODULES = frozenset({"types", "constitution"})


def _python_files(*folders: str) -> list[Path]:
    return sorted(path for folder in folders for path in (ROOT / folder).rglob("*.py"))


def _engine_imports(path: Path) -> list[str]:
    """Each import of the engine in one file that does not go through `from verification import <public>`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [f"import {alias.name}" for alias in node.names if alias.name.startswith("verification.")]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("verification"):
            if node.module != "verification":
                found.append(f"from {node.module} import ...")
                continue
            public = set(verification.__all__) | DOCUMENTED_MODULES
            found += [f"from verification import {alias.name}" for alias in node.names if alias.name not in public]
    return [f"{path.relative_to(ROOT)}: {line}" for line in found]


def test_the_console_imports_the_engine_only_through_its_public_names() -> None:
    imports = [line for path in _python_files("reviewconsole") for line in _engine_imports(path)]

    assert imports == []


def test_a_function_no_other_module_calls_is_private() -> None:
    # Tests, benchmarks and the console count as callers: a function they use is part of what the
    # module offers. One used only where it is defined is a helper, and helpers are _private.
    texts = {path: path.read_text(encoding="utf-8") for path in _python_files(
        "verification", "reviewconsole", "tests", "benchmarks"
    )}
    helpers = []
    for path in _python_files("verification"):
        for node in ast.parse(texts[path]).body:
            if not isinstance(node, ast.FunctionDef) or node.name.startswith("_"):
                continue
            used = re.compile(rf"\b{node.name}\b")
            if not any(used.search(text) for other, text in texts.items() if other != path):
                helpers.append(f"{path.relative_to(ROOT)}: {node.name}")

    assert helpers == []
