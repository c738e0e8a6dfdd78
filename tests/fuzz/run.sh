#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the reader's libFuzzer target with clang (address + undefined) and
# run it for a bounded time on the seed corpus. Skips without clang's
# libFuzzer. FUZZ_SECONDS (default 60) bounds the run.
set -u
cd "$(dirname "$0")/../.."
command -v clang >/dev/null || { echo "SKIP: no clang"; exit 77; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
clang -std=c17 -g -O1 -D_GNU_SOURCE -DWBTOP_VERSION='"fuzz"' -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -Iinclude tests/fuzz/fuzz_reader.c src/record/format.c \
	src/record/reader.c src/sample.c -lzstd -lm -o "$T/fuzz_reader" 2>"$T/cc.log" ||
	{ grep -q "fuzzer" "$T/cc.log" && { echo "SKIP: clang has no libFuzzer runtime"; exit 77; }; cat "$T/cc.log"; exit 1; }
mkdir -p "$T/corpus"
cp tests/fuzz/corpus/* "$T/corpus/"
"$T/fuzz_reader" -max_total_time="${FUZZ_SECONDS:-60}" -timeout=10 -rss_limit_mb=1024 -artifact_prefix="$T/" \
	-print_final_stats=1 "$T/corpus" > "$T/fuzz.log" 2>&1
rc=$?
grep -E "stat::number_of_executed_units|stat::new_units_added" "$T/fuzz.log"
if [ $rc != 0 ]; then
	tail -40 "$T/fuzz.log"
	for c in "$T"/crash-* "$T"/leak-* "$T"/timeout-*; do [ -f "$c" ] && od -c "$c" | head -20; done
	echo "0 passed, 1 failed"
	exit 1
fi
echo "1 passed, 0 failed"
