#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The terminal end to end: wbtop on a fixture tree in tmux, a few screens
# captured and compared with the goldens the in-process screens share
# (tests/ui/screens.sh: every other screen), the clock masked and sparklines
# folded to "*". Startup, a key, a resize to a larger and to a too small
# terminal, and q giving the terminal back. Each screen is polled for (up to
# 15 s on a loaded machine), never waited for a fixed time.
set -u
W=${WBTOP:?} F=${FIXTURES:?}
G=$(cd "$(dirname "$0")" && pwd)/golden
command -v tmux >/dev/null || { echo "SKIP: no tmux"; exit 77; }
T=$(mktemp -d)
export TMUX_TMPDIR=$T # tmux 3.3 leaves its socket behind: in $T, it goes with it
SOCK=
trap '[ -n "$SOCK" ] && tmux -L $SOCK kill-server >/dev/null 2>&1; rm -rf "$T"' EXIT
trap 'exit 143' TERM INT # killed (meson's timeout): the EXIT trap still cleans up
pass=0 failed=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() { failed=$((failed + 1)); echo "not ok - $*"; }

capture() {
	tmux -L $SOCK capture-pane -p 2>&1 | sed -E 's/[0-9]{2}:[0-9]{2}:[0-9]{2}/HH:MM:SS/; s/[▁▂▃▄▅▆▇█]+/*/g; s/ +\*$/ */; s/[[:space:]]+$//'
}

# until_screen FILE CMD...: poll the pane into FILE until CMD (on FILE) holds; 1 after 15 s
until_screen() {
	local f=$1 i
	shift
	for i in $(seq 150); do
		capture > "$f"
		"$@" "$f" && return 0
		sleep 0.1
	done
	return 1
}
same_as() { cmp -s "$G/$name.txt" "$1"; }
started() { grep -q ' 1 Devices \|terminal too small' "$1"; }

# screen NAME COLS LINES [key...]: the fixture in mono, keys sent once it is up
screen() {
	local name=$1 cols=$2 lines=$3 k
	shift 3
	[ -n "$SOCK" ] && tmux -L $SOCK kill-server >/dev/null 2>&1
	SOCK=wbtop-ui-$$-$name   # a server per screen: no race with the last one's exit
	tmux -L $SOCK -f /dev/null new-session -d -x "$cols" -y "$lines" \
		"env LANG=C.UTF-8 TERM=tmux-256color $W --root $F/6.18-writing -d 0.3 --theme mono"
	until_screen "$T/$name.txt" started || { bad "$name: wbtop did not start"; cat "$T/$name.txt"; return; }
	for k in "$@"; do
		case $k in
		resize=*) local wh=${k#resize=}; tmux -L $SOCK resize-window -x "${wh%x*}" -y "${wh#*x}" ;;
		*) tmux -L $SOCK send-keys "$k" ;;
		esac
	done
	if until_screen "$T/$name.txt" same_as; then
		ok "$name"
	else
		bad "$name"; diff -u "$G/$name.txt" "$T/$name.txt"
	fi
}

screen devices-80x24 80 24
screen zones 80 24 2
# Ctrl-S is a key, not the terminal's XOFF: with IXON on it stopped the output, and wbtop,
# blocked writing a frame, stopped sampling and recording until Ctrl-Q
screen zones-after-ctrl-s 80 24 C-s 2
screen resize-wide 80 24 resize=200x60
screen resize-tiny 80 24 resize=70x20

# --record through wbtop itself: REC and the file's name in the title; a terminal of 20 columns
# says it is too small (nothing cut into it), and back at 80 the title is whole again; q exits 0
# and the file replays
[ -n "$SOCK" ] && tmux -L $SOCK kill-server >/dev/null 2>&1
SOCK=wbtop-ui-$$-record
tmux -L $SOCK -f /dev/null new-session -d -x 80 -y 24 \
	"env LANG=C.UTF-8 TERM=tmux-256color $W --root $F/6.18-writing -d 0.3 --theme mono --record $T/day-one.wbrec; echo EXITED \$?; sleep 30"
rec_title() { head -1 "$1" | grep -q '  every 0.3s  REC day-one.wbrec$'; }
small() { grep -q 'terminal too small' "$1"; }
exited() { grep -q "EXITED" "$1"; }
if until_screen "$T/rec.txt" rec_title && tmux -L $SOCK resize-window -x 20 -y 5 &&
   until_screen "$T/rec20.txt" small && tmux -L $SOCK resize-window -x 80 -y 24 &&
   until_screen "$T/rec.txt" rec_title && tmux -L $SOCK send-keys q && until_screen "$T/rec.txt" exited &&
   grep -q "EXITED 0" "$T/rec.txt"; then
	ok "--record: REC day-one.wbrec in the title, 20 columns too small, q exits 0"
else
	bad "--record: the title or the exit"; cat "$T/rec.txt" "$T/rec20.txt" 2>/dev/null
fi
if "$W" --replay "$T/day-one.wbrec" --batch --json 2>/dev/null | grep -q '"level"'; then
	ok "--record: the recording replays"
else
	bad "--record: the recording does not replay"
fi

# q leaves with status 0 and gives the terminal back: the shell's screen, not wbtop's
[ -n "$SOCK" ] && tmux -L $SOCK kill-server >/dev/null 2>&1
SOCK=wbtop-ui-$$-quit
tmux -L $SOCK -f /dev/null new-session -d -x 80 -y 24 \
	"echo BEFORE; env TERM=tmux-256color $W --root $F/6.18-writing; echo EXITED \$?; sleep 30"
until_screen "$T/quit.txt" started || bad "quit: wbtop did not start"
tmux -L $SOCK send-keys q
if until_screen "$T/quit.txt" exited && grep -q "EXITED 0" "$T/quit.txt" && grep -q "^BEFORE" "$T/quit.txt" &&
   ! grep -q " 1 Devices " "$T/quit.txt"; then
	ok "q quits with status 0 and restores the terminal"
else
	bad "q: exit status or the terminal"; cat "$T/quit.txt"
fi

# a WBTOP_* value not taken: said on the status line at start (stderr, where it also goes, is
# hidden by the screen until wbtop quits) and on stderr, seen after quitting
[ -n "$SOCK" ] && tmux -L $SOCK kill-server >/dev/null 2>&1
SOCK=wbtop-ui-$$-env
tmux -L $SOCK -f /dev/null new-session -d -x 100 -y 24 \
	"env WBTOP_FORECAST_MEMBERS=abc TERM=tmux-256color $W --root $F/6.18-writing -d 0.3 --theme mono; echo EXITED \$?; sleep 30"
envw() { grep -q 'WBTOP_FORECAST_MEMBERS=abc: expected a whole number' "$1"; }
if until_screen "$T/env.txt" started && envw "$T/env.txt" && tmux -L $SOCK send-keys q &&
   until_screen "$T/env-q.txt" exited && grep -q '^wbtop: WBTOP_FORECAST_MEMBERS=abc: expected' "$T/env-q.txt"; then
	ok "a WBTOP_* value not taken: on the status line, and on stderr after quitting"
else
	bad "WBTOP_* warning in the UI"; cat "$T/env.txt" "$T/env-q.txt" 2>/dev/null
fi

# live without root the Tune pane previews only, as a replay's does: no a/k or u/R in the footer
# or the hint (it offered "a: apply (root)"), and a pressed says why (as root: wbtop runs as nobody)
[ -n "$SOCK" ] && tmux -L $SOCK kill-server >/dev/null 2>&1
SOCK=wbtop-ui-$$-user
user=()
[ "$(id -u)" = 0 ] && user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
if [ "$(id -u)" = 0 ] && ! command -v setpriv >/dev/null; then
	ok "live without root: skipped (no setpriv)"
else
	chmod 711 "$T" && mkdir -m 1777 "$T/user"
	tmux -L $SOCK -f /dev/null new-session -d -x 100 -y 30 \
		"env HOME=$T/user XDG_CONFIG_HOME=$T/user LANG=C.UTF-8 TERM=tmux-256color ${user[*]} $W -d 0.3 --theme mono"
	hint() { grep -q '(not root: preview only)$' "$1"; }
	said() { grep -q 'a / k (Tune: apply/keep trial): applying needs root' "$1"; }
	if until_screen "$T/user.txt" started && tmux -L $SOCK send-keys 5 && until_screen "$T/user.txt" hint &&
	   ! grep -qE 'a/kApply|u/RUndo|a: apply' "$T/user.txt" && tmux -L $SOCK send-keys a &&
	   until_screen "$T/user-a.txt" said; then
		ok "live without root: the Tune pane previews only and a says it needs root"
	else
		bad "live without root: the Tune pane"; cat "$T/user.txt" "$T/user-a.txt" 2>/dev/null
	fi
fi

# a comma locale (de_DE) for the terminal: the textfile served from the UI keeps C's numbers
# (0.2, not 0,2, which Prometheus refuses whole); skipped where the locale cannot be built
[ -n "$SOCK" ] && tmux -L $SOCK kill-server >/dev/null 2>&1
SOCK=wbtop-ui-$$-locale
if localedef -i de_DE -f UTF-8 "$T/de_DE.UTF-8" >/dev/null 2>&1; then
	tmux -L $SOCK -f /dev/null new-session -d -x 80 -y 24 \
		"env TERM=tmux-256color LOCPATH=$T LC_ALL=de_DE.UTF-8 $W --root $F/6.18-writing -d 0.3 --openmetrics-file $T/loc.prom; echo EXITED \$?; sleep 30"
	until_screen "$T/loc.txt" started || bad "locale: wbtop did not start"
	for _ in $(seq 50); do [ -s "$T/loc.prom" ] && break; sleep 0.1; done
	tmux -L $SOCK send-keys q
	if grep -q '^wbtop_vm_dirty_ratio 0\.2$' "$T/loc.prom" && ! grep -Eq '^[a-z_]+(\{[^}]*\})? [0-9-]+,[0-9]' "$T/loc.prom"; then
		ok "a comma locale: the UI's textfile keeps C's numbers"
	else
		bad "a comma locale: $(grep -E 'dirty_ratio |,[0-9]' "$T/loc.prom" | head -3)"
	fi
else
	ok "a comma locale: skipped (localedef de_DE unavailable)"
fi
echo "$pass passed, $failed failed"
[ $failed = 0 ]
