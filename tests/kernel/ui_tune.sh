#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Root: the tune pane on the live kernel, through tmux: preview, confirmation,
# trial countdown with the prediction beside the kernel's figures, undo, the
# trial running out, keep + revert all, quitting mid-trial, and a kill -9
# mid-trial answered at the next start. Every step checks the kernel's value.
. "$(dirname "$0")/lib.sh"
command -v tmux >/dev/null || skip "needs tmux"
save_sysctls
save_journal; export WBTOP_JOURNAL=$JOURNAL # as root the journal is always $JOURNAL
NSTART=0 SOCK=

F=/proc/sys/vm/dirty_bytes
WANT=$((300 << 20))
# whatever mode the machine is in (the CI machine started at dirty_bytes 200M): the value found
# is the one every revert must give back
ORIG=$(cat $F)
[ "$ORIG" = "$WANT" ] && { echo 20 > /proc/sys/vm/dirty_ratio; ORIG=$(cat $F); }
pass=0

start() { # start wbtop in a fresh tmux server (a new socket: the old one may still be going)
	[ -n "$SOCK" ] && tmux -L $SOCK kill-server 2>/dev/null
	NSTART=$((NSTART + 1)) SOCK=wbtop-tune-$$-$NSTART
	at_exit "TMUX_TMPDIR=$TMP tmux -L $SOCK kill-server"
	tmux -L $SOCK -f /dev/null new-session -d -x 120 -y 40 \
		"env LANG=C.UTF-8 TERM=tmux-256color WBTOP_JOURNAL=$WBTOP_JOURNAL $WBTOP -d 0.5 --theme mono --no-trace; sleep 30"
	sleep 1.5
}
keys() { local k; for k in "$@"; do tmux -L $SOCK send-keys "$k"; sleep 0.3; done; sleep 0.8; }
screen() { tmux -L $SOCK capture-pane -p; }
expect() { # expect PATTERN WHAT
	if screen | grep -q -- "$1"; then pass=$((pass + 1)); else screen; fail "$2 (no '$1' on screen)"; fi
}
value() { # value EXPECTED WHAT
	[ "$(cat $F)" = "$1" ] || { screen; fail "$2: dirty_bytes is $(cat $F), expected $1"; }
	pass=$((pass + 1))
}
propose() { keys 5 Up Up Up Up Up Up Up Down Enter 3 0 0 M Enter; }

start
propose
expect "PREDICTED vm.dirty_bytes=300M (nothing written yet; a applies)" "preview"
value $ORIG "nothing written by the preview"
keys a
expect "apply vm.dirty_bytes=300M for a 30 s trial? y/n" "confirmation"
keys n
value $ORIG "n declines"
keys a y
expect "TRIAL: vm.dirty_bytes=300M" "trial countdown"
expect "APPLIED vm.dirty_bytes=300M: predicted vs the kernel now" "verification"
expect "dirty thresh *300M  kernel *300M  +0" "global prediction equals the kernel's"
value $WANT "applied"
keys u
value $ORIG "u undoes"
propose; keys a y
value $WANT "applied again"
sleep 31
value $ORIG "the trial ran out and reverted"
expect "trial over" "trial-over message"
propose; keys a y k
expect "kept vm.dirty_bytes=300M" "keep"
sleep 1
value $WANT "kept"
keys R
value $ORIG "R reverts everything"
propose; keys a y q
sleep 1
value $ORIG "quitting mid-trial reverts"
[ -e "$WBTOP_JOURNAL" ] && fail "journal left after a clean exit"
# a wbtop killed mid-trial: the next start asks, y reverts
start
propose; keys a y
value $WANT "applied before the kill"
P=$(pgrep -x -f "$WBTOP -d 0.5 --theme mono --no-trace") || fail "no wbtop to kill"
kill -9 $P
for i in $(seq 50); do [ -d /proc/$P ] || break; sleep 0.2; done # a sanitizer build takes a while to go
value $WANT "kill -9 leaves the change"
start
expect "wbtop found unconfirmed changes from a previous run" "recovery question"
expect "revert? y/n" "recovery prompt"
keys y Enter
sleep 1
value $ORIG "recovery reverts"
expect "1 Devices" "the UI starts after recovery"
keys q
echo "$pass passed, 0 failed"
