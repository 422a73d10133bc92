"""The engine's surface: the console reaches it only through its public names, and helpers are private."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import verification
import verification.training

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "verification"
# The public modules besides the package's own names (see the docstring of verification/__init__.py).
PUBLIC_MODULES = frozenset({"verification.types", "verification.policy.constitution", "verification.training"})
SURFACES = [verification, verification.training]


def _python_files(*folders: str) -> list[Path]:
    return sorted(path for folder in folders for path in (ROOT / folder).rglob("*.py"))


def _engine_imports(path: Path) -> list[str]:
    """Each import of the engine in one file that reaches past its public names and modules."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [f"import {alias.name}" for alias in node.names
                      if alias.name.startswith("verification.") and alias.name not in PUBLIC_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "verification":
            if node.module == "verification.training":
                public = set(verification.training.__all__)
            elif node.module in PUBLIC_MODULES:
                continue
            else:
                public = set(verification.__all__) if node.module == "verification" else set()
            found += [f"from {node.module} import {alias.name}" for alias in node.names
                      if alias.name not in public and f"{node.module}.{alias.name}" not in PUBLIC_MODULES]
    return [f"{path.relative_to(ROOT)}: {line}" for line in found]


def test_the_console_imports_the_engine_only_through_its_public_names() -> None:
    imports = [line for path in _python_files("reviewconsole") for line in _engine_imports(path)]

    assert imports == []


def test_the_public_surface_is_what_a_user_calls_and_training_has_its_own() -> None:
    # The package names what checking a case needs; fitting and comparing scorers is verification.training's.
    assert {"check_case", "Case", "RunRecord", "Constitution", "make_scorer", "calibrate_release", "main"} <= set(
        verification.__all__)
    assert {"LabelledClaim", "Pair", "slice_of", "retrain", "refit_stack"} <= set(verification.training.__all__)
    assert set(verification.__all__).isdisjoint(verification.training.__all__)
    assert len(verification.__all__) <= 50


@pytest.mark.parametrize("surface", SURFACES, ids=lambda module: module.__name__)
def test_every_public_name_is_read_from_the_module_that_defines_it(surface) -> None:
    assert len(set(surface.__all__)) == len(surface.__all__)
    for name in surface.__all__:
        module, _, attribute = surface._HOMES[name].partition(":")
        assert getattr(surface, name) is getattr(sys.modules[module], attribute or name), name
    assert set(surface._HOMES) == set(surface.__all__)
    assert set(surface.__all__) <= set(dir(surface))
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        _ = surface.no_such_name


@pytest.mark.parametrize("surface", ["verification", "verification.training"])
def test_importing_a_surface_loads_no_stage_until_a_name_is_read(surface) -> None:
    # A process that only reads run records imports the package without the scorer, retrieval or numpy.
    script = (
        "import json, sys\n"
        f"import {surface}\n"
        "before = sorted(m for m in sys.modules if m.startswith('verification.') or m == 'numpy')\n"
        f"from {surface} import *\n"
        "print(json.dumps([before, 'verification.engine' in sys.modules, 'onnxruntime' in sys.modules]))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120,
                            check=True)
    before, engine_after, onnxruntime_after = json.loads(result.stdout)

    # Only the few lines that read a name on first use (`verification.surface`) come with the package.
    assert before == (["verification.surface"] if surface == "verification"
                      else ["verification.surface", "verification.training"])
    # Reading every name loads what defines it (check_case: the engine), but not the model runtime: that is
    # for the first scorer made.
    assert engine_after or surface != "verification"
    assert not onnxruntime_after


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
