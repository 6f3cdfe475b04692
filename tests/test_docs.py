"""The documentation site builds, offline and without a warning, and covers the public API.

``mkdocs build --strict`` turns every warning into a failure: a broken link or anchor, a page
missing from the navigation, a reference to a name that does not exist. The build runs in a
network namespace with only loopback where the platform allows it, so a theme or plugin that
fetched anything (fonts, inventories) would fail here too. The built inventory
(``objects.inv``) then shows that every public name has its entry in the API reference.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

import agents
import gongzhu_env
from tests.helpers import HANG_S
from tests.training.ray_support import loopback_only_network

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.xdist_group("docs")  # one worker builds the site once for the module

ENTRY_POINTS = [
    "training.train.main", "training.train.run_training", "training.train.build_parser",
    "training.config.make_config", "training.config.load_config", "training.config.DMCConfig",
    "training.config.SB3Config", "training.config.ConfigError", "training.dmc.train.train_dmc",
    "training.sb3.train.train_sb3", "training.arena.cli.main",
    "training.expert_iteration.recipe.main",
]
"""The trainers' and the arena's entry points, as ``module.name``."""


def public_names() -> list[str]:
    """Every name the reference must hold: both packages' ``__all__`` and the entry points."""
    return ([f"gongzhu_env.{n}" for n in gongzhu_env.__all__]
            + [f"agents.{n}" for n in agents.__all__] + ENTRY_POINTS)


def resolve(path: str) -> object:
    """The object a ``module.name`` path names."""
    module, name = path.rsplit(".", 1)
    return getattr(importlib.import_module(module), name)


def canonical(obj: object) -> str:
    """Where an object is defined: ``module.qualname``."""
    return f"{obj.__module__}.{obj.__qualname__}"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built strictly (and offline where a namespace can be entered)."""
    out = tmp_path_factory.mktemp("site")
    with loopback_only_network():
        proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                               "--site-dir", str(out)], cwd=ROOT, capture_output=True,
                              text=True, timeout=HANG_S)
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}"
    return out


def inventory(site: Path) -> set[str]:
    """The object names of the site's Sphinx inventory (written by mkdocstrings)."""
    data = (site / "objects.inv").read_bytes()
    header_end = 0
    for _ in range(4):
        header_end = data.index(b"\n", header_end) + 1
    body = zlib.decompress(data[header_end:]).decode()
    return {line.split(" ", 1)[0] for line in body.splitlines() if line.strip()}


def test_every_page_is_built(site):
    pages = [p.relative_to(ROOT / "docs") for p in (ROOT / "docs").rglob("*.md")]
    assert pages
    for page in pages:
        built = (page.with_suffix(".html") if page.stem == "index"
                 else page.with_suffix("") / "index.html")
        assert (site / built).is_file(), f"docs/{page} was not built"


@pytest.mark.parametrize("path", public_names())
def test_every_public_name_has_a_docstring_and_a_reference_entry(path, site):
    obj = resolve(path)
    assert (obj.__doc__ or "").strip(), f"{path} has no docstring of its own"
    entries = inventory(site)
    assert {path, canonical(obj)} & entries, f"{path} ({canonical(obj)}) is not in the reference"


def test_the_reference_renders_docstrings_as_text(site):
    # The extension turns reStructuredText tables into HTML tables and >>> sessions into code.
    html = (site / "api" / "view" / "index.html").read_text(encoding="utf-8")
    assert re.search(r"<table>.*?trick_cards.*?</table>", html, flags=re.S)
    assert "=====" not in html
    wrappers = (site / "api" / "wrappers" / "index.html").read_text(encoding="utf-8")
    assert "&gt;&gt;&gt;" in wrappers and "<blockquote>" not in wrappers


def test_readme_is_a_landing_page_with_ci_s_test_command():
    # Both the README and the getting-started page show the command CI runs, word for word.
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    marker = next(i for i, line in enumerate(ci) if "word for word" in line)
    command = next(line for line in ci[marker + 1:] if line.startswith("pip install"))
    assert command in readme.splitlines(), f"README lacks CI's test command: {command}"
    start = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    assert command in start, f"docs/getting-started.md lacks CI's test command: {command}"
    # Every page the README links to exists.
    for target in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (ROOT / target).exists(), target


def load_converter():
    """``docs/_ext/rst_docstrings.py``, the griffe extension, loaded from its file."""
    spec = importlib.util.spec_from_file_location("rst_docstrings",
                                                  ROOT / "docs" / "_ext" / "rst_docstrings.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.convert


def test_converter_turns_a_simple_table_with_a_header_and_continued_rows_into_markdown():
    convert = load_converter()
    text = ("Intro.\n\n"
            "=====  ====  ===========\n"
            "name   size  meaning\n"
            "=====  ====  ===========\n"
            "hand   52    cards held,\n"
            "             one bit each\n"
            "pipe   1     a | b\n"
            "=====  ====  ===========\n\n"
            "After.")
    assert convert(text).splitlines() == [
        "Intro.", "",
        "| name | size | meaning |", "| --- | --- | --- |",
        "| hand | 52 | cards held, one bit each |", "| pipe | 1 | a \\| b |",
        "", "After."]


def test_converter_gives_a_headerless_table_an_empty_header():
    convert = load_converter()
    out = convert("====  ====\nA     one\nB     two\n====  ====")
    assert out.splitlines() == ["|  |  |", "| --- | --- |", "| A | one |", "| B | two |"]


def test_converter_fences_sessions_and_literal_blocks_and_bolds_titles():
    convert = load_converter()
    text = ("Rewards\n-------\nZero.\n\n"
            ">>> from gongzhu_env import env\n>>> e = env()\n\n"
            "For example::\n\n    x = 1\n\n    y = 2\n\nEnd.")
    assert convert(text).splitlines() == [
        "**Rewards**", "", "Zero.", "",
        "```pycon", ">>> from gongzhu_env import env", ">>> e = env()", "```", "",
        "For example:", "", "```", "x = 1", "", "y = 2", "```", "", "End."]


def test_converter_leaves_plain_prose_and_an_unclosed_table_alone():
    convert = load_converter()
    prose = "One line.\n\n* a list\n* of items\n\n``code`` stays."
    assert convert(prose) == prose
    unclosed = "====  ====\nA     one\n\nnot a table any more"
    assert convert(unclosed) == unclosed


GUIDE_PAGES = ["getting-started.md", "environment.md", "variants.md", "agents.md",
               "models/index.md"]
"""Pages whose Python blocks are complete programs, each run top to bottom in one namespace."""


def python_blocks(page: str) -> list[str]:
    """The page's ```python blocks, with ``--8<-- "FILE:SECTION"`` snippets filled in."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")

    def snippet(m: re.Match[str]) -> str:
        source = (ROOT / m.group(1)).read_text(encoding="utf-8")
        start, end = f"# --8<-- [start:{m.group(2)}]\n", f"# --8<-- [end:{m.group(2)}]"
        return source.split(start, 1)[1].split(end, 1)[0]

    return [re.sub(r'--8<-- "([^":]+):(\w+)"', snippet, block)
            for block in re.findall(r"```python\n(.*?)```", text, flags=re.S)]


@pytest.mark.parametrize("page", GUIDE_PAGES)
def test_the_code_on_the_guide_pages_runs(page, capsys):
    blocks = python_blocks(page)
    assert blocks, f"docs/{page} has no Python block"
    namespace: dict[str, object] = {"__name__": "docs_page"}
    for i, block in enumerate(blocks):
        exec(compile(block, f"docs/{page} block {i}", "exec"), namespace)
    capsys.readouterr()
