"""TLS to the broker (`[mqtt] tls = true`, docs/broker.md): real certificates, a real mosquitto.

A CA, a broker certificate for 127.0.0.1/localhost, a client certificate, a second CA and a
certificate for another host name are made once per module with the `openssl` command; each
test starts mosquitto with a TLS listener on a free loopback port. Then: the console's events
and state reach a subscriber over TLS and its host commands are obeyed; `chgk-console run`
takes relative certificate paths from its config; a wrong CA or a wrong host name is refused
with an error naming the certificate problem while the link retries; a burst of commands all
arrive, from mosquitto and from a peer that packs them into one TLS record (read from the SSL
object's buffer, where the socket's readiness cannot see them); the handshake never holds the
event loop; check-config names a missing or broken certificate file's key.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import json
import logging
import shutil
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiomqtt
import pytest

from console.config import ConfigError
from console.games import config_from_dict
from console.mqtt_tls import TlsSettings, client_context
from console.shell.display_server import DisplayServer
from console.shell.mqtt_link import MqttLink
from console.shell.mqtt_wire import Topics
from console.shell.runtime import Console
from console.sources.mcu import add_mcu
from drivers.sim_mcu import SimulatedMcu
from tests.browser import Browser
from tests.conftest import daemon_config, free_port, until
from tests.daemon_process import daemon_process
from tests.support.lockdown import (  # noqa: F401  (pytest finds fixtures by name)
    ACL,
    locked_config,
    make_passwords,
    wait_listening,
    workdir,
)
from tests.tls_pki import Pki, make_pki

ROOT = Path(__file__).resolve().parent.parent
COMMAND = "chgk/t1/host/command"


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    if shutil.which("openssl") is None:
        pytest.fail("openssl is not installed (apt-get install openssl)")
    return make_pki(tmp_path_factory.mktemp("pki"))


@contextlib.contextmanager
def tls_mosquitto(folder: Path, pki: Pki, *, certificate: tuple[Path, Path] | None = None,
                  require_certificate: bool = False, ws_port: int = 0) -> Iterator[int]:
    """mosquitto with a TLS listener on a free loopback port (its number is yielded), and an
    MQTT-over-WebSocket one with TLS on `ws_port` if given."""
    cert, key = certificate or (pki.server, pki.server_key)
    tls = (f"cafile {pki.ca}\ncertfile {cert}\nkeyfile {key}\n"
           f"require_certificate {'true' if require_certificate else 'false'}\n")
    websockets = f"listener {ws_port} 127.0.0.1\nprotocol websockets\n{tls}" if ws_port else ""
    for _attempt in range(3):  # a port found free may be taken before mosquitto binds it
        port = free_port()
        conf = folder / f"mosquitto-{port}.conf"
        conf.write_text(
            f"listener {port} 127.0.0.1\n{tls}{websockets}"
            "allow_anonymous true\nset_tcp_nodelay true\npersistence false\nlog_dest stderr\n"
            # Started as root, mosquitto reads the files as this user, not as "mosquitto" (who
            # cannot enter pytest's private temporary folders); as anyone else it is ignored.
            f"user {getpass.getuser()}\n")
        proc = subprocess.Popen(["mosquitto", "-c", str(conf)], stderr=subprocess.DEVNULL)
        if _accepts(proc, port) and (not ws_port or _accepts(proc, ws_port)):
            break
        proc.kill()
        proc.wait(timeout=5)
    else:
        pytest.fail("mosquitto did not start listening with TLS")
    try:
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=5)


def _accepts(proc: subprocess.Popen[bytes], port: int) -> bool:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and proc.poll() is None:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                time.sleep(0.05)
                return proc.poll() is None
        time.sleep(0.02)
    return False


def subscriber(pki: Pki, port: int) -> aiomqtt.Client:
    """A display or the host's tool, over TLS, trusting only the test's CA."""
    return aiomqtt.Client("127.0.0.1", port, tls_context=client_context(TlsSettings(ca_file=str(pki.ca))),
                          timeout=5)


def link(port: int, tls: TlsSettings, **kwargs: object) -> tuple[MqttLink, list[bytes], asyncio.Event]:
    """An MQTT link over TLS keeping every host command; and an event set once it is up."""
    commands: list[bytes] = []
    connected = asyncio.Event()
    return (MqttLink("127.0.0.1", port, Topics("chgk", "t1"), on_command=commands.append,
                     on_connected=connected.set, tls=tls, **kwargs),  # type: ignore[arg-type]
            commands, connected)


@contextlib.asynccontextmanager
async def running(task_of: MqttLink) -> AsyncIterator[asyncio.Task[None]]:
    task = asyncio.create_task(task_of.run())
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            async with asyncio.timeout(3):
                await task


# ---------------------------------------------------------------------- the console over TLS


async def test_events_and_state_reach_a_tls_subscriber_and_host_commands_are_obeyed(
        tmp_path: Path, pki: Pki) -> None:
    with tls_mosquitto(tmp_path, pki) as port:
        sim = SimulatedMcu(pads=4)
        sim.start()
        config = config_from_dict({
            "console": {"node": "t1", "journal": ""},
            "players": [{"id": f"p{i + 1}", "name": f"Игрок {i + 1}", "pad": f"mcu:{i}"} for i in range(3)],
            "sources": {"mcu": {"kind": "serial_mcu", "port": sim.port}},
            "sound": {"enabled": False},
            "mqtt": {"host": "127.0.0.1", "port": port, "tls": True, "ca_file": str(pki.ca)},
        }, "test")
        console = Console(config)
        add_mcu(console.sources, "mcu", sim.port, 115200)
        ready = asyncio.Event()
        task = asyncio.create_task(console.run("127.0.0.1", port, on_ready=ready.set))
        try:
            async with asyncio.timeout(5):
                await ready.wait()
            await until(lambda: console.sources.links["mcu"].connected)
            async with subscriber(pki, port) as display:
                await display.subscribe("chgk/t1/#", qos=1)
                seen: list[tuple[str, dict[str, object]]] = []

                async def pump() -> None:
                    async for message in display.messages:
                        assert isinstance(message.payload, bytes)
                        if "/flat/" not in str(message.topic):  # plain values (show control)
                            seen.append((str(message.topic), json.loads(message.payload)))

                pumping = asyncio.create_task(pump())

                def events(kind: str) -> list[dict[str, object]]:
                    return [p for t, p in seen if t == "chgk/t1/events" and p["type"] == kind]

                await until(lambda: any(t == "chgk/t1/status" and p["state"] == "online" for t, p in seen))
                await display.publish(COMMAND, b'{"action": "next"}', qos=1)
                await until(lambda: events("question_started"))
                await asyncio.sleep(0.02)  # not within the clock model's error of the start
                sim.press(1)
                await until(lambda: events("signal_accepted"))
                assert events("signal_accepted")[0]["player"] == "p2"
                await display.publish(COMMAND, b'{"action": "correct"}', qos=1)
                await until(lambda: events("question_ended"))
                assert events("question_ended")[0]["scores"] == {"p1": 0, "p2": 10, "p3": 0}
                def scores() -> list[object]:
                    states = [p for t, p in seen if t == "chgk/t1/state"]
                    players = states[-1]["players"] if states else []
                    assert isinstance(players, list)
                    return [player["score"] for player in players]

                await until(lambda: scores() == [0, 10, 0])
                pumping.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await pumping
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            sim.stop()


async def test_chgk_console_run_connects_over_tls_with_paths_relative_to_its_config(
        tmp_path: Path, pki: Pki) -> None:
    certs = tmp_path / "certs"
    certs.mkdir()
    for name in ("ca.pem", "console.pem", "console.key"):
        shutil.copy(pki.folder / name, certs / name)
    with tls_mosquitto(tmp_path, pki, require_certificate=True) as port:
        config = daemon_config(tmp_path, f'host = "127.0.0.1"\nport = {port}\ntls = true\n'
                                         'ca_file = "certs/ca.pem"\ncert_file = "certs/console.pem"\n'
                                         'key_file = "certs/console.key"')
        async with subscriber_with_client_cert(pki, port) as display:
            await display.subscribe("chgk/t1/status", qos=1)
            async with daemon_process(config):
                async with asyncio.timeout(15):
                    async for message in display.messages:
                        assert isinstance(message.payload, bytes)
                        if json.loads(message.payload)["state"] == "online":
                            break


def subscriber_with_client_cert(pki: Pki, port: int) -> aiomqtt.Client:
    tls = TlsSettings(ca_file=str(pki.ca), cert_file=str(pki.client), key_file=str(pki.client_key))
    return aiomqtt.Client("127.0.0.1", port, tls_context=client_context(tls), timeout=5)


# The shipped conf's commented TLS option (config/mosquitto/chgk-console.conf): its lines as
# shipped, and what the test puts in their place.
TLS_OPTION = ("#listener 8883", "#certfile /etc/mosquitto/certs/chgk-broker.pem",
              "#keyfile /etc/mosquitto/certs/chgk-broker.key")
CLIENT_CERT_OPTION = ("#cafile /etc/mosquitto/certs/chgk-ca.pem", "#require_certificate true")


@contextlib.contextmanager
def shipped_tls_broker(folder: Path, pki: Pki, *,
                       client_certificates: bool) -> Iterator[tuple[int, dict[str, str]]]:
    """mosquitto with the shipped lockdown and its TLS lines uncommented (their paths and port
    changed only); the TLS port and the accounts' passwords."""
    passwords, _printed = make_passwords(folder / "passwd")
    shutil.copyfile(ACL, folder / "acl")
    (folder / "acl").chmod(0o644)
    for path in (pki.ca, pki.server, pki.server_key):  # where the mosquitto user can read them
        shutil.copyfile(path, folder / path.name)
        (folder / path.name).chmod(0o644)
    port, ws_port, tls_port = free_port(), free_port(), free_port()
    lines = locked_config(port, ws_port, folder / "passwd", folder / "acl").splitlines()
    uncommented = [f"listener {tls_port} 127.0.0.1", f"certfile {folder / pki.server.name}",
                   f"keyfile {folder / pki.server_key.name}"]
    changes = dict(zip(TLS_OPTION, uncommented, strict=True))
    if client_certificates:
        uncommented = [f"cafile {folder / pki.ca.name}", "require_certificate true"]
        changes |= dict(zip(CLIENT_CERT_OPTION, uncommented, strict=True))
    for line in (*TLS_OPTION, *CLIENT_CERT_OPTION):
        assert lines.count(line) == 1, f"the shipped conf must have the line {line!r} once"
    conf = folder / "mosquitto.conf"
    conf.write_text("\n".join(changes.get(line, line) for line in lines) + "\n", encoding="utf-8")
    with (folder / "mosquitto.log").open("wb") as log:
        proc = subprocess.Popen(["mosquitto", "-c", str(conf)], stdout=log, stderr=log)
        try:
            wait_listening(proc, tls_port, folder)
            yield tls_port, passwords
        finally:
            proc.terminate()
            proc.wait(timeout=5)


@pytest.mark.parametrize("client_certificates", [False, True], ids=["tls", "tls-and-client-certificates"])
async def test_the_shipped_conf_with_its_tls_option_on_serves_the_locked_down_console(
        workdir: Path, pki: Pki, client_certificates: bool) -> None:  # noqa: F811
    """The console logs in over TLS as `console`, the host's command over TLS reaches it, and
    the TLS listener refuses a client without an account like the other listeners."""
    with shipped_tls_broker(workdir, pki, client_certificates=client_certificates) as (port, passwords):
        mine = TlsSettings(ca_file=str(pki.ca), cert_file=str(pki.client) if client_certificates else "",
                           key_file=str(pki.client_key) if client_certificates else "")
        console, commands, connected = link(port, mine, username="console", password=passwords["console"])
        async with running(console):
            async with asyncio.timeout(5):
                await connected.wait()
            async with aiomqtt.Client("127.0.0.1", port, username="host", password=passwords["host"],
                                      tls_context=client_context(mine), timeout=5) as host:
                await host.publish(COMMAND, b'{"action": "next"}', qos=1)
            await until(lambda: commands == [b'{"action": "next"}'])
            with pytest.raises(aiomqtt.MqttCodeError, match=r"[Nn]ot authori[sz]ed"):
                async with aiomqtt.Client("127.0.0.1", port, tls_context=client_context(mine), timeout=5):
                    pass


# ---------------------------------------------------------------------- refusals


async def test_a_wrong_ca_is_refused_naming_the_problem_and_the_link_keeps_retrying(
        tmp_path: Path, pki: Pki, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="chgk.mqtt")
    with tls_mosquitto(tmp_path, pki) as port:
        wrong, _commands, connected = link(port, TlsSettings(ca_file=str(pki.other_ca)),
                                           reconnect_interval=0.05)
        async with running(wrong) as task:
            await until(lambda: len(refusals(caplog)) >= 3)
            assert not task.done() and not connected.is_set() and not wrong.connected
        message = refusals(caplog)[0]
        assert f"the broker at 127.0.0.1:{port} failed TLS verification" in message
        # OpenSSL's own words (mosquitto sends its CA along: a self-signed one nobody here trusts).
    assert "self-signed certificate in certificate chain" in message and "mqtt.ca_file" in message


def refusals(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "failed TLS verification" in r.getMessage()]


async def test_a_certificate_for_another_host_is_refused_unless_tls_insecure(
        tmp_path: Path, pki: Pki, caplog: pytest.LogCaptureFixture) -> None:
    """The right CA, the wrong name: refused; `tls_insecure` takes it (what it gives up)."""
    caplog.set_level(logging.ERROR, logger="chgk.mqtt")
    with tls_mosquitto(tmp_path, pki, certificate=(pki.misnamed, pki.misnamed_key)) as port:
        strict, _commands, connected = link(port, TlsSettings(ca_file=str(pki.ca)), reconnect_interval=0.05)
        async with running(strict):
            await until(lambda: len(refusals(caplog)) >= 2)
            assert not connected.is_set()
        assert "IP address mismatch" in refusals(caplog)[0]
        insecure, _commands, connected = link(port, TlsSettings(ca_file=str(pki.ca), insecure=True))
        async with running(insecure):
            async with asyncio.timeout(5):
                await connected.wait()
        # The chain is still checked: another CA's certificate is refused even so.
        caplog.clear()
        other, _commands, connected = link(port, TlsSettings(ca_file=str(pki.other_ca), insecure=True),
                                           reconnect_interval=0.05)
        async with running(other):
            await until(lambda: refusals(caplog))
            assert not connected.is_set()


async def test_a_broker_requiring_a_client_certificate_takes_the_consoles(tmp_path: Path, pki: Pki) -> None:
    with tls_mosquitto(tmp_path, pki, require_certificate=True) as port:
        without, _commands, anonymous = link(port, TlsSettings(ca_file=str(pki.ca)), reconnect_interval=0.05,
                                             broker_timeout=1.0)
        mine = TlsSettings(ca_file=str(pki.ca), cert_file=str(pki.client), key_file=str(pki.client_key))
        with_cert, _commands, connected = link(port, mine)
        async with running(without) as refused, running(with_cert):
            async with asyncio.timeout(5):
                await connected.wait()
            await asyncio.sleep(0.3)  # several attempts of the other
            assert not anonymous.is_set() and not refused.done()


# ---------------------------------------------------------------------- reading and the loop


async def test_a_burst_of_host_commands_over_tls_all_arrive_in_order(tmp_path: Path, pki: Pki) -> None:
    with tls_mosquitto(tmp_path, pki) as port:
        console, commands, connected = link(port, TlsSettings(ca_file=str(pki.ca)))
        async with running(console):
            async with asyncio.timeout(5):
                await connected.wait()
            sent = [json.dumps({"action": "next", "n": n}).encode() for n in range(300)]
            async with subscriber(pki, port) as host:
                await asyncio.gather(*(host.publish(COMMAND, payload, qos=1) for payload in sent))
                await until(lambda: len(commands) >= len(sent))
            assert commands == sent


class CoalescingBroker:
    """Just enough of an MQTT 3.1.1 broker, over TLS, to send the console `count` host commands
    in one write: one TLS record holding them all. A reader that leaves what the SSL object has
    already decrypted unread would see the first and wait for the socket, which stays silent."""

    def __init__(self, pki: Pki, count: int) -> None:
        self.context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.context.load_cert_chain(pki.server, pki.server_key)
        self.sent = [json.dumps({"action": "next", "n": n}).encode() for n in range(count)]

    async def start(self) -> int:
        self.server = await asyncio.start_server(self.serve, "127.0.0.1", 0, ssl=self.context)
        return int(self.server.sockets[0].getsockname()[1])

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            while True:
                head = (await reader.readexactly(1))[0]
                length, shift = 0, 0
                while True:
                    byte = (await reader.readexactly(1))[0]
                    length |= (byte & 0x7F) << shift
                    shift += 7
                    if byte < 0x80:
                        break
                body = await reader.readexactly(length)
                kind = head >> 4
                if kind == 1:  # CONNECT
                    writer.write(b"\x20\x02\x00\x00")
                elif kind == 8:  # SUBSCRIBE: granted, then the burst a moment later
                    writer.write(b"\x90\x03" + body[:2] + b"\x01")
                    asyncio.get_running_loop().call_later(0.2, self.burst, writer)
                elif kind == 3 and (head >> 1) & 3:  # PUBLISH at QoS 1: acknowledged
                    topic_length = int.from_bytes(body[:2], "big")
                    writer.write(b"\x40\x02" + body[2 + topic_length:4 + topic_length])
                elif kind == 12:  # PINGREQ
                    writer.write(b"\xd0\x00")
                elif kind == 14:  # DISCONNECT
                    break
        writer.close()

    def burst(self, writer: asyncio.StreamWriter) -> None:
        topic = COMMAND.encode()
        packets = b""
        for payload in self.sent:
            rest = len(topic).to_bytes(2, "big") + topic + payload
            assert len(rest) < 128  # a one-byte remaining length
            packets += bytes([0x30, len(rest)]) + rest
        assert len(packets) < 16384  # one TLS record
        writer.write(packets)


async def test_commands_that_arrive_in_one_tls_record_are_all_read(pki: Pki) -> None:
    broker = CoalescingBroker(pki, 40)
    port = await broker.start()
    try:
        console, commands, connected = link(port, TlsSettings(ca_file=str(pki.ca)))
        async with running(console):
            async with asyncio.timeout(5):
                await connected.wait()
            await until(lambda: len(commands) >= len(broker.sent), within=3)
            assert commands == broker.sent
    finally:
        broker.server.close()


async def test_the_tls_handshake_never_holds_the_event_loop() -> None:
    """A broker that takes the TCP connection and never answers the TLS hello: the loop goes
    on ticking, the link gives the attempt up within its broker timeout and stops at once."""
    held: list[socket.socket] = []
    with socket.create_server(("127.0.0.1", 0)) as silent:
        silent.setblocking(False)
        port = silent.getsockname()[1]
        loop = asyncio.get_running_loop()
        loop.add_reader(silent.fileno(), lambda: held.append(silent.accept()[0]))
        try:
            console, _commands, connected = link(port, TlsSettings(), broker_timeout=0.5,
                                                 reconnect_interval=0.05)
            async with running(console) as task:
                # Until the first attempt is given up and a second one begun. A handshake on the
                # loop would hold it for paho's whole connect timeout (5 s); the bound allows for
                # a machine under load.
                gaps, last, end = [], loop.time(), loop.time() + 4
                while len(held) < 2 and loop.time() < end:
                    await asyncio.sleep(0.01)
                    now = loop.time()
                    gaps.append(now - last)
                    last = now
                assert len(held) >= 2 and not connected.is_set()
                assert max(gaps) < 1.0, max(gaps)
                started = loop.time()
            assert task.done() and loop.time() - started < 1.0
        finally:
            loop.remove_reader(silent.fileno())
            for sock in held:
                sock.close()


# ---------------------------------------------------------------------- check-config


def tls_config(tmp_path: Path, mqtt: dict[str, object]) -> None:
    config_from_dict({"players": [{"id": f"p{i}", "name": f"Игрок {i}", "pad": f"sim:{i}"} for i in (1, 2)],
                      "sources": {"sim": {"kind": "simulated_mcu"}},
                      "mqtt": {"host": "broker.local", "port": 8883, **mqtt}},
                     str(tmp_path / "console.toml"))


@pytest.mark.parametrize(("mqtt", "key", "words"), [
    ({"tls": True, "ca_file": "missing.pem"}, "mqtt.ca_file", "cannot read"),
    ({"tls": True, "ca_file": "."}, "mqtt.ca_file", "cannot read"),  # a folder
    ({"tls": True, "ca_file": "console.key"}, "mqtt.ca_file", "holds no PEM certificate"),
    ({"tls": True, "cert_file": "missing.pem", "key_file": "console.key"}, "mqtt.cert_file", "cannot read"),
    ({"tls": True, "cert_file": "console.pem", "key_file": "missing.key"}, "mqtt.key_file", "cannot read"),
    ({"tls": True, "cert_file": "console.pem", "key_file": "broker.key"}, "mqtt.key_file", "no usable"),
    ({"tls": True, "cert_file": "console.pem"}, "mqtt.cert_file", "no usable private key"),
    ({"tls": True, "key_file": "console.key"}, "mqtt.key_file", "without mqtt.cert_file"),
    ({"ca_file": "ca.pem"}, "mqtt.ca_file", "mqtt.tls is false"),
    ({"tls_insecure": True}, "mqtt.tls_insecure", "mqtt.tls is false"),
    ({"tls": True, "host": ""}, "mqtt.tls", "embedded broker"),
])
def test_check_config_names_the_tls_key_at_fault(pki: Pki, mqtt: dict[str, object], key: str,
                                                  words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        tls_config(pki.folder, mqtt)
    assert caught.value.key == key and words in caught.value.problem, str(caught.value)


def test_check_config_takes_tls_files_relative_to_the_config(pki: Pki) -> None:
    tls_config(pki.folder, {"tls": True, "ca_file": "ca.pem", "cert_file": "console.pem",
                            "key_file": "console.key"})
    tls_config(pki.folder, {"tls": True})  # the system's trust store


def test_the_check_config_command_reports_a_missing_ca_file(tmp_path: Path) -> None:
    config = daemon_config(tmp_path, 'host = "127.0.0.1"\nport = 8883\ntls = true\nca_file = "certs/ca.pem"')
    result = subprocess.run([sys.executable, "-m", "console.cli", "check-config", str(config)],
                            cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert f"{config}: mqtt.ca_file: cannot read {tmp_path / 'certs' / 'ca.pem'}" in result.stderr


# ---------------------------------------------------------------------- the hall's pages


async def test_a_page_served_over_https_reaches_the_broker_over_wss(tmp_path: Path, pki: Pki) -> None:
    """The scoreboard behind a TLS proxy (https), as the display server writes it (ws://...):
    hall.js asks the broker's WebSocket listener for TLS, so the page is «на связи». A plain
    ws:// from an https page is blocked by the browser (mixed content) and could not speak to a
    TLS listener anyway."""
    ws_port = free_port()
    with tls_mosquitto(tmp_path, pki, ws_port=ws_port) as port:
        async with subscriber(pki, port) as console:
            await console.publish("chgk/t1/status", b'{"state": "online"}', qos=1, retain=True)
        server = DisplayServer("127.0.0.1", 0, ws_port=ws_port, base="chgk/t1")
        await server.start()
        proxy = await tls_proxy(pki, server.port)
        try:
            browser = await asyncio.to_thread(Browser, "about:blank")
            try:
                # The test's CA is not in Chromium's store (a club installs its CA on its screens).
                await asyncio.to_thread(browser.command, "Security.setIgnoreCertificateErrors", ignore=True)
                url = f"https://127.0.0.1:{proxy.sockets[0].getsockname()[1]}/scoreboard"
                await asyncio.to_thread(browser.command, "Page.navigate", url=url)
                link = "document.getElementById('link')"
                online = await asyncio.to_thread(browser.wait_for,
                                                 f"{link} && {link}.textContent === 'на связи'")
                assert online is True
                assert await asyncio.to_thread(browser.evaluate, "HALL.ws") == f"wss://127.0.0.1:{ws_port}/"
            finally:
                await asyncio.to_thread(browser.close)
        finally:
            proxy.close()
            await server.close()


async def tls_proxy(pki: Pki, port: int) -> asyncio.Server:
    """A TLS-terminating proxy (as nginx or caddy would be) in front of loopback `port`."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(pki.server, pki.server_key)

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, ssl.SSLError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        inner_reader, inner_writer = await asyncio.open_connection("127.0.0.1", port)
        await asyncio.gather(pipe(reader, inner_writer), pipe(inner_reader, writer))

    return await asyncio.start_server(serve, "127.0.0.1", 0, ssl=context)
