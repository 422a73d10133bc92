"""The code's shape: no module grows past what one reading can hold (`make test` also runs mypy and the
import contract over both packages). The limit is the style guide's: past about 500 lines a module becomes
a package, split by concept; a module is not cut in two to stay under a number."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 500


@pytest.mark.parametrize("package", ["verification", "reviewconsole"])
def test_no_module_is_longer_than_one_reading(package: str) -> None:
    modules = [path for path in (ROOT / package).rglob("*.py") if "migrations" not in path.parts]
    lengths = {path: len(path.read_text(encoding="utf-8").splitlines()) for path in modules}

    assert {str(path.relative_to(ROOT)): n for path, n in lengths.items() if n > MAX_LINES} == {}
