"""The house rules of the code base, checked on its source: one-way imports, no circles, no
reads of the engine's private state from outside it, no class reading another class's private
attributes (``self.`` included), no registry filled as a side effect of an import, and no
code outside ``training/dmc/`` importing the Deep Monte-Carlo room's modules (only the package,
``training.dmc``, whose ``__init__`` names what it offers).

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


ROOM_PACKAGES = ("training.dmc",)
"""Packages whose modules are their own business: code outside imports only the package."""
OUTSIDE_CODE = ("benchmarks", "examples")
"""Code beside the product that must keep to the rooms too (tests may look inside a room)."""


def _room_internal_imports(name: str, path: Path) -> list[str]:
    """Imports by ``name`` of a module inside a ``ROOM_PACKAGES`` package it is not part of."""
    return [f"{name} imports {target}" for target in sorted(_imports(name, path))
            for room in ROOM_PACKAGES
            if target.startswith(room + ".") and not name.startswith(room + ".")
            and name != room]


def _outside_modules() -> dict[str, Path]:
    """Every product module, and every script of ``OUTSIDE_CODE``, by dotted name."""
    out = dict(MODULES)
    for folder in OUTSIDE_CODE:
        for path in sorted((ROOT / folder).rglob("*.py")):
            out[".".join(path.relative_to(ROOT).with_suffix("").parts)] = path
    return out


@pytest.mark.parametrize("name", sorted(_outside_modules()))
def test_nothing_outside_a_room_package_imports_its_modules(name: str) -> None:
    assert not _room_internal_imports(name, _outside_modules()[name])


def test_the_room_import_finder_sees_one(tmp_path: Path) -> None:
    # Guard: a planted import of a DMC module from outside is found, at the top and inside a
    # function; the package itself, and the room's own modules, are not.
    planted = tmp_path / "planted.py"
    planted.write_text("from training.dmc.learner import DMCTrainer\n"
                       "def f():\n    from training.dmc import loss\n")
    assert _room_internal_imports("training.planted", planted) == [
        "training.planted imports training.dmc.learner",
        "training.planted imports training.dmc.loss"]
    fine = tmp_path / "fine.py"
    fine.write_text("from training.dmc import DMCTrainer, q_loss\n")
    assert _room_internal_imports("training.fine", fine) == []
    assert _room_internal_imports("training.dmc.learner", planted) == []


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


# ---------------------------------------------------------------- private attributes by class
# Names that third-party base classes define for their subclasses to use: PettingZoo's AEC
# bookkeeping (``_cumulative_rewards``, ``_has_reset`` of its order-enforcing wrapper ...) and
# stable-baselines3's ``VecEnv`` seeding (``seed()`` stores ``_seeds`` for the subclass's
# ``reset`` to use, as its own vector envs do). Using them is using those libraries as
# documented, not reaching into a class of this project.
INHERITED_PROTOCOL = {"_cumulative_rewards", "_accumulate_rewards", "_was_dead_step",
                      "_clear_rewards", "_deads_step_first", "_skip_agent_selection",
                      "_np_random", "_np_random_seed", "_has_reset", "_has_updated",
                      "_seeds", "_reset_seeds", "_get_indices", "_options", "_reset_options"}


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _targets(node: ast.AST) -> list[ast.expr]:
    """What an assignment statement writes to (nothing for any other node)."""
    if isinstance(node, ast.Assign):
        return node.targets
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        return [node.target]
    return []


def _owned(cls: ast.ClassDef) -> set[str]:
    """The private names a class defines: its slots, class-level names and ``self._x = ...``."""
    names: set[str] = set()
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name):
                    names.add(t.id)
                    if t.id == "__slots__" and node.value is not None:
                        names |= {e.value for e in ast.walk(node.value)
                                  if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    for node in ast.walk(cls):
        # ``object.__setattr__(self, "_x", ...)``: how a frozen dataclass sets its own slots.
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "__setattr__" and len(node.args) >= 2 \
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            names.add(node.args[1].value)
        for t in _targets(node):
            for e in ast.walk(t):
                if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) \
                        and e.value.id in ("self", "cls"):
                    names.add(e.attr)
    return {n for n in names if _is_private(n)}


def _classes(tree: ast.AST) -> list[ast.ClassDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]


def _project_private_names() -> dict[str, set[str]]:
    """Every private name some class of the product defines, with the classes defining it."""
    out: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        for cls in _classes(ast.parse(path.read_text(), filename=str(path))):
            for attr in _owned(cls):
                out.setdefault(attr, set()).add(f"{name}.{cls.name}")
    return out


def _foreign_private_reads(path: Path, owners: dict[str, set[str]]) -> list[str]:
    """Accesses in one file of a private attribute outside the class that defines it.

    ``self._x`` (or ``cls._x``) inside class ``C`` must be one of ``C``'s own names (not a base
    class's); ``other._x`` must stand inside a class that defines ``_x`` (a method building
    or comparing another instance of its own class); anywhere else, a name that a class of
    the product defines is that class's business only.
    """
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[str] = []

    def visit(node: ast.AST, cls: ast.ClassDef | None, own: set[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, child, _owned(child))
                continue
            if isinstance(child, ast.Attribute) and _is_private(child.attr) \
                    and child.attr not in INHERITED_PROTOCOL:
                base = child.value
                on_self = isinstance(base, ast.Name) and base.id in ("self", "cls")
                if on_self and cls is not None:
                    if child.attr not in own:
                        found.append(f"{path.name}:{child.lineno}: self.{child.attr} "
                                     f"(not defined by {cls.name})")
                elif child.attr in owners and child.attr not in own:
                    found.append(f"{path.name}:{child.lineno}: .{child.attr} (private to "
                                 f"{', '.join(sorted(owners[child.attr]))})")
            visit(child, cls, own)

    visit(tree, None, set())
    return found


OWNERS = _project_private_names()


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_class_reads_another_class_private_attributes(name: str) -> None:
    assert not _foreign_private_reads(MODULES[name], OWNERS)


def test_the_foreign_private_finder_sees_both_kinds(tmp_path: Path) -> None:
    # Guard: a subclass reading its base's slot through ``self``, and a function reading an
    # instance's private attribute, are both caught; a class reading its own is not.
    probe = tmp_path / "probe.py"
    probe.write_text(
        "class Base:\n"
        "    __slots__ = ('_hand',)\n"
        "    def own(self, other):\n"
        "        return self._hand, other._hand\n"
        "class Sub(Base):\n"
        "    def peek(self):\n"
        "        return self._hand\n"
        "def outside(game):\n"
        "    return game._hand\n")
    owners = {"_hand": {"probe.Base"}}
    assert _foreign_private_reads(probe, owners) == [
        "probe.py:7: self._hand (not defined by Sub)",
        "probe.py:9: ._hand (private to probe.Base)",
    ]


# ---------------------------------------------------------------- registries
_FILLING = {"register", "update", "append", "extend", "add", "setdefault", "insert"}


def _import_side_effects(path: Path) -> list[str]:
    """Module-level statements that write into a name imported from elsewhere.

    ``REGISTRY[2] = SomeGame`` or ``registry.register(...)`` at the top level of a
    module make what another module holds depend on which modules were imported; a registry
    is filled where it is defined.
    """
    tree = ast.parse(path.read_text(), filename=str(path))
    imported: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            imported |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported |= {a.asname or a.name for a in node.names}

    def root(e: ast.expr) -> str | None:
        while isinstance(e, (ast.Attribute, ast.Subscript)):
            e = e.value
        return e.id if isinstance(e, ast.Name) else None

    found = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for sub in ast.walk(node):
            for t in _targets(sub):
                if isinstance(t, (ast.Subscript, ast.Attribute)) and root(t) in imported:
                    found.append(f"{path.name}:{sub.lineno}: writes into {root(t)}")
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) \
                    and sub.func.attr in _FILLING and root(sub.func.value) in imported:
                found.append(f"{path.name}:{sub.lineno}: {root(sub.func.value)}."
                             f"{sub.func.attr}(...)")
    return found


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_registry_is_filled_by_an_import(name: str) -> None:
    assert not _import_side_effects(MODULES[name])


def test_the_registry_finder_sees_one(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("from engine import IMPLEMENTATIONS\nimport plugins\n"
                     "IMPLEMENTATIONS[2] = object\nplugins.REGISTRY.register('x')\n"
                     "LOCAL = {}\nLOCAL[1] = 2\n")
    assert _import_side_effects(probe) == ["probe.py:3: writes into IMPLEMENTATIONS",
                                           "probe.py:4: plugins.register(...)"]


def _benchmark_imports(path: Path) -> list[str]:
    """The ``benchmarks`` modules a file imports (every import statement, wherever it stands)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                 [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                 else [])
        found += [n for n in names if n.split(".")[0] == "benchmarks"]
    return found


@pytest.mark.parametrize("path", sorted((ROOT / "tests").rglob("*.py")),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_test_imports_the_benchmarks(path: Path) -> None:
    # What a test needs of a measurement lives in a room (training/diagnostics,
    # gongzhu_env/batch/differential.py); a benchmark is a command around it, and a test of
    # a benchmark runs that command.
    assert _benchmark_imports(path) == []


def test_the_benchmark_import_finder_sees_both_forms(tmp_path: Path) -> None:
    planted = tmp_path / "test_planted.py"
    planted.write_text("import benchmarks.bench_env\n"
                       "def f():\n    from benchmarks.report import save_rows\n"
                       "from training.diagnostics import latency\n")
    assert _benchmark_imports(planted) == ["benchmarks.bench_env", "benchmarks.report"]
