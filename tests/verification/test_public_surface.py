"""The engine's shape: the console reaches it only through its public names, helpers are private,
no module grows past what one reading can hold, and the types check."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import verification

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "verification"
# The modules whose names are the contract itself (see the docstring of verification/__init__.py).
DOCUMENTED_MODULES = frozenset({"types", "constitution"})
MAX_LINES = 400


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


def test_no_engine_module_is_longer_than_one_reading() -> None:
    lengths = {path: len(path.read_text(encoding="utf-8").splitlines()) for path in _python_files("verification")}

    assert {str(path.relative_to(ROOT)): n for path, n in lengths.items() if n > MAX_LINES} == {}


def test_the_engine_passes_the_type_checker() -> None:
    pytest.importorskip("mypy", reason="mypy comes with the dev extra")
    # The project's own settings (pyproject.toml [tool.mypy]); the cache makes reruns take seconds.
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "verification"], cwd=ROOT, capture_output=True, text=True, timeout=600
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("Success: no issues found")
