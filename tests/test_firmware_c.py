"""The C protocol core of the button box firmware (firmware/proto) against the Python codec.

The vectors come from ``firmware_proto`` (tests/firmware_vectors.py); the C side is compiled
here with the system gcc and runs every check, so a change of either codec that the other
does not follow fails.  ``firmware/proto/vectors.txt`` (what ``make host-test`` runs) must
equal the freshly generated vectors.  The AVR image is built with avr-gcc when it is present.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.firmware_vectors import lines, protocol_md_resync_streams

FIRMWARE = Path(__file__).resolve().parent.parent / "firmware"
PROTO = FIRMWARE / "proto"
SOURCES = ["host_test.c", "cobs.c", "crc.c", "messages.c"]

needs_gcc = pytest.mark.skipif(
    shutil.which("gcc") is None, reason="gcc is not installed (Debian: apt-get install gcc)"
)
needs_avr_gcc = pytest.mark.skipif(
    shutil.which("avr-gcc") is None or shutil.which("make") is None,
    reason="avr-gcc or make is not installed (Debian: apt-get install gcc-avr avr-libc make)",
)


@pytest.fixture(scope="module")
def host_test(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed (Debian: apt-get install gcc)")
    exe = tmp_path_factory.mktemp("host") / "host_test"
    subprocess.run(
        ["gcc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-o", str(exe),
         *(str(PROTO / name) for name in SOURCES)],
        check=True,
    )
    return exe


def _run(exe: Path, vectors: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "vectors.txt"
    path.write_text("\n".join(vectors) + "\n", encoding="utf-8")
    return subprocess.run([str(exe), str(path)], capture_output=True, text=True, timeout=60)


def test_committed_vectors_are_the_generated_ones() -> None:
    committed = (PROTO / "vectors.txt").read_text(encoding="utf-8").splitlines()
    assert committed == lines(), (
        "firmware/proto/vectors.txt is stale: .venv/bin/python -m tests.firmware_vectors"
        " > firmware/proto/vectors.txt"
    )


@needs_gcc
def test_c_core_passes_the_python_codec_vectors(host_test: Path, tmp_path: Path) -> None:
    vectors = lines()
    result = _run(host_test, vectors, tmp_path)
    checks = sum(1 for line in vectors if not line.startswith("#"))
    assert result.returncode == 0, result.stdout[-4000:]
    assert result.stdout.strip().endswith(f"{checks} checks, 0 failures")
    # Every kind of rejection and every message type is exercised.
    text = "\n".join(vectors)
    for kind in ("OVERLONG", "COBS", "SHORT", "LONG", "CRC", "TYPE", "LENGTH", "UTF8", "VALUE"):
        assert f" {kind}" in text, kind
    for name in ("HELLO", "PRESS", "RELEASE", "HEARTBEAT", "PONG", "ANGLE", "ANGLES",
                 "HELLO_REQUEST", "LAMPS", "PING", "RESEND", "ANGLE_RATE"):
        assert f"encode {name} " in text, name


def test_the_c_receiver_is_checked_on_garbage_before_a_frame() -> None:
    """PROTOCOL.md 6.3 (garbage, then a frame sent with its leading delimiter) is among the
    C vectors, each stream giving one rejection and then the message, as in Python."""
    vectors = lines()
    streams = protocol_md_resync_streams()
    assert len(streams) >= 5
    for stream in streams[:-1]:  # the last row breaks the MUST of 2.4: the frame is lost
        line = next(v for v in vectors if v.startswith(f"stream {stream.hex()} = "))
        items = line.split(" = ", 1)[1].split(" ; ")
        assert len(items) == 2 and items[1].startswith("PRESS "), line


@needs_gcc
@pytest.mark.parametrize(
    ("kind", "old", "new"),
    [
        ("encode", " = 05010", " = 05011"),  # a HELLO frame that is not what the codec sends
        ("stream", " = CRC", " = TYPE"),  # a rejection of the wrong kind
        ("stream", " = PRESS ", " = RELEASE "),  # a decoded message of the wrong type
        ("crc", " 29b1", " 29b2"),  # the check value of "123456789"
        ("cobs", "cobs 00 ", "cobs 01 "),
    ],
)
def test_a_drift_of_either_side_fails(
    host_test: Path, tmp_path: Path, kind: str, old: str, new: str
) -> None:
    """The checker is not vacuous: one changed expectation is reported as a failure."""
    vectors = lines()
    index = next(i for i, line in enumerate(vectors) if line.startswith(kind) and old in line)
    vectors[index] = vectors[index].replace(old, new, 1)
    result = _run(host_test, vectors, tmp_path)
    assert result.returncode == 1
    assert f"FAIL line {index + 1} " in result.stdout
    assert " 0 failures" not in result.stdout


@needs_gcc
def test_make_host_test(tmp_path: Path) -> None:
    if shutil.which("make") is None:
        pytest.skip("make is not installed (Debian: apt-get install make)")
    result = subprocess.run(
        ["make", "-C", str(FIRMWARE), "host-test", f"BUILD={tmp_path}"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert " 0 failures" in result.stdout


def _copy_firmware(tmp_path: Path) -> Path:
    """A copy of firmware/ to build in, so the tests leave no build output in the tree."""
    dest = tmp_path / "firmware"
    shutil.copytree(FIRMWARE, dest, ignore=shutil.ignore_patterns("build", "*.elf", "*.hex"))
    return dest


@needs_avr_gcc
@pytest.mark.parametrize("angle", ["0", "1"])
def test_make_builds_the_box_hex(tmp_path: Path, angle: str) -> None:
    """`make` in firmware/ builds box/box.hex for the ATmega328P (with and without the
    angle sensor), warnings as errors, small enough for the Nano's flash and SRAM."""
    firmware = _copy_firmware(tmp_path)
    result = subprocess.run(
        ["make", "-C", str(firmware), f"ANGLE={angle}"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    hex_lines = (firmware / "box" / "box.hex").read_text(encoding="ascii").split()
    assert all(line.startswith(":") for line in hex_lines)
    assert hex_lines[-1] == ":00000001FF"  # the Intel HEX end-of-file record
    size = subprocess.run(
        ["avr-size", str(firmware / "box" / "box.elf")], capture_output=True, text=True, check=True
    ).stdout.split("\n")[1].split()
    text, data, bss = (int(x) for x in size[:3])
    assert text + data <= 30 * 1024  # 32 KiB flash less the Nano's 2 KiB bootloader
    assert data + bss <= 1024  # half the SRAM, the rest is stack
