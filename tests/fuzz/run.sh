#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build one libFuzzer target (tests/fuzz/NAME.c) with clang, address and
# undefined sanitizers that halt on the first report, and run it for
# FUZZ_SECONDS (default 15) on its seed corpus (tests/fuzz/corpus/<seeds>).
# A finding fails the test and prints the input. Skips without clang's
# libFuzzer. The core (every src/ file but main.c and the curses UI, plus
# the theme parser) is built once per source state into FUZZ_CACHE.
#   run.sh NAME [extra libFuzzer args...]
set -u
name=${1:?usage: run.sh NAME [libFuzzer args]}; shift
cd "$(dirname "$0")/../.."
command -v clang >/dev/null || { echo "SKIP: no clang"; exit 77; }
[ -f "tests/fuzz/$name.c" ] || { echo "no harness tests/fuzz/$name.c"; exit 1; }
seeds=${name#fuzz_}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
SAN=(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all)
# the libraries the core may use (those this machine has), and the core's files as meson lists them
pkgs=$(for p in libproc2 libtracefs libtraceevent libzstd inih libmicrohttpd zlib; do
	pkg-config --exists $p && echo $p; done)
CFLAGS=(-std=c17 -g -O1 -D_GNU_SOURCE -DWBTOP_VERSION='"fuzz"' -DFIXTURES="\"$PWD/tests/fixtures\""
	-Iinclude $(pkg-config --cflags $pkgs))
LIBS=$(pkg-config --libs $pkgs)
core="$(sed -n '/^core_src = files(/,/)/p' meson.build | grep -o "'src/[^']*\.c'" | tr -d "'") src/ui/theme.c src/ui/config.c src/ui/layout.c"
[ -n "${core% src/ui/theme.c src/ui/config.c src/ui/layout.c}" ] || { echo "no core_src in meson.build"; exit 1; }

# the core library, keyed by the sources' contents; one builder at a time
key=$(cat $core include/wbtop/*.h src/*/*.h tests/fuzz/run.sh | sha1sum | cut -c1-12)
cache=${FUZZ_CACHE:-${TMPDIR:-/tmp}/wbtop-fuzz-$(id -u)}
mkdir -p "$cache"
exec 9>"$cache/lock"
flock 9
if [ ! -f "$cache/core-$key.a" ]; then
	mkdir -p "$cache/obj-$key"
	for f in $core; do
		o="$cache/obj-$key/$(echo "$f" | tr / _).o"
		clang "${CFLAGS[@]}" "${SAN[@]}" -c "$f" -o "$o" 2>"$T/cc.log" || { cat "$T/cc.log"; exit 1; }
	done
	ar rcs "$cache/core-$key.a.tmp" "$cache/obj-$key"/*.o && mv "$cache/core-$key.a.tmp" "$cache/core-$key.a"
	rm -rf "$cache/obj-$key"
fi
flock -u 9
clang "${CFLAGS[@]}" -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all "tests/fuzz/$name.c" \
	"$cache/core-$key.a" $LIBS -lm -o "$T/$name" 2>"$T/cc.log" ||
	{ grep -q "fuzzer" "$T/cc.log" && { echo "SKIP: clang has no libFuzzer runtime"; exit 77; }; cat "$T/cc.log"; exit 1; }
mkdir -p "$T/corpus"
cp "tests/fuzz/corpus/$seeds"/* "$T/corpus/" 2>/dev/null
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
"$T/$name" -max_total_time="${FUZZ_SECONDS:-15}" -timeout=10 -rss_limit_mb=1024 -artifact_prefix="$T/" \
	-print_final_stats=1 "$@" "$T/corpus" > "$T/fuzz.log" 2>&1
rc=$?
grep -E "stat::number_of_executed_units|stat::new_units_added|^#[0-9]+[[:space:]]+DONE" "$T/fuzz.log"
if [ $rc != 0 ]; then
	grep -v "^#[0-9]" "$T/fuzz.log" | tail -60
	for c in "$T"/crash-* "$T"/leak-* "$T"/timeout-* "$T"/oom-*; do
		[ -f "$c" ] || continue
		echo "input ($(stat -c %s "$c") bytes, base64):"; base64 -w 76 "$c" | head -40
	done
	echo "0 passed, 1 failed"
	exit 1
fi
echo "1 passed, 0 failed"
