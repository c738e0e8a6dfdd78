#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Root: the model's thresholds against the kernel's over a grid of settings,
# idle and with a writer running. Restores every setting, also on failure.
. "$(dirname "$0")/lib.sh"
need_debugfs
save_sysctls
save_journal; export WBTOP_JOURNAL=$JOURNAL # as root the journal is always $JOURNAL
make_loop g1 64 ext4; A=$LOOP_MM; AM=$LOOP_MNT
make_loop g2 64 ext4; B=$LOOP_MM
save_bdi $A; save_bdi $B
settle
PHASE=idle python3 "$(dirname "$0")/thresh_grid.py" "$WBTOP" $A $B || fail "idle grid"
throttle $A 2097152
bg_job dd if=/dev/zero of=$AM/f bs=1M count=40 status=none
sleep 2
PHASE=writing python3 "$(dirname "$0")/thresh_grid.py" "$WBTOP" $A $B || fail "grid with a writer"
echo "2 passed, 0 failed"
