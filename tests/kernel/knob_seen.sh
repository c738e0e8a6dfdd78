#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Root: live, a BDI's knobs are kept between samples until one of its knob
# files is written (inotify); a write with echo, to the coarse, the fine and
# the strict_limit file in turn, shows in the next sample, and every sample
# before it shows the old value. The machine is left as found (lib.sh).
. "$(dirname "$0")/lib.sh"
n=
for i in $(seq 200 250); do [ -e /sys/class/bdi/7:$i ] || { n=$i; break; }; done
[ -n "$n" ] || skip "no free loop number"
loop_ctl 0x4C80 "$n" || skip "cannot add a loop device"
at_exit "(for _k in \$(seq 50); do loop_ctl 0x4C81 $n 2>/dev/null && break; sleep 0.1; done)"
B=/sys/class/bdi/7:$n
save_bdi 7:$n
"$WBTOP" --batch --json -n 12 -d 0.25 --no-trace --no-procs > $TMP/out 2> $TMP/err &
p=$!
sleep 0.9; echo 40 > $B/max_ratio
sleep 0.75; echo 123456 > $B/min_ratio_fine
sleep 0.75; echo 1 > $B/strict_limit
wait $p || { cat $TMP/err; fail "wbtop: rc $?"; }
python3 - $TMP/out 7:$n <<'PY' || fail "a knob write was not seen (or seen before it was made)"
import json, sys
rows = [next(b for b in json.loads(l)["bdis"] if b["bdi"] == sys.argv[2]) for l in open(sys.argv[1])]
seq = [(b["max_ratio"], b["max_ratio_fine"], b["min_ratio_fine"], b["min_ratio"], b["strict_limit"]) for b in rows]
print(seq)
want = [(100, 1000000, 0, 0, 0), (40, 400000, 0, 0, 0), (40, 400000, 123456, 12, 0), (40, 400000, 123456, 12, 1)]
stages = [want.index(x) for x in seq]        # every sample is one of the four states...
assert stages == sorted(stages), stages      # ...in order...
assert set(stages) == {0, 1, 2, 3}, stages   # ...and each was seen
assert all("min_bytes" in b and "max_bytes" in b for b in rows)
PY
echo "ok 1 - knob writes seen from the next sample on, through kept knobs"
