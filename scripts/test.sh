#!/usr/bin/env bash
# Quick start, part 2: install what the tests need and run them (this is what CI runs).
# Debian packages: mosquitto (a real broker for the MQTT tests; the tests start their own on a
# free loopback port), mosquitto-clients (the benchmark's C subscriber), libportaudio2 (sound
# cues through ALSA), chromium (the scoreboard page is tested in a real browser),
# python3-venv, gcc, make, gcc-avr, avr-libc and libsimavr-dev (the button box firmware in
# firmware/ is built and run on simavr's ATmega328P, and its protocol core is checked against
# the Python codec), python3-dev and linux-libc-dev (python-evdev, the host's keys, builds its
# C extension against the kernel's input headers), avahi-daemon (the mDNS test publishes the
# console's service file with it). Then lint, type-check and test.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

apt_install mosquitto mosquitto-clients libportaudio2 chromium python3-venv python3-dev linux-libc-dev gcc make gcc-avr avr-libc libsimavr-dev avahi-daemon
make_venv
.venv/bin/pip install --quiet -e '.[test]'
echo "== ruff"; .venv/bin/ruff check .
echo "== mypy --strict"; .venv/bin/mypy
# The suite starts the console hundreds of times: let Python keep the modules it compiles
# (a machine that sets PYTHONDONTWRITEBYTECODE compiles every module at every start).
export PYTHONDONTWRITEBYTECODE=
if [ $# -gt 0 ]; then echo "== pytest $*"; exec .venv/bin/pytest "$@"; fi
# The suite in two passes (tests/conftest.py): in parallel, all but the tests judged against real
# time; then those, two at a time and nothing else beside them (they mostly wait: a stalled
# console, a simulated chip), so that the rest's load cannot make them late.
echo "== pytest (in parallel)"
if ! .venv/bin/pytest -n 2 -m "not timing"; then
    # A test judged late under this pass's load (two workers on two cores, each starting
    # daemons and browsers) is run once more with nothing beside it, as the second pass runs
    # its tests: it must pass there. A test that is wrong fails again, and so does the suite.
    echo "== pytest (what failed in parallel, again alone)"
    .venv/bin/pytest --last-failed --last-failed-no-failures none -m "not timing"
fi
echo "== pytest (timing: two at a time, nothing else)"; exec .venv/bin/pytest -n 2 -m timing
