#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Root: a kernel test stopped from outside still puts the machine back.
# meson stops a test (timeout, Ctrl-C) with SIGTERM to its process group and
# SIGKILL half a second later; a test may also be killed outright. A child
# test here changes a sysctl, a BDI knob, a throttle and a mounted loop
# device, and is stopped both ways: after TERM+KILL the machine is back
# within 30 s (lib.sh replays its undo steps in a new session); after a bare
# SIGKILL, once the next test has started (it replays those of a test that
# is gone); and a test started right after TERM+KILL, as meson starts the
# next, finds the machine put back before it looks (it waits for the
# background replay). This test's own lib.sh check then finds the machine
# as it was.
. "$(dirname "$0")/lib.sh"
LIB=$(cd "$(dirname "$0")" && pwd)/lib.sh
settle
cat > "$TMP/child.sh" <<EOF
. "$LIB"
save_sysctls
echo \$((123 << 20)) > /proc/sys/vm/dirty_bytes
make_loop child 64 ext4
save_bdi \$LOOP_MM
echo 7 > /sys/class/bdi/\$LOOP_MM/max_ratio
throttle \$LOOP_MM 1048576
dd if=/dev/zero of=\$LOOP_MNT/f bs=1M count=8 status=none
echo "\$LOOP_MM \$TMP" > "$TMP/ready"
sleep 120
EOF

# the child's sysctl, or its loop device (on an image in the child's own $TMP)
changed() {
	[ "$(cat /proc/sys/vm/dirty_bytes)" = $((123 << 20)) ] && return 0
	[ -n "${CHILD_TMP:-}" ] && losetup -a | grep -qF "$CHILD_TMP/"
}

# run_child: the child in its own process group (as meson runs a test), ready
run_child() {
	rm -f "$TMP/ready"
	setsid bash "$TMP/child.sh" > "$TMP/child.log" 2>&1 &
	CHILD=$!
	at_exit "_kill_pg $CHILD $(_starttime $CHILD)"
	for _ in $(seq 600); do [ -s "$TMP/ready" ] && break; sleep 0.1; done
	[ -s "$TMP/ready" ] || { cat "$TMP/child.log"; fail "the child test did not get ready"; }
	CHILD_TMP=$(cut -d' ' -f2 "$TMP/ready")
	[ "$(cat /proc/sys/vm/dirty_bytes)" = $((123 << 20)) ] && losetup -a | grep -qF "$CHILD_TMP/" ||
		fail "the child changed nothing"
}
# next_test: what a test starting now does first (lib.sh); its output
next_test() { bash -c ". '$LIB'; exit 0" 2>&1 || fail "the next test failed"; }

back_within() { # back_within SECONDS WHAT
	for _ in $(seq $(($1 * 10))); do changed || return 0; sleep 0.1; done
	fail "$2: the machine is still changed after $1 s"
}

run_child
kill -TERM -- -"$CHILD"; sleep 0.5; kill -KILL -- -"$CHILD" 2>/dev/null
back_within 30 "TERM, then KILL half a second later"
echo "ok 1 - TERM then KILL (as meson stops a test): put back in the background"

run_child
kill -KILL -- -"$CHILD"
sleep 1
changed || fail "nothing left changed after a bare SIGKILL: this case proves nothing"
out=$(next_test)
echo "$out" | grep -q "ended without putting the machine back" || fail "the next test said nothing: $out"
back_within 1 "SIGKILL, then the next test's start"
echo "ok 2 - a bare SIGKILL: put back by the next test's start"

run_child
kill -TERM -- -"$CHILD"; sleep 0.5; kill -KILL -- -"$CHILD" 2>/dev/null
out=$(next_test)
changed && fail "a test started right after TERM+KILL found the machine still changed: $out"
echo "$out" | grep -q "ended without" && fail "the next test replayed the steps the background replay holds: $out"
echo "ok 3 - the next test waits for the background replay"
