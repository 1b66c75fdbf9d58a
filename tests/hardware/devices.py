"""Where the real devices of this machine are, for tests/hardware (docs/hardware-tests.md).

Contract: each device comes from its environment variable when set, else from the installed
console config (``CHGK_HW_CONFIG``, default ``/etc/chgk-console/console.toml``), else from a
default (the button box's ``/dev/chgk-buttons``, the install script's udev name; the first Buzz!
on the USB bus; PortAudio's default output). A device named by its environment variable or by
the config is required: if it is not there the test fails. A device known only by default is
optional: if it is not there the test is skipped, with a message naming the variable that would
make it required. So a club without Buzz! sees a skip, and a club that says it has one sees a
failure when it is unplugged.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest

from console.config import Config
from console.games import load_config

CONFIG = "CHGK_HW_CONFIG"
BUTTONS = "CHGK_HW_BUTTONS"
BUZZ = "CHGK_HW_BUZZ"
GPIO_PINS = "CHGK_HW_GPIO_PINS"
LAMP_PINS = "CHGK_HW_LAMP_PINS"
GPIO_LOOPBACK = "CHGK_HW_GPIO_LOOPBACK"
KEYS = "CHGK_HW_KEYS"
SOUND = "CHGK_HW_SOUND"

DEFAULT_CONFIG = "/etc/chgk-console/console.toml"
DEFAULT_BUTTONS = "/dev/chgk-buttons"  # scripts/install-pi.sh's udev rule


@dataclass(frozen=True)
class Wanted:
    """A device: its name (a path, pins...), whether it was asked for explicitly, and whence."""

    value: str
    env: str  # the environment variable that names it
    whence: str = ""  # where it came from ("" = from `env`)
    required: bool = True  # False: only a default

    def absent(self, why: str) -> NoReturn:
        """Not there: a failure if it was asked for, else a skip saying how to ask for it."""
        if self.required:
            pytest.fail(f"{self.value or '(default)'} (from {self.whence or self.env}): {why}")
        pytest.skip(f"{self.value or '(default)'} ({self.whence}): {why}; set {self.env} to require it "
                    f"(docs/hardware-tests.md)")


def installed_config() -> Config | None:
    """The console config of this machine, None when there is none (a config that does not
    load is a failure: the console would not start with it either)."""
    path = os.environ.get(CONFIG, DEFAULT_CONFIG)
    if not Path(path).exists():
        if CONFIG in os.environ:
            pytest.fail(f"{CONFIG}={path}: no such file")
        return None
    return load_config(path)


def from_env(name: str) -> Wanted | None:
    value = os.environ.get(name)
    return None if value is None else Wanted(value.strip(), name)


def button_box() -> Wanted:
    return from_env(BUTTONS) or Wanted(DEFAULT_BUTTONS, BUTTONS, "the install script's udev name", False)


def pins(text: str, whence: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.replace(",", " ").split())
    except ValueError:
        pytest.fail(f"{whence}={text!r}: BCM pin numbers separated by commas, e.g. 17,27")


def gpio_pins(env: str, field: str) -> tuple[tuple[int, ...], Wanted]:
    """The BCM pins of the GPIO buttons (`field` = "pins") or their lamps ("lamp_pins"): from
    `env`, else from every [sources.X] of kind "gpio" in the installed config."""
    wanted = from_env(env)
    if wanted is not None:
        return pins(wanted.value, env), wanted
    config = installed_config()
    found: list[int] = []
    if config is not None:
        for section in config.sources.values():
            if section.kind == "gpio":
                found.extend(getattr(section, field))
    where = f"{field} of the gpio sources in {os.environ.get(CONFIG, DEFAULT_CONFIG)}"
    return tuple(found), Wanted(",".join(map(str, found)) or "no pins", env, where, bool(found))


def key_device() -> Wanted | None:
    """The host's key device: $CHGK_HW_KEYS, else the config's first [host.keys] evdev device."""
    wanted = from_env(KEYS)
    if wanted is not None:
        return wanted
    config = installed_config()
    if config is not None:
        for keys in config.host.keys:
            if keys.kind == "evdev":
                return Wanted(keys.device, KEYS, f"[host.keys] in {config.source}")
    return None


def sound_device() -> Wanted | None:
    """The sound output ("" = PortAudio's default): $CHGK_HW_SOUND, else the config's [sound]
    device; None when the config turns sound off."""
    wanted = from_env(SOUND)
    if wanted is not None:
        return wanted
    config = installed_config()
    if config is None:
        return Wanted("", SOUND, "PortAudio's default output", False)
    if not config.sound.enabled:
        return None
    return Wanted(config.sound.device, SOUND, f"[sound] device in {config.source}")


def is_raspberry_pi() -> bool:
    try:
        return "Raspberry Pi" in Path("/proc/device-tree/model").read_text(errors="replace")
    except OSError:
        return False
