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
export TMUX_TMPDIR=$T # tmux 3.3 leaves its socket behind: in $T, it goes with it
SOCK=wbtop-cfg-$$
trap 'tmux -L $SOCK kill-server >/dev/null 2>&1; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
trap 'exit 143' TERM INT # killed (meson's timeout): the EXIT trap still cleans up
fail=0
not_ok() { echo "not ok - $*"; fail=1; }

# The pane, the clock masked and sparklines folded (their length is the number of samples).
capture() {
	tmux -L $SOCK capture-pane -p | sed -E 's/[0-9]{2}:[0-9]{2}:[0-9]{2}/HH:MM:SS/; s/[▁▂▃▄▅▆▇█]+/*/g; s/ +\*$/ */; s/[[:space:]]+$//'
}

# poll CMD...: until CMD holds on the pane (up to 15 s on a loaded machine); no fixed waits
poll() {
	for _ in $(seq 150); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
rates_shown() { capture | grep -q 'dirtied .*/s'; } # a second sample: rates known, the view settled
screen_moved() { [ "$(capture)" != "$1" ]; } # the key's answer: the pane or the status line

# run NAME key... : start wbtop with XDG_CONFIG_HOME=$T, send keys (each answered on
# the screen before the next), capture to $T/NAME
run() {
	local name=$1 k last
	shift
	tmux -L $SOCK kill-server >/dev/null 2>&1
	SOCK=wbtop-cfg-$$-$name # a server per run: no race with the last one's exit
	tmux -L $SOCK -f /dev/null new-session -d -x 120 -y 30 \
		"env XDG_CONFIG_HOME=$T LANG=C.UTF-8 TERM=tmux-256color $W --root $F/6.18-writing -d 0.3 ${THEME_ARG---theme mono} 2>$T/$name.err; sleep 5"
	poll rates_shown || not_ok "$name: wbtop did not show a second sample"
	for k in "$@"; do
		last=$(capture)
		tmux -L $SOCK send-keys "$k"
		poll screen_moved "$last" || not_ok "$name: key $k not answered"
	done
	capture >"$T/$name"
}
# the screen without its status line and footer (the last two rows), nor the cursor
# (not a setting), nor a device's drain time (the column before its state): from
# the kernel's estimate until a few seconds of history show none completed, so
# after the first samples on an idle machine and later on a loaded one
# (right-aligned: the spaces before it go with it, their number is the value's width)
body() { head -n -2 "$1" | sed -E 's/^>/ /; s/ +(-|[0-9.]+(ms|s|m|h)) ([a-z][a-z-]*)$/ ~ \3/'; }

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

# a --theme file: W writes its path, not the name inside it ("theme = x unusable" at the next start)
printf '[theme]\nname = x\n' >"$T/my.theme"
THEME_ARG="--theme $T/my.theme" run theme-file W
grep -qx "theme = $T/my.theme" "$T/wbtop/wbtoprc" || { not_ok "W after --theme FILE"; grep theme "$T/wbtop/wbtoprc"; }
THEME_ARG="" run theme-file-again
grep -q 'unusable' "$T/theme-file-again" "$T/theme-file-again.err" && not_ok "the saved theme file unusable at the next start"
rm "$T/wbtop/wbtoprc"
# a file named relative, without a '/' (a name ending in .theme is a file): saved whole, too
cd "$T" || exit 1
THEME_ARG="--theme my.theme" run theme-rel W
cd - >/dev/null || exit 1
grep -qx "theme = $T/my.theme" "$T/wbtop/wbtoprc" || { not_ok "W after --theme my.theme"; grep theme "$T/wbtop/wbtoprc"; }
rm "$T/wbtop/wbtoprc"
# hidden columns: hidden from the chooser (c; F2 on Zones), written by W, hidden after a restart
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

# a theme or sort column that does not exist: a warning naming the file, the defaults, no exit
printf '[display]\ntheme = nosuch\nsort = NOSUCH\n' >"$T/wbtop/wbtoprc"
THEME_ARG= run notheme
grep -q 'wbtoprc: theme = nosuch unusable, the default theme' "$T/notheme" ||
	{ not_ok "theme = nosuch: no warning on screen"; tail -1 "$T/notheme"; }
grep -q '^DEVICE' "$T/notheme" || not_ok "theme = nosuch: wbtop did not start"
printf '[display]\nsort = NOSUCH\n' >"$T/wbtop/wbtoprc"
run nosort
grep -q 'wbtoprc: sort = NOSUCH: no such column' "$T/nosort" || { not_ok "sort = NOSUCH: no warning"; tail -1 "$T/nosort"; }

printf '[display]\nhide_loop = true\nwarn = lots\n' >"$T/wbtop/wbtoprc"
run bad
grep -q 'wbtoprc:3: warn = lots' "$T/bad" || { not_ok "no line-numbered warning on screen"; tail -1 "$T/bad"; }
grep -q 'wbtoprc:3: warn = lots' "$T/bad.err" || not_ok "no line-numbered warning on stderr"
# warn above crit: said (status line and stderr), the defaults used
printf '[display]\nwarn = 99\ncrit = 10\n' >"$T/wbtop/wbtoprc"
run warncrit
grep -q 'wbtoprc: warn 99 is above crit 10; 75 and 95 used' "$T/warncrit.err" ||
	{ not_ok "warn above crit in the file: not said"; cat "$T/warncrit.err"; }
# the file's crit against a typed --warn: each named where it came from (it read "warn 92 is above crit 90")
printf '[display]
crit = 90
' >"$T/wbtop/wbtoprc"
THEME_ARG="--theme mono --warn 92" run warncrit-typed
grep -q 'wbtoprc: --warn 92 is above its crit 90; 92 and 95 used' "$T/warncrit-typed.err" ||
	{ not_ok "--warn above the file's crit: not said so"; cat "$T/warncrit-typed.err"; }

# a value with a terminal escape: named, but no escape reaches stderr (or the screen)
printf '[display]\nhide_idle = \033[2Jred\n' >"$T/wbtop/wbtoprc"
run esc
grep -q 'wbtoprc:2: hide_idle = ?\[2Jred' "$T/esc.err" || { not_ok "escape value: no warning on stderr"; cat "$T/esc.err"; }
grep -q $'\033' "$T/esc.err" && not_ok "an escape from the settings file reached stderr"
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
