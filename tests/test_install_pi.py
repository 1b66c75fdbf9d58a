"""scripts/install-pi.sh in a clean Debian 12 root made with debootstrap (issue 8).

The root is built from Debian's own packages (`debootstrap --variant=minbase bookworm`, with
python3, python3-venv, ca-certificates, systemd and procps, as on Raspberry Pi OS Lite), the
checkout is copied in and the script runs in it as root, twice. Checked: the user and its
groups (plain Debian has no gpio group: the script makes it), the venv's working
`chgk-console`, the config (the broker's accounts written in, readable by root and the chgk
group only), the mosquitto lockdown files, the udev rules, the unit enabled and passing
`systemd-analyze verify`, and a second run that changes nothing it must not (the config, the
passwords). Then the installed console runs as the chgk user against the installed, locked-down
mosquitto and says it is online.

It runs twice: in a root of this machine's architecture, and in an arm64 one, the Pi's, under
qemu-user-static (issue 20: every wheel, Debian package and path of the install works on the
Pi's architecture; its timings under emulation are no figure). It takes 2-4 minutes natively
and about 20-30 emulated (downloads included), so it runs only with `pytest --install` (CI
runs it after the suite: .ci/run); without root, debootstrap, the emulation or the Debian
mirror it is skipped with the reason.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MIRROR = "http://deb.debian.org/debian"
PACKAGES = "python3,python3-venv,ca-certificates,systemd,procps"
# debootstrap and two installs: minutes, not the suite's 180 s; under qemu (arm64) several times that.
pytestmark = pytest.mark.timeout(4800)
# The Pi's architecture, emulated: qemu-user-static registered with binfmt_misc runs its
# binaries in the root as if natively (.ci/run sets it up: scripts/lib.sh, arm64_emulation).
ARM64_EMULATOR = Path("/proc/sys/fs/binfmt_misc/qemu-aarch64")
SLOWER = {"amd64": 1, "arm64": 6}  # how much longer each step may take, emulated
ARCH_OF: dict[Path, str] = {}  # each root the fixture made, by its architecture


def run(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, check=False, text=True, capture_output=True, **kw)  # type: ignore[call-overload, no-any-return]


@pytest.fixture(scope="module", params=["amd64", "arm64"])
def debian(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh Debian 12 root of this machine's architecture (amd64) and of the Pi's (arm64,
    under qemu), with /proc and /dev mounted; unmounted and removed afterwards."""
    arch = request.param
    if not request.config.getoption("--install"):
        pytest.skip("the install test builds a Debian 12 root with debootstrap (minutes): run with --install")
    if os.geteuid() != 0:
        pytest.skip("the install test needs root (debootstrap, chroot, mount)")
    if shutil.which("debootstrap") is None:
        pytest.skip("debootstrap is not installed (apt-get install debootstrap; .ci/run does)")
    if arch == "arm64" and not ARM64_EMULATOR.exists():
        pytest.skip("no arm64 emulation here (apt-get install qemu-user-static binfmt-support, binfmt_misc "
                    "mounted; .ci/run does: scripts/lib.sh arm64_emulation)")
    root = tmp_path_factory.mktemp(f"debian-{arch}") / "root"
    ARCH_OF[root] = arch
    made = run(["debootstrap", f"--arch={arch}", "--variant=minbase", f"--include={PACKAGES}", "bookworm",
                str(root), MIRROR], timeout=900 * SLOWER[arch])
    if made.returncode != 0:
        pytest.skip(f"debootstrap could not make a Debian 12 root here: {made.stderr.strip()[-400:]}")
    mounts = [root / "proc", root / "dev"]
    assert run(["mount", "-t", "proc", "proc", str(mounts[0])]).returncode == 0
    assert run(["mount", "--bind", "/dev", str(mounts[1])]).returncode == 0
    try:
        # The root reaches the package registries as this machine does: same resolver and
        # the same trusted certificates (a registry proxy's CA, where there is one).
        shutil.copy("/etc/resolv.conf", root / "etc/resolv.conf")
        shutil.copy("/etc/ssl/certs/ca-certificates.crt", root / "etc/ssl/certs/ca-certificates.crt")
        copy_checkout(root / "root/src")
        yield root
    finally:
        for mount in reversed(mounts):
            run(["umount", "--lazy", str(mount)])


def copy_checkout(dest: Path) -> None:
    """The checkout as a user has it after `git clone` (no venv, no caches)."""
    skip = {".git", ".venv", ".mypy_cache", ".ruff_cache", ".pytest_cache", "__pycache__"}
    dest.mkdir(parents=True)
    archive = dest.parent / "src.tar"
    with tarfile.open(archive, "w") as tar:
        tar.add(ROOT, arcname=".", filter=lambda info: None if set(Path(info.name).parts) & skip
                or info.name.endswith(".egg-info") else info)
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="tar")
    archive.unlink()


def chroot(root: Path, script: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """`script` run in the root, given `timeout` seconds natively (longer for an emulated one)."""
    return run(["chroot", str(root), "bash", "-c", script], timeout=timeout * SLOWER[ARCH_OF[root]])


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def test_install_script_in_a_clean_debian_12(debian: Path) -> None:
    first = chroot(debian, "bash /root/src/scripts/install-pi.sh --no-start")
    assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-3000:]
    assert "systemd is not running here: enabled, not started" in first.stdout

    groups = chroot(debian, "id -nG chgk").stdout.split()
    assert set(groups) >= {"gpio", "input", "dialout", "audio", "plugdev"}
    assert chroot(debian, "/opt/chgk-console/.venv/bin/chgk-console --help").returncode == 0

    etc = debian / "etc/chgk-console"
    config = (etc / "console.toml").read_text(encoding="utf-8")
    assert 'username = "console"' in config and 'mqtt_username = "display"' in config
    assert oct((etc / "console.toml").stat().st_mode & 0o777) == "0o640"
    assert oct((etc / "accounts.toml").stat().st_mode & 0o777) == "0o600"
    assert (etc / "packs" / "club-evening.toml").is_file()  # the tablet's list is not empty
    for path in ("etc/mosquitto/conf.d/chgk-console.conf", "etc/mosquitto/chgk-console.acl",
                 "etc/mosquitto/chgk-console.passwd", "etc/udev/rules.d/60-chgk-console.rules",
                 "etc/systemd/system/multi-user.target.wants/chgk-console.service"):
        assert chroot(debian, f"test -e /{path}").returncode == 0, path  # links are absolute in there
    # avahi names the console on the network: its board and the host's screen, and the broker.
    avahi = (debian / "etc/avahi/services/chgk-console.service").read_text(encoding="utf-8")
    assert "<name>chgk-console table1</name>" in avahi
    assert "<type>_http._tcp</type>\n    <port>8080</port>" in avahi
    assert "<type>_mqtt._tcp</type>\n    <port>1883</port>" in avahi
    verify = chroot(debian, "systemd-analyze verify /etc/systemd/system/chgk-console.service")
    assert verify.returncode == 0, verify.stdout + verify.stderr

    kept_files = ("etc/chgk-console/console.toml", "etc/mosquitto/chgk-console.passwd")
    kept = {p: digest(debian / p) for p in kept_files}
    again = chroot(debian, "bash /root/src/scripts/install-pi.sh --no-start")
    assert again.returncode == 0, again.stdout[-2000:] + again.stderr[-3000:]
    assert {p: digest(debian / p) for p in kept} == kept, "a second run rewrote the config or the passwords"

    if not (port_free(1883) and port_free(9001) and port_free(8080)):
        pytest.skip("ports 1883/9001/8080 are taken on this machine: the installed broker cannot start")
    # The installed console, as the unit runs it (user chgk), against the installed broker.
    online = chroot(debian, """
        mkdir -p /run/mosquitto /var/log/mosquitto  # systemd's RuntimeDirectory, not here
        chown mosquitto /run/mosquitto /var/log/mosquitto
        mosquitto -c /etc/mosquitto/mosquitto.conf > /tmp/mosquitto.out 2>&1 &
        broker=$!
        host_pass=$(sed -n 's/^# The host.s tablet: user host, password //p' /etc/chgk-console/accounts.toml)
        for try in $(seq 240); do  # until the broker takes a login (seconds, emulated)
          mosquitto_pub -h 127.0.0.1 -u host -P "$host_pass" -t chgk/table1/probe -n 2>/dev/null && break
          sleep 0.5
        done
        cd /tmp
        setpriv --reuid=chgk --regid=chgk --init-groups \
          /opt/chgk-console/.venv/bin/chgk-console run --config /etc/chgk-console/console.toml \
          > /tmp/console.out 2>&1 &
        console=$!  # setpriv execs the console: this is its pid (a `cd && ...` job would not be)
        mosquitto_sub -h 127.0.0.1 -u host -P "$host_pass" -t chgk/table1/status -C 1 -W 240
        got=$?
        kill $console $broker; wait
        [ $got -eq 0 ] || { cat /tmp/console.out /tmp/mosquitto.out; exit 1; }
    """, timeout=120)
    assert online.returncode == 0, online.stdout[-2000:] + online.stderr[-3000:]
    assert '"state":"online"' in online.stdout.replace(" ", ""), online.stdout
