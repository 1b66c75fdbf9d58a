"""The shipped broker lockdown: mosquitto started with config/mosquitto/chgk-console.conf, the
ACL config/mosquitto/acl and a password file made by scripts/mosquitto-passwords.sh.

The configuration is used as shipped except for four lines (the conf's header says which):
both listeners move to free loopback ports and the two file paths point into the test's own
directory. Then real clients log in as each account, and the real console runs as `console`.

MQTT 3.1.1 gives a publisher no error when the ACL drops its message, so "not delivered" is
shown by order, not by waiting: each test waits for its QoS 1 publish to be acknowledged (the
broker has handled it), then sends a legitimate marker behind it; once the marker arrives,
anything the broker had passed on would have arrived before it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import stat
import subprocess
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import aiomqtt
import pytest

from tests.conftest import until
from tests.daemon_process import daemon_process
from tests.engine_harness import svoya_of
from tests.support.lockdown import (
    BASE,
    CONF,
    SCRIPT,
    LockedBroker,
    locked,
    locked_config,
    make_passwords,
    running_console,
    workdir,
)

__all__ = ["locked", "workdir"]  # fixtures, from tests/support/lockdown.py

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = ("status", "state", "events", "angle", "record")
HOST_ONLY = ("host/state", "host/events")
MESSAGE_SIZE_LIMIT = 65536
MAX_PACKET_SIZE = 1048576


class Inbox:
    """Every message one client receives, in order."""

    def __init__(self, client: aiomqtt.Client) -> None:
        self.client = client
        self.seen: list[tuple[str, bytes]] = []
        self._arrived = asyncio.Event()

    async def pump(self) -> None:
        async for message in self.client.messages:
            assert isinstance(message.payload, bytes)
            self.seen.append((str(message.topic), message.payload))
            self._arrived.set()

    def topics(self) -> list[str]:
        return [topic.removeprefix(BASE + "/") for topic, _ in self.seen]

    def events(self, kind: str) -> list[dict[str, object]]:
        found = []
        for topic, payload in self.seen:
            if topic == f"{BASE}/events":
                event = json.loads(payload)
                if event.get("type") == kind:
                    found.append(event)
        return found

    async def wait_for(self, check: Callable[[], object], within: float = 5.0) -> None:
        async with asyncio.timeout(within):
            while not check():
                self._arrived.clear()
                await self._arrived.wait()


@contextlib.asynccontextmanager
async def inbox(broker: LockedBroker, user: str, *topics: str,
                websockets: bool = False) -> AsyncIterator[Inbox]:
    async with broker.client(user, websockets=websockets) as client:
        for topic in topics:
            await client.subscribe(topic, qos=1)
        box = Inbox(client)
        task = asyncio.create_task(box.pump())
        try:
            yield box
        finally:
            task.cancel()


async def publish(broker: LockedBroker, user: str, topic: str, payload: bytes, *,
                  retain: bool = False) -> None:
    """Publish at QoS 1 as `user` and wait for the broker's acknowledgement: after it, the
    broker has delivered the message or dropped it."""
    async with broker.client(user) as client:
        await client.publish(topic, payload, qos=1, retain=retain)


# ---------------------------------------------------------------------- logging in


def test_the_test_changes_only_the_ports_and_the_file_paths(workdir: Path) -> None:
    shipped = CONF.read_text(encoding="utf-8").splitlines()
    used = locked_config(1, 2, workdir / "p", workdir / "a").splitlines()
    assert len(used) == len(shipped)
    assert sum(a != b for a, b in zip(shipped, used, strict=True)) == 4
    settings = {line.split()[0] for line in shipped if line and not line.startswith("#")}
    assert {"set_tcp_nodelay", "allow_anonymous", "password_file", "acl_file",
            "message_size_limit", "max_packet_size", "listener", "protocol"} <= settings
    assert "allow_anonymous false" in shipped and "set_tcp_nodelay true" in shipped
    assert "protocol websockets" in shipped


def test_the_script_makes_the_password_file_with_hashes_only(workdir: Path) -> None:
    file = workdir / "passwd"
    passwords, out = make_passwords(file, "--host", "tablet-secret")
    assert f"Broker accounts in {file}," in out
    assert passwords["host"] == "tablet-secret"
    assert len(passwords["console"]) == len(passwords["display"]) == 24
    assert passwords["console"] != passwords["display"]
    text = file.read_text()
    assert sorted(line.split(":")[0] for line in text.splitlines()) == ["console", "display", "host", "jury"]
    assert all(password not in text for password in passwords.values())
    assert stat.S_IMODE(file.stat().st_mode) == 0o640
    assert not [p for p in workdir.iterdir() if p.name.startswith(".chgk-passwd")]
    again, _ = make_passwords(file)  # replaces the file whole, with fresh passwords
    assert again["console"] != passwords["console"]
    bad = subprocess.run([str(SCRIPT), "--display", 'a"b', str(file)], capture_output=True,
                         text=True, timeout=30)
    assert bad.returncode == 2 and "quotes" in bad.stderr


@pytest.mark.parametrize("websockets", [False, True], ids=["tcp", "websockets"])
@pytest.mark.parametrize(("user", "password"), [(None, None), ("display", "wrong"),
                                                 ("nobody", "x"), ("console", "")])
async def test_no_one_logs_in_without_an_account(
    locked: LockedBroker, websockets: bool, user: str | None, password: str | None
) -> None:
    with pytest.raises(aiomqtt.MqttCodeError) as refused:
        async with locked.client(user, websockets=websockets, password=password):
            pass
    assert "Not authorized" in str(refused.value)  # CONNACK 5: not authorised


# ---------------------------------------------------------------------- reading


@pytest.mark.parametrize("websockets", [False, True], ids=["tcp", "websockets"])
async def test_a_display_reads_the_public_topics_and_never_the_host_topics(
    locked: LockedBroker, websockets: bool
) -> None:
    """A display subscribed to everything of the node, and to host/# by name, still gets only
    the public topics; the host's tablet gets all of them."""
    async with inbox(locked, "display", f"{BASE}/#", f"{BASE}/host/#",
                     websockets=websockets) as display, \
            inbox(locked, "host", f"{BASE}/#") as host, \
            locked.client("console") as console:
        for topic in (*HOST_ONLY, *PUBLIC):  # the host topics first: the marker comes last
            await console.publish(f"{BASE}/{topic}", b'{"type":"x"}', qos=1)
        await console.publish(f"{BASE}/events", b'{"type":"marker"}', qos=1)
        await display.wait_for(lambda: display.events("marker"))
        await host.wait_for(lambda: host.events("marker"))
        assert display.topics() == [*PUBLIC, "events"]
        assert host.topics() == [*HOST_ONLY, *PUBLIC, "events"]


async def test_a_display_joining_late_gets_the_public_retained_messages_only(
    locked: LockedBroker,
) -> None:
    async with locked.client("console") as console:
        await console.publish(f"{BASE}/host/state", b'{"fortochka":5}', qos=1, retain=True)
        await console.publish(f"{BASE}/state", b'{"phase":"idle"}', qos=1, retain=True)
        await console.publish(f"{BASE}/status", b'{"state":"online"}', qos=1, retain=True)
    async with inbox(locked, "display", f"{BASE}/#", websockets=True) as display:
        await display.wait_for(lambda: len(display.seen) == 2)
        await publish(locked, "console", f"{BASE}/events", b'{"type":"marker"}')
        await display.wait_for(lambda: display.events("marker"))
        assert sorted(display.topics()) == ["events", "state", "status"]


# ---------------------------------------------------------------------- commanding


async def test_only_the_host_commands_the_console(locked: LockedBroker) -> None:
    """The same {"action": "next"} from the display account is dropped by the broker, from the
    host account it starts the question (seen by a display)."""
    async with running_console(locked, locked.passwords["console"]) as console, \
            inbox(locked, "display", f"{BASE}/events") as display:
        await publish(locked, "display", f"{BASE}/host/command", b'{"action": "next"}')
        await publish(locked, "console", f"{BASE}/host/command", b'{"action": "next"}')
        # The marker: a command not allowed before a question, so the console answers it
        # with an error event, after anything that came before it.
        await publish(locked, "host", f"{BASE}/host/command", b'{"action": "correct"}')
        await display.wait_for(lambda: display.events("error"))
        assert not display.events("question_started")
        assert svoya_of(console).phase == "idle"
        await publish(locked, "host", f"{BASE}/host/command", b'{"action": "next"}')
        await display.wait_for(lambda: display.events("question_started"))
        assert svoya_of(console).phase == "reading"


@pytest.mark.parametrize("user", ["display", "host"])
async def test_no_one_but_the_console_publishes_events_state_or_status(
    locked: LockedBroker, user: str
) -> None:
    """A forged event, state or (retained) offline status from another account reaches no one,
    and a display joining later still sees the console's own retained status."""
    async with running_console(locked, locked.passwords["console"]), \
            inbox(locked, "host", f"{BASE}/#") as watcher:
        await watcher.wait_for(lambda: "status" in watcher.topics())
        forged = b'{"type":"question_started","forged":true}'
        await publish(locked, user, f"{BASE}/events", forged)
        await publish(locked, user, f"{BASE}/state", b'{"forged":true}', retain=True)
        await publish(locked, user, f"{BASE}/status", b'{"state":"offline"}', retain=True)
        await publish(locked, user, f"{BASE}/host/events", forged)
        await publish(locked, "host", f"{BASE}/host/command", b'{"action": "next"}')
        await watcher.wait_for(lambda: watcher.events("question_started"))
        assert not [p for _, p in watcher.seen if b"forged" in p or b"offline" in p]
        async with inbox(locked, "display", f"{BASE}/status") as late:
            await late.wait_for(lambda: late.seen)
            assert json.loads(late.seen[0][1])["state"] == "online"


# ---------------------------------------------------------------------- size limits


async def test_a_command_over_the_brokers_size_limit_never_reaches_the_console(
    locked: LockedBroker,
) -> None:
    """Over message_size_limit the broker forwards a command to no one: the console does not
    even read it (no error event: it never saw it). Under the limit but over the console's own
    4096 bytes, the console refuses it unparsed, with an error event."""
    async with running_console(locked, locked.passwords["console"]) as console, \
            inbox(locked, "display", f"{BASE}/events") as display, \
            inbox(locked, "console", f"{BASE}/host/command") as console_view:
        huge = b'{"action": "next", "x": "' + b"y" * MESSAGE_SIZE_LIMIT + b'"}'
        await publish(locked, "host", f"{BASE}/host/command", huge)
        await publish(locked, "host", f"{BASE}/host/command", b'{"action": "correct"}')
        await display.wait_for(lambda: display.events("error"))
        assert [len(p) for _, p in console_view.seen] == [len(b'{"action": "correct"}')]
        errors = display.events("error")
        assert len(errors) == 1 and "сейчас нельзя" in str(errors[0]["message"])
        assert svoya_of(console).phase == "idle"
        big = b'{"action": "next", "x": "' + b"y" * 10_000 + b'"}'
        await publish(locked, "host", f"{BASE}/host/command", big)
        await display.wait_for(lambda: len(display.events("error")) == 2)
        assert "too large (at most 4096)" in str(display.events("error")[1]["message"])
        assert svoya_of(console).phase == "idle"


def mqtt_string(text: str) -> bytes:
    data = text.encode()
    return len(data).to_bytes(2, "big") + data


def mqtt_length(n: int) -> bytes:
    """MQTT's variable-length integer (the fixed header's remaining length)."""
    out = bytearray()
    while True:
        n, digit = n >> 7, n & 0x7F
        out.append(digit | (0x80 if n else 0))
        if not n:
            return bytes(out)


async def test_a_packet_over_max_packet_size_is_refused_from_its_header(locked: LockedBroker) -> None:
    """A PUBLISH that announces more than max_packet_size (1 MiB) is refused from its header
    alone: the broker closes the connection without waiting for the payload (none is sent
    here), and the console, the display and the host's next command go on as before.

    A hand-made MQTT 3.1.1 session, because a client library would send the whole packet."""
    async with running_console(locked, locked.passwords["console"]) as console, \
            inbox(locked, "display", f"{BASE}/events") as display:
        reader, writer = await asyncio.open_connection("127.0.0.1", locked.port)
        try:
            body = (mqtt_string("MQTT") + bytes([4, 0xC2, 0, 60]) + mqtt_string("raw-host")
                    + mqtt_string("host") + mqtt_string(locked.passwords["host"]))
            writer.write(b"\x10" + mqtt_length(len(body)) + body)  # CONNECT, with a login
            async with asyncio.timeout(5):
                assert await reader.readexactly(4) == b"\x20\x02\x00\x00"  # CONNACK: accepted
            topic = mqtt_string(f"{BASE}/host/command")
            writer.write(b"\x30" + mqtt_length(len(topic) + MAX_PACKET_SIZE) + topic)  # PUBLISH
            async with asyncio.timeout(5):
                with contextlib.suppress(ConnectionResetError):  # or reset: closed all the same
                    assert await reader.read() == b""  # closed by the broker
        finally:
            writer.close()
        await publish(locked, "host", f"{BASE}/host/command", b'{"action": "next"}')
        await display.wait_for(lambda: display.events("question_started"))
        assert not display.events("error")
        assert console.mqtt is not None and console.mqtt.connected
        await until(lambda: svoya_of(console).phase == "reading")


# ---------------------------------------------------------------------- the daemon


@contextlib.asynccontextmanager
async def daemon(broker: LockedBroker, workdir: Path) -> AsyncIterator[None]:
    """`chgk-console run` at the «Что? Где? Когда?» table, its [mqtt] login pasted as the
    script printed it."""
    config = workdir / "console.toml"
    config.write_text(
        '[console]\nnode = "t1"\njournal = ""\n[game]\nkind = "chgk"\n'
        '[sources.top]\nkind = "simulated_mcu"\npads = 1\n'
        '[[teams]]\nid = "t1"\nname = "Совы"\n[table]\nteam = "t1"\nfortochka = 5\n'
        f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n{broker.printed}'
        '[display]\nhttp_port = 0\n[sound]\nenabled = false\n', encoding="utf-8")
    async with daemon_process(config):
        yield


async def test_the_daemon_at_the_table_keeps_the_host_topics_from_the_hall(
    locked: LockedBroker, workdir: Path
) -> None:
    """The daemon logged in with the script's lines publishes all its topics; the host's tablet
    gets the host state (where the «форточка» lies, 000 4.2 д) and commands a round; a page
    subscribed to everything of the node, over WebSocket, gets the round and never host/."""
    async with inbox(locked, "host", f"{BASE}/#") as host, \
            inbox(locked, "display", f"{BASE}/#", websockets=True) as display, \
            daemon(locked, workdir):
        await host.wait_for(lambda: "host/state" in host.topics(), within=15)
        assert json.loads(dict(host.seen)[f"{BASE}/host/state"])["fortochka"]["sector"] == 5
        await publish(locked, "host", f"{BASE}/host/command", b'{"action": "pick_sector", "sector": 3}')
        await display.wait_for(lambda: display.events("sector_chosen"))
        await host.wait_for(lambda: host.topics().count("host/state") >= 2)
        await publish(locked, "console", f"{BASE}/events", b'{"type":"marker"}')
        await display.wait_for(lambda: display.events("marker"))
        assert {"status", "state", "events"} <= set(display.topics())
        assert not [t for t in display.topics() if t.startswith("host/")]
        assert not display.events("error"), display.events("error")


def test_the_console_config_documents_the_accounts() -> None:
    text = (ROOT / "config" / "console.toml").read_text(encoding="utf-8")
    mqtt = text.split("[mqtt]", 1)[1].split("\n[", 1)[0]
    assert "scripts/mosquitto-passwords.sh" in mqtt
    assert os.access(SCRIPT, os.X_OK)


async def test_show_control_reads_plain_values_and_commands_as_the_host_only(locked: LockedBroker) -> None:
    """Issue 20, Bitfocus Companion: the retained flat topics carry plain values (the phase,
    each score and name, the count, who answers); a plain payload on host/do/<action> is that
    host command from the host account, and dropped by the broker from the display's."""
    async with running_console(locked, locked.passwords["console"]) as console, \
            inbox(locked, "host", f"{BASE}/flat/#") as flat, \
            inbox(locked, "display", f"{BASE}/events") as display:
        wanted = {f"{BASE}/flat/{name}" for name in ("phase", "count", "answering", "score/p1", "name/p1")}
        await flat.wait_for(lambda: wanted <= set(dict(flat.seen)))
        values = {topic: payload for topic, payload in flat.seen}
        assert values[f"{BASE}/flat/phase"] == b"idle" and values[f"{BASE}/flat/count"] == b"-"
        assert values[f"{BASE}/flat/score/p1"] == b"0" and values[f"{BASE}/flat/answering"] == b"-"
        assert values[f"{BASE}/flat/name/p1"].decode()
        await publish(locked, "display", f"{BASE}/host/do/next", b"")
        await publish(locked, "host", f"{BASE}/host/do/correct", b"1")  # the marker: refused
        await display.wait_for(lambda: display.events("error"))
        assert svoya_of(console).phase == "idle"  # the display's "next" never came
        await publish(locked, "host", f"{BASE}/host/do/next", b"press")
        await display.wait_for(lambda: display.events("question_started"))
        await flat.wait_for(lambda: (f"{BASE}/flat/phase", b"reading") in flat.seen)
