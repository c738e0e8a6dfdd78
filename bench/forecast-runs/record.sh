#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Record the two-device run of tests/kernel/forecast_two_devices.sh for
# tools/forecast-eval: root, debugfs/tracefs. wbtop records at 1 Hz with
# tracepoints from 4 s before the writers until 56 s after.
#   bench/forecast-runs/record.sh OUT.wbrec [DD_BS]   (DD_BS default 1M)
# LOOP_FRESH=1 (default here) puts each device on a new loop device, so its
# BDI starts from the kernel's initial rate limits. SLOW_MBS sets the slow
# device's speed in MiB/s (10, as the kernel test; fresh/ and k64/ were made
# with 5), DIRTY_MB vm.dirty_bytes in MiB (200).
OUT=$(realpath -m "$1"); BS=${2:-1M}
export LOOP_FRESH=${LOOP_FRESH:-1}
WBTOP=${WBTOP:-$(dirname "$0")/../../build-rel/wbtop}
. "$(dirname "$0")/../../tests/kernel/lib.sh"
SLOW_MBS=${SLOW_MBS:-10} DIRTY_MB=${DIRTY_MB:-200} SAMPLES=60
[[ $SLOW_MBS =~ ^[1-9][0-9]{0,3}$ ]] || fail "SLOW_MBS=$SLOW_MBS: MiB/s, 1 to 9999"
[[ $DIRTY_MB =~ ^[1-9][0-9]{0,5}$ ]] || fail "DIRTY_MB=$DIRTY_MB: MiB, 1 to 999999"
need_debugfs
save_sysctls
make_loop slow 2048 ext4; S=$LOOP_MM; SM=$LOOP_MNT
make_loop fast 3072 ext4; F=$LOOP_MM; FM=$LOOP_MNT
echo $((DIRTY_MB << 20)) > /proc/sys/vm/dirty_bytes
throttle $S $((SLOW_MBS << 20))
throttle $F $((30 << 20))
"$WBTOP" --batch -n $SAMPLES -d 1 --no-procs --record "$OUT" > /dev/null 2> "$OUT.log" &
W=$!
at_exit "kill $W; wait $W"
sleep 4
bg_job dd if=/dev/zero of=$SM/f bs=$BS count=$((1900 << 20)) iflag=count_bytes status=none
bg_job dd if=/dev/zero of=$FM/f bs=$BS count=$((2900 << 20)) iflag=count_bytes status=none
wait $W; rc=$?
N=$("$WBTOP" --replay "$OUT" --batch --json | wc -l)
[ "$rc" = 0 ] && [ "$N" -ge $((SAMPLES - 1)) ] || fail "wbtop --record exited $rc after $N samples (its stderr: $OUT.log)"
rm -f "$OUT.log"
echo "recorded $OUT: $N samples, slow $S, fast $F"
