#!/usr/bin/env bash
# Quick start, part 1: install chgk-console into .venv and start it on the simulated table.
# Needs only Python 3.11+; installs python3-venv (and libportaudio2 for the cues) with apt
# when they are missing. Extra arguments go to `chgk-console demo` (e.g. --no-sound).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

need_apt=()
python3 -c 'import ensurepip' 2>/dev/null || need_apt+=(python3-venv)
ldconfig -p 2>/dev/null | grep -q libportaudio.so.2 || need_apt+=(libportaudio2)
if [ ${#need_apt[@]} -gt 0 ]; then
  apt_install "${need_apt[@]}" || echo "demo: could not install ${need_apt[*]}; continuing" >&2
fi
make_venv
.venv/bin/pip install --quiet .
exec .venv/bin/chgk-console demo "$@"
