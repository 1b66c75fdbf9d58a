"""The architecture's layering, checked rather than hoped for (DESIGN.md habit 7)."""

from __future__ import annotations

import ast
from pathlib import Path

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
        for path in (ROOT / package).glob("*.py"):
            bad = top(imports(path)) & IMPURE
            assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_the_engine_imports_nothing_of_the_console_outside_the_engine() -> None:
    for path in (ROOT / "console" / "engine").glob("*.py"):
        outside = {n for n in imports(path) if n.startswith("console.") and
                   not n.startswith("console.engine")}
        assert not outside, f"{path.relative_to(ROOT)} imports {sorted(outside)}"


def test_drivers_never_import_the_console() -> None:
    for path in (ROOT / "drivers").glob("*.py"):
        assert "console" not in top(imports(path)), f"{path.relative_to(ROOT)} imports console"


def test_firmware_proto_uses_only_the_standard_library() -> None:
    import sys

    for path in (ROOT / "firmware_proto").glob("*.py"):
        third_party = {n for n in top(imports(path))
                       if n not in sys.stdlib_module_names and n not in ("firmware_proto", "__future__")}
        assert not third_party, f"{path.relative_to(ROOT)} imports {sorted(third_party)}"
