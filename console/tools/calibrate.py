"""`chgk-console calibrate`: find the top's sensor zero and direction and store them in the config.

Contract:

* :func:`main_calibrate` (synchronous, runs its own event loop) and :func:`run_calibration`
  (the same as a coroutine) load the config, check that the calibration can be written
  into it (:func:`~console.tools.calibration_store.check_storable`: before the measurement, so an
  unwritable file or directory costs the host nothing), open the real
  :class:`~drivers.mcu_serial.McuLink` on the angle source's port (``port`` overrides it),
  guide the host through the ritual of :func:`console.engine.sectors.calibrate` in Russian
  on ``stdout`` (each line of ``stdin`` is one press of Enter), and on success set
  ``table.zero_offset_deg`` and ``table.clockwise_increases`` in the config file with
  :func:`~console.tools.calibration_store.store_calibration` (tomlkit, style-preserving, atomic,
  with a ``.bak``).  Every message goes to ``stdout``: the refusals are part of the
  dialogue with the host.
* Exit status: 0 when the calibration was written and re-read; 1 for everything else (a bad
  config, an unwritable one, no link, implausible readings, end of input at a prompt, a
  failed write); 130 on Ctrl+C.  Unless the status is 0 the config file is left as it was.
  Ctrl+C once the file is being written no longer interrupts: the outcome is reported as
  it is.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TextIO

from console.config import Config, ConfigError
from console.engine.spin.sectors import (
    MIN_DIRECTION_TURN_DEG,
    RAW_PER_TURN,
    Calibration,
    CalibrationError,
    calibrate,
    circular_mean_raw,
    raw_to_deg,
)
from console.games import load_config
from console.games.chgk.config import TableSection
from console.sources.mcu import SerialMcuSettings, SimulatedMcuSettings
from console.tools.calibration_store import (
    KEY_COMMENTS,
    StoredCalibration,
    StoreError,
    check_storable,
    format_offset,
    set_table_keys,
    signals_held,
    store_calibration,
)
from drivers.mcu_serial import AngleReading, McuLink, PadEdge
from firmware_proto import AngleStatus

__all__ = [
    "CLOCKWISE_WORDS",
    "KEY_COMMENTS",
    "PROMPT_TURN",
    "PROMPT_ZERO",
    "StoreError",
    "StoredCalibration",
    "find_angle_source",
    "format_offset",
    "main_calibrate",
    "run_calibration",
    "set_table_keys",
    "store_calibration",
]


PROMPT_ZERO = "Поставьте стрелку волчка точно на границу перед сектором 1 и нажмите Enter"
PROMPT_TURN = (
    "Поверните волчок по часовой стрелке примерно на четверть сектора (несколько градусов) "
    "и нажмите Enter"
)
CLOCKWISE_WORDS = {
    True: "показания растут по часовой стрелке",
    False: "показания растут против часовой стрелки",
}

WINDOW_S = 0.5  # readings averaged per step: ~100 at 200 Hz, enough to average out ±3 LSB
# Fewer readings than this in a window means the stream is stalling: the mean is not trusted.
MIN_READINGS = 10
# An arrow at rest reads within ±3 LSB (±0.26°), twice that with a weak magnet; a reading
# further than this from the window's mean means the arrow moved or the sensor is unfit.
MAX_SPREAD_DEG = 1.0
# A board that resets when its port opens (DTR) needs a second or two to boot and answer.
CONNECT_TIMEOUT_S = 5.0
FIRST_READING_TIMEOUT_S = 2.0  # after the handshake: a sensor streams at tens of Hz at least
# A window is over when a reading stamped after its end arrives; if none comes this long after
# the end, the stream has stopped.
STALL_S = 1.0
# Between the two windows only readings this far (in counts, 1.4°) from the last one kept are
# kept: a waiting host costs no memory, and consecutive kept readings stay far closer than
# the half turn that unwrapping the turn needs.
PATH_STEP_COUNTS = 16

_OK_STATUS = int(AngleStatus.MAGNET_DETECTED)
_HALF_TURN = RAW_PER_TURN // 2


# -- the angle source ---------------------------------------------------------------------------------


def find_angle_source(config: Config) -> tuple[str, SerialMcuSettings | SimulatedMcuSettings]:
    """The ``[sources.NAME]`` that reads the top: ``table.angle_source`` if set, else the only
    serial_mcu / simulated_mcu source.  Raises ConfigError naming the file and
    ``table.angle_source`` when there is none, several, or the named one cannot read it."""
    key = "table.angle_source"
    named = config.section(TableSection).angle_source
    if named:
        source = config.sources.get(named)
        if source is None:
            raise ConfigError(config.source, key,
                              f"источника {named!r} нет в [sources] (есть: {', '.join(config.sources)})")
        if not isinstance(source, SerialMcuSettings | SimulatedMcuSettings):
            raise ConfigError(config.source, key,
                              f"источник {named!r} вида {source.kind!r} не передаёт угол волчка: "
                              f"нужен serial_mcu или simulated_mcu")
        return named, source
    mcus = {name: s for name, s in config.sources.items()
            if isinstance(s, SerialMcuSettings | SimulatedMcuSettings)}
    candidates = list(mcus)
    if not candidates:
        raise ConfigError(config.source, key,
                          "нет источника, читающего датчик волчка: добавьте [sources.ИМЯ] "
                          'с kind = "serial_mcu" и укажите его здесь')
    if len(candidates) > 1:
        raise ConfigError(config.source, key,
                          f"источников МК несколько ({', '.join(candidates)}): укажите, "
                          f"какой из них читает датчик волчка")
    return candidates[0], mcus[candidates[0]]


# -- the ritual ---------------------------------------------------------------------------------------


class _Refused(Exception):
    """The calibration stops here; the message (Russian) tells the host what to do."""


@dataclass(slots=True)
class _Recorder:
    """Sorts the sensor's readings (McuLink's ``on_angle``, on the loop thread) by their MCU
    time into the zero window, the turn and the final window.

    Windows are judged by ``at_ns`` (when the MCU read the sensor, on the host's clock), not
    by arrival: a reading taken before Enter but delivered after it is not counted.
    """

    window_ns: int
    zero_start: int | None = None
    final_start: int | None = None
    zero: list[int] = field(default_factory=list)
    turn: list[int] = field(default_factory=list)  # thinned, see PATH_STEP_COUNTS
    final: list[int] = field(default_factory=list)
    faults: list[int] = field(default_factory=list)  # statuses other than "magnet OK"
    first: asyncio.Event = field(default_factory=asyncio.Event)
    _deadline: int | None = None
    _passed: asyncio.Event = field(default_factory=asyncio.Event)

    def on_angle(self, reading: AngleReading) -> None:
        self.first.set()
        at = reading.at_ns
        if self.zero_start is not None and at >= self.zero_start:
            if reading.status != _OK_STATUS:
                # A mounting fault: the raw value is garbage (no magnet) or unreliable.
                self.faults.append(reading.status)
            elif at < self.zero_start + self.window_ns:
                self.zero.append(reading.raw)
            elif self.final_start is None or at < self.final_start:
                self._track(reading.raw)
            elif at < self.final_start + self.window_ns:
                self.final.append(reading.raw)
        if self._deadline is not None and at >= self._deadline:
            self._passed.set()

    def _track(self, raw: int) -> None:
        reference = self.turn[-1] if self.turn else self.zero[-1] if self.zero else None
        if reference is None or abs(_wrapped_step(reference, raw)) >= PATH_STEP_COUNTS:
            self.turn.append(raw)

    async def wait_until(self, deadline_ns: int, timeout_s: float) -> bool:
        """Wait for a reading stamped at or after ``deadline_ns``; False after ``timeout_s``."""
        self._deadline = deadline_ns
        self._passed.clear()
        try:
            async with asyncio.timeout(timeout_s):
                await self._passed.wait()
        except TimeoutError:
            return False
        finally:
            self._deadline = None
        return True


@dataclass(slots=True)
class _LinkWatch:
    """McuLink's status reports: whether it is (still) connected, and the driver's last word."""

    detail: str = ""
    connected: bool = False
    incompatible: bool = False
    dropped: bool = False  # disconnected after having been connected
    settled: asyncio.Event = field(default_factory=asyncio.Event)  # connected or incompatible

    def on_status(self, state: str, detail: str) -> None:
        self.detail = detail
        if state == "connected":
            self.connected = True
            self.settled.set()
        elif state == "incompatible":
            self.incompatible = True
            self.settled.set()
        elif state == "disconnected" and self.connected:
            # Only a lost port drops readings; «resyncing» (the clock re-seeded) loses none.
            self.dropped = True


def main_calibrate(config_path: str, stdin: TextIO, stdout: TextIO, *, port: str | None = None) -> int:
    """`chgk-console calibrate`: see the module docstring; returns the exit status.

    Runs its own event loop (asyncio.run), so it must not be called from a running loop:
    use :func:`run_calibration` there.
    """
    try:
        return asyncio.run(run_calibration(config_path, stdin, stdout, port=port))
    except KeyboardInterrupt:
        _say(stdout, "\nКалибровка прервана (Ctrl+C).")
        return 130


async def run_calibration(
    config_path: str,
    stdin: TextIO,
    stdout: TextIO,
    *,
    port: str | None = None,
    connect_timeout: float = CONNECT_TIMEOUT_S,
    window_s: float = WINDOW_S,
) -> int:
    """The coroutine behind :func:`main_calibrate` (same contract); ``connect_timeout`` is how
    long to wait for the MCU, ``window_s`` how long each step reads the sensor."""
    try:
        config = load_config(config_path)
        name, source = find_angle_source(config)
    except ConfigError as exc:
        _say(stdout, f"chgk-console calibrate: {exc}")
        return 1
    device = port or (source.port if isinstance(source, SerialMcuSettings) else "")
    if not device:
        _say(stdout, f"chgk-console calibrate: {config_path}: sources.{name}: это симулятор МК "
                     f"(simulated_mcu), у него нет последовательного порта: укажите порт в --port")
        return 1
    try:
        check_storable(config_path)
    except StoreError as exc:
        _say(stdout, f"chgk-console calibrate: калибровку некуда будет записать: {exc}.\n"
                     f"Конфигурация не изменена.")
        return 1
    _say(stdout, f"Калибровка датчика угла волчка: конфигурация {config_path}, "
                 f"источник sources.{name}, порт {device}.")
    recorder = _Recorder(window_ns=round(window_s * 1e9))
    watch = _LinkWatch()
    link = McuLink(device, name=f"calibrate:{name}", baudrate=source.baudrate, on_edge=_ignore_edge,
                   on_angle=recorder.on_angle, on_status=watch.on_status, on_error=_ignore_error)
    task = asyncio.create_task(link.run(), name="calibrate-mcu")
    try:
        await _connect(device, name, recorder, watch, connect_timeout)
        _say(stdout, "Связь с МК есть, датчик угла присылает показания.")
        calibration = await _ritual(stdin, stdout, recorder, watch, window_s)
    except _Refused as exc:
        _say(stdout, f"{exc}\nКонфигурация не изменена.")
        return 1
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    # From here the outcome is the file's: a Ctrl+C that came before the write is honoured
    # (the task was cancelled: nothing is written), one that comes during it is held off,
    # so that "прервана" is never said of a file that was written.
    with signals_held():
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise asyncio.CancelledError
        try:
            # Blocking file I/O on the loop is fine here: the link is closed, nothing else runs.
            stored = store_calibration(config_path, calibration)
        except StoreError as exc:
            _say(stdout, f"Калибровка не записана: {exc}.")
            return 1
        _say(stdout, f"Записано в {stored.path}: zero_offset_deg = {format_offset(stored.zero_offset_deg)}, "
                     f"clockwise_increases = {'true' if stored.clockwise_increases else 'false'} "
                     f"(прежний файл: {stored.backup}).")
        _say(stdout, "Конфигурация перечитана и верна. Запустите консоль снова (chgk-console run), "
                     "чтобы она работала с новой калибровкой.")
    return 0


async def _connect(device: str, name: str, recorder: _Recorder, watch: _LinkWatch, within_s: float) -> None:
    """Wait for the handshake and the first reading; raises _Refused saying what is wrong."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(within_s):
            await watch.settled.wait()
    driver = f"\nДрайвер: {watch.detail}" if watch.detail else ""
    if watch.incompatible:
        raise _Refused(f"МК на порту {device} говорит на другой версии протокола: обновите прошивку "
                       f"или консоль.{driver}")
    if not watch.connected:
        raise _Refused(
            f"Нет связи с МК на порту {device} за {within_s:g} с. Проверьте, что МК подключён, порт "
            f"указан верно (sources.{name}.port или --port) и не занят (остановите chgk-console run "
            f"на время калибровки).{driver}"
        )
    try:
        async with asyncio.timeout(FIRST_READING_TIMEOUT_S):
            await recorder.first.wait()
    except TimeoutError:
        raise _Refused(f"МК на порту {device} на связи, но за {FIRST_READING_TIMEOUT_S:g} с не прислал ни "
                       f"одного показания датчика угла: проверьте датчик и его подключение к МК.") from None


async def _ritual(stdin: TextIO, stdout: TextIO, recorder: _Recorder, watch: _LinkWatch,
                  window_s: float) -> Calibration:
    """The two steps; returns the calibration or raises _Refused."""
    _say(stdout, f"Шаг 1 из 2. {PROMPT_ZERO}.")
    await _enter(stdin)
    recorder.zero_start = time.monotonic_ns()
    await _read_window(recorder, watch, recorder.zero_start, window_s)
    zero_mean = _judge_window(recorder.zero, recorder.faults, window_s, "на границе сектора 1")
    _say(stdout, f"  Нуль датчика: {raw_to_deg(zero_mean):.2f}° ({len(recorder.zero)} показаний).")

    _say(stdout, f"Шаг 2 из 2. {PROMPT_TURN}. Нужно не меньше {MIN_DIRECTION_TURN_DEG:g}° "
                 f"и меньше полуоборота.")
    await _enter(stdin)
    recorder.final_start = time.monotonic_ns()
    await _read_window(recorder, watch, recorder.final_start, window_s)
    # A fault while the arrow was turned breaks the path the direction is read from.
    final_mean = _judge_window(recorder.final, recorder.faults, window_s, "после поворота")
    samples = [*recorder.turn, *recorder.final]
    # Shown and checked from mean to mean: the last reading alone carries its noise.
    travel = _travel_counts(zero_mean, samples) + _wrapped_step(samples[-1], final_mean)
    travel_deg = travel * 360.0 / RAW_PER_TURN
    if abs(travel_deg) < MIN_DIRECTION_TURN_DEG:
        raise _Refused(f"Стрелка сдвинулась всего на {abs(travel_deg):.1f}°: по такому сдвигу направление "
                       f"не определить. Повторите калибровку и на шаге 2 поверните волчок по часовой "
                       f"стрелке на {MIN_DIRECTION_TURN_DEG:g}–10°.")
    if abs(travel_deg) >= 180.0:
        raise _Refused(f"Стрелка повернулась на {abs(travel_deg):.0f}° — это полуоборот или больше, и "
                       f"направление не определить. Повторите калибровку и на шаге 2 поверните волчок "
                       f"всего на несколько градусов.")
    try:
        result = calibrate(recorder.zero, samples)
    except CalibrationError as exc:  # the checks above should have caught it; say so anyway
        raise _Refused(f"Показания не годятся для калибровки ({exc}). Повторите калибровку.") from exc
    _say(stdout, f"  Стрелка повернулась на {abs(travel_deg):.1f}°.")
    _say(stdout, f"Результат: нуль датчика (граница перед сектором 1) — "
                 f"{format_offset(result.zero_offset_deg)}°; {CLOCKWISE_WORDS[result.clockwise_increases]}.")
    return result


async def _read_window(recorder: _Recorder, watch: _LinkWatch, start_ns: int, window_s: float) -> None:
    if not await recorder.wait_until(start_ns + recorder.window_ns, window_s + STALL_S):
        if watch.dropped:
            raise _Refused(f"Связь с МК прервалась во время калибровки: проверьте кабель и повторите "
                           f"калибровку.\nДрайвер: {watch.detail}")
        raise _Refused("Показания датчика угла перестали приходить: проверьте датчик и его подключение "
                       "к МК и повторите калибровку.")
    if watch.dropped:  # reconnected meanwhile: the turn may have been missed
        raise _Refused("Связь с МК прерывалась во время калибровки: повторите калибровку.")


def _judge_window(readings: Sequence[int], faults: Sequence[int], window_s: float, where: str) -> float:
    """The circular mean of a window's readings, or _Refused naming what is wrong with them."""
    if faults:
        raise _Refused(f"{_fault_words(faults)}. Проверьте магнит под волчком (он должен быть по центру, "
                       f"в нескольких миллиметрах от датчика) и повторите калибровку.")
    if len(readings) < MIN_READINGS:
        raise _Refused(f"За {window_s:g} с пришло только {len(readings)} показаний датчика {where} (нужно "
                       f"не меньше {MIN_READINGS}): проверьте подключение датчика и повторите калибровку.")
    noisy = (f"Показания {where} скачут больше чем на ±{MAX_SPREAD_DEG:g}°: стрелка двигалась или "
             f"датчик шумит. Повторите калибровку, не касаясь волчка, пока идёт чтение; если не "
             f"поможет — проверьте крепление датчика и магнита.")
    try:
        mean = circular_mean_raw(readings)
    except CalibrationError as exc:
        raise _Refused(noisy) from exc
    spread_deg = max(abs(_wrapped_step(mean, raw)) for raw in readings) * 360.0 / RAW_PER_TURN
    if spread_deg > MAX_SPREAD_DEG:
        raise _Refused(noisy)
    return mean


def _fault_words(faults: Sequence[int]) -> str:
    statuses = set(faults)
    if any(not status & AngleStatus.MAGNET_DETECTED for status in statuses):
        what = "датчик не видит магнит"
    elif any(status & AngleStatus.MAGNET_TOO_WEAK for status in statuses):
        what = "поле магнита слишком слабое (магнит далеко от датчика)"
    else:
        what = "поле магнита слишком сильное (магнит слишком близко к датчику)"
    return f"Датчик угла сообщил о неисправности: {what} ({len(faults)} показаний)"


def _wrapped_step(start: float, end: float) -> float:
    """Signed counts from ``start`` to ``end`` the short way round, in [-2048, 2048)."""
    return (end - start + _HALF_TURN) % RAW_PER_TURN - _HALF_TURN


def _travel_counts(start: float, samples: Sequence[int]) -> float:
    """Net signed travel from ``start`` through ``samples`` (unwrapped like calibrate() does,
    so the Russian checks above agree with it)."""
    travel, previous = 0.0, start
    for raw in samples:
        travel += _wrapped_step(previous, raw)
        previous = raw
    return travel


async def _enter(stdin: TextIO) -> None:
    """Wait for the host's Enter (one line of ``stdin``); raises _Refused at end of input.

    The line is read in a daemon thread started for this one line: stdin may be a terminal,
    a pipe or a StringIO, and a thread blocked on a terminal must not keep Ctrl+C from
    ending the program (the loop's default executor would wait for it).
    """
    loop = asyncio.get_running_loop()
    line: asyncio.Future[str] = loop.create_future()

    def deliver(text: str) -> None:
        if not line.done():
            line.set_result(text)

    def read() -> None:
        try:
            text = stdin.readline()
        except (OSError, ValueError):  # a closed stdin is the end of input too
            text = ""
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody is waiting
            loop.call_soon_threadsafe(deliver, text)

    threading.Thread(target=read, name="calibrate-stdin", daemon=True).start()
    if not await line:
        raise _Refused("Ввод закончился, а Enter так и не нажали: калибровка прервана.")


def _say(stdout: TextIO, text: str) -> None:
    stdout.write(text + "\n")
    stdout.flush()  # the host reads each prompt before acting on it


def _ignore_edge(edge: PadEdge) -> None:
    """Pad presses mean nothing during calibration."""


def _ignore_error(message: str) -> None:
    """Protocol hiccups (a lost frame or two) do not spoil a half-second average; a stalled
    stream or a lost link is caught by the ritual itself."""

