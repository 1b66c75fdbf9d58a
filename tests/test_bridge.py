"""Many tables at once (issue 9; seed 004 §II): two table consoles, each with its own mosquitto
bridged to the organiser's broker by the shipped config/mosquitto/bridge-table.conf, the
organiser's broker locked down by config/mosquitto/organiser.conf with the accounts and ACL of
scripts/organiser-passwords.sh, and the tournament service reading it.

Three mosquitto processes on loopback, two `chgk-console run` processes playing a
«Эрудит-квартет» fight each (group A at table t1, group B at table t2, both driven by host
commands over MQTT), one `chgk-console tournament` process. Mid-fight the organiser's broker is
stopped, so both bridges are cut while both fights end; it is started again on the same
persistence file, and the standings show both results, each counted once.

Each shipped conf is used as written except the lines its header names (ports, passwords,
paths); each broker is given its own persistence folder.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from console.tournament.draw import draw_groups
from tests.daemon_process import daemon_process
from tests.support.bridged_hall import Hall, bridged_hall, workdir
from tests.tls_pki import make_pki

__all__ = ["workdir"]  # a fixture, from tests/support/bridged_hall.py

ROOT = Path(__file__).resolve().parent.parent
TEAMS = [f"k{i:02d}" for i in range(1, 25)]
SEED = 77


@pytest.fixture
def hall(workdir: Path) -> Iterator[Hall]:
    with bridged_hall(workdir) as built:
        yield built


def table_config(workdir: Path, node: str, port: int, teams: tuple[str, ...]) -> Path:
    """A table's console: a fight of the group's four teams, the shortest the config allows: one
    open round (3.6.1), one question a theme, one player a team (3.8: it plays one theme)."""
    path = workdir / node / "console.toml"
    path.parent.mkdir()
    path.write_text(
        f'[console]\nnode = "{node}"\njournal = ""\n'
        '[game]\nkind = "quartet"\nvalues = [10]\nsignal_window_s = 0.2\n'
        '[sources.mcu]\nkind = "simulated_mcu"\npads = 4\n'
        + "".join(f'[[players]]\nid = "{t}"\nname = "Команда {t}"\npad = "mcu:{i}"\n'
                  for i, t in enumerate(teams))
        + '[quartet]\nrounds = ["open"]\nseed = 5\n'
        + "".join(f'[[quartet.teams]]\nid = "{t}"\nplayers = ["{t}-капитан"]\n' for t in teams)
        + f'[mqtt]\nhost = "127.0.0.1"\nport = {port}\n[sound]\nenabled = false\n[display]\nhttp_port = 0\n',
        encoding="utf-8")
    return path


def service_config(hall: Hall) -> Path:
    path = hall.workdir / "tournament.toml"
    path.write_text(
        f'[tournament]\nname = "Кубок"\nstate_dir = "state"\nseed = {SEED}\n'
        f'[mqtt]\nhost = "127.0.0.1"\nport = {hall.organiser.port}\nusername = "organiser"\n'
        f'password = "{hall.accounts["organiser"]}"\n[page]\nhttp_port = 0\n'
        + "".join(f'[[teams]]\nid = "{t}"\n' for t in TEAMS), encoding="utf-8")
    return path


@asynccontextmanager
async def service_process(config: Path) -> AsyncIterator[None]:
    log = config.with_name("service.log").open("ab")
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "console.cli", "tournament", "--config", str(config), cwd=ROOT, stderr=log)
    try:
        yield
    finally:
        proc.terminate()
        async with asyncio.timeout(10):
            await proc.wait()
        log.close()
    assert proc.returncode == 0, config.with_name("service.log").read_text(encoding="utf-8")


class Table:
    """The host of one table: commands over the table's broker, its events watched there."""

    def __init__(self, node: str, client: aiomqtt.Client, teams: tuple[str, ...]) -> None:
        self.node, self.client, self.teams = node, client, teams
        self.events: list[dict[str, Any]] = []
        self.changed = asyncio.Event()

    async def read(self) -> None:
        async for message in self.client.messages:
            assert isinstance(message.payload, bytes)
            self.events.append(json.loads(message.payload))
            self.changed.set()

    async def wait_for(self, kind: str, count: int = 1, within: float = 15.0) -> None:
        async with asyncio.timeout(within):
            while sum(e.get("type") == kind for e in self.events) < count:
                self.changed.clear()
                await self.changed.wait()

    async def command(self, action: str, **args: Any) -> None:
        await self.client.publish(f"chgk/{self.node}/host/command",
                                  json.dumps({"action": action, **args}, ensure_ascii=False), qos=1)

    async def first_theme(self) -> None:
        """The round started, every team's one player on theme 1 (3.8), its one question played
        (nobody signals: the window closes, App.10.3); then the host's corrections give the
        teams 30, 20, 10 and 0 in it, so the places are by total (3.10)."""
        await self.command("start_round", themes=["Реки", "Горы", "Моря", "Леса"])
        for t in self.teams:
            await self.command("assign", team=t, players=[f"{t}-капитан", None, None, None])
        await self.wait_for("players_assigned", 4)
        await self.command("start_theme")
        await self.command("next")
        await self.command("reading_finished")
        await self.wait_for("theme_ended")
        for t, delta in zip(self.teams, (30, 20, 10), strict=False):
            await self.command("adjust_score", player=t, delta=delta, reason="тест")
        await self.wait_for("score_adjusted", 3)

    async def rest(self) -> None:
        """Themes 2-4: nobody plays them (0 for all, 3.8); the fight is over after the last."""
        for _ in range(3):
            await self.command("start_theme")
        await self.wait_for("fight_over")


def watcher(hall: Hall) -> aiomqtt.Client:
    return aiomqtt.Client("127.0.0.1", hall.organiser.port, username="organiser",
                          password=hall.accounts["organiser"], identifier="test-watcher",
                          clean_session=False)


async def grid(hall: Hall, done: Any, within: float) -> dict[str, Any]:
    """The retained grid on the organiser's broker, once `done(grid)` holds."""
    async with aiomqtt.Client("127.0.0.1", hall.organiser.port, username="display",
                              password=hall.accounts["display"]) as c:
        await c.subscribe("chgk/tournament/grid", qos=1)
        async with asyncio.timeout(within):
            async for message in c.messages:
                assert isinstance(message.payload, bytes)
                view: dict[str, Any] = json.loads(message.payload)
                if done(view):
                    return view
    raise AssertionError("unreachable")


def result(view: dict[str, Any], fight: str) -> list[dict[str, Any]] | None:
    found: list[dict[str, Any]] | None = next(f for f in view["fights"] if f["id"] == fight)["result"]
    return found


async def test_two_tables_bridged_to_the_organiser_survive_a_cut(hall: Hall) -> None:
    groups = draw_groups(TEAMS, SEED).groups
    playing = {"t1": groups["A"], "t2": groups["B"]}
    async with AsyncExitStack() as stack:
        await stack.enter_async_context(service_process(service_config(hall)))
        tables: dict[str, Table] = {}
        for node, teams in playing.items():
            port = hall.tables[node].port
            await stack.enter_async_context(daemon_process(table_config(hall.workdir, node, port, teams)))
            client = await stack.enter_async_context(aiomqtt.Client("127.0.0.1", port))
            await client.subscribe(f"chgk/{node}/events", qos=1)
            tables[node] = Table(node, client, teams)
        readers = [asyncio.create_task(t.read()) for t in tables.values()]
        try:
            # Both consoles up and the service's draw published before the fights start.
            async with aiomqtt.Client("127.0.0.1", hall.tables["t1"].port) as probe:
                await probe.subscribe("chgk/+/status", qos=1)
                async with asyncio.timeout(20):
                    async for message in probe.messages:
                        assert isinstance(message.payload, bytes)
                        if json.loads(message.payload).get("state") == "online":
                            break
            async with aiomqtt.Client("127.0.0.1", hall.tables["t2"].port) as probe:
                await probe.subscribe("chgk/+/status", qos=1)
                async with asyncio.timeout(20):
                    async for message in probe.messages:
                        assert isinstance(message.payload, bytes)
                        if json.loads(message.payload).get("state") == "online":
                            break
            await grid(hall, lambda v: v["draw"]["seed"] == SEED, within=20)
            # A persistent session on the organiser's broker, like the service's: what the
            # tables publish while their bridges are cut must reach it afterwards.
            async with watcher(hall) as w:
                await w.subscribe("chgk/+/events", qos=1)

            await asyncio.gather(*(t.first_theme() for t in tables.values()))
            # Mid-fight the organiser's broker goes away: both bridges are cut.
            await asyncio.to_thread(hall.organiser.stop)
            await asyncio.gather(*(t.rest() for t in tables.values()))
            await asyncio.sleep(0.3)  # the tables' brokers queue what the bridges cannot send
            await asyncio.to_thread(hall.organiser.start)  # the same persistence file

            view = await grid(hall, lambda v: result(v, "group-A") and result(v, "group-B"), within=20)
            # The fight_over events themselves came through (QoS 1, persistent sessions), not
            # only the retained states a bridge sends again when it reconnects.
            ended: set[str] = set()
            async with watcher(hall) as w, asyncio.timeout(10):
                async for message in w.messages:
                    assert isinstance(message.payload, bytes)
                    if json.loads(message.payload).get("type") == "fight_over":
                        ended.add(str(message.topic))
                        if len(ended) == 2:
                            break
            assert ended == {"chgk/t1/events", "chgk/t2/events"}
        finally:
            for reader in readers:
                reader.cancel()
    for node, fight in (("t1", "group-A"), ("t2", "group-B")):
        over = next(e for e in tables[node].events if e["type"] == "fight_over")
        assert [x["team"] for x in result(view, fight) or []] == [p["team"] for p in over["places"]]
        assert [x["total"] for x in result(view, fight) or []] == [30, 20, 10, 0]
        assert next(f for f in view["fights"] if f["id"] == fight)["table"] == node
    assert view["problems"] == [] and view["waiting"] == []
    doc = json.loads((hall.workdir / "state" / "tournament.json").read_text(encoding="utf-8"))
    assert sorted(r["fight"] for r in doc["results"]) == ["group-A", "group-B"]  # once each
    log = (hall.workdir / "service.log").read_text(encoding="utf-8")
    assert log.count("recorded") == 2, log
    standing = {s["team"]: s for s in view["standings"]}
    assert standing[groups["A"][0]]["total"] == 30 and standing[groups["B"][3]]["total"] == 0
    assert os.listdir(hall.workdir / "organiser-db")  # the broker really kept a persistence file


async def test_each_bridge_may_write_only_its_own_tables_topics(hall: Hall) -> None:
    """The organiser's ACL (scripts/organiser-passwords.sh): a table's bridge account cannot
    forge another table's result, the page's account cannot publish at all. MQTT 3.1.1 drops a
    refused publish silently, so a legitimate marker is sent behind the forgeries: once it
    arrives, anything the broker had passed on would have arrived before it."""
    port = hall.organiser.port
    async with aiomqtt.Client("127.0.0.1", port, username="organiser",
                              password=hall.accounts["organiser"]) as reader:
        await reader.subscribe("chgk/+/events", qos=1)
        async with aiomqtt.Client("127.0.0.1", port, username="display",
                                  password=hall.accounts["display"]) as page:
            await page.publish("chgk/t1/events", b'{"type": "fight_over", "by": "display"}', qos=1)
        async with aiomqtt.Client("127.0.0.1", port, username="bridge-t1",
                                  password=hall.accounts["bridge-t1"]) as bridge:
            await bridge.publish("chgk/t2/events", b'{"type": "fight_over", "by": "t1"}', qos=1)
            await bridge.publish("chgk/t1/events", b'{"type": "marker"}', qos=1)
        seen = []
        async with asyncio.timeout(5):
            async for message in reader.messages:
                assert isinstance(message.payload, bytes)
                seen.append((str(message.topic), json.loads(message.payload)))
                if seen[-1][1]["type"] == "marker":
                    break
    assert seen == [("chgk/t1/events", {"type": "marker"})]


async def test_bridges_over_tls_reach_the_organiser_only_with_the_clubs_ca(workdir: Path) -> None:
    """The shipped TLS lines (organiser.conf's listener 8883, bridge-table.conf's bridge_cafile):
    a bridge that trusts the CA which signed the organiser's certificate connects over TLS and
    carries its table's events; one given another CA never connects (mosquitto checks the
    organiser's certificate, so a machine posing as the organiser gets no bridge password)."""
    pki_folder = workdir / "pki"
    pki_folder.mkdir()
    pki = make_pki(pki_folder)
    for path in pki_folder.iterdir():  # mosquitto reads them as its own user
        path.chmod(0o644)
    pki_folder.chmod(0o755)
    with bridged_hall(workdir, pki) as tls_hall:
        port = tls_hall.organiser.port
        async with aiomqtt.Client("127.0.0.1", port, username="organiser",
                                  password=tls_hall.accounts["organiser"]) as reader:
            await reader.subscribe("chgk/bridges/+", qos=1)
            await reader.subscribe("chgk/+/events", qos=1)
            bridges: dict[str, bytes] = {}
            async with asyncio.timeout(15):
                async for message in reader.messages:
                    assert isinstance(message.payload, bytes)
                    if str(message.topic).startswith("chgk/bridges/"):
                        bridges[str(message.topic)] = message.payload
                    if bridges.get("chgk/bridges/bridge-t1") == b"1":
                        break
            async with aiomqtt.Client("127.0.0.1", tls_hall.tables["t1"].port) as console:
                await console.publish("chgk/t1/events", b'{"type": "marker"}', qos=1)
            async with asyncio.timeout(10):
                async for message in reader.messages:
                    if str(message.topic) == "chgk/t1/events":
                        assert message.payload == b'{"type": "marker"}'
                        break
        # Meanwhile t2's bridge, trusting another CA, has tried every 2 s (restart_timeout) and
        # failed the certificate check each time: the organiser never heard of it.
        assert bridges.get("chgk/bridges/bridge-t2") != b"1"
        log = tls_hall.tables["t2"].conf.with_suffix(".log")
        deadline = time.monotonic() + 10
        while "certificate verify failed" not in log.read_text(errors="replace"):
            assert time.monotonic() < deadline, log.read_text(errors="replace")[-2000:]
            await asyncio.sleep(0.1)
