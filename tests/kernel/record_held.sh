#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Root: the recorder keeps its pace while the machine is held over its dirty
# limit. A 0.5 MiB/s "stick" takes the whole limit (vm.dirty_bytes 60M) under
# writeback, so every process that dirties a page - the recorder writing its
# file on another device too - pauses in balance_dirty_pages for as long as
# that lasts. Before the recording's frames were written by a thread of their
# own, the recorder at -d 1 took 30 samples in 58 s here (gaps of 3-7 s, its
# main thread seen in balance_dirty_pages). Now: 20 samples about a second
# apart (none more than 2 s), the file whole, and the recorder's main thread
# never in balance_dirty_pages. The same for --openmetrics-file (about 30 KB
# rewritten a sample: 15 samples took 38 s before its thread, a gap of 7 s),
# run beside it: its samples a second apart, the file whole at the end. And
# for batch JSON written to a file on a disk (`wbtop -b --json > log`, through
# src/out/relay.c's thread): 20 samples, none more than 2 s apart, its main
# thread never in balance_dirty_pages (before the relay, two runs: seen there
# 304 times with a gap of 7.2 s, and 4 times). The machine is left as found
# (lib.sh).
. "$(dirname "$0")/lib.sh"
# pace FILE: the samples of a batch JSON file and the longest interval between two of them
pace() {
	python3 -c '
import json, sys
xs = [json.loads(l) for l in open(sys.argv[1])]
print(len(xs), round(max(b["mono"] - a["mono"] for a, b in zip(xs, xs[1:])), 2))' "$1"
}
# paced N GAP: the 20 samples taken, none more than 2 s after the one before
paced() { [ "$1" = 20 ] && python3 -c "import sys; sys.exit(float(sys.argv[1]) > 2.0)" "$2"; }
need_debugfs
save_sysctls
flusher_defaults
settle
make_loop stick 400 ext4; STICK=$LOOP_BDI
throttle "$LOOP_MM" 524288
echo $((60 << 20)) > /proc/sys/vm/dirty_bytes
echo $((15 << 20)) > /proc/sys/vm/dirty_background_bytes
bg_job dd if=/dev/zero of="$LOOP_MNT/f" bs=1M count=300 status=none
# the stick holds the limit under writeback (the global level past the limit)
for _ in $(seq 100); do
	[ "$(awk '/^nr_writeback /{print $2}' /proc/vmstat)" -gt $((40 << 8)) ] && break
	sleep 0.1
done
# the recording on the root file system's device, not on the stick
REC=$(mktemp /var/tmp/wbtop-held.XXXXXX.wbrec)
at_exit "rm -f $REC"
OMD=$(mktemp -d /var/tmp/wbtop-held.XXXXXX)
at_exit "rm -rf $OMD"
# its JSON (the samples' times) on tmpfs, which the kernel never throttles: a file on a disk would be
SHM=$(mktemp -d /dev/shm/wbtop-held.XXXXXX)
at_exit "rm -rf $SHM"
"$WBTOP" --batch --json -n 20 -d 1 --no-procs --no-trace --openmetrics-file "$OMD/wbtop.prom" \
	> "$SHM/om.json" 2> "$TMP/omerr" &
OMP=$!
at_exit "kill $OMP 2>/dev/null"
"$WBTOP" --batch -n 20 -d 1 --no-procs --force --record "$REC" > /dev/null 2> "$TMP/err" &
WB=$!
at_exit "kill $WB 2>/dev/null"
# batch output on the root file system's device
"$WBTOP" --batch --json -n 20 -d 1 --no-procs --no-trace > "$OMD/batch.json" 2> "$TMP/berr" &
BP=$!
at_exit "kill $BP 2>/dev/null"
held=0 bheld=0
while kill -0 $WB 2>/dev/null || kill -0 $BP 2>/dev/null; do
	grep -q balance_dirty_pages /proc/$WB/stack 2>/dev/null && held=$((held + 1))
	grep -q balance_dirty_pages /proc/$BP/stack 2>/dev/null && bheld=$((bheld + 1))
	sleep 0.1
done
wait $WB; rc=$?
[ $rc = 0 ] || { cat "$TMP/err"; fail "the recorder exited $rc"; }
# the stick's writer was held (the case this is about), the recorder was not
paused=$("$WBTOP" --replay "$REC" --batch --json 2> "$TMP/rerr" | python3 -c '
import json, sys
xs = [json.loads(l) for l in sys.stdin]
gaps = [b["mono"] - a["mono"] for a, b in zip(xs, xs[1:])]
stick = sys.argv[1]
pauses = sum(b.get("events", {}).get("pauses", 0) for x in xs for b in x["bdis"] if b["bdi"] == stick)
print(len(xs), round(max(gaps), 2), round(xs[-1]["mono"] - xs[0]["mono"], 1), pauses)' "$STICK") ||
	fail "the recording does not replay: $(cat "$TMP/rerr")"
read -r n gap span pauses <<< "$paused"
echo "$n samples over $span s, the longest gap $gap s; the stick's writer paused $pauses times; the recorder's main thread seen in balance_dirty_pages $held times"
[ -s "$TMP/rerr" ] && fail "replay warnings: $(cat "$TMP/rerr")"
[ "$n" = 20 ] || fail "$n samples recorded, 20 taken"
python3 -c "import sys; sys.exit(not (float(sys.argv[1]) <= 2.0 and float(sys.argv[2]) <= 21.5))" "$gap" "$span" ||
	fail "the recorder lost its pace: the longest gap $gap s, 20 samples over $span s"
[ "$pauses" -gt 0 ] || fail "the stick's writer was never throttled: not the case this tests"
[ "$held" = 0 ] || fail "the recorder's main thread was in balance_dirty_pages ($held times)"
wait $OMP || fail "--openmetrics-file: exit $?: $(cat "$TMP/omerr")"
read -r on ogap < <(pace "$SHM/om.json")
echo "--openmetrics-file: $on samples, the longest gap $ogap s"
paced "$on" "$ogap" || fail "--openmetrics-file lost its pace: $on samples, the longest gap $ogap s"
tail -1 "$OMD/wbtop.prom" | grep -q . && grep -q '^wbtop_' "$OMD/wbtop.prom" || fail "--openmetrics-file: the file is not whole"
[ -s "$TMP/omerr" ] && fail "--openmetrics-file said: $(cat "$TMP/omerr")"
wait $BP || fail "batch to a file: exit $?: $(cat "$TMP/berr")"
read -r bn bgap < <(pace "$OMD/batch.json")
echo "batch JSON to a file: $bn samples, the longest gap $bgap s; its main thread seen in balance_dirty_pages $bheld times"
paced "$bn" "$bgap" || fail "batch output to a file lost its pace: $bn samples, the longest gap $bgap s"
[ "$bheld" = 0 ] || fail "batch output to a file: the main thread was in balance_dirty_pages ($bheld times)"
[ -s "$TMP/berr" ] && fail "batch output to a file said: $(cat "$TMP/berr")"
echo "ok"
