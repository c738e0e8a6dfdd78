#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Root: a throttled loop "stick" being written with vm.dirty_bytes lowered:
# within 10 s the devices pane shows that device highlighted as critical
# (the default theme's critical role: a red background).
. "$(dirname "$0")/lib.sh"
command -v tmux >/dev/null || skip "needs tmux"
need_debugfs
save_sysctls
make_loop stick 512 ext4; S=$LOOP_MM; SM=$LOOP_MNT; SD=$(basename $LOOP_DEV)
echo $((64 << 20)) > /proc/sys/vm/dirty_bytes
throttle $S $((5 << 20))
SOCK=wbtop-crit-$$
at_exit "TMUX_TMPDIR=$TMP tmux -L $SOCK kill-server"
tmux -L $SOCK -f /dev/null new-session -d -x 150 -y 40 \
	"env LANG=C.UTF-8 TERM=tmux-256color $WBTOP -d 0.5 --theme default" || fail "tmux"
sleep 1
tmux -L $SOCK send-keys End   # keep the selection bar off the stick's row
bg_job dd if=/dev/zero of=$SM/f bs=1M count=400 status=none
for i in $(seq 20); do
	sleep 0.5
	row=$(tmux -L $SOCK capture-pane -e -p | grep -a "^.*$SD " | head -1)
	plain=$(tmux -L $SOCK capture-pane -p | grep -a "^$SD " | head -1)
	if printf '%s' "$row" | grep -qaE $'\e\\[([0-9;]*;)?41m' ; then
		echo "critical after $(( (i + 1) / 2 )) s: $plain"
		echo "1 passed, 0 failed"
		exit 0
	fi
done
echo "last row seen: $plain"; tmux -L $SOCK capture-pane -p | head -20; tmux -L $SOCK capture-pane -e -p | grep -a loop | head -3 | cat -v
fail "the stick's row never turned critical within 10 s"
