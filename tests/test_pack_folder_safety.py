"""The pack folder and the retained status made as safe as the referee (issue 31): a pack file
whose name is not UTF-8 (a cp1251 «Пакет.toml» from a Windows stick), a folder of many packs
with long Cyrillic names, a pack with a 72-KB field, a link out of the folder. Each as it was
reproduced: the status must reach the broker (under its 64 KiB), the console must come online,
and nothing outside the folder is read."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import aiomqtt
import pytest

from console.games.svoya.packs import LIST_BUDGET_BYTES, catalogue
from console.packs import MAX_NAME, PackError, load_pack
from console.shell.mqtt_wire import MAX_MESSAGE_BYTES, encode
from console.shell.pack_shelf import PackShelf
from tests.conftest import Broker
from tests.daemon_process import daemon_process

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "packs" / "club-evening.toml"
CP1251_NAME = "Пакет.toml".encode("cp1251")  # not UTF-8: Python keeps it as lone surrogates


def folder_with(tmp_path: Path, *names: bytes) -> Path:
    folder = tmp_path / "packs"
    folder.mkdir()
    for name in names:
        target = bytes(folder) + b"/" + name
        shutil.copyfile(EXAMPLE, target.decode("utf-8", "surrogateescape"))
    return folder


def test_a_name_that_is_not_utf8_is_listed_as_a_problem_and_the_status_encodes(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, CP1251_NAME, "Клуб.toml".encode())
    listed = catalogue(folder)
    bad = next(p for p in listed["packs"] if "problem" in p)
    assert "не в UTF-8" in bad["problem"] and "\ufffd" in bad["file"]
    good = [p for p in json.loads(encode({"packs": listed}))["packs"]["packs"] if "name" in p]
    assert [p["file"] for p in good] == ["Клуб.toml"]  # the good one is listed too


def test_many_packs_with_long_names_stay_under_the_brokers_limit(tmp_path: Path) -> None:
    """150 packs with long Cyrillic names made the status 87 KB (the broker dropped it): the
    list keeps to its budget and says how many did not fit."""
    folder = folder_with(tmp_path)
    text = EXAMPLE.read_text(encoding="utf-8")
    for n in range(150):
        name = f"Очень длинное название клубного пакета номер {n:03d} для вечера «Своей игры»"
        renamed = text.replace('name = "', f'name = "{name} ', 1)
        (folder / f"{name}.toml").write_text(renamed, encoding="utf-8")
    listed = catalogue(folder)
    size = len(encode(listed))
    assert size <= LIST_BUDGET_BYTES + 1024 < MAX_MESSAGE_BYTES
    assert 0 < len(listed["packs"]) < 150 and f"первые {len(listed['packs'])}" in listed["problem"]


def test_a_pack_with_a_72_kb_field_is_refused_at_load_naming_it(tmp_path: Path) -> None:
    pack = tmp_path / "big.toml"
    text = EXAMPLE.read_text(encoding="utf-8")
    theme = text.index('name = "', text.index("[[themes]]"))
    long_name = f'name = "{"Я" * 72_000}'
    pack.write_text(text[:theme] + long_name + text[theme + len('name = "'):], encoding="utf-8")
    with pytest.raises(PackError, match=f"тема 1: название: 72\\d\\d\\d знаков, больше {MAX_NAME}"):
        load_pack(pack)


def test_a_link_out_of_the_folder_is_neither_listed_nor_read(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, "Клуб.toml".encode())
    secret = tmp_path / "secret.toml"
    shutil.copyfile(EXAMPLE, secret)
    (folder / "ссылка.toml").symlink_to(secret)
    listed = {p["file"]: p for p in catalogue(folder)["packs"]}
    assert "вне папки" in listed["ссылка.toml"]["problem"]
    chosen: list[object] = []
    shelf = PackShelf(folder, read_list=catalogue, read_choice=lambda p, n: p, on_list=lambda _: None,
                      on_choice=chosen.append, on_problem=lambda _: None)
    with pytest.raises(ValueError, match=r"there is no pack 'ссылка\.toml'"):
        shelf.command({"action": "choose_pack", "file": "ссылка.toml"})
    shelf.command({"action": "choose_pack", "file": "Клуб.toml"})
    assert chosen == [folder / "Клуб.toml"]


def test_a_missing_folder_is_named_without_the_servers_path(tmp_path: Path) -> None:
    listed = catalogue(tmp_path / "secret" / "packs")
    assert listed["folder"] == "packs" and "«packs»" in listed["problem"]
    assert str(tmp_path) not in json.dumps(listed, ensure_ascii=False)


async def test_run_comes_online_with_a_cp1251_pack_name_and_publishes_its_list(
        tmp_path: Path, mosquitto: Broker) -> None:
    """As reproduced: the status could not be encoded, the link retried forever, nothing was
    published and no command read. Now the console comes online with the list."""
    folder = folder_with(tmp_path, CP1251_NAME)
    config = tmp_path / "console.toml"
    config.write_text(
        f'[console]\nnode = "t1"\njournal = ""\n[game]\nkind = "svoya"\nthemes = 0\npack_dir = "{folder}"\n'
        '[sources.mcu]\nkind = "simulated_mcu"\npads = 2\n'
        '[[players]]\nid = "p1"\nname = "Аня"\npad = "mcu:0"\n'
        '[[players]]\nid = "p2"\nname = "Боря"\npad = "mcu:1"\n'
        f'[mqtt]\nhost = "{mosquitto.host}"\nport = {mosquitto.port}\n[display]\nhttp_port = 0\n'
        '[sound]\nenabled = false\n', encoding="utf-8")
    async with daemon_process(config), aiomqtt.Client(mosquitto.host, mosquitto.port) as client:
        await client.subscribe("chgk/t1/status", qos=1)
        async with asyncio.timeout(20):
            async for message in client.messages:
                assert isinstance(message.payload, bytes)
                status = json.loads(message.payload)
                packs = (status.get("packs") or {}).get("packs")
                if status.get("state") == "online" and packs:
                    assert "не в UTF-8" in packs[0]["problem"]
                    # The retained status is public: the folder by its name, not the server's path.
                    assert status["packs"]["folder"] == "packs"
                    assert str(tmp_path) not in message.payload.decode("utf-8")
                    break
