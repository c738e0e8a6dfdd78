#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A flag typed on the command line wins over the settings file, even when its
# value is the default (-d 1, --warn 75); a setting not typed still comes from
# the file. Seen through W, which writes the settings the UI runs with.
set -u
W=${WBTOP:?} F=${FIXTURES:?}
command -v tmux >/dev/null || { echo "SKIP: no tmux"; exit 77; }
T=$(mktemp -d)
export TMUX_TMPDIR=$T # tmux 3.3 leaves its socket behind: in $T, it goes with it
SOCK=
trap '[ -n "$SOCK" ] && tmux -L $SOCK kill-server >/dev/null 2>&1; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
trap 'exit 143' TERM INT # killed (meson's timeout): the EXIT trap still cleans up
fail=0
RC=$T/wbtop/wbtoprc

# written NAME FLAGS...: the settings file below, wbtop with FLAGS, W; the file it wrote into $T/NAME
written() {
	local name=$1
	shift
	mkdir -p "$T/wbtop"
	printf '[display]\ntheme = light\ndelay = 0.5\nwarn = 10\ncrit = 20\n' >"$RC"
	[ -n "$SOCK" ] && tmux -L $SOCK kill-server >/dev/null 2>&1
	SOCK=wbtop-cfgf-$$-$name
	tmux -L $SOCK -f /dev/null new-session -d -x 120 -y 30 \
		"env XDG_CONFIG_HOME=$T LANG=C.UTF-8 TERM=tmux-256color $W --root $F/6.18-writing $* 2>$T/$name.err; sleep 5"
	for _ in $(seq 50); do # up to 10 s for the first screen on a loaded machine
		tmux -L $SOCK capture-pane -p | grep -q ' 1 Devices ' && break
		sleep 0.2
	done
	tmux -L $SOCK send-keys W
	for _ in $(seq 50); do
		tmux -L $SOCK capture-pane -p | grep -q 'settings written to' && break
		sleep 0.2
	done
	tmux -L $SOCK capture-pane -p | grep -q 'settings written to' ||
		{ echo "not ok - $name: W wrote nothing: $(cat "$T/$name.err")"; fail=1; }
	cp "$RC" "$T/$name"
}

# expect NAME KEY VALUE WHY
expect() {
	if grep -qx "$2 = $3" "$T/$1"; then
		echo "ok - $1: $2 = $3"
	else
		echo "not ok - $1: $2 is not $3 ($4): $(grep "^$2 =" "$T/$1")"
		fail=1
	fi
}

written typed -d 1 --theme mono --warn 75 --crit 95
expect typed delay 1 "-d 1 was typed"
expect typed theme mono "--theme mono was typed"
expect typed warn 75 "--warn 75 was typed"
expect typed crit 95 "--crit 95 was typed"

written some -d 1 --crit 90
expect some delay 1 "-d 1 was typed"
expect some crit 90 "--crit 90 was typed"
expect some warn 10 "the file's, not typed"
expect some theme light "the file's, not typed"
exit $fail
