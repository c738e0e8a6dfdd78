#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A replay's --openmetrics (the backfill) of a long recording: its memory does
# not grow with the recording (it held every sample's text, twice at the end:
# 945 MB for 22,500 samples), its temporary file leaves nothing behind, and a
# temporary file that cannot be made or written is said, exit 1.
set -u
W=${WBTOP:?} F=${FIXTURES:?} GEN=${SYNTH_REC:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
trap 'exit 143' TERM INT
n=0
fail() { echo "FAIL: $*"; exit 1; }
ok() { n=$((n + 1)); echo "ok $n - $*"; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }

# synthetic recordings (bench/bench_record.c: the fixture's 11 BDIs, counters moving)
"$GEN" "$F/6.18-writing" "$T/short.wbrec" 500 >/dev/null || fail "making the short recording"
"$GEN" "$F/6.18-writing" "$T/long.wbrec" 4000 >/dev/null || fail "making the long recording"
mkdir "$T/tmp"

# maxrss FILE: the peak RSS (KB) of the backfill of FILE, its output counted (lines, # EOF). Under
# AddressSanitizer freed memory waits in a quarantine of up to 256 MB, which grows with what a
# replay frees: none, so that the RSS is the program's (ignored by a build without ASan)
maxrss() {
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0 TMPDIR=$T/tmp python3 - "$W" "$1" <<'PY'
import os, subprocess, sys
p = subprocess.Popen([sys.argv[1], "--replay", sys.argv[2], "--batch", "--openmetrics"],
                     stdout=subprocess.PIPE)
lines = eofs = 0
for l in p.stdout:
    lines += 1
    eofs += l == b"# EOF\n"
_, status, ru = os.wait4(p.pid, 0)
print(ru.ru_maxrss, os.waitstatus_to_exitcode(status), lines, eofs)
PY
}
read -r rs rc_s ls es < <(maxrss "$T/short.wbrec")
read -r rl rc_l ll el < <(maxrss "$T/long.wbrec")
[ "$rc_s" = 0 ] && [ "$rc_l" = 0 ] && [ "$es" = 1 ] && [ "$el" = 1 ] || fail "backfill: rc $rc_s/$rc_l, # EOF $es/$el"
# every sample's series are there: 8x the samples, about 8x the lines (headers aside)
[ $(((ll - 200) / (ls - 200))) -ge 7 ] || fail "backfill: $ll lines for 4000 samples, $ls for 500"
# 3,500 samples more are ~75 MB of text here, held twice before; the bound leaves room for allocator noise
[ $((rl - rs)) -lt 30000 ] || fail "backfill: peak RSS $rs KB for 500 samples, $rl KB for 4000: grows with the recording"
[ -z "$(ls -A "$T/tmp")" ] || fail "backfill left files in TMPDIR: $(ls -A "$T/tmp")"
ok "backfill of 500 and 4000 samples: peak RSS $rs and $rl KB ($ls and $ll lines); nothing left in TMPDIR"

# the temporary file cannot be made: said with the directory, exit 1, no half exposition
TMPDIR=$T/none "$W" --replay "$T/long.wbrec" --batch --openmetrics >"$T/out" 2>"$T/err"; rc=$?
[ $rc = 1 ] && grep -q "^wbtop: --openmetrics: the temporary file in $T/none that holds the exposition until the end: No such file or directory" "$T/err" &&
	[ ! -s "$T/out" ] || fail "TMPDIR missing: rc $rc: $(head -c 300 "$T/err")"
# nor written (a file size limit of 1 MiB: EFBIG, as a full disk would be ENOSPC; the output comes
# only at the end, so its file stays empty under the same limit)
( ulimit -f 1024; TMPDIR=$T/tmp exec "$W" --replay "$T/long.wbrec" --batch --openmetrics >"$T/out" 2>"$T/err" ); rc=$?
[ $rc = 1 ] && grep -q "^wbtop: --openmetrics: the temporary file in $T/tmp that holds the exposition until the end: File too large" "$T/err" &&
	[ ! -s "$T/out" ] && [ -z "$(ls -A "$T/tmp")" ] || fail "temporary file limited: rc $rc: $(head -c 300 "$T/err")"
ok "a temporary file that cannot be made or written: said with its directory, nothing printed"

# a relative TMPDIR is from the current directory, as mktemp(1) takes it (it was ignored, and the
# file went to /tmp): the limited file is said in $T/tmp; an empty one is /tmp; a missing one is
# said with its whole path
( cd "$T" && ulimit -f 1024 && TMPDIR=tmp exec "$W" --replay "$T/long.wbrec" --batch --openmetrics >"$T/out" 2>"$T/err" ); rc=$?
[ $rc = 1 ] && grep -q "^wbtop: --openmetrics: the temporary file in $T/tmp that holds the exposition until the end: File too large" "$T/err" &&
	[ -z "$(ls -A "$T/tmp")" ] || fail "relative TMPDIR: rc $rc: $(head -c 300 "$T/err")"
( cd "$T" && TMPDIR=tmp exec "$W" --replay "$T/short.wbrec" --batch --openmetrics >"$T/out" 2>"$T/err" ); rc=$?
[ $rc = 0 ] && [ "$(tail -1 "$T/out")" = "# EOF" ] && [ -z "$(ls -A "$T/tmp")" ] || fail "relative TMPDIR: rc $rc: $(head -c 300 "$T/err")"
( cd "$T" && TMPDIR=none exec "$W" --replay "$T/short.wbrec" --batch --openmetrics >"$T/out" 2>"$T/err" ); rc=$?
[ $rc = 1 ] && grep -q "^wbtop: --openmetrics: the temporary file in $T/none that holds" "$T/err" &&
	[ ! -s "$T/out" ] || fail "relative TMPDIR missing: rc $rc: $(head -c 300 "$T/err")"
( ulimit -f 1024 && TMPDIR= exec "$W" --replay "$T/long.wbrec" --batch --openmetrics >"$T/out" 2>"$T/err" ); rc=$?
[ $rc = 1 ] && grep -q "^wbtop: --openmetrics: the temporary file in /tmp that holds" "$T/err" ||
	fail "empty TMPDIR: rc $rc: $(head -c 300 "$T/err")"
ok "a relative TMPDIR is taken from the current directory and named whole; an empty one is /tmp"
echo "$n passed, 0 failed"
