#!/usr/bin/env bash
# Refresh the vendored plotly.js: the basic partial bundle (scatter, bar, pie — the app
# draws scatter and bar), minified, with its licence and version. Dev-time only: the package never fetches anything.
#   scripts/build_plotly.sh [version]      (default: the version in explorer/frontend/vendor/plotly.VERSION)
set -euo pipefail
cd "$(dirname "$0")/.."
VENDOR=explorer/frontend/vendor
VERSION="${1:-$(awk '{print $2}' "$VENDOR/plotly.VERSION")}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
(cd "$WORK" && npm pack --silent "plotly.js-basic-dist-min@$VERSION" >/dev/null && tar xzf ./*.tgz)
cp "$WORK/package/plotly-basic.min.js" "$VENDOR/plotly.min.js"
cp "$WORK/package/LICENSE" "$VENDOR/plotly.LICENSE"
echo "plotly.js-basic-dist-min $VERSION" > "$VENDOR/plotly.VERSION"
echo "vendored plotly.js basic $VERSION ($(wc -c < "$VENDOR/plotly.min.js") bytes)"
