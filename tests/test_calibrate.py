"""`chgk-console calibrate` (console.tools.calibrate) on real parts.

A SimulatedMcu on a pty streams the readings of a SimTop (200 Hz, ±3 LSB noise, a known
sensor offset and direction) as ANGLE frames; the real McuLink reads them; the host is a
pipe on stdin, pressing Enter only after the prompt it answers has appeared on stdout, and
turning the simulated arrow in between, as a person at the table would.
"""

from __future__ import annotations

import asyncio
import io
import os
import re
import time
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from console.engine.spin.sectors import Calibration
from console.games import load_config
from console.games.chgk.config import TableSection
from console.tools.calibrate import (
    CLOCKWISE_WORDS,
    KEY_COMMENTS,
    PROMPT_TURN,
    PROMPT_ZERO,
    StoreError,
    main_calibrate,
    run_calibration,
    set_table_keys,
    store_calibration,
)
from drivers.sim_mcu import SimulatedMcu
from drivers.sim_top import LiveTopFeed, SimTop

ROOT = Path(__file__).resolve().parent.parent
S = 1_000_000_000


def config_text(clockwise: bool = True) -> str:
    """A table config whose [table] holds both keys, with comments, odd spacing and a
    multi-line array around them."""
    return f"""\
# A «Что? Где? Когда?» table for the calibration tests.
[console]
node = "t1"  # the MQTT node
journal = ""

[game]
kind = "chgk"

[table]
rules = "tto"
# Sector widths, clockwise from sector 1: the lines of this array are not keys.
widths_deg = [
    30, 30, 30, 30, 30, 30,
    30, 30, 30, 30, 30, 30,
]
# Sensor angle at the boundary before sector 1.
zero_offset_deg = 0.0  # set by chgk-console calibrate
clockwise_increases   =   {"true" if clockwise else "false"}
boundary_margin_deg = 2.0

# The MCU that reads the top.
[sources.table]
kind = "simulated_mcu"
pads = 1

[mqtt]
host = ""
"""


def circular_gap(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


@dataclass
class Table:
    top: SimTop
    mcu: SimulatedMcu
    feed: LiveTopFeed

    def turn(self, delta_deg: float, duration_s: float = 0.1) -> float:
        """Turn the arrow by hand (clockwise positive); returns when it rests (monotonic s)."""
        return self.top.nudge(time.monotonic_ns(), delta_deg, duration_s) / S

    def fault(self, status: int, seconds: float = 5.0) -> None:
        now = time.monotonic_ns()
        self.top.fault(now, now + int(seconds * S), status)


@contextmanager
def simulated_table(offset_deg: float, clockwise: bool, *, noise_lsb: float = 3.0,
                    start_deg: float = 0.0) -> Iterator[Table]:
    """A top (arrow at ``start_deg``) on a sensor mounted at ``offset_deg`` / ``clockwise``,
    streamed at 200 Hz through a simulated MCU."""
    top = SimTop(seed=7, rate_hz=200.0, noise_lsb=noise_lsb, start_deg=start_deg,
                 sensor_offset_deg=offset_deg, clockwise_increases=clockwise)
    with SimulatedMcu(pads=1) as mcu, LiveTopFeed(top, mcu) as feed:
        yield Table(top, mcu, feed)


class Host:
    """The host at the console: reads stdout, presses Enter on a pipe."""

    def __init__(self) -> None:
        read_fd, self._write_fd = os.pipe()
        self.stdin = os.fdopen(read_fd, "r", encoding="utf-8")
        self.stdout = io.StringIO()

    @property
    def said(self) -> str:
        return self.stdout.getvalue()

    async def wait_for(self, text: str, run: asyncio.Task[int], within: float = 5.0) -> None:
        async with asyncio.timeout(within):
            while text not in self.said:
                if run.done():
                    pytest.fail(f"calibration ended (status {run.result()}) before {text!r}:\n{self.said}")
                await asyncio.sleep(0.01)

    def enter(self) -> None:
        os.write(self._write_fd, b"\n")

    def close(self) -> None:
        os.close(self._write_fd)
        self.stdin.close()


@pytest.fixture
def host() -> Iterator[Host]:
    h = Host()
    try:
        yield h
    finally:
        h.close()


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "console.toml"
    path.write_text(config_text(), encoding="utf-8")
    return path


async def ritual(path: Path, table: Table, host: Host, *, turn_deg: float | None,
                 before_turn: Callable[[], None] = lambda: None) -> int:
    """Run the calibration as a host does: (arrow on the boundary) Enter, turn, Enter."""
    run = asyncio.create_task(run_calibration(str(path), host.stdin, host.stdout, port=table.mcu.port))
    await host.wait_for(PROMPT_ZERO, run)
    host.enter()
    await host.wait_for(PROMPT_TURN, run)
    before_turn()
    if turn_deg is not None:
        rests_at = table.turn(turn_deg)
        await asyncio.sleep(max(0.0, rests_at - time.monotonic()) + 0.05)
    host.enter()
    return await asyncio.wait_for(run, 10.0)


def text_of(path: Path | str) -> str:
    """A file's text (a sync helper: the async tests read files only after the run)."""
    return Path(path).read_text(encoding="utf-8")


def assert_untouched(path: Path, original: bytes) -> None:
    assert path.read_bytes() == original
    assert not Path(f"{path}.bak").exists()


# -- the whole ritual ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("offset_deg", "clockwise"),
    [(359.9, True), (123.4, False)],  # 359.9: the readings straddle 4095/0
    ids=["clockwise-across-zero", "counterclockwise"],
)
async def test_finds_zero_and_direction_and_rewrites_only_those_two_lines(
    tmp_path: Path, host: Host, offset_deg: float, clockwise: bool
) -> None:
    path = tmp_path / "console.toml"
    original = config_text(clockwise=not clockwise)  # so that both lines must change
    path.write_text(original, encoding="utf-8")
    # The arrow starts elsewhere and is put on the boundary before sector 1 (table angle 0).
    with simulated_table(offset_deg, clockwise, start_deg=250.0) as table:
        await asyncio.sleep(table.turn(110.0) - time.monotonic() + 0.05)
        status = await ritual(path, table, host, turn_deg=7.5)

    assert status == 0, host.said
    before, after = original.splitlines(keepends=True), text_of(path).splitlines(keepends=True)
    changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
    zero_line = before.index("zero_offset_deg = 0.0  # set by chgk-console calibrate\n")
    assert changed == [zero_line, zero_line + 1]
    written = re.fullmatch(r"zero_offset_deg = (\d+\.\d\d)  # set by chgk-console calibrate\n",
                           after[zero_line])
    assert written is not None, after[zero_line]
    assert circular_gap(float(written[1]), offset_deg) < 0.3
    assert after[zero_line + 1] == f"clockwise_increases   =   {'true' if clockwise else 'false'}\n"

    assert text_of(f"{path}.bak") == original
    table_section = load_config(path).section(TableSection)
    assert table_section.zero_offset_deg == float(written[1])
    assert table_section.clockwise_increases is clockwise
    assert CLOCKWISE_WORDS[clockwise] in host.said
    assert f"Записано в {path}" in host.said


async def test_a_config_without_table_section_gets_one_appended(tmp_path: Path, host: Host) -> None:
    """The shipped config (a «Своя игра» one: no [table]); --port points at the simulated MCU."""
    path = tmp_path / "console.toml"
    original = text_of(ROOT / "config" / "console.toml")
    path.write_text(original, encoding="utf-8")
    with simulated_table(42.0, True) as table:
        status = await ritual(path, table, host, turn_deg=6.0)

    assert status == 0, host.said
    text = text_of(path)
    assert text.startswith(original)
    added = text[len(original):]
    match = re.fullmatch(
        r"\n\[table\]\n# [^\n]*\nzero_offset_deg = (\d+\.\d\d)\n# [^\n]*\nclockwise_increases = true\n", added
    )
    assert match is not None, added
    assert circular_gap(float(match[1]), 42.0) < 0.3
    config = load_config(path)
    section = config.section(TableSection)
    assert section.zero_offset_deg == float(match[1]) and section.clockwise_increases
    assert config.players[0].name == "Игрок 1"  # the rest still reads as before


async def test_a_clock_resync_of_the_mcu_is_not_a_dropped_link(config_file: Path, host: Host) -> None:
    """The flake of issue 30, at its cause: beside a busy second console the link re-seeded the
    box's clock (status «resyncing»; its own lateness taken for the box's, fixed in the link)
    and calibration took any status after «connected» for a dropped cable, refusing with
    «Связь с МК прерывалась». A re-seed loses no reading: the calibration goes on. (Here the
    box's timer really jumps ahead, which the link must re-seed for.)"""
    with simulated_table(42.0, True) as table:
        status = await ritual(config_file, table, host, turn_deg=6.0,
                              before_turn=lambda: table.mcu.step_timer(10_000_000))
    assert status == 0, host.said
    assert "прерывалась" not in host.said
    section = load_config(config_file).section(TableSection)
    assert circular_gap(section.zero_offset_deg, 42.0) < 0.3


# -- refusals -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "words"),
    [(0b000, "датчик не видит магнит"), (0b011, "поле магнита слишком слабое")],
    ids=["no-magnet", "too-weak"],
)
async def test_magnet_fault_during_the_reading_is_refused(
    config_file: Path, host: Host, status: int, words: str
) -> None:
    original = config_text().encode()
    with simulated_table(10.0, True) as table:
        run = asyncio.create_task(
            run_calibration(str(config_file), host.stdin, host.stdout, port=table.mcu.port)
        )
        await host.wait_for(PROMPT_ZERO, run)
        table.fault(status)
        host.enter()
        assert await asyncio.wait_for(run, 5.0) == 1
    assert words in host.said and "Проверьте магнит" in host.said
    assert PROMPT_TURN not in host.said  # refused at once, not after a pointless second step
    assert "Конфигурация не изменена" in host.said
    assert_untouched(config_file, original)


async def test_no_movement_is_refused(config_file: Path, host: Host) -> None:
    original = config_text().encode()
    with simulated_table(10.0, True) as table:
        status = await ritual(config_file, table, host, turn_deg=None)
    assert status == 1
    assert "Стрелка сдвинулась всего на 0." in host.said
    assert_untouched(config_file, original)


async def test_a_turn_of_more_than_half_a_turn_is_refused_not_read_backwards(
    config_file: Path, host: Host
) -> None:
    """200° clockwise ends where 160° counterclockwise would: only the path tells them apart."""
    original = config_text().encode()
    with simulated_table(10.0, True) as table:
        status = await ritual(config_file, table, host, turn_deg=200.0)
    assert status == 1
    assert "Стрелка повернулась на 200°" in host.said
    assert_untouched(config_file, original)


async def test_noisy_readings_are_refused(config_file: Path, host: Host) -> None:
    original = config_text().encode()
    with simulated_table(10.0, True, noise_lsb=40.0) as table:  # ±3.5°: a loose magnet
        run = asyncio.create_task(
            run_calibration(str(config_file), host.stdin, host.stdout, port=table.mcu.port)
        )
        await host.wait_for(PROMPT_ZERO, run)
        host.enter()
        assert await asyncio.wait_for(run, 5.0) == 1
    assert "скачут больше чем на ±1°" in host.said
    assert_untouched(config_file, original)


@pytest.mark.parametrize("typed", ["", "\n"], ids=["eof-at-step-1", "eof-at-step-2"])
def test_end_of_input_at_a_prompt_aborts(config_file: Path, typed: str) -> None:
    """Piped stdin (the synchronous entry point, its own event loop)."""
    original = config_text().encode()
    out = io.StringIO()
    with simulated_table(10.0, True) as table:
        status = main_calibrate(str(config_file), io.StringIO(typed), out, port=table.mcu.port)
    assert status == 1
    assert "Ввод закончился" in out.getvalue() and "калибровка прервана" in out.getvalue()
    assert (PROMPT_TURN in out.getvalue()) == bool(typed)
    assert_untouched(config_file, original)


# -- configuration and link errors --------------------------------------------------------------------


GPIO = '[sources.pads]\nkind = "gpio"\npins = [5]\npin_factory = "mock"\n'
SERIAL = '[sources.{name}]\nkind = "serial_mcu"\nport = "/dev/null-{name}"\n'


@pytest.mark.parametrize(
    ("sources", "angle_source", "key", "words"),
    [
        # Buttons on GPIO are no source at the table: the config itself is refused.
        (GPIO, "", "sources.pads.kind", "a gpio source does not play in game.kind = 'chgk'"),
        # The config itself names the problem (console/games/chgk/kind.py angle_source).
        (SERIAL.format(name="a") + SERIAL.format(name="b"), "", "table.angle_source",
         "sources a, b can all read the top"),
        (SERIAL.format(name="a"), "b", "table.angle_source", "'b' is not a source that reads the top"),
        (GPIO, "pads", "sources.pads.kind", "a gpio source does not play in game.kind = 'chgk'"),
        ('[sources.sim]\nkind = "simulated_mcu"\n', "", "sources.sim", "укажите порт в --port"),
    ],
    ids=["none", "several", "missing", "gpio", "simulated-without-port"],
)
def test_no_usable_angle_source_names_the_file_and_key(
    tmp_path: Path, sources: str, angle_source: str, key: str, words: str
) -> None:
    path = tmp_path / "console.toml"
    path.write_text(f'[game]\nkind = "chgk"\n\n[table]\nangle_source = "{angle_source}"\n\n{sources}',
                    encoding="utf-8")
    original = path.read_bytes()
    out = io.StringIO()
    assert main_calibrate(str(path), io.StringIO("\n\n"), out) == 1
    assert f"{path}: {key}: " in out.getvalue() and words in out.getvalue()
    assert_untouched(path, original)


async def test_no_mcu_on_the_port_fails_after_the_timeout(config_file: Path, host: Host) -> None:
    original = config_text().encode()
    port = str(config_file.parent / "ttyNOPE")
    status = await run_calibration(str(config_file), host.stdin, host.stdout, port=port,
                                   connect_timeout=0.5)
    assert status == 1
    assert f"Нет связи с МК на порту {port} за 0.5 с" in host.said
    assert PROMPT_ZERO not in host.said
    assert_untouched(config_file, original)


# -- editing the file (pure) -------------------------------------------------------------------------


def test_editing_keeps_comments_crlf_and_ignores_lookalikes_in_strings_and_arrays() -> None:
    text = (
        '[console]\r\n'
        'journal = """\r\n'  # a multi-line string whose lines look like a [table] section
        '[table]\r\n'
        'zero_offset_deg = 5\r\n'
        '"""\r\n'
        '[table]  # the real one\r\n'
        'rules = "tto"\r\n'
        'blitz = [\r\n'
        '  3, # zero_offset_deg = 7\r\n'
        ']\r\n'
        '"zero_offset_deg"\t=  0.0\t# keep me\r\n'
        '\r\n'
        '[sources.a]\r\n'
        'clockwise_increases = true\r\n'
    )
    edited = set_table_keys(text, {"zero_offset_deg": "12.34", "clockwise_increases": "false"})
    assert edited == text.replace(
        '"zero_offset_deg"\t=  0.0\t# keep me\r\n',
        '"zero_offset_deg"\t=  12.34\t# keep me\r\n'
        f"# {KEY_COMMENTS['clockwise_increases']}\r\nclockwise_increases = false\r\n",
    )
    data = tomllib.loads(edited)
    assert data["table"]["zero_offset_deg"] == 12.34 and data["table"]["clockwise_increases"] is False
    assert data["sources"]["a"]["clockwise_increases"] is True  # another section's key of that name
    assert "zero_offset_deg = 5" in data["console"]["journal"]


def test_missing_keys_go_after_the_last_key_of_the_section() -> None:
    """Not after the comment that introduces the next section."""
    text = '[table]\nrules = "tto"\nwidths_deg = [\n  180, 180,\n]\n\n# The MCU.\n[sources.a]\nkind = "x"'
    edited = set_table_keys(text, {"zero_offset_deg": "1.50", "clockwise_increases": "true"})
    head, tail = text.split("\n\n# The MCU.")
    assert edited.startswith(head + "\n# ")
    # tomlkit adds a blank line after a rebuilt table's closing comment (cosmetic)
    assert edited.endswith("\nclockwise_increases = true\n\n# The MCU.\n" + tail + "\n")
    assert tomllib.loads(edited)["table"] == {
        "rules": "tto", "widths_deg": [180, 180], "zero_offset_deg": 1.5, "clockwise_increases": True,
    }
    no_newline = set_table_keys('a = 1', {"zero_offset_deg": "0.00"})
    assert no_newline.startswith("a = 1\n\n[table]\n# ") and no_newline.endswith("\nzero_offset_deg = 0.00\n")


def test_an_inline_table_gets_the_keys_inline(tmp_path: Path) -> None:
    """tomlkit edits an inline ``table = {...}`` in place (the old lexer had to refuse it)."""
    path = tmp_path / "console.toml"
    rest = '[game]\nkind = "chgk"\n[sources.a]\nkind = "simulated_mcu"\n'
    path.write_text('table = { rules = "tto" }\n' + rest, encoding="utf-8")
    store_calibration(str(path), Calibration(10.0, True))
    text = path.read_text(encoding="utf-8")
    first, after = text.split("\n", 1)
    assert first.startswith("table = {") and after == rest
    assert tomllib.loads(text)["table"] == {
        "rules": "tto", "zero_offset_deg": 10.0, "clockwise_increases": True}


def test_a_table_that_is_not_a_table_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "console.toml"
    path.write_text('table = 5\n[game]\nkind = "chgk"\n[sources.a]\nkind = "simulated_mcu"\n',
                    encoding="utf-8")
    original = path.read_bytes()
    with pytest.raises(StoreError,
                       match=r"в таблицу table zero_offset_deg = 10\.00 и clockwise_increases = true"):
        store_calibration(str(path), Calibration(10.0, True))
    assert_untouched(path, original)


def test_a_symlinked_config_stays_a_symlink_and_keeps_its_mode(tmp_path: Path) -> None:
    real = tmp_path / "real.toml"
    real.write_text(config_text(), encoding="utf-8")
    real.chmod(0o640)
    link = tmp_path / "console.toml"
    link.symlink_to(real)
    stored = store_calibration(str(link), Calibration(359.999, False))
    assert link.is_symlink() and stored.path == str(real) and stored.backup == f"{real}.bak"
    assert (stored.zero_offset_deg, stored.clockwise_increases) == (0.0, False)  # 359.999 rounds to 0
    assert real.stat().st_mode & 0o777 == 0o640
    assert Path(stored.backup).read_text(encoding="utf-8") == config_text()
    assert "zero_offset_deg = 0.00  # set by" in real.read_text(encoding="utf-8")
