#!/usr/bin/env bash
# Vendor MQTT.js's browser bundle for the hall's pages (console/data/vendor/):
#
#   scripts/vendor-mqttjs.sh [VERSION]
#
# `npm pack mqtt@VERSION` (default: the pinned version below) into a temporary directory,
# then copy the package's browser bundle dist/mqtt.min.js (its package.json "exports" ->
# "browser" -> "default") and its LICENSE.md into console/data/vendor/, and rewrite
# console/data/vendor/README.md with the version, the tarball's integrity and the bundle's
# sha256 (tests/test_pages_login.py checks that sha256 against the file). The files are
# committed: nothing is fetched at run time or in CI; only this script talks to the registry.
# To update: run it with the new version, run the page tests, change PINNED below, commit.
set -euo pipefail

PINNED="5.16.0"
version="${1:-$PINNED}"
root="$(cd "$(dirname "$0")/.." && pwd)"
vendor="$root/console/data/vendor"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# npm pack checks the tarball against the registry's integrity hash before writing it.
(cd "$work" && npm pack --silent "mqtt@$version" >/dev/null)
tarball="$(ls "$work"/mqtt-*.tgz)"
integrity="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
tar -xzf "$tarball" -C "$work"
packed_version="$(node -p 'require(process.argv[1]).version' "$work/package/package.json")"
[ "$packed_version" = "$version" ] || { echo "npm packed $packed_version, not $version" >&2; exit 1; }
browser="$(node -p 'require(process.argv[1]).exports["."].browser.default' "$work/package/package.json")"
[ "$browser" = "./dist/mqtt.min.js" ] || { echo "the browser bundle moved to $browser" >&2; exit 1; }

mkdir -p "$vendor"
cp "$work/package/dist/mqtt.min.js" "$vendor/mqtt.min.js"
cp "$work/package/LICENSE.md" "$vendor/LICENSE-mqtt.md"
sha256="$(sha256sum "$vendor/mqtt.min.js" | cut -d' ' -f1)"

cat >"$vendor/README.md" <<EOF
# Vendored browser libraries

Written by \`scripts/vendor-mqttjs.sh\`; do not edit by hand.

The hall's pages (scoreboard.html, table.html, timer.html, through hall.js) talk MQTT over
WebSocket with MQTT.js's browser bundle, served by the console's display server at
\`/vendor/mqtt.min.js\`. It is committed here so nothing is fetched at run time or in CI.

| file | package | version | licence |
|------|---------|---------|---------|
| mqtt.min.js | [mqtt](https://www.npmjs.com/package/mqtt) (MQTT.js), \`dist/mqtt.min.js\` | $version | MIT, LICENSE-mqtt.md |

- npm tarball integrity: \`$integrity\`
- sha256 of mqtt.min.js: \`$sha256\`

The bundle also carries MQTT.js's own dependencies as its maintainers built them (buffer,
events, readable-stream and the like; MIT, except ieee754: BSD-3-Clause); the comment at the
end of mqtt.min.js, "Bundled license information", names those that carry a notice.

To update: \`scripts/vendor-mqttjs.sh NEW_VERSION\`, run \`tests/test_scoreboard.py\`,
\`tests/test_pages_login.py\` and \`tests/test_run_games.py\`, set PINNED in the script, commit
the three files here together with the script.
EOF
echo "vendored mqtt@$version: $vendor/mqtt.min.js sha256 $sha256"
