#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --until-clean on a 5 MB/s "stick": a copy returns while the stick still
# holds tens of MiB; wbtop, started right then with no history, must exit 0
# within a few seconds of the moment the kernel shows the stick clean, and
# its first time-until-clean must hold the actual time (within 30 %).
# dirty_expire_centisecs is 10 s here so the expiry wait fits a short test.
. "$(dirname "$0")/lib.sh"
need_debugfs
save_sysctls
settle
make_loop stick 256 ext4
throttle "$LOOP_MM" 5000000
STICK=$LOOP_BDI DEV=${LOOP_DEV#/dev/}
echo $((80 << 20)) > /proc/sys/vm/dirty_bytes
echo $((40 << 20)) > /proc/sys/vm/dirty_background_bytes
# the flusher's periodic run writes what stays below the background threshold: on, as by default
# (a machine set to 0 has it off: the stick is then never clean by itself, checked at the end)
flusher_defaults
echo 1000 > /proc/sys/vm/dirty_expire_centisecs
S=/sys/kernel/debug/bdi/$STICK/stats
mono() { awk '{print $1}' /proc/uptime; }
left_kb() { awk '/^BdiWriteback|^BdiReclaimable/ {s += $2} END {print s}' "$S"; }
# the kernel's per-device counts are per-CPU counters read without summing: a
# clean device may keep up to 8 * (1 + log2 CPUs) pages per CPU in them for good
NCPU=$(nproc); LG=0; while [ $((2 << LG)) -le "$NCPU" ]; do LG=$((LG + 1)); done
SLACK_KB=$((NCPU * 8 * (1 + LG) * $(getconf PAGESIZE) / 1024))

dd if=/dev/zero of="$LOOP_MNT/copy" bs=1M count=70 status=none || fail "dd"
T0=$(mono)
echo "dd returned; the stick holds $(left_kb) KiB"
# the kernel's own clean moment (within the counters' slack), polled 10 times a
# second beside wbtop for at most 150 s
( for _i in $(seq 1500); do
	[ "$(left_kb)" -le "$SLACK_KB" ] && { mono > "$TMP/clean.t"; break; }
	sleep 0.1
  done ) &
POLL=$!
at_exit "kill $POLL"
timeout 120 "$WBTOP" --until-clean "$DEV" > "$TMP/out" 2> "$TMP/err"
rc=$?
T1=$(mono)
wait $POLL
cat "$TMP/out"
[ -s "$TMP/err" ] && { echo "stderr:"; cat "$TMP/err"; }
[ $rc = 0 ] || fail "--until-clean exited $rc (0 expected: the stick became clean)"
[ -s "$TMP/clean.t" ] || fail "the kernel never showed the stick clean"
python3 - "$TMP/out" "$T0" "$T1" "$(cat "$TMP/clean.t")" <<'PY'
import re, sys
out, t0, t1, tk = open(sys.argv[1]).read().splitlines(), *map(float, sys.argv[2:5])
actual = tk - t0
print(f"kernel: clean {actual:.1f} s after dd returned; wbtop exited {t1 - t0:.1f} s after, "
      f"{t1 - tk:+.1f} s from the kernel's clean moment")
ok = True
if not -1.5 <= t1 - tk <= 3:
    print("FAIL: wbtop did not end within a few seconds of the kernel's clean moment"); ok = False
# the first ETA line: "clean in ~Ns" or "clean in Ns-Ms (...)", printed ETA_AFTER samples in
first = next(((i, l) for i, l in enumerate(out) if re.search(r"clean in (~|\d)", l)), None)
if first is None:
    print("FAIL: no time-until-clean was printed"); sys.exit(1)
i, line = first
secs = [float(x) for x in re.findall(r"(\d+)s", line.split("clean in", 1)[1])]
lo, hi = (secs[0], secs[0]) if "~" in line else (secs[0], secs[1])
rem = actual - i  # one sample a second: the ETA's line came i s after the start
print(f"first ETA (line {i + 1}): {lo:.0f}-{hi:.0f} s; actual then {rem:.1f} s")
if not (0.7 * lo <= rem <= 1.3 * hi):
    print("FAIL: the first ETA does not hold the actual time within 30 %"); ok = False
sys.exit(0 if ok else 1)
PY
[ $? = 0 ] || fail "the ETA (above)"

# periodic writeback off: 10 MiB below the background threshold stay; the ETA says why
echo 0 > /proc/sys/vm/dirty_writeback_centisecs
dd if=/dev/zero of="$LOOP_MNT/small" bs=1M count=10 status=none || fail "dd small"
timeout 30 "$WBTOP" --until-clean "$DEV" -n 6 > "$TMP/out" 2> "$TMP/err"
rc=$?
cat "$TMP/out"
[ $rc = 1 ] && grep -q "clean in: not by itself (vm.dirty_writeback_centisecs 0" "$TMP/out" ||
	{ cat "$TMP/err"; fail "periodic writeback off: rc $rc (1 expected), no 'not by itself'"; }
echo 500 > /proc/sys/vm/dirty_writeback_centisecs
