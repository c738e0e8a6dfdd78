#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The settings file through the real UI in tmux: W writes it and says where; a
# restart shows the same view (columns hidden with c / F2 too); a malformed file
# is named with its line (status line and stderr) and the defaults hold; an
# unknown column name is named with its line and left out.
set -u
W=${WBTOP:?} F=${FIXTURES:?}
command -v tmux >/dev/null || { echo "SKIP: no tmux"; exit 77; }
T=$(mktemp -d)
SOCK=wbtop-cfg-$$
trap 'tmux -L $SOCK kill-server >/dev/null 2>&1; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
fail=0
not_ok() { echo "not ok - $*"; fail=1; }

# run NAME key... : start wbtop with XDG_CONFIG_HOME=$T, send keys, capture to $T/NAME
run() {
	local name=$1 k
	shift
	tmux -L $SOCK kill-server >/dev/null 2>&1
	SOCK=wbtop-cfg-$$-$name # a server per run: no race with the last one's exit
	tmux -L $SOCK -f /dev/null new-session -d -x 120 -y 30 \
		"env XDG_CONFIG_HOME=$T LANG=C.UTF-8 TERM=tmux-256color $W --root $F/6.18-writing -d 0.3 --theme mono 2>$T/$name.err; sleep 5"
	for _ in $(seq 50); do # up to 10 s for the first screen on a loaded machine
		tmux -L $SOCK capture-pane -p | grep -q ' 1 Devices ' && break
		sleep 0.2
	done
	sleep 0.5
	for k in "$@"; do
		tmux -L $SOCK send-keys "$k"
		sleep 0.4
	done
	tmux -L $SOCK capture-pane -p | sed -E 's/[0-9]{2}:[0-9]{2}:[0-9]{2}/HH:MM:SS/; s/[[:space:]]+$//' >"$T/$name"
}
body() { sed '$d' "$1"; } # the screen without its status/footer line

run written l s s W
grep -q "settings written to $T/wbtop/wbtoprc" "$T/written" || { not_ok "W does not say where"; tail -1 "$T/written"; }
grep -q '^hide_loop = true' "$T/wbtop/wbtoprc" || not_ok "hide_loop not written"
grep -q '^sort = ' "$T/wbtop/wbtoprc" || not_ok "sort not written"
run again
if diff <(body "$T/written") <(body "$T/again") >"$T/diff"; then
	echo "ok - W, restart: the same view"
else
	not_ok "restart shows another view"; cat "$T/diff"
fi

# hidden columns: hidden from the chooser (c; F2 on Zones), written by W, hidden after a restart
rm "$T/wbtop/wbtoprc"
run cols c Down Space Enter 2 F2 Down Space Enter 1 W
grep -q '^hidden_columns = DIRTY, Zones:FREE$' "$T/wbtop/wbtoprc" ||
	{ not_ok "hidden columns not written"; grep hidden_columns "$T/wbtop/wbtoprc"; }
grep -q '^DEVICE .* MOUNT  *WRITEBK ' "$T/cols" || { not_ok "DIRTY still shown after c, space"; cat "$T/cols"; }
run cols-again
if diff <(body "$T/cols") <(body "$T/cols-again") >"$T/diff"; then
	echo "ok - hidden columns: W, restart, the same columns"
else
	not_ok "restart shows other columns"; cat "$T/diff"
fi
run cols-zones 2
grep -q 'NODE ZONE  *MIN ' "$T/cols-zones" || { not_ok "Zones:FREE not hidden after a restart"; cat "$T/cols-zones"; }
# a name no table has: a warning with its line, the rest of the file holds
printf '[display]\nhide_loop = true\n\nhidden_columns = DIRTY, bogus\n' >"$T/wbtop/wbtoprc"
run unknown
grep -q 'wbtoprc:4: hidden_columns: no column "bogus"' "$T/unknown" ||
	{ not_ok "no line-numbered warning for an unknown column"; tail -1 "$T/unknown"; }
grep -q 'wbtoprc:4: hidden_columns: no column "bogus"' "$T/unknown.err" || not_ok "unknown column: nothing on stderr"
grep -q '^DEVICE .* MOUNT  *WRITEBK ' "$T/unknown" || not_ok "DIRTY shown: the known name was dropped with the unknown"
grep -q '^.loop' "$T/unknown" && not_ok "hide_loop dropped: the file was ignored for one unknown column"

printf '[display]\nhide_loop = true\nwarn = lots\n' >"$T/wbtop/wbtoprc"
run bad
grep -q 'wbtoprc:3: warn = lots' "$T/bad" || { not_ok "no line-numbered warning on screen"; tail -1 "$T/bad"; }
grep -q 'wbtoprc:3: warn = lots' "$T/bad.err" || not_ok "no line-numbered warning on stderr"
rm "$T/wbtop/wbtoprc"
run plain
if diff <(body "$T/bad") <(body "$T/plain") >"$T/diff"; then
	echo "ok - a malformed file: the defaults"
else
	not_ok "a malformed file changed the view"; cat "$T/diff"
fi
# the file did change the view (else the round trip above proves nothing)
if diff -q <(body "$T/again") <(body "$T/plain") >/dev/null; then
	not_ok "the settings file had no effect"
fi
exit $fail
