"""The front door and the reference: a README a newcomer finishes, docs pages it links, and every setting the
console reads named in those pages.

No Django here: the settings are found by reading the source (`ast`), never by importing it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
README_MAX_LINES = 250

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", flags=re.MULTILINE | re.DOTALL)
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", flags=re.MULTILINE)


def _prose(path: Path) -> str:
    """The Markdown without its fenced code blocks (a `# comment` in a shell block is no heading)."""
    return _FENCE.sub("", path.read_text(encoding="utf-8"))


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    anchors: set[str] = set()
    for heading in _HEADING.findall(_prose(path)):
        slug, n = _slug(heading), 1
        while slug in anchors:  # a repeated heading gets -1, -2, ...
            slug, n = f"{_slug(heading)}-{n}", n + 1
        anchors.add(slug)
    return anchors


def _local_links(path: Path) -> list[tuple[str, Path, str]]:
    """(as written, the file it names, its #anchor or "") for every link that stays in the repository."""
    links = []
    for target in _LINK.findall(_prose(path)):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        links.append((target, (path.parent / file_part).resolve() if file_part else path, anchor))
    return links


def _docs_pages() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


# --- the README


def test_the_readme_fits_a_newcomers_reading() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()

    assert len(lines) <= README_MAX_LINES, (
        f"README.md has {len(lines)} lines, at most {README_MAX_LINES}: move the reference into a docs/ page"
    )


def test_the_readme_starts_with_the_two_commands_then_the_first_five_minutes() -> None:
    sections = re.findall(r"^## (.+)$", _prose(README), flags=re.MULTILINE)
    text = README.read_text(encoding="utf-8")

    assert sections[:2] == ["Two commands", "First five minutes"], sections
    assert "make demo" in text and "make test" in text
    assert "docs/console.png" in text


def test_every_page_the_readme_links_exists_with_its_anchor() -> None:
    links = _local_links(README)
    missing = [written for written, file, _ in links if not file.exists()]
    bad_anchors = [
        written for written, file, anchor in links
        if anchor and file.suffix == ".md" and file.exists() and anchor not in _anchors(file)
    ]

    assert any(file == (DOCS / "index.md").resolve() for _, file, _ in links), "the README links docs/index.md"
    assert missing == [], f"README.md links pages that do not exist: {missing}"
    assert bad_anchors == [], f"README.md links headings that do not exist: {bad_anchors}"


# --- the docs pages


def test_the_docs_index_lists_every_page() -> None:
    listed = {file for _, file, _ in _local_links(DOCS / "index.md")}
    unlisted = [page.name for page in _docs_pages() if page.name != "index.md" and page.resolve() not in listed]

    assert unlisted == [], f"docs/index.md does not list {unlisted}"


@pytest.mark.parametrize("page", _docs_pages(), ids=lambda page: page.name)
def test_every_link_of_a_docs_page_resolves(page: Path) -> None:
    links = _local_links(page)
    missing = [written for written, file, _ in links if not file.exists()]
    bad_anchors = [
        written for written, file, anchor in links
        if anchor and file.suffix == ".md" and file.exists() and anchor not in _anchors(file)
    ]

    assert missing == [], f"{page.name} links files that do not exist: {missing}"
    assert bad_anchors == [], f"{page.name} links headings that do not exist: {bad_anchors}"


# --- every setting named in the docs


def _env_readers() -> set[str]:
    """The typed readers of reviewconsole/env.py: each takes the variable's name as its first argument."""
    tree = ast.parse((ROOT / "reviewconsole" / "env.py").read_text(encoding="utf-8"))
    return {
        node.name for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.args.args and node.args.args[0].arg == "name"
    }


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _is_os_environ(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name) \
        and node.value.id == "os"


def _variables_read(path: Path, readers: set[str]) -> set[str]:
    """Names read through env.py's readers, `os.environ.get`, `os.getenv` or `os.environ[...]`."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        first: ast.expr | None = None
        if isinstance(node, ast.Call) and node.args:
            called = _called_name(node)
            on_environ = isinstance(node.func, ast.Attribute) and _is_os_environ(node.func.value)
            if called in readers or called == "getenv" or (called == "get" and on_environ):
                first = node.args[0]
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and _is_os_environ(node.value):
            first = node.slice
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            names.add(first.value)
    return names


def _settings_read() -> set[str]:
    readers = _env_readers()
    names: set[str] = set()
    for package in ("reviewconsole", "verification"):
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" not in path.parts:
                names |= _variables_read(path, readers)
    return names


def test_the_settings_scan_finds_the_settings() -> None:
    # A scan that finds nothing would pass the next test vacuously.
    readers = _env_readers()
    names = _settings_read()

    assert {"env_str", "env_bool", "env_int", "env_url"} <= readers, readers
    assert {"DATABASE_URL", "SECRET_KEY", "REDIS_URL", "LLM_BASE_URL", "POLICY_CANARY_HOUR",
            "VERIFICATION_DATA_DIR"} <= names
    assert len(names) >= 60, sorted(names)


def test_every_setting_read_is_named_in_the_docs() -> None:
    docs = "\n".join(page.read_text(encoding="utf-8") for page in _docs_pages())
    undocumented = sorted(
        name for name in _settings_read() if not re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", docs)
    )

    assert undocumented == [], (
        f"read from the environment but named in no docs/*.md page: {undocumented} "
        "(add each to the table in docs/configuration.md)"
    )
