#!/usr/bin/env bash
# Renders docs/html-report.png, the README's picture of the HTML report: a
# real TileLang compile (examples/tilelang/gemm.py, lowered by TileLang under
# `passtiming run`) through `passtiming convert --to html`, shot by headless
# Chromium.  Usage: make_screenshot.sh BUILD_DIR
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:?usage: make_screenshot.sh BUILD_DIR}"
python="$("$root/scripts/python_env.sh" tilelang)/bin/python"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$build/tools/passtiming/passtiming" run --no-report --events "$work/gemm-%n.jsonl" \
  -- "$python" "$root/examples/tilelang/gemm.py" >/dev/null
"$build/tools/passtiming/passtiming" convert "$work/gemm-0.jsonl" --to html \
  --title "Pass timing report: examples/tilelang/gemm.py" -o "$work/report.html"
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$work/profile" --hide-scrollbars --window-size=1400,860 \
  --screenshot="$root/docs/html-report.png" "file://$work/report.html" 2>/dev/null
echo "wrote $root/docs/html-report.png"
