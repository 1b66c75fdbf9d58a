"""The shipped demo configs: DEMO_TOML («Своя игра») and DEMO_CHGK (the ChGK table), their files as
shipped; `demo_config(kind)`, a game's demo config for a demo test: on free ports, its board on
any port."""

from __future__ import annotations

from dataclasses import replace
from importlib import resources
from pathlib import Path

from console.config import Config
from console.games import game, load_config
from tests.conftest import free_port

__all__ = ["DEMO_CHGK", "DEMO_TOML", "demo_config"]

DATA = Path(__file__).resolve().parents[2] / "console" / "data"
DEMO_TOML = DATA / "demo.toml"
DEMO_CHGK = DATA / "demo-chgk.toml"


def demo_config(kind: str) -> Config:
    with resources.as_file(resources.files("console") / "data" / game(kind).demo_config) as path:
        config = load_config(path)
    return replace(config, mqtt=replace(config.mqtt, port=free_port(), ws_port=free_port()),
                   display=replace(config.display, http_port=0))
