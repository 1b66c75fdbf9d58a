"""The architecture's layering, checked rather than hoped for (DESIGN.md habit 7)."""

from __future__ import annotations

import ast
from pathlib import Path

from console.games import names

ROOT = Path(__file__).resolve().parent.parent
# What a pure module (no I/O, no clock, no event loop) may not import.
IMPURE = {"asyncio", "socket", "serial", "os", "time", "threading", "selectors", "subprocess",
          "aiomqtt", "paho", "gpiozero", "sounddevice", "usb", "amqtt"}


def imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def top(names: set[str]) -> set[str]:
    return {name.split(".")[0] for name in names}


def test_the_rules_engine_and_the_protocol_do_no_io() -> None:
    for package in ("console/engine", "firmware_proto"):
        for path in (ROOT / package).rglob("*.py"):
            bad = top(imports(path)) & IMPURE
            assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_the_engine_imports_nothing_of_the_console_outside_the_engine() -> None:
    for path in (ROOT / "console" / "engine").rglob("*.py"):
        outside = {n for n in imports(path) if n.startswith("console.") and
                   not n.startswith("console.engine")}
        assert not outside, f"{path.relative_to(ROOT)} imports {sorted(outside)}"


def test_drivers_never_import_the_console() -> None:
    for path in (ROOT / "drivers").rglob("*.py"):
        assert "console" not in top(imports(path)), f"{path.relative_to(ROOT)} imports console"


def test_firmware_proto_uses_only_the_standard_library() -> None:
    import sys

    for path in (ROOT / "firmware_proto").rglob("*.py"):
        third_party = {n for n in top(imports(path))
                       if n not in sys.stdlib_module_names and n not in ("firmware_proto", "__future__")}
        assert not third_party, f"{path.relative_to(ROOT)} imports {sorted(third_party)}"


PROJECT = ("console", "drivers", "firmware_proto", "bench")


def project_modules() -> dict[str, Path]:
    """Every module of the project, by dotted name (a package by its __init__)."""
    found: dict[str, Path] = {}
    for package in PROJECT:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _type_checking_only(tree: ast.Module) -> set[ast.AST]:
    """The import nodes under `if TYPE_CHECKING:` (annotations only, never run)."""
    hidden: set[ast.AST] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            for inner in node.body:
                hidden |= set(ast.walk(inner))
    return hidden


def dependencies(path: Path, modules: dict[str, Path], *, type_only: bool = True) -> set[str]:
    """The project modules `path` imports: when it runs (at import time or in a function) and,
    unless `type_only` is False, for its annotations (under `if TYPE_CHECKING:`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    hidden = set() if type_only else _type_checking_only(tree)
    deps: set[str] = set()
    for node in ast.walk(tree):
        if node in hidden:
            continue
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        for name in names:
            while name and name not in modules:  # `from pkg import module` or a name in it
                name = name.rpartition(".")[0]
            if name:
                deps.add(name)
    return deps


def test_the_import_graph_has_no_cycles() -> None:
    """A module never needs, through any chain, a module that needs it, not even for its type
    annotations (`if TYPE_CHECKING:` imports count: a cycle there is a layering the code
    hides). Lazy registries load their entries by name with importlib, which is not an import."""
    modules = project_modules()
    graph = {name: dependencies(path, modules) - {name} for name, path in modules.items()}
    done: set[str] = set()

    def visit(name: str, chain: list[str]) -> None:
        if name in chain:
            cycle = [*chain[chain.index(name):], name]
            raise AssertionError("import cycle: " + " -> ".join(cycle))
        if name in done:
            return
        for dep in sorted(graph[name]):
            # A package's __init__ imported by its own submodule is how packages work.
            if not name.startswith(dep + "."):
                visit(dep, [*chain, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])


def test_no_module_imports_private_names_of_another() -> None:
    """`from x import _name`, and `obj._name` on anything but self/cls (a library's private
    attribute included): each module keeps its own insides to itself."""
    found: list[str] = []
    for path in project_modules().values():
        where = path.relative_to(ROOT)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                found += [f"{where}: from {node.module} import {a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
            elif (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                  and not node.attr.startswith("__")
                  and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
                found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    assert not found, "\n".join(found)


def test_the_engine_has_no_any_and_no_dict_events() -> None:
    """The rules engine's types say what everything is (issue 6): no `typing.Any`, and its
    events are classes (console/engine/events.py), never dicts."""
    for path in (ROOT / "console" / "engine").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
        names |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
        assert "Any" not in names, f"{path.relative_to(ROOT)} uses Any"
        assert "Emit" not in names, f"{path.relative_to(ROOT)} emits dict events"


# The layers every game shares, and what a game is (its engine package, its games package):
# every game of the registry, and the engine's parts that belong to a game (the top, the table's).
SHARED = ("console/shell", "console/sources", "console/config.py", "console/scenario.py",
          "console/wire.py", "console/playback.py", "console/texts.py")
ENGINE_PARTS = ("spin",)
GAMES = (*names(), *ENGINE_PARTS)
# A game built on another, declared: «Эрудит-квартет» plays its themes as «Своя игра» fights;
# the table reads the top.
COMPOSED = {("quartet", "svoya"), ("chgk", "spin")}


def game_modules(names: set[str]) -> set[str]:
    """The names among `names` that are a game's engine or a game's package."""
    return {n for n in names for g in GAMES
            if n == f"console.engine.{g}" or n.startswith((f"console.engine.{g}.", f"console.games.{g}"))}


def test_the_shared_layers_import_no_game() -> None:
    """Issue 17: the shell, the sources, config, the scenario format, the wire format and
    replay's machinery ask a game's kind (console/games/kind.py), never import a game's
    engine or games package, for running or for types: a new game is one folder."""
    modules = project_modules()
    found: list[str] = []
    for shared in SHARED:
        root = ROOT / shared
        for path in ([root] if root.suffix == ".py" else sorted(root.rglob("*.py"))):
            names = imports(path) | dependencies(path, modules)
            found += [f"{path.relative_to(ROOT)} imports {n}" for n in sorted(game_modules(names))]
    # The registry's interface is no game's either.
    for interface in ("console/games/__init__.py", "console/games/kind.py"):
        path = ROOT / interface
        found += [f"{interface} imports {n}" for n in sorted(game_modules(imports(path)))]
    assert not found, "\n".join(found)


def test_the_game_check_sees_an_import() -> None:
    """The check above is not vacuous: it names a game's engine and its games package, not
    the kernel or the registry."""
    assert game_modules({"console.engine.svoya.referee", "console.games.chgk.config",
                         "console.engine.model", "console.games", "console.games.kind",
                         "console.engine.spin"}) == {
        "console.engine.svoya.referee", "console.games.chgk.config", "console.engine.spin"}


def test_no_game_imports_another_but_as_declared() -> None:
    """Issue 30: what two games share lives in a shared engine or games module
    (console/engine/corrections.py, console/games/button_games.py), not in one of them; a game
    built on another says so in COMPOSED."""
    modules = project_modules()
    found: list[str] = []
    for game in GAMES:
        roots = (ROOT / "console" / "engine" / game, ROOT / "console" / "games" / game)
        own = [root for root in roots if root.exists()]
        for path in sorted(p for root in own for p in root.rglob("*.py")):
            for name in sorted(dependencies(path, modules)):
                others = {other for other in GAMES if other != game and game_modules({name}) and (
                    name == f"console.engine.{other}" or name.startswith(
                        (f"console.engine.{other}.", f"console.games.{other}")))}
                found += [f"{path.relative_to(ROOT)} imports {name}" for other in others
                          if (game, other) not in COMPOSED]
    assert not found, "\n".join(found)


def test_the_games_are_read_from_the_registry() -> None:
    """The checks above see every game the console can run, «Брейн-ринг» included."""
    assert {"svoya", "quartet", "chgk", "sports", "brainring"} <= set(GAMES)


# The console's layers, lowest first: a module may import its own layer and those below, never
# one above (issue 30). The sources' registry (console/sources/__init__.py) is the kernel's; its
# backends are a layer of their own.
LAYERS = (
    ("console.engine",),
    ("console.packs",),
    ("console.config", "console.mqtt_tls", "console.notices", "console.wire", "console.names",
     "console.state_people", "console.schemas", "console.games.kind", "console.sources",
     "console.sources.host"),
    ("console.games", "console.texts", "console.scenario", "console.playback"),
    ("console.sources.",),
    ("console.shell",),
    ("console.tools", "console.tournament", "console.season"),
    ("console.cli",),
)


def layer_of(name: str) -> int | None:
    """The index in LAYERS of the most specific prefix naming `name`."""
    best: tuple[int, int] | None = None
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            exact = prefix.endswith(".")
            if (name.startswith(prefix) if exact else name == prefix or name.startswith(prefix + ".")) and (
                    best is None or len(prefix) > best[1]):
                best = (index, len(prefix))
    return None if best is None else best[0]


def test_every_layer_points_one_way() -> None:
    modules = project_modules()
    found: list[str] = []
    for name, path in sorted(modules.items()):
        mine = layer_of(name)
        if mine is None:
            continue
        for dep in sorted(dependencies(path, modules) - {name}):
            theirs = layer_of(dep)
            if theirs is not None and theirs > mine:
                found.append(f"{name} (layer {mine}) imports {dep} (layer {theirs})")
    assert not found, "\n".join(found)


def test_the_layer_check_sees_an_upward_import() -> None:
    assert layer_of("console.config") == 2 and layer_of("console.sources") == 2
    assert layer_of("console.sources.mcu") == 4 and layer_of("console.shell.runtime") == 5
    assert layer_of("console.engine.svoya.referee") == 0 and layer_of("console.games.svoya.kind") == 3


# The shell stays a thin asyncio layer over parts that each do one job (issue 30's figures).
RUNTIME_MAX_LINES = 350
CONSOLE_MAX_ATTRIBUTES = 25
SHELL_FILE_MAX_LINES = 450


def console_attributes(tree: ast.Module) -> set[str]:
    """The attributes `Console.__init__` gives itself (``self.x = ...`` / ``self.x: T = ...``)."""
    (console,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Console"]
    found: set[str] = set()
    for node in ast.walk(console):
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])
        for target in targets:
            if not isinstance(target, ast.Attribute):
                continue
            if isinstance(target.value, ast.Name) and target.value.id == "self":
                found.add(target.attr)
    return found


def test_the_runtime_is_a_thin_shell() -> None:
    path = ROOT / "console" / "shell" / "runtime.py"
    assert len(path.read_text(encoding="utf-8").splitlines()) <= RUNTIME_MAX_LINES
    attributes = console_attributes(ast.parse(path.read_text(encoding="utf-8")))
    assert len(attributes) <= CONSOLE_MAX_ATTRIBUTES, sorted(attributes)
    for shell_file in (ROOT / "console" / "shell").glob("*.py"):
        lines = len(shell_file.read_text(encoding="utf-8").splitlines())
        assert lines <= SHELL_FILE_MAX_LINES, f"{shell_file.name}: {lines} lines"


def test_the_attribute_count_sees_every_assignment() -> None:
    tree = ast.parse("class Console:\n def __init__(self):\n  self.a = 1\n  self.b: int = 2\n"
                     " def later(self):\n  self.c = 3\n  other.d = 4\n")
    assert console_attributes(tree) == {"a", "b", "c"}


# What tests share lives in tests/support/ (issue 30), never in a test module another imports.
def modules_of_tests() -> dict[str, Path]:
    """Every test module (tests/test_*.py, and those in tests' folders), by dotted name."""
    return {".".join(path.relative_to(ROOT).with_suffix("").parts): path
            for path in sorted((ROOT / "tests").rglob("test_*.py"))}


def imported_tests(path: Path, tests: set[str]) -> set[str]:
    """The modules among `tests` that `path` imports, at its top or in a function: by name
    (`import tests.test_x`, or a name from it) or from their package (`from tests import test_x`)."""
    names = imports(path)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names & tests


def test_no_test_module_imports_another() -> None:
    modules = modules_of_tests()
    found = [f"{path.relative_to(ROOT)} imports {other}" for name, path in modules.items()
             for other in sorted(imported_tests(path, set(modules)) - {name})]
    assert not found, "\n".join(found)


def test_the_test_import_check_sees_an_import(tmp_path: Path) -> None:
    """The check above is not vacuous: it sees each way of naming a test module, in a function
    too, and not a helper module or a support module's names."""
    path = tmp_path / "test_a.py"
    test = "tests.test_"  # apart, so that grepping the tests for such imports finds none here
    path.write_text(f"from {test}b import helper\nimport {test}c\nfrom tests import test_d\n"
                    "from tests.support.clock import Clock\nfrom tests.cli_run import run\n\n"
                    f"def f() -> None:\n    from {test}e import other\n", encoding="utf-8")
    tests = {"tests.test_b", "tests.test_c", "tests.test_d", "tests.test_e", "tests.test_f"}
    assert imported_tests(path, tests) == {"tests.test_b", "tests.test_c", "tests.test_d", "tests.test_e"}
    assert {"tests.test_layering", "tests.hardware.test_button_box"} <= set(modules_of_tests())
