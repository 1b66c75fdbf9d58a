# Helpers shared by the quick-start scripts (sourced, not run).

# apt_install PKG...: install the Debian packages that are not installed yet (sudo unless root).
apt_install() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing Debian packages: ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# make_venv: create .venv with the first Python >= 3.11 found.
make_venv() {
  [ -x .venv/bin/python ] && return 0
  local py
  for py in python3.13 python3.12 python3.11 python3; do
    if command -v "$py" >/dev/null && "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
      "$py" -m venv .venv
      return 0
    fi
  done
  echo "chgk-console needs Python 3.11 or newer" >&2
  return 1
}

# arm64_emulation: run the Pi's arm64 binaries here (the install test's second root):
# qemu-user-static registered with binfmt_misc, which is mounted first where it is not yet (a
# container's /proc). Says why and returns 1 where the kernel does not allow it.
arm64_emulation() {
  apt_install qemu-user-static binfmt-support
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
    $sudo mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || {
      echo "arm64 emulation: cannot mount binfmt_misc here" >&2; return 1; }
  fi
  [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || $sudo update-binfmts --enable qemu-aarch64 || {
    echo "arm64 emulation: qemu-aarch64 could not be registered" >&2; return 1; }
}
