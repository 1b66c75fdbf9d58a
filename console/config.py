"""The console's configuration: a TOML file read into frozen dataclasses.

Contract: `read_config(path)` / `parse_config(data, source)` return a `Config` whose every
key has the right type and range and whose sources and players fit together, or raise
`ConfigError` whose message names the file, the key and what is wrong with it. Unknown keys
are errors (a typo must not be silently ignored on game day). Every key has a default; the
shipped `config/console.toml` documents each one.

What a game's own rules make of the config (the number of players, special sectors, ...) is
the game's to check: `console.games.load_config` is what the console reads configs with.
This module knows no game, so the games may import it.
"""

from __future__ import annotations

import difflib
import math
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, ClassVar, Protocol, TypeGuard, TypeVar

from console import mqtt_tls
from console.sources import SourceSettings, source_kind
from console.sources import kinds as source_kinds
from drivers.evdev_keys import EVDEV, STREAM, EvdevMissing, key_code, key_names
from drivers.evdev_keys import KINDS as KEY_DEVICE_KINDS


class ConfigError(ValueError):
    """A bad configuration: `str()` names the file, the key and the problem."""

    def __init__(self, source: str, key: str, problem: str) -> None:
        # A problem of the whole file (not TOML, not found) has no key: "-" or "".
        super().__init__(f"{source}: {problem}" if key in ("", "-") else f"{source}: {key}: {problem}")
        self.source, self.key, self.problem = source, key, problem


@dataclass(frozen=True)
class ConsoleSection:
    node: str = "table1"  # the MQTT node name: topics are <prefix>/<node>/...
    journal: str = ""  # JSON Lines file of every input, for replay after a dispute ("" = none)
    resume: bool = True  # at start, resume the fight of today's journal (console/shell/resume.py)
    log_level: str = "info"
    held_button_s: float = 5.0  # a pad down this long is reported once, and its release (0 = never)


@dataclass(frozen=True)
class GameSection:
    kind: str = "svoya"
    themes: int = 0  # 0: until the host stops
    values: tuple[int, ...] = (10, 20, 30, 40, 50)
    signal_window_s: float = 7.0
    answer_window_s: float = 3.0
    answer_clock: str = "host"
    false_start: str = "ignore"
    false_start_lockout_s: float = 2.0
    tie_policy: str = "random"
    tie_window_us: int = 0  # 0: the coarsest source resolution
    lost_source_wait_s: float = 30.0  # a question waits this long for a lost button source
    # Every player's (team's) buttons of one kind: no wired button beside a phone, whose touch
    # pipeline is 10-30 ms slower (docs/phones.md): a fight of equals.
    one_input_kind: bool = False
    seed: int = 0  # 0: a fresh seed at start, logged so a replay can reuse it
    pack: str = ""  # svoya: a question pack (.siq or TOML, docs/packs.md), relative to this file
    pack_dir: str = "packs"  # svoya: the packs the host may choose on the tablet, relative to this file


@dataclass(frozen=True)
class PlayerSection:
    id: str
    name: str
    pad: str


@dataclass(frozen=True)
class KeyBinding:
    """One line ``KEY_SPACE = "reading_finished"`` of a key device (docs/host-keys.md)."""

    key: str  # the key's name as written (linux/input-event-codes.h)
    code: int
    action: str  # a host action of the game (checked by console.games)


@dataclass(frozen=True)
class KeyDeviceSection:
    """A keyboard, clicker or pedal read through evdev (``[host.keys]`` or ``[[host.keys]]``)."""

    device: str  # a /dev/input path (best its /dev/input/by-id/ link) or the device's name
    kind: str = "evdev"  # "stream": a pty/FIFO of raw input_event records (tests only)
    bindings: tuple[KeyBinding, ...] = ()  # every KEY_*/BTN_* line
    where: str = field(default="host.keys", compare=False)  # its config key, for messages

    @property
    def name(self) -> str:
        """How its status and errors are reported: "keys:<the device's file or name>"."""
        return f"keys:{self.device.rstrip('/').rpartition('/')[2]}"


@dataclass(frozen=True)
class PedalSection:
    """A GPIO pedal or key of the host (``[[host.pedals]]``), wired to ground."""

    pin: int  # BCM pin
    action: str = "reading_finished"  # a host action of the game
    pin_factory: str = ""  # gpiozero pin factory ("" = gpiozero's choice, "mock" for tests)


@dataclass(frozen=True)
class HostSection:
    max_delay_ms: float = 20.0  # worst-case delay of a host key reaching the console
    pedal_pin: int = -1  # BCM pin of the host's foot pedal (-1: none)
    pedal_action: str = "reading_finished"  # what the pedal does (a host action)
    pedal_pin_factory: str = ""  # gpiozero pin factory for the pedal ("" = gpiozero's choice)
    keys: tuple[KeyDeviceSection, ...] = ()  # [host.keys] / [[host.keys]]: keyboards, clickers
    pedals: tuple[PedalSection, ...] = ()  # [[host.pedals]]: several GPIO pedals, each its action

    def all_pedals(self) -> tuple[tuple[str, PedalSection], ...]:
        """(status name, pedal) of each pedal: pedal_pin is "pedal", [[host.pedals]] "pedal:<pin>"."""
        old = ((("pedal", PedalSection(self.pedal_pin, self.pedal_action, self.pedal_pin_factory)),)
               if self.pedal_pin >= 0 else ())
        return old + tuple((f"pedal:{p.pin}", p) for p in self.pedals)

    def actions(self) -> tuple[tuple[str, str], ...]:
        """(config key, action) of the pedal, every [[host.pedals]] and key binding, for the game
        to check (each game has its own actions)."""
        pedal = (("host.pedal_action", self.pedal_action),) if self.pedal_pin >= 0 else ()
        return (pedal + tuple((f"host.pedals[{i}].action", p.action) for i, p in enumerate(self.pedals, 1))
                + tuple((f"{k.where}.{b.key}", b.action) for k in self.keys for b in k.bindings))


@dataclass(frozen=True)
class MqttSection:
    host: str = ""  # "" starts the embedded broker on loopback (demo; no mosquitto needed)
    port: int = 1883
    ws_port: int = 9001  # embedded broker only: WebSocket listener for browser displays
    prefix: str = "chgk"
    username: str = ""
    password: str = ""
    tls: bool = False  # TLS to the broker (port 8883 as a rule; docs/broker.md)
    ca_file: str = ""  # tls: the CA of the broker's certificate ("" = the system's trust store)
    cert_file: str = ""  # tls: a client certificate ("" = none); relative to this file
    key_file: str = ""  # tls: its key ("" = in cert_file)
    tls_insecure: bool = False  # tls: the broker's host name not checked (never by default)

    def tls_settings(self) -> mqtt_tls.TlsSettings | None:
        """What the MQTT link needs for TLS; None without it."""
        return (mqtt_tls.TlsSettings(self.ca_file, self.cert_file, self.key_file, self.tls_insecure)
                if self.tls else None)


@dataclass(frozen=True)
class DisplaySection:
    http_port: int = 8080  # the scoreboard page for the hall's screens (0 = off)
    bind: str = "0.0.0.0"  # where to serve it: all interfaces, so a TV on the LAN can open it
    # The broker account the served pages log in with ("display" of scripts/mosquitto-passwords.sh:
    # it reads the public topics only). "" = anonymous, which only the embedded demo broker takes.
    # Every page carries the password: anyone who can load a board can read it.
    mqtt_username: str = ""
    mqtt_password: str = field(default="", repr=False)


@dataclass(frozen=True)
class SoundSection:
    enabled: bool = True
    device: str = ""  # "" = the default output; otherwise a PortAudio/ALSA device name
    volume: float = 0.8


@dataclass(frozen=True)
class OscSection:
    """Cues out as OSC messages (QLab, a lighting desk): off unless enabled."""

    enabled: bool = False
    host: str = "127.0.0.1"  # where to send them (the show computer)
    port: int = 53000  # QLab's OSC port
    address: str = "/chgk"  # each cue is <address>/cue/<name>, with the node as its argument


class Section(Protocol):
    """A game's config section: a frozen dataclass whose every key has a default, named
    ``[SECTION]`` in the TOML file (console/games/<game>/config.py)."""

    SECTION: ClassVar[str]

    def __init__(self) -> None: ...


S = TypeVar("S", bound=Section)
T = TypeVar("T")
SectionParser = Callable[[Mapping[str, Any], str], object]  # (the whole config, its file) -> a section


@dataclass(frozen=True)
class GameSections:
    """What the games add to a config: their sections' parsers by top-level key, and the
    allowed values of their keys ("section.key" -> choices, [game]'s included)."""

    parsers: Mapping[str, SectionParser] = field(default_factory=dict)
    choices: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Config:
    source: str
    console: ConsoleSection = field(default_factory=ConsoleSection)
    game: GameSection = field(default_factory=GameSection)
    players: tuple[PlayerSection, ...] = ()
    sources: Mapping[str, SourceSettings] = field(default_factory=dict)
    host: HostSection = field(default_factory=HostSection)
    mqtt: MqttSection = field(default_factory=MqttSection)
    sound: SoundSection = field(default_factory=SoundSection)
    osc: OscSection = field(default_factory=OscSection)
    display: DisplaySection = field(default_factory=DisplaySection)
    # The games' own sections ([table], [quartet], ...) by their top-level key, parsed by the
    # games (console.games: each game's config module); read them with `section`.
    sections: Mapping[str, object] = field(default_factory=dict)

    def section(self, cls: type[S]) -> S:
        """A game's section of this config: its parsed record, or its defaults when this
        config was built without it (a test's Config, a scenario of another game)."""
        found = self.sections.get(cls.SECTION)
        return found if isinstance(found, cls) else cls()


_CHOICES: dict[str, tuple[str, ...]] = {
    "sources.kind": source_kinds(),
    "console.log_level": ("debug", "info", "warning", "error"),
}
_MAY_BE_NEGATIVE = {"pedal_pin", "presence_pin"}  # -1 means "none"
# http_port may be 0 (off); the other ports must be real ones.
_POSITIVE = {"signal_window_s", "answer_window_s", "false_start_lockout_s", "lost_source_wait_s",
             "baudrate", "pads",
             "resolution_us", "port", "ws_port"}
# Upper bounds of numbers (a TCP port is 16 bits; the volume is a fraction of full scale).
_AT_MOST = {"port": 65535, "ws_port": 65535, "http_port": 65535, "volume": 1.0}


def read_toml(path: str | Path) -> dict[str, Any]:
    """A TOML file's tables; a UTF-8 byte-order mark (Windows Notepad writes one) is no
    problem. Raises what `open` and `tomllib` raise."""
    with open(path, "rb") as f:
        raw = f.read()
    text = raw.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
    return tomllib.loads(text)


def read_config(path: str | Path, games: GameSections | None = None) -> Config:
    """Read a TOML config file and check it (see the module docstring); `games` as in
    `parse_config`."""
    source = str(path)
    try:
        data = read_toml(path)
    except FileNotFoundError as exc:
        raise ConfigError(source, "-", "file not found") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(source, "-", f"not valid TOML ({exc})") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(source, "-", f"not valid TOML (not UTF-8 text: {exc.reason} "
                                       f"at byte {exc.start})") from exc
    except RecursionError as exc:
        raise ConfigError(source, "-", "not valid TOML (arrays or tables nested too deeply)") from exc
    except OSError as exc:  # a directory, no permission, an unreadable card
        raise ConfigError(source, "-", f"cannot read it ({exc.strerror or exc})") from exc
    return parse_config(data, source, games)


def parse_config(data: Mapping[str, Any], source: str, games: GameSections | None = None) -> Config:
    """Check an already-parsed config (the TOML file's, or a replay scenario's header); the
    games' sections and choices come from `games` (console.games passes every game's)."""
    games = games or GameSections()
    choices = {**_CHOICES, **games.choices}
    known = {"console", "game", "players", "sources", "host", "mqtt", "sound", "osc", "display",
             *games.parsers}
    for key in data:
        if key not in known:
            raise ConfigError(source, key, f"unknown section (known: {', '.join(sorted(known))})")
    players_raw = data.get("players", [])
    if not isinstance(players_raw, list):
        raise ConfigError(source, "players", "must be an array of tables ([[players]])")
    sources_raw = data.get("sources", {})
    if not isinstance(sources_raw, dict):
        raise ConfigError(source, "sources", "must be a table of sources ([sources.NAME])")
    config = Config(
        source=source,
        console=_section(ConsoleSection, data.get("console", {}), "console", source),
        game=_section(GameSection, data.get("game", {}), "game", source, choices),
        players=tuple(_section(PlayerSection, p, f"players[{i}]", source)
                      for i, p in enumerate(players_raw, 1)),
        sources={name: _source_section(s, f"sources.{name}", source) for name, s in sources_raw.items()},
        host=_host_section(data.get("host", {}), source),
        mqtt=_mqtt_section(data.get("mqtt", {}), source),
        sound=_section(SoundSection, data.get("sound", {}), "sound", source),
        osc=_osc_section(data.get("osc", {}), source),
        display=_section(DisplaySection, data.get("display", {}), "display", source),
        sections={key: parse(data, source) for key, parse in games.parsers.items()},
    )
    _check_cross_references(config)
    return config


def _osc_section(raw: object, source: str) -> OscSection:
    osc: OscSection = _section(OscSection, raw, "osc", source)
    if not osc.address.startswith("/") or " " in osc.address:
        raise ConfigError(source, "osc.address", f"an OSC address starts with / and has no spaces, "
                                                 f"got {osc.address!r}")
    return osc


def _source_section(raw: object, where: str, source: str) -> SourceSettings:
    """A `[sources.NAME]` table as its kind's settings (the class its backend module declares:
    console/sources); a table whose kind is missing or unknown is refused by the shared keys."""
    kind = raw.get("kind") if isinstance(raw, dict) else None
    if not isinstance(raw, dict) or not isinstance(kind, str) or kind not in source_kinds():
        shared = {k: v for k, v in raw.items() if k == "kind"} if isinstance(raw, dict) else raw
        refused: SourceSettings = _section(SourceSettings, shared, where, source)  # says what is wrong
        return refused
    settings = source_kind(kind).settings()
    own = {f.name for f in fields(settings)}
    if not own.issuperset(raw):
        # One table may hold every kind's keys (config/console.toml's template does): another
        # kind's key is left unread, as it always was; a key no kind reads is refused.
        others = {f.name for name in source_kinds() for f in fields(source_kind(name).settings())}
        raw = {key: value for key, value in raw.items() if key in own or key not in others}
    section: SourceSettings = _section(settings, raw, where, source)
    return section


def parse_section(cls: type[T], raw: object, where: str, source: str,
                  choices: Mapping[str, tuple[str, ...]] | None = None) -> T:
    """A game's section `cls` from its TOML table `raw` (``where``: its key in messages), each
    key checked as the shared sections' are: its type, `choices` ("section.key" -> the allowed
    values), and the section's own `POSITIVE` and `MAY_BE_NEGATIVE` keys."""
    section: T = _section(cls, raw, where, source, {**_CHOICES, **(choices or {})})
    return section


def parse_array(data: Mapping[str, Any], key: str, source: str) -> list[Any]:
    """The array of tables ``[[key]]`` of `data` (empty when absent)."""
    return _array(data, key, source)


def _array(data: Mapping[str, Any], key: str, source: str) -> list[Any]:
    raw = data.get(key, [])
    if not isinstance(raw, list):
        raise ConfigError(source, key, f"must be an array of tables ([[{key}]])")
    return raw


def _section(cls: type[Any], raw: object, where: str, source: str,
             choices: Mapping[str, tuple[str, ...]] = _CHOICES) -> Any:
    if not isinstance(raw, dict):
        raise ConfigError(source, where, "must be a table")
    spec = {f.name: f for f in fields(cls)}
    positive = _POSITIVE | getattr(cls, "POSITIVE", frozenset())  # a game's section adds its own
    may_be_negative = _MAY_BE_NEGATIVE | getattr(cls, "MAY_BE_NEGATIVE", frozenset())
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in spec:
            raise ConfigError(source, f"{where}.{key}",
                              f"unknown key (known: {', '.join(sorted(spec))})")
        values[key] = _coerce(value, str(spec[key].type), f"{where}.{key}", source)
    for name, f in spec.items():
        if name not in values and f.default is f.default_factory is _MISSING:
            raise ConfigError(source, f"{where}.{name}", "is required")
    for key, value in values.items():
        choice_key = f"{where.split('.')[0].split('[')[0]}.{key}"
        if choice_key in choices and value not in choices[choice_key]:
            raise ConfigError(source, f"{where}.{key}",
                              f"{value!r} is not one of {', '.join(choices[choice_key])}")
        if key in positive and isinstance(value, int | float) and value <= 0:
            raise ConfigError(source, f"{where}.{key}", f"must be positive, got {value}")
        is_number = isinstance(value, int | float) and not isinstance(value, bool)
        if is_number and value < 0 and key not in may_be_negative:
            raise ConfigError(source, f"{where}.{key}", f"must not be negative, got {value}")
        if is_number and key in _AT_MOST and value > _AT_MOST[key]:
            raise ConfigError(source, f"{where}.{key}", f"must be at most {_AT_MOST[key]}, got {value}")
    return cls(**values)


_MISSING: Any = fields(PlayerSection)[0].default  # dataclasses.MISSING, without importing it


def _host_section(raw: object, source: str) -> HostSection:
    """[host], whose keys and pedals are tables of their own (docs/host-keys.md)."""
    if not isinstance(raw, dict):
        raise ConfigError(source, "host", "must be a table")
    host: HostSection = _section(HostSection, {k: v for k, v in raw.items() if k not in ("keys", "pedals")},
                                 "host", source)
    keys = raw.get("keys", [])
    if isinstance(keys, dict):  # [host.keys]: one device
        devices = [_key_device(keys, "host.keys", source)]
    elif isinstance(keys, list):  # [[host.keys]]: several
        devices = [_key_device(d, f"host.keys[{i}]", source) for i, d in enumerate(keys, 1)]
    else:
        raise ConfigError(source, "host.keys", "must be a table ([host.keys]) or tables ([[host.keys]])")
    for i, d in enumerate(devices):
        for other in devices[:i]:
            if other.device == d.device:
                raise ConfigError(source, f"{d.where}.device", f"{d.device!r} is already {other.where}'s")
    pedals = raw.get("pedals", [])
    if not isinstance(pedals, list):
        raise ConfigError(source, "host.pedals", "must be an array of tables ([[host.pedals]])")
    return replace(host, keys=tuple(devices), pedals=tuple(
        _section(PedalSection, p, f"host.pedals[{i}]", source) for i, p in enumerate(pedals, 1)))


def _key_device(raw: object, where: str, source: str) -> KeyDeviceSection:
    """One key device: `device`, `kind`, and a KEY_*/BTN_* = "action" line per key."""
    if not isinstance(raw, dict):
        raise ConfigError(source, where, "must be a table")
    device, kind = raw.get("device"), raw.get("kind", EVDEV)
    if not isinstance(device, str) or not device:
        raise ConfigError(source, f"{where}.device", "is required: a /dev/input/by-id/... path or the "
                                                     "device's name (docs/host-keys.md)")
    if kind not in KEY_DEVICE_KINDS:
        raise ConfigError(source, f"{where}.kind", f"{kind!r} is not one of {', '.join(KEY_DEVICE_KINDS)}")
    if kind == STREAM and not device.startswith("/"):
        raise ConfigError(source, f"{where}.device", "a stream device is a path")
    bindings: list[KeyBinding] = []
    for key, action in raw.items():
        if key in ("device", "kind"):
            continue
        if not key.startswith(("KEY_", "BTN_")):
            raise ConfigError(source, f"{where}.{key}", "unknown key (known: device, kind, and key "
                                                        "names such as KEY_SPACE or BTN_LEFT, in capitals)")
        try:
            code = key_code(key)
        except EvdevMissing as exc:
            raise ConfigError(source, f"{where}.{key}", str(exc)) from None
        if code is None:
            close = difflib.get_close_matches(key, key_names(), n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            raise ConfigError(source, f"{where}.{key}", f"unknown key code {key!r} (the names of linux/"
                                                        f"input-event-codes.h, as evtest shows them){hint}")
        if not isinstance(action, str) or not action:
            raise ConfigError(source, f"{where}.{key}", f"expected a host action (a string), got {action!r}")
        for other in bindings:
            if other.code == code:
                raise ConfigError(source, f"{where}.{key}", f"the same key as {where}.{other.key} "
                                                            f"(code {code}): a key has one action")
        bindings.append(KeyBinding(key, code, action))
    if not bindings:
        raise ConfigError(source, where, 'maps no key: add lines such as KEY_SPACE = "reading_finished"')
    return KeyDeviceSection(device, kind, tuple(bindings), where)


def _coerce(value: object, type_name: str, key: str, source: str) -> object:
    """Check a TOML value against the field's annotated type (as written in this module)."""
    if type_name == "bool":
        ok = isinstance(value, bool)
    elif type_name == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif type_name == "float":
        ok = finite_number(value)
        value = float(value) if ok else value  # type: ignore[arg-type]
    elif type_name == "str":
        ok = isinstance(value, str)
    elif type_name == "tuple[float, ...]":
        ok = isinstance(value, list) and all(finite_number(v) for v in value)
        if ok and isinstance(value, list):
            value = tuple(float(v) for v in value)
    elif type_name == "tuple[str, ...]":
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        value = tuple(value) if ok else value  # type: ignore[arg-type]
    elif type_name == "tuple[int, ...]":
        ok = isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool)
                                             for v in value)
        value = tuple(value) if ok else value  # type: ignore[arg-type]
    else:  # pragma: no cover - a field type this loader does not know is a programming error
        raise TypeError(f"no TOML coercion for {type_name}")
    if not ok:
        raise ConfigError(source, key, f"expected {_TYPE_WORDS[type_name]}, got {value!r}")
    return value


def finite_number(value: object) -> TypeGuard[int | float]:
    """A number (of a config or a scenario) a float can hold: not a bool, nan, inf, or an
    integer too big for a float."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


_TYPE_WORDS = {"bool": "true or false", "int": "an integer", "float": "a finite number",
               "str": "a string", "tuple[str, ...]": "an array of strings",
               "tuple[int, ...]": "an array of integers",
               "tuple[float, ...]": "an array of finite numbers"}


def _check_topic_names(config: Config) -> None:
    """The node and the prefix are parts of every MQTT topic: an MQTT wildcard or an empty
    level there would subscribe the displays to other tables' topics, or to none."""
    names = {"console.node": config.console.node, "mqtt.prefix": config.mqtt.prefix}
    for key, name in names.items():
        levels = name.split("/") if key == "mqtt.prefix" else [name]
        if not name or any(not level for level in levels):
            raise ConfigError(config.source, key, f"{name!r}: an MQTT topic level may not be empty")
        for bad in ("+", "#", "/") if key == "console.node" else ("+", "#"):
            if bad in name:
                raise ConfigError(config.source, key, f"{name!r} may not contain {bad!r} "
                                                      "(an MQTT wildcard or level separator)")


def _check_broker_host(config: Config) -> None:
    """A host name the resolver would refuse (an empty or over-long label) is a typo."""
    host = config.mqtt.host
    try:
        host.encode("idna")
    except UnicodeError as exc:
        raise ConfigError(config.source, "mqtt.host", f"{host!r} is not a valid host name ({exc})") from exc


def _mqtt_section(raw: object, source: str) -> MqttSection:
    """[mqtt], its TLS files relative to the config file's folder and checked (docs/broker.md)."""
    mqtt: MqttSection = _section(MqttSection, raw, "mqtt", source)
    folder = Path(source).parent

    def near(path: str) -> str:
        return str(folder / path) if path else ""

    mqtt = replace(mqtt, ca_file=near(mqtt.ca_file), cert_file=near(mqtt.cert_file),
                   key_file=near(mqtt.key_file))
    if not mqtt.tls:
        for key in ("ca_file", "cert_file", "key_file", "tls_insecure"):
            if getattr(mqtt, key):
                # Set by someone who believes the link is encrypted: it would not be.
                raise ConfigError(source, f"mqtt.{key}", "is set but mqtt.tls is false: set tls = true "
                                                         "(or remove the key)")
        return mqtt
    if not mqtt.host:
        raise ConfigError(source, "mqtt.tls", "the embedded broker (mqtt.host = \"\") has no TLS: "
                                              "name a broker with a TLS listener (docs/broker.md)")
    found = mqtt_tls.problem(mqtt_tls.TlsSettings(mqtt.ca_file, mqtt.cert_file, mqtt.key_file))
    if found is not None:
        raise ConfigError(source, f"mqtt.{found[0]}", found[1])
    return mqtt


def _check_cross_references(config: Config) -> None:
    src = config.source
    _check_topic_names(config)
    _check_broker_host(config)
    pedal = config.host.pedal_pin
    if pedal >= 0 and "pedal" in config.sources:
        raise ConfigError(src, "sources.pedal", "the name 'pedal' is the host's foot pedal's "
                                                "(host.pedal_pin): give this source another name")
    pedal_pins = {pedal: "host.pedal_pin"} if pedal >= 0 else {}
    for i, ped in enumerate(config.host.pedals, 1):
        key = f"host.pedals[{i}].pin"
        if ped.pin in pedal_pins:
            raise ConfigError(src, key, f"pin {ped.pin} is already {pedal_pins[ped.pin]}'s: one pin, one key")
        pedal_pins[ped.pin] = key
    host_inputs = {n for n, _p in config.host.all_pedals()} | {k.name for k in config.host.keys}
    for name, s in config.sources.items():
        problem = s.problem()
        if problem is not None:
            key, what = problem
            raise ConfigError(src, f"sources.{name}{'.' + key if key else ''}", what)
        if pedal >= 0 and pedal in s.gpio_pins():
            raise ConfigError(src, "host.pedal_pin", f"pin {pedal} is already sources.{name}'s: a pin "
                                                     "is either a player's or the host's pedal")
        for i, ped in enumerate(config.host.pedals, 1):
            if ped.pin in s.gpio_pins():
                raise ConfigError(src, f"host.pedals[{i}].pin", f"pin {ped.pin} is already sources.{name}'s: "
                                                                "a pin is either a player's or a pedal")
        if name in host_inputs:
            raise ConfigError(src, f"sources.{name}", f"the name {name!r} is a host key's or pedal's: "
                                                      "give this source another name")
    for i, p in enumerate(config.players, 1):
        source, _, index = p.pad.partition(":")
        if source not in config.sources:
            raise ConfigError(src, f"players[{i}].pad",
                              f"{p.pad!r} names source {source!r}, which is not in [sources]")
        if not index.isdigit():
            raise ConfigError(src, f"players[{i}].pad", f"{p.pad!r} should look like '{source}:0'")
        s = config.sources[source]
        limit = s.pad_count()
        if int(index) >= limit:
            raise ConfigError(src, f"players[{i}].pad",
                              f"{p.pad!r}: source {source!r} has pads 0..{limit - 1}")
