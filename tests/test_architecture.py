"""The house rules of the code base, checked on its source: one-way imports, no circles, no
reads of the engine's private state from outside it.

Every import counts, wherever it stands: at the top, inside a function, or under
``TYPE_CHECKING``. Rooms, lowest first: ``gongzhu_env`` -> ``agents`` -> ``training`` ->
``gongzhu_cli``; a room may import only rooms below it. ``docs/architecture.md`` explains why.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gongzhu_env.engine import Game

ROOT = Path(__file__).resolve().parents[1]
ROOMS = ("gongzhu_env", "agents", "training", "gongzhu_cli")
"""The packages in dependency order: each may import only those before it."""
HEAVY = ("torch", "stable_baselines3", "sb3_contrib")
"""Libraries the environment package must never import."""


def _modules() -> dict[str, Path]:
    """Every product module by dotted name (tests, benchmarks and notebooks are not product)."""
    out = {}
    for room in ROOMS:
        for path in sorted((ROOT / room).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The modules of this project (or of ``HEAVY``) that a module imports, by dotted name."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # ``from pkg import mod`` imports the submodule ``pkg.mod`` when there is one.
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                       for a in node.names]
        else:
            continue
        for target in targets:
            if target.split(".")[0] in ROOMS + HEAVY:
                found.add(target)
    return found


GRAPH = {name: {t for t in _imports(name, path) if t in MODULES or t.split(".")[0] in HEAVY}
         for name, path in MODULES.items()}


def test_rooms_import_only_rooms_below_them() -> None:
    wrong = []
    for name, targets in GRAPH.items():
        rank = ROOMS.index(name.split(".")[0])
        for target in targets:
            top = target.split(".")[0]
            if top in HEAVY:
                if rank == 0:
                    wrong.append(f"{name} imports {target}")
            elif ROOMS.index(top) > rank:
                wrong.append(f"{name} imports {target}, a room above it")
    assert not wrong, "\n".join(wrong)


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """Return one import circle of ``graph`` as a path of module names, or ``None``."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = finished
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_circles() -> None:
    # A package imports its own ``__init__`` implicitly; only module-to-module arrows count.
    graph = {n: {t for t in ts if t in MODULES and t != n} for n, ts in GRAPH.items()}
    circle = _cycle(graph)
    assert circle is None, "import circle: " + " -> ".join(circle or [])


def test_the_circle_finder_finds_a_circle() -> None:
    # Guard: the check above would see a circle if there were one.
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


PRIVATE = {s for s in Game.__slots__ if s.startswith("_")}


def _private_reads(path: Path) -> list[str]:
    """Accesses of a ``Game`` private slot name on anything but ``self`` in one file."""
    tree = ast.parse(path.read_text(), filename=str(path))
    return [f"{path.name}:{node.lineno}: .{node.attr}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr in PRIVATE
            and not (isinstance(node.value, ast.Name) and node.value.id == "self")]


@pytest.mark.parametrize("name", sorted(set(MODULES) - {"gongzhu_env.engine"}))
def test_nothing_outside_the_engine_reads_its_private_state(name: str) -> None:
    assert not _private_reads(MODULES[name])


def test_the_private_read_finder_sees_one(tmp_path: Path) -> None:
    # Guard: a module reading ``game._hand`` is caught; ``self._hand`` is its own business.
    probe = tmp_path / "probe.py"
    probe.write_text("def f(game, self):\n    return game._hand, self._hand\n")
    assert _private_reads(probe) == ["probe.py:2: ._hand"]
