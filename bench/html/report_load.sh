#!/usr/bin/env bash
# How long headless Chromium takes to open an HTML report: by default the
# report of `clang-19 -O2 -c sqlite3.c` (287,668 pass executions), made with
# `passtiming run` and `passtiming convert --to html`. Each round opens an
# empty page and every report once, in turn; quoted are the medians of the
# whole process (`chromium --headless --screenshot`, which returns once the
# page has loaded, its script has run and it has been drawn) and of each
# report's time over the empty page's.
#
# Usage: bench/html/report_load.sh [RUNS] [REPORT.html ...]
#   RUNS    rounds (default 5)
#   REPORT  pages to open (default: the sqlite3 report, built here)
# PASSTIMING=path of the passtiming binary (default: build/tools/passtiming/);
# CHROMIUM=the browser (default: chromium).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../llvm/variants.sh"
RUNS="${1:-5}"
shift || true
PASSTIMING="${PASSTIMING:-$ROOT/build/tools/passtiming/passtiming}"
CHROMIUM="${CHROMIUM:-chromium}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

PAGES=("$@")
if [[ ${#PAGES[@]} -eq 0 ]]; then
  [[ -x "$PASSTIMING" ]] || { echo "report_load: no passtiming at $PASSTIMING (build it)" >&2; exit 2; }
  fetch_sqlite3
  "$PASSTIMING" run --no-report -o "$WORK/sqlite3.json" -- \
    "$CLANG" -O2 -c "$SQLITE_SOURCE" -o "$WORK/sqlite3.o"
  "$PASSTIMING" convert "$WORK/sqlite3.json" --to html -o "$WORK/sqlite3.html"
  PAGES=("$WORK/sqlite3.html")
fi
echo '<!doctype html><title>empty</title>' >"$WORK/empty.html"

# open PAGE: seconds for Chromium to load, run and draw PAGE, then exit.
open_page() {
  local start end
  start=$(date +%s%N)
  "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --window-size=1280,1000 --user-data-dir="$WORK/profile" \
    --screenshot="$WORK/shot.png" "file://$(realpath "$1")" >/dev/null 2>&1
  end=$(date +%s%N)
  rm -rf "$WORK/profile"
  awk -v ns=$((end - start)) 'BEGIN { printf "%.3f\n", ns / 1e9 }'
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

ALL=("$WORK/empty.html" "${PAGES[@]}")
for ((round = 1; round <= RUNS; round++)); do
  for i in "${!ALL[@]}"; do
    open_page "${ALL[$i]}" >>"$WORK/times.$i"
  done
done
empty=$(median <"$WORK/times.0")
echo "empty page: median $empty s over $RUNS runs"
for i in "${!PAGES[@]}"; do
  page="${PAGES[$i]}"
  m=$(median <"$WORK/times.$((i + 1))")
  printf '%s (%s bytes): median %s s; %s s over the empty page\n' "$(basename "$page")" \
    "$(stat -c %s "$page")" "$m" "$(awk -v a="$m" -v b="$empty" 'BEGIN { printf "%.3f", a - b }')"
done
