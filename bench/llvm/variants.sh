# Sourced by the benchmark scripts of bench/llvm: their defaults, the sqlite3
# source, a median, and the variants of one `clang-19 -O2 -c` compile, so
# that every script runs exactly the same ones.
#   base    no plugin
#   null    a plugin registering the same callbacks with empty bodies
#           (bench/llvm/null_plugin.cc): what LLVM spends calling any
#           instrumentation at all
#   record  passtiming's plugin, every pass recorded, nothing written
#   plugin  passtiming's plugin, every pass recorded, the JSON profile written
#           (the figure the target is about)
#   ftime   -ftime-report, LLVM's own pass timing
# The caller sets PLUGIN (DEFAULT_PLUGIN unless told otherwise); CLANG and
# NULL_PLUGIN come from the environment or the defaults below. A compile is then
#   env $(variant_env V DIR) [WRAPPER...] "$CLANG" $(variant_flags V) -O2 -c SRC -o OUT
# with the wrapper (taskset, valgrind) between the environment and clang, so
# that the environment reaches clang whatever the wrapper does with its own.
# Paths must hold no spaces: the words are split by the shell.

PASSTIMING_BENCH_VARIANTS=(base null record plugin ftime)

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DEFAULT_PLUGIN="$ROOT/build/tools/passtiming/libpasstiming_llvm.so"
NULL_PLUGIN="${NULL_PLUGIN:-$ROOT/build/adapters/llvm/libpasstiming_null_plugin.so}"
CLANG="${CLANG:-clang-19}"
SQLITE_INPUTS="$ROOT/bench/.inputs"
SQLITE_SOURCE="$SQLITE_INPUTS/better-sqlite3/deps/sqlite3/sqlite3.c"

# fetch_sqlite3: the SQLite amalgamation as shipped in the npm package
# better-sqlite3@12, unpacked into bench/.inputs/ (gitignored, never
# committed) unless it is there already.
fetch_sqlite3() {
  [[ -f "$SQLITE_SOURCE" ]] && return 0
  mkdir -p "$SQLITE_INPUTS"
  echo "fetching better-sqlite3@12 with npm pack" >&2
  (cd "$SQLITE_INPUTS" && npm pack --silent better-sqlite3@12 >/dev/null)
  local tarball
  tarball="$(ls -t "$SQLITE_INPUTS"/better-sqlite3-12*.tgz | head -1)"
  rm -rf "$SQLITE_INPUTS/better-sqlite3" && mkdir -p "$SQLITE_INPUTS/better-sqlite3"
  tar -xzf "$tarball" -C "$SQLITE_INPUTS/better-sqlite3" --strip-components=1
}

# variant_env VARIANT DIR: the variant's environment assignments; a profile,
# if the variant writes one, goes to DIR/VARIANT.json.
variant_env() {
  case "$1" in
    record) echo PASSTIMING_REPORT=off ;;
    plugin) echo PASSTIMING_REPORT=off PASSTIMING_PROFILE="$2/$1.json" ;;
    base | null | ftime) ;;
    *) echo "unknown variant '$1' (one of: ${PASSTIMING_BENCH_VARIANTS[*]})" >&2; return 2 ;;
  esac
}

# variant_flags VARIANT: what the variant adds to clang's command line.
variant_flags() {
  case "$1" in
    null) echo -fpass-plugin="$NULL_PLUGIN" ;;
    record | plugin) echo -fpass-plugin="$PLUGIN" ;;
    ftime) echo -ftime-report ;;
    base) ;;
    *) echo "unknown variant '$1' (one of: ${PASSTIMING_BENCH_VARIANTS[*]})" >&2; return 2 ;;
  esac
}

# median: the median of the numbers on standard input, one a line.
median() {
  sort -n | awk '{ v[NR] = $1 } END {
    if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
