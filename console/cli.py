"""The `chgk-console` command: run, demo, replay, check-config, bench."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from dataclasses import replace
from importlib import resources
from pathlib import Path

from console.config import Config, ConfigError
from console.games import game, load_config, names
from console.shell.event_loop import run_loop


def main(argv: list[str] | None = None) -> int:
    _open_missing_standard_fds()
    parser = argparse.ArgumentParser(prog="chgk-console", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run the console daemon with a config file")
    run.add_argument("--config", required=True, help="the TOML config (see config/console.toml)")
    run.add_argument("--pack", help="«Своя игра»: a question pack (.siq or TOML, docs/packs.md), "
                                    "instead of the config's game.pack")
    chosen = run.add_mutually_exclusive_group()
    chosen.add_argument("--resume", metavar="JOURNAL",
                        help="resume the fight of this journal with its own settings (players, rules, "
                             "pack), whatever the config says of them (docs/journal.md)")
    chosen.add_argument("--fresh", action="store_true",
                        help="start a fresh game: today's journal is set aside, not resumed")

    demo = sub.add_parser("demo", help="play on a simulated table from the terminal")
    demo.add_argument("--game", choices=[n for n in names() if game(n).demo], default="svoya",
                      help="«Своя игра» on buttons (default) or the «Что? Где? Когда?» table")
    demo.add_argument("--config", help="a config with a simulated_mcu source (default: built in)")
    demo.add_argument("--no-sound", action="store_true", help="do not play cues")
    demo.add_argument("--pack", help="a question pack to play (.siq or TOML, docs/packs.md), "
                                     "instead of the config's game.pack")

    avahi = sub.add_parser("avahi-service", help="print the avahi service file that names this console on "
                                                 "the network (/etc/avahi/services/chgk-console.service)")
    avahi.add_argument("--config", required=True, help="the console's config (its ports and node)")

    sim_box = sub.add_parser("sim-box", help="the simulated button box on its own pty, for rehearsing "
                                             "`run` on the real config without the hardware")
    sim_box.add_argument("--pads", type=int, default=4, help="its buttons (1-16, default 4)")
    sim_box.add_argument("--top", action="store_true", help="it also streams the ChGK table's top (the "
                                                            "angle sensor); the key s spins it")
    sim_box.add_argument("--link", help="a symlink to its pty to put in the config (stable across "
                                        "unplugs), e.g. /tmp/chgk-box")

    calibrate = sub.add_parser("calibrate", help="find the top sensor's zero and direction; store them")
    calibrate.add_argument("--config", required=True, help="the config to read the source from and update")
    calibrate.add_argument("--port", help="the serial port, overriding the config's")

    replay = sub.add_parser("replay", help="replay a JSON Lines scenario; events to stdout")
    replay.add_argument("file")

    check = sub.add_parser("check-config", help="check a config file and exit")
    check.add_argument("file")

    export = sub.add_parser("export", help="a fight's or an evening's protocol from the journals: CSV, "
                                           "JSON and printable HTML («Своя игра», «Брейн-ринг»)")
    export.add_argument("journal", nargs="+", help="a journal, or an evening's journals in their order")
    export.add_argument("--out", default=".", help="the folder to write them to (default: here)")

    bench = sub.add_parser("bench", help="measure the console (see docs/performance.md)")
    bench.add_argument("what", choices=["latency", "table", "display", "noise", "storm", "press-path",
                                        "resume", "cpu", "sheet", "phones"])
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--samples", type=int,
                       help="latency, display, press-path: presses to measure (300, 200, 300); "
                            "phones: questions per gap (20)")
    bench.add_argument("--journal", action="store_true",
                       help="latency: the daemon keeps its journal, as the shipped config does")
    bench.add_argument("--seconds", type=float,
                       help="table: how long to stream angles (60); storm: to chatter (10)")

    tournament = sub.add_parser("tournament", help="the «Эрудит-квартет» tournament (docs/tournament.md)")
    tournament.add_argument("--config", required=True, help="the TOML config (see config/tournament.toml)")
    tournament.add_argument("--export", metavar="DIR", help="write standings.csv and tournament.json; exit")
    season = sub.add_parser("season", help="a season of «Что? То? Там?» or the Belgorod championship "
                                           "(docs/tournament.md)")
    season.add_argument("--config", required=True, help="the TOML config (see config/season.toml)")
    season.add_argument("--backup", metavar="FILE", help="copy the season's database to FILE; exit")

    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    if args.command == "check-config":
        return _check_config(args.file)
    if args.command == "export":
        return _export(args.journal, args.out)
    if args.command == "replay":
        from console.tools.replay import replay_file

        return replay_file(args.file, sys.stdout, sys.stderr)
    if args.command == "bench":
        if args.what == "storm":
            from bench.storm import main as bench_storm

            return bench_storm(seconds=args.seconds or 10.0, as_json=args.json)
        if args.what == "cpu":
            from bench.cpu import main as bench_cpu

            return bench_cpu(samples=args.samples or 2000, as_json=args.json)
        if args.what == "press-path":
            from bench.press_path import main as bench_press_path

            return bench_press_path(samples=args.samples or 300, as_json=args.json)
        if args.what == "noise":
            from bench.noise import main as bench_noise

            return bench_noise(as_json=args.json)
        if args.what == "table":
            from bench.table import main as bench_table

            return bench_table(seconds=args.seconds or 60.0, as_json=args.json)
        if args.what == "display":
            from bench.display import main as bench_display

            return bench_display(samples=args.samples or 200, as_json=args.json)
        if args.what == "sheet":
            from bench.sheet import main as bench_sheet

            return bench_sheet(as_json=args.json)
        if args.what == "phones":
            from bench.phones import main as bench_phones

            return bench_phones(samples=args.samples or 20, as_json=args.json)
        if args.what == "resume":
            from bench.resume import main as bench_resume

            return bench_resume(as_json=args.json)
        from bench.latency import main as bench_latency

        return bench_latency(samples=args.samples or 300, as_json=args.json, journal=args.journal)
    if args.command == "calibrate":
        from console.tools.calibrate import main_calibrate

        return main_calibrate(args.config, sys.stdin, sys.stdout, port=args.port)
    if args.command == "demo":
        return _demo(args.config, args.game, sound=not args.no_sound, pack=args.pack)
    if args.command == "avahi-service":
        from console.shell.mdns import service_file

        config = _load_or_exit(args.config)
        assert isinstance(config, Config)
        print(service_file(config), end="")
        return 0
    if args.command == "sim-box":
        from console.tools.sim_box import main_sim_box

        return main_sim_box(args.pads, args.link, sys.stdin, sys.stdout, top=args.top)
    if args.command == "season":
        from console.season.cli import main_season

        return main_season(args.config, args.backup)
    if args.command == "tournament":
        from console.tournament.cli import main_tournament

        return main_tournament(args.config, args.export)
    return _run(args.config, args.pack, resume_file=args.resume, fresh=args.fresh)


def _open_missing_standard_fds() -> None:
    """Started with stdin, stdout or stderr closed (`<&-`, some init scripts), the process's
    next file would take its number: uvloop's epoll descriptor as fd 0 makes uvloop abort.
    Each closed one gets /dev/null."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)


def _export(journals: list[str], out: str) -> int:
    from console.tools.export import ExportError, export

    try:
        for path in export([Path(j) for j in journals], Path(out), warn=sys.stderr):
            print(path)
    except ExportError as exc:
        print(f"chgk-console export: {exc}", file=sys.stderr)
        return 1
    return 0


def _check_config(path: str) -> int:
    from console.tools.check_config import check_config

    return check_config(path, sys.stdout, sys.stderr)


def _load_or_exit(path: str) -> object:
    try:
        return load_config(path)
    except ConfigError as exc:
        print(f"chgk-console: {exc}", file=sys.stderr)
        raise SystemExit(1) from exc


def _run(path: str, pack: str | None = None, *, resume_file: str | None = None, fresh: bool = False) -> int:
    from console.shell.daemon import run_daemon

    config = _load_or_exit(path)
    assert isinstance(config, Config)
    config = _with_pack(config, pack)
    logging.getLogger().setLevel(config.console.log_level.upper())
    done = run_loop(run_daemon(config, path, resume_file=resume_file, fresh=fresh))
    if isinstance(done, Path):
        # The host chose to resume a journal with its own settings: this process becomes
        # `run --resume` on it (the same pid: systemd keeps watching the same service).
        logging.getLogger("chgk").info("starting again to resume %s with its own settings", done)
        os.execv(sys.executable, [sys.executable, "-m", "console.cli", "run", "--config", path,
                                  "--resume", str(done)])
    return done


def _with_pack(config: Config, pack: str | None) -> Config:
    """`config` playing `pack` (--pack), a path relative to where the command runs (the
    config's game.pack is relative to the config file)."""
    if pack is None:
        return config
    return replace(config, game=replace(config.game, pack=str(Path(pack).resolve())))


def _demo(path: str | None, kind: str, *, sound: bool, pack: str | None = None) -> int:
    if path is None:
        with resources.as_file(resources.files("console") / "data" / game(kind).demo_config) as default:
            config = _load_or_exit(str(default))
    else:
        config = _load_or_exit(path)
    assert isinstance(config, Config)
    config = _with_pack(config, pack)
    # The screen is the demo's output; the log would scroll it away.
    logging.getLogger().setLevel(logging.WARNING)
    runner = game(config.game.kind).demo_runner()
    if runner is None:
        print(f"chgk-console: game.kind = {config.game.kind!r} has no terminal demo", file=sys.stderr)
        return 1
    try:
        return run_loop(runner(config, sys.stdin, sys.stdout, sound=sound))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
