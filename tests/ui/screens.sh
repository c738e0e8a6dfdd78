#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Golden screens drawn in process (tests/unit/screens.c): the UI on a fixture
# tree or a shipped recording, keys fed on a virtual clock, the grid printed
# and compared with tests/ui/golden/NAME.txt (the clock masked, sparklines
# folded to "*"). No terminal and no sleeps; tests/ui/ui.sh keeps a few
# screens through tmux for the terminal itself. WBTOP_UPDATE_GOLDEN=1
# rewrites the goldens.
set -u
W=${WBTOP:?} F=${FIXTURES:?} S=${SCREENS:?}
G=$(cd "$(dirname "$0")" && pwd)/golden
T=$(mktemp -d)
export TZ=UTC # the Graph pane's time axis: the recording's clock, read in one zone
trap 'rm -rf "$T"' EXIT
pass=0 failed=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() { failed=$((failed + 1)); echo "not ok - $*"; }
mask() { sed -E 's/[0-9]{2}:[0-9]{2}:[0-9]{2}/HH:MM:SS/; s/[▁▂▃▄▅▆▇█]+/*/g; s/ +\*$/ */; s/[[:space:]]+$//'; }

# screen NAME COLS LINES "wbtop args" [key...]
screen() {
	local name=$1 cols=$2 lines=$3 args=$4 src="--root $F/6.18-writing -d 0.3"
	shift 4
	case $args in --replay*|*--root*) src= ;; esac # a shipped recording or another tree instead of the fixture
	# shellcheck disable=SC2086 # the arguments are words
	if ! "$S" "${cols}x$lines" $src $args -- "$@" 2> "$T/$name.err" | mask > "$T/$name.txt" ||
	   [ -s "$T/$name.err" ]; then
		bad "$name: $(cat "$T/$name.err")"; return
	fi
	if [ "${WBTOP_UPDATE_GOLDEN:-0}" = 1 ] && [ -s "$T/$name.txt" ]; then
		cp "$T/$name.txt" "$G/$name.txt"
	fi
	if diff -u "$G/$name.txt" "$T/$name.txt" > "$T/$name.diff"; then
		ok "$name"
	else
		bad "$name"; cat "$T/$name.diff"
	fi
}

screen devices-80x24 80 24 "--theme mono"
screen devices-200x60 200 60 "--theme mono"
screen zones 80 24 "--theme mono" 2
screen flusher 80 24 "--theme mono" 3
screen procs 80 24 "--theme mono" 4
screen help 80 24 "--theme mono" h
# every pane at both sizes (zones, flusher, procs and help above are the 80x24 ones;
# the Graph pane's on the fixture are in tests/graph.sh, on recordings below)
screen zones-200x60 200 60 "--theme mono" 2
screen flusher-200x60 200 60 "--theme mono" 3
screen procs-200x60 200 60 "--theme mono" 4
screen help-200x60 200 60 "--theme mono" h
screen tune-80x24 80 24 "--theme mono" 5
screen tune-200x60 200 60 "--theme mono" 5
# the knob list at 80x24: every value ends under CURRENT's end (the title stood off its values,
# bdi.* a cell off vm.*), and the selected knob's help is whole on rows of its own ("writers ar")
end=$(sed -n 8p "$T/tune-80x24.txt" | awk '{ print index($0, "CURRENT") + 6 }')
if awk -v e="$end" 'NR >= 9 && /^  (vm|bdi)\./ { n++; if (substr($0, e, 1) == " " || substr($0, e + 1, 1) != " ") bad = 1 }
		    END { exit bad || n < 10 }' "$T/tune-80x24.txt" &&
   tr '\n' ' ' < "$T/tune-80x24.txt" |
	grep -qF "vm.dirty_ratio: writers are throttled past this share of dirtyable memory; clears dirty_bytes"; then
	ok "tune-80x24: values under CURRENT, the selected knob's help whole"
else
	bad "tune-80x24: values off CURRENT, or the help cut"; cat "$T/tune-80x24.txt"
fi
# typing a value at 80x24: the prompt breaks between its items, not inside "Esc cancels"
screen tune-edit-80x24 80 24 "--theme mono" 5 Down Enter 6 4 M
# a hint or prompt wrapped at 80 columns keeps a key with its word ("u:" ended a row, "undo" began the next)
for f in tune-80x24 tune-edit-80x24; do
	if sed -n '8,23p' "$T/$f.txt" | grep -qE '(^| )([a-zA-Z+/-]+:|Esc)$'; then
		bad "$f: a key cut from its word at a row's end"; cat "$T/$f.txt"
	else
		ok "$f: every key beside its word"
	fi
done
# a device name longer than the title leaves room for is not cut (btrfs-1 read "btrf")
screen tune-btrfs-80x24 80 24 "--theme mono" / b t r Enter 5
# the selection is a marker: the second row is marked, the first is not
screen select-down 80 24 "--theme mono" Down
# ... in its own role, the row bold (capitals), the idle rows in theirs (roles as letters)
screen roles-select-down 80 24 "--theme mono --roles" Down
# the Flusher table follows the selection: with the what-if line, End scrolls to the last device
screen flusher-scroll 80 24 "--theme mono --set vm.dirty_bytes=100M" 3 End
screen sort-dirty 120 30 "--theme mono" s s
# STATE stays whatever the sort: a sorted column is two cells wider for its mark, and at 80
# columns sorting by DIRTY, WRITEBK, THRESH, %LIM or CLEAN-IN dropped STATE for BG and BW/s
# ... and s goes only to columns that show when sorted: at 80 columns it sorted by K-THRESH,
# BG, BW/s and six more that the width left out, and by IF-THRESH without --set
lost='' unseen='' stick=$(cd "$(dirname "$0")/../.." && pwd)/examples/usb-stick.wbrec
for cols in 80 100 120; do
	keys=
	for n in $(seq 0 17); do # every column s reaches, and back to DEVICE
		# shellcheck disable=SC2086 # the keys are words
		"$S" "${cols}x24" --replay "$stick" --theme mono -- Space g 2 4 Enter $keys > "$T/sort.txt" 2>&1
		by=$(sed -n 23p "$T/sort.txt" | sed -n 's/^sorted by \(.*\) (.*/\1/p')
		grep -q '^DEVICE .* STATE' "$T/sort.txt" || lost="$lost $cols:$by"
		[ -z "$by" ] || grep -qF -e "$by v" -e "$by ^" "$T/sort.txt" || unseen="$unseen $cols:$by"
		keys="$keys s"
	done
done
if [ -z "$lost" ]; then ok "STATE shown at 80, 100 and 120 columns under every sort"; else bad "STATE dropped at$lost"; fi
if [ -z "$unseen" ]; then ok "s sorts by columns shown"; else bad "sorted by a column not shown:$unseen"; fi
# ... and beside the what-if's IF-THRESH (--set) at 80 columns: MOUNT and BW/s go, STATE stays
# (it was one cell short and went), its state word whole where the held-by part is cut
lost='' keys=
for n in $(seq 0 17); do
	# shellcheck disable=SC2086 # the keys are words
	"$S" 80x24 --replay "$stick" --theme mono --set vm.dirty_bytes=160M -- Space g 2 4 Enter $keys > "$T/sort.txt" 2>&1
	by=$(sed -n 23p "$T/sort.txt" | sed -n 's/^sorted by \(.*\) (.*/\1/p')
	if ! grep -q '^DEVICE .* STATE .* IF-THRESH' "$T/sort.txt" ||
	   ! grep -qE '^[ >]loop0 .* over-limit(:dev|:de)' "$T/sort.txt"; then
		lost="$lost ${by:-DEVICE}"
	fi
	keys="$keys s"
done
if [ -z "$lost" ]; then ok "STATE shown beside IF-THRESH at 80 columns under every sort"
else bad "STATE dropped beside IF-THRESH at 80 columns, sorted by$lost"; cat "$T/sort.txt"; fi
# room a wide terminal leaves goes to DEVICE and MOUNT up to their longest names (MOUNT stayed
# 8 cells at 200 columns, "…/stick", and the history took the rest); narrow layouts keep STATE
grow=''
for sz in 80x24 120x40 160x40 200x50; do
	"$S" "$sz" --replay "$stick" --theme mono -- Space g 2 4 Enter > "$T/grow.txt" 2>&1
	grep -q '^DEVICE .* STATE' "$T/grow.txt" || grow="$grow $sz(STATE)"
	case $sz in 200x50) grep -q '^>loop0 \+/tmp/wbtop-test\.IaLBy8/stick \+21M ' "$T/grow.txt" || grow="$grow $sz(MOUNT)";; esac
done
"$S" 200x50 --root "$F/6.18-writing" -d 0.3 --theme mono > "$T/grow.txt" 2>&1
grep -q '^ btrfs-1:loop2 /tmp/wbtop-test\.VgPpBe/btr ' "$T/grow.txt" || grow="$grow 200x50(DEVICE)"
"$S" 79x24 --replay "$stick" --theme mono > "$T/grow.txt" 2>&1
grep -q '^terminal too small (79x24)' "$T/grow.txt" || grow="$grow 79x24"
# ... MOUNT as far as the room left goes, each cell more of the path's end after the marker (the one
# rule, ui_path_cut: it stayed "…/stick" in 8 cells at 100 to 160 columns, cut at a '/', while the
# Tune and Graph panes named the mount otherwise); the history keeps its 13 cells at 160
for sz in 80x24:…/stick 100x30:…/stick 140x40:…IaLBy8/stick 160x40:…aLBy8/stick; do
	"$S" "${sz%%:*}" --replay "$stick" --theme mono -- Space g 2 4 Enter > "$T/grow.txt" 2>&1
	grep -q "^>loop0        ${sz#*:} \+21M " "$T/grow.txt" || grow="$grow $sz"
done
grep -qE '^>loop0 .* 300 █{13}$' "$T/grow.txt" || grow="$grow 160x40(history)"
"$S" 100x30 --replay "$(dirname "$stick")/scenarios/zone-fair-ext4.wbrec" --theme mono -- Space g 2 0 Enter > "$T/grow.txt" 2>&1
grep -q '^>loop0        …tick-ext4     47M ' "$T/grow.txt" || grow="$grow 100x30(…tick-ext4)"
if [ -z "$grow" ]; then ok "DEVICE and MOUNT take a wide terminal's room; narrow layouts keep STATE"
else bad "column widths at$grow"; fi
# the Flusher pane's DEVICE grows as the Devices pane's does (it stayed 13 cells at any width:
# "btrfs-102:lo…" at 200 columns, bench/scenario-gen stick4/run01 at 20 s), its mount's end where
# the label leaves 4 cells, and the event log names the devices in its width; at 80 columns as before
ST=$(cd "$(dirname "$0")/../.." && pwd)/bench/scenario-gen/stick4/run01.wbrec
fl=''
for sz in 80x24 100x30 120x40; do
	"$S" "$sz" --replay "$ST" --theme mono -- Space g 2 0 Enter / b t r f s Enter 3 > "$T/fl-$sz.txt" 2>&1
done
grep -q '^>btrfs-102:lo… waiting ' "$T/fl-80x24.txt" && grep -q 'throttled  btrfs-103:lo… pid' "$T/fl-80x24.txt" || fl="$fl 80x24"
grep -q '^>btrfs-102:loop205 waiting ' "$T/fl-100x30.txt" && grep -q 'throttled  btrfs-103:loop207 pid' "$T/fl-100x30.txt" || fl="$fl 100x30"
grep -q '^>btrfs-102:loop205 …/w2 waiting ' "$T/fl-120x40.txt" && grep -q 'throttled  btrfs-103:loop207 …/w3 pid' "$T/fl-120x40.txt" ||
	fl="$fl 120x40"
if [ -z "$fl" ]; then ok "the Flusher pane's DEVICE takes a wide terminal's room"
else bad "the Flusher pane's DEVICE at$fl"; cat "$T"/fl-*.txt; fi
# a message (here s's) on a row of its own above the footer: the keys stay while it shows
"$S" 80x24 --root "$F/6.18-writing" -d 0.3 --theme mono -- s > "$T/status.txt" 2>&1
if sed -n 23p "$T/status.txt" | grep -q '^sorted by MOUNT (ascending)$' &&
   tail -1 "$T/status.txt" | grep -q '^F1Help .* qQuit$'; then
	ok "status line above the footer at 80x24"
else
	bad "status line hides the footer at 80x24"; tail -2 "$T/status.txt"
fi
# periodic writeback off: a device holding dirty pages is never clean by itself (no drain
# time), one with none is clean; the same tree with the flusher's period shows drain times
cp -r "$F/6.18-writing" "$T/nop" && echo 0 > "$T/nop/proc/sys/vm/dirty_writeback_centisecs"
"$S" 80x24 --root "$T/nop" -d 0.3 --theme mono -- > "$T/nop.txt" 2>&1
if awk '$1 ~ /^>?loop[0-7]$|^zram0$|^vda$/ { n++; if (($3 == "0B") != ($7 == "clean") || ($3 != "0B") != ($7 == "never")) bad = 1 }
	END { exit bad || n != 10 }' "$T/nop.txt" && grep -q '^ vda .* never ' "$T/nop.txt" &&
   ! grep -q ' never ' "$T/devices-80x24.txt"; then
	ok "CLEAN-IN never with periodic writeback off"
else
	bad "CLEAN-IN with periodic writeback off"; cat "$T/nop.txt"
fi
screen filter-btrfs 80 24 "--theme mono" / b t r Enter
# DIRTY HISTORY against the device's threshold (or its peak, when higher): loop2's steady 4.0K
# under a 1.0G threshold is the lowest bar, not a full one as loop1's 150M of 542M drew too
"$S" 200x30 --root "$F/6.18-writing" -d 0.3 --theme mono -- > "$T/spark.txt" 2>&1
if grep -E '^ loop2 .* ▁+$' "$T/spark.txt" | grep -q . && grep -E '^ loop1 .* ▃+$' "$T/spark.txt" | grep -q .; then
	ok "DIRTY HISTORY against the threshold"
else
	bad "DIRTY HISTORY: $(grep -E '^ loop[12] ' "$T/spark.txt")"
fi
# / on the Flusher pane filters its device rows (the Devices pane's filter, which they follow;
# it said "nothing to filter" while showing the filter on its tab line and clearing it on Esc)
"$S" 80x24 --root "$F/6.18-writing" -d 0.3 --theme mono -- 3 / x f s Enter > "$T/flusher-filter.txt" 2>&1
if grep -q 'filter: xfs$' "$T/flusher-filter.txt" &&
   [ "$(awk '/^DEVICE +FLUSHER/ { t = 1; next } t && !NF { exit } t { print $1 }' "$T/flusher-filter.txt")" = ">loop1" ]; then
	ok "/ on the Flusher pane filters its devices"
else
	bad "/ on the Flusher pane"; cat "$T/flusher-filter.txt"
fi
screen hide-loop 80 24 "--theme mono" l
# hidden devices are counted on the tab line with the keys that show them, as long as the width
# allows (a settings file's hide_idle hid devices with nothing on screen to say so)
screen hide-idle-loop-200x50 200 50 "--theme mono" i l
screen hide-filter-120x40 120 40 "--theme mono" / x f s Enter i
hid=''
for sz in 80x24 120x40 200x50; do
	"$S" "$sz" --root "$F/6.18-writing" -d 0.3 --theme mono -- i 3 > "$T/hid.txt" 2>&1
	grep -qE '^ 1 Devices .* 7 (of 11 devices )?hidden(: i( idle)?)?$' "$T/hid.txt" || hid="$hid $sz"
	"$S" "$sz" --root "$F/6.18-writing" -d 0.3 --theme mono -- i 2 > "$T/hid.txt" 2>&1
	! grep -q '^ 1 Devices .*hidden' "$T/hid.txt" || hid="$hid $sz(Zones)"
done
if [ -z "$hid" ]; then ok "hidden devices counted on the tab line (not on Zones)"
else bad "hidden devices not counted at$hid"; fi
screen tiny 60 20 "--theme mono"
# smaller still: the message wraps between words, nothing cut off
screen tiny-40x10 40 10 "--theme mono"
screen tiny-20x5 20 5 "--theme mono"
# ... and says what to do about it (it said only what was wrong; q quits there, unsaid)
grep -qx 'enlarge it, or q quits' "$T/tiny-40x10.txt" && ok "tiny: what to do" || bad "tiny: what to do not said"
# ... and there only q and a resize act: 2 switched panes unseen, h opened a help nobody saw (back
# at 80x24 it was up); the next key, q too, only closed the help, so q seemed dead
screen tiny-keys-ignored 40 10 "--theme mono" 2 h resize=80x24
"$S" 40x10 --root "$F/6.18-writing" -d 0.3 --theme mono -- h q resize=80x24 2>&1 | mask > "$T/tiny-q.txt"
if grep -qx 'enlarge it, or q quits' "$T/tiny-q.txt" && ! grep -q ' 1 Devices ' "$T/tiny-q.txt"; then
	ok "tiny: h does nothing there, q after it quits"
else
	bad "tiny: q after h did not quit"; cat "$T/tiny-q.txt"
fi
screen resize-wide 80 24 "--theme mono" resize=200x60
screen resize-tiny 80 24 "--theme mono" resize=70x20
screen whatif 80 24 "--theme mono --set vm.dirty_bytes=100M"
# --record: REC and the file's name in the title (a replay of it has none: usb-stick.txt and the others)
mkdir "$T/rec"
screen record-80x24 80 24 "--theme mono --record $T/rec/a-day-of-writeback.wbrec"
if "$W" --replay "$T/rec/a-day-of-writeback.wbrec" --batch --json 2>/dev/null | grep -q '"level"'; then
	ok "record-80x24: the samples recorded"
else
	bad "record-80x24: nothing recorded"
fi
screen theme-light 80 24 "--theme light"
# a locale that is not UTF-8: a cut label, mount and header note all end in the one ASCII marker
screen devices-ascii 80 24 "--theme mono --ascii"
# the tune pane on a fixture: a preview with its warnings, a refusal, Apply
# refused (not the live kernel), and the device's knobs reached with e
screen tune-preview 100 34 "--theme mono" 5 Down Enter 6 4 M Enter
# the same preview at 80x24: the before/after table fits the screen (the least needed
# columns go), no row cut inside its state ("flushing->over-limit:dev")
screen tune-preview-80x24 80 24 "--theme mono" 5 Down Enter 6 4 M Enter
st='(idle|flushing|throttled|over-limit)(:global|:device)?'
if awk '/^  DEVICE / { t = 1; next } /^  ! / { t = 0 } t && NF { n++; print }' "$T/tune-preview-80x24.txt" |
	grep -vqE "$st(->$st)?$" || ! grep -q '^  DEVICE .*STATE->new$' "$T/tune-preview-80x24.txt"; then
	bad "tune-preview-80x24: a table row or title cut"; cat "$T/tune-preview-80x24.txt"
else
	ok "tune-preview-80x24: every table row ends in a whole state"
fi
# ... and its warnings whole, wrapped, a device list once ("btrfs-1's threshold ... will sta")
if tr -s ' \n' ' ' < "$T/tune-preview-80x24.txt" |
	grep -qF '! loop0, loop1, btrfs-1:loop2: thresholds would fall below what is dirty now: their writers will stall ! dirty pages'; then
	ok "tune-preview-80x24: the warnings whole"
else
	bad "tune-preview-80x24: a warning cut"; cat "$T/tune-preview-80x24.txt"
fi
# the preview at 100x30 (MOUNT back, the table 10 rows), and from it a terminal too small says
# so and nothing else; back at 80x24 the pane is as it was
screen tune-preview-100x30 100 30 "--theme mono" 5 Down Enter 6 4 M Enter
screen tune-tiny-40x12 80 24 "--theme mono" 5 Down Enter 6 4 M Enter resize=40x12
"$S" 80x24 --root "$F/6.18-writing" -d 0.3 --theme mono -- 5 Down Enter 6 4 M Enter resize=40x12 resize=80x24 2>&1 |
	mask > "$T/tune-tiny-back.txt"
if diff "$T/tune-preview-80x24.txt" "$T/tune-tiny-back.txt" > "$T/back.diff"; then
	ok "tune-tiny-back: the Tune pane as before the terminal was too small"
else
	bad "tune-tiny-back differs"; cat "$T/back.diff"
fi
# the before/after table's DEVICE and MOUNT take a wide screen's room (they were cut at 16 and 12
# cells at any width: "btrfs-123456789…" and "a-mount-nam…" at 200 columns); at 80 columns each is
# cut where it was, and each column past 80 gives them a cell while the table leaves room
cp -a "$F/6.18-writing" "$T/long" && (
	cd "$T/long" && for d in sys/class/bdi sys/kernel/debug/bdi; do mv "$d/btrfs-1" "$d/btrfs-123456789"; done &&
	ln -sfn ../../../devices/virtual/bdi/btrfs-123456789 sys/fs/btrfs/*/bdi &&
	sed -i 's#\.VgPpBe/ext #.VgPpBe/a-mount-name-of-thirty-chars #' proc/self/mountinfo )
lt=''
for sz in 80x24 100x34 200x60; do
	"$S" "$sz" --root "$T/long" -d 0.3 --theme mono -- 5 Down Enter 6 4 M Enter 2>&1 | mask > "$T/long-$sz.txt"
done
grep -q '^  DEVICE           THRESH->new  DRAIN WRITER/s STATE->new$' "$T/long-80x24.txt" || lt="$lt 80x24"
grep -q '^  loop0                 …thirty-chars   3.4G->47M ' "$T/long-100x34.txt" &&
	grep -q '^  btrfs-123456789:loop2 …t.VgPpBe/btr   542M' "$T/long-100x34.txt" || lt="$lt 100x34"
grep -q '^  loop0                 …est.VgPpBe/a-mount-name-of-thirty-chars   3.4G->47M ' "$T/long-200x60.txt" &&
	grep -q '^  btrfs-123456789:loop2 /tmp/wbtop-test.VgPpBe/btr  ' "$T/long-200x60.txt" || lt="$lt 200x60"
if [ -z "$lt" ]; then ok "tune: the before/after table's DEVICE and MOUNT take a wide screen's room, 80x24 as it was"
else bad "tune: DEVICE and MOUNT at$lt"; cat "$T"/long-*.txt; fi
screen tune-refused 100 34 "--theme mono" 5 Enter 1 0 1 Enter
# the same at 80 columns: the refusal goes on over two rows, not cut
screen tune-refused-80x24 80 24 "--theme mono" 5 Enter 1 0 1 Enter
screen tune-apply-refused 100 34 "--theme mono" 5 Down Enter 6 4 M Enter a
screen tune-bdi-edit 100 34 "--theme mono" Down e Enter 5 0 % Enter
# a tree without debugfs (level 1): the Devices pane has no device threshold, and the Tune table claims
# none either (it read "542M->244M ... idle" for every device); a line says why it is empty
cp -r "$F/6.18-writing" "$T/level1" && rm -rf "$T/level1/sys/kernel/debug"
screen tune-level1 80 24 "--theme mono --root $T/level1 -d 0.3" 5 Enter 1 0 Enter
screen tune-step 100 34 "--theme mono" 5 + + + -
# a step past the range is refused and the value stays the one last accepted (100, not 101):
# the next - goes to 99, from a typed value as from the current one (bdi.max_ratio is 100)
screen tune-step-refused 100 34 "--theme mono" 5 Enter 1 0 0 Enter +
for k in "5 Enter 1 0 0 Enter + + -|vm.dirty_ratio=99" "5 Down Down Down Down Down Down Down + -|bdi.7:0.max_ratio=99"; do
	# shellcheck disable=SC2086 # the keys are words
	"$S" 100x34 --root "$F/6.18-writing" -d 0.3 --theme mono -- ${k%|*} > "$T/step.txt" 2>&1
	if grep -q "^PREDICTED ${k#*|} " "$T/step.txt" && ! grep -q '^refused' "$T/step.txt"; then
		ok "tune: ${k%|*}: ${k#*|}, from the value last accepted"
	else
		bad "tune: ${k%|*}: not ${k#*|}"; cat "$T/step.txt"
	fi
done
# - at 0 is refused out loud, as + past the top is (it predicted 0 again and said nothing)
"$S" 100x34 --root "$F/6.18-writing" -d 0.3 --theme mono -- 5 Enter 0 Enter - > "$T/step.txt" 2>&1
if grep -q "^refused: vm.dirty_ratio=-1: below the kernel's minimum of 0" "$T/step.txt" &&
	grep -q "^PREDICTED vm.dirty_ratio=0 " "$T/step.txt"; then
	ok "tune: - at 0 is refused, the prediction for 0 kept"
else
	bad "tune: - at 0 not refused"; cat "$T/step.txt"
fi
# where 0 is not the kernel's least (vm.dirty_bytes reads 0 while the ratio rules): its own minimum
"$S" 100x34 --root "$F/6.18-writing" -d 0.3 --theme mono -- 5 Down - > "$T/step.txt" 2>&1
grep -q "^refused: vm.dirty_bytes=0: below the kernel's minimum of 8192" "$T/step.txt" &&
	ok "tune: - at vm.dirty_bytes 0: the kernel's minimum named" ||
	{ bad "tune: - at vm.dirty_bytes 0"; cat "$T/step.txt"; }
# the shipped scenario recordings, paused at a moment that shows the effect
EX=$(cd "$(dirname "$0")/../.." && pwd)/examples/scenarios
# a label cut to its column ends in a marker (btrfs-3:loop0 read btrfs-3:loop, a whole name)
screen devices-cut-160 160 24 "--replay $EX/zone-fair-btrfs.wbrec --theme mono" Space g 2 0 Enter
# c opens the column chooser on the pane's table; space hid DIRTY
screen columns-chooser 80 24 "--theme mono" c Down Space
# more zones than fit at 80x24 (the fixture's node as four): the table scrolls with its cursor
mkdir -p "$T/numa" && cp -r "$F/6.18-writing/." "$T/numa/"
for n in 0 1 2 3; do sed "s/^Node 0,/Node $n,/" "$F/6.18-writing/proc/zoneinfo"; done >"$T/numa/proc/zoneinfo"
screen zones-scroll 80 24 "--theme mono --root $T/numa -d 0.3" 2 Down Down Down Down Down Down
# 16 writers at 80x24: the process table scrolls; throttled writers name their device
screen procs-scroll 80 24 "--replay $F/many-writers.wbrec --theme mono" Space g 4 Enter 4 NPage NPage
screen procs-throttled 80 24 "--replay $EX/bdp-many-writers.wbrec --theme mono" Space g 2 0 Enter 4
screen scenario-per-device 100 30 "--replay $EX/per-device.wbrec --theme mono" Space g 3 0 Enter
screen scenario-bdp-flusher 100 30 "--replay $EX/bdp-many-writers.wbrec --theme mono" Space g 2 0 Enter 3
screen scenario-zone-fair 100 30 "--replay $EX/zone-fair-btrfs.wbrec --theme mono" Space g 2 0 Enter 2
# CLEAN-IN where the pages wait for their expiry (nothing under writeback, no background
# condition): the drain time stood still at 1.3s from 44 s to 67 s while --until-clean said
# "2s-31s"; it is marked as a time from the expiry on. The stick, writing back, is not marked
plus=''
for at in 50 60; do
	"$S" 100x30 --replay "$EX/../usb-stick.wbrec" --theme mono -- Space g "${at%?}" "${at#?}" Enter > "$T/plus.txt" 2>&1
	grep -qE '^ loop1 +[^ ]+ +5\.0M +0B .* 1\.3s\+ flushing$' "$T/plus.txt" || plus="$plus $at"
done
"$S" 100x30 --replay "$EX/../usb-stick.wbrec" --theme mono -- Space g 2 4 Enter > "$T/plus.txt" 2>&1
grep -qE '^>loop0 .* 13\.0s over-limit:device$' "$T/plus.txt" || plus="$plus 24"
if [ -z "$plus" ]; then ok "CLEAN-IN marked where the pages wait for their expiry"
else bad "CLEAN-IN's mark at$plus s"; cat "$T/plus.txt"; fi
# the Tune pane's DRAIN is that CLEAN-IN under the previewed limits: marked as pane 1 marks it (it read
# 1.3s and 7.3s beside pane 1's 1.3s+ and 7.3s+), and not where the change starts the background writeback
# (vm.dirty_background_bytes 4M under the disk's 12M); a device writing back is never marked
"$S" 100x30 --replay "$EX/../usb-stick.wbrec" --theme mono -- Space g 5 0 Enter 5 Down Enter 2 0 0 M Enter > "$T/drain.txt" 2>&1
"$S" 100x30 --replay "$EX/../usb-stick.wbrec" --theme mono -- Space g 2 4 Enter 5 Down Enter 6 4 M Enter > "$T/drain24.txt" 2>&1
"$S" 100x30 --replay "$EX/../usb-stick.wbrec" --theme mono -- Space g 2 4 Enter 5 Down Down Down Enter 4 M Enter > "$T/drain-bg.txt" 2>&1
if grep -qE '^  loop1 +[^ ]*/disk +[^ ]+ +1\.3s\+ ' "$T/drain.txt" && grep -qE '^  loop1 +[^ ]*/disk +[^ ]+ +7\.3s\+ ' "$T/drain24.txt" &&
   grep -qE '^  loop0 +[^ ]*/stick +[^ ]+ +13\.0s ' "$T/drain24.txt" && grep -qE '^  loop1 +[^ ]*/disk +[^ ]+ +7\.3s ' "$T/drain-bg.txt"; then
	ok "Tune's DRAIN marked as CLEAN-IN, under the change"
else
	bad "Tune's DRAIN"; grep -h '^  loop[01] ' "$T/drain.txt" "$T/drain24.txt" "$T/drain-bg.txt"
fi
# ... and under the previewed settings: with periodic writeback off (vm.dirty_writeback_centisecs=0)
# the pages are never written by themselves, "never" as in pane 1 (it read 13.0s and 7.3s+ at 24 s,
# the catalogue's check reading the sample's 500); 100 is the kernel's own case, times as before
"$S" 100x30 --replay "$EX/../usb-stick.wbrec" --theme mono -- Space g 2 4 Enter 5 Down Down Down Down Down Enter 0 Enter > "$T/drain-off.txt" 2>&1
"$S" 100x30 --replay "$EX/../usb-stick.wbrec" --theme mono -- Space g 2 4 Enter 5 Down Down Down Down Down Enter 1 0 0 Enter > "$T/drain-on.txt" 2>&1
if grep -qE '^  loop0 +[^ ]*/stick +[^ ]+ +never ' "$T/drain-off.txt" && grep -qE '^  loop1 +[^ ]*/disk +[^ ]+ +never ' "$T/drain-off.txt" &&
   grep -qE '^  loop0 +[^ ]*/stick +[^ ]+ +13\.0s ' "$T/drain-on.txt" && grep -qE '^  loop1 +[^ ]*/disk +[^ ]+ +7\.3s\+ ' "$T/drain-on.txt"; then
	ok "Tune's DRAIN under dirty_writeback_centisecs=0: never"
else
	bad "Tune's DRAIN under dirty_writeback_centisecs=0"; grep -h 'PREDICTED\|^  loop[01] ' "$T/drain-off.txt" "$T/drain-on.txt"
fi
# n under throttling that goes on: a stop every 30 s (cache-thrash's loop0 is throttled from 1 s
# to its end: n found 1 s and then nothing), and where a device joins (usb-stick's disk at 13 s)
stops=''
for k in "n" "n n" "n n n" "n n n n"; do
	# shellcheck disable=SC2086 # the keys are words
	"$S" 100x30 --replay "$EX/cache-thrash.wbrec" --theme mono -- Space Home $k > "$T/n.txt" 2>&1
	stops="$stops $(head -1 "$T/n.txt" | grep -oE '[0-9.]+/64\.0s' | cut -d/ -f1)"
done
"$S" 100x30 --replay "$EX/cache-thrash.wbrec" --theme mono -- Space Home n n > "$T/n.txt" 2>&1
"$S" 100x30 --replay "$EX/../usb-stick.wbrec" --theme mono -- Space Home n n > "$T/n2.txt" 2>&1
if [ "$stops" = " 1.0 31.0 62.0 62.0" ] && grep -qE '^throttling on loop0 at [0-9:]{8} \(still: n stops every 30 s of it\)$' "$T/n.txt" &&
   grep -qE '^throttling on loop0 loop1 at [0-9:]{8} \(new: loop1\)$' "$T/n2.txt" && head -1 "$T/n2.txt" | grep -q ' 13\.0/74\.0s '; then
	ok "n: episodes under throttling that goes on"
else
	bad "n: stops at$stops"; sed -n 29p "$T/n.txt" "$T/n2.txt"
fi
# a node over its dirty limit: the meter's scale takes the level, L at the limit and the cells past
# it critical, and the figure says how far (the meter was full to the end, L beside it); a node
# under its limit in its normal roles, with its figure
"$S" 80x24 --replay "$EX/zone-fair-ext4.wbrec" --theme mono --roles -- Space g 2 0 Enter 2 > "$T/node.txt" 2>&1
"$S" 80x24 --root "$F/6.18-writing" -d 0.3 --theme mono --roles -- 2 > "$T/node-ok.txt" 2>&1
if grep -qE '^   0  \[(█)+L(█)+(▒)+(·)*\] 47M \+ 56M / 29M  354%  OVER$' "$T/node.txt" &&
   sed -n '33p' "$T/node.txt" | grep -qE '^iiii\.\.ad+fi+o*a\.i+$' &&
   grep -qE '^   0  \[(█)+(▒)+(·)+L·\] 363M \+ 64M / 832M  51%$' "$T/node-ok.txt" &&
   sed -n '33p' "$T/node-ok.txt" | grep -qE '^\.\.\.a\.\.ad+e+o+foa\.[a.]+$'; then
	ok "node meter: over its limit, by how much"
else
	bad "node meter"; sed -n '9p;33p' "$T/node.txt" "$T/node-ok.txt"
fi
# the header's global meter past its threshold, as a node's: the scale takes the level, T at the threshold
# and the cells past it critical, then the figure (a what-if's 109M threshold under 394M of dirty +
# writeback, bench/scenario-gen heldout9/run10 at 30 s: the meter was full to the end, T beside it); under
# the threshold, the scale and the cells as before and the figure in its warn role from --warn percent
GR=$(cd "$(dirname "$0")/../.." && pwd)/bench/scenario-gen/heldout9/run10.wbrec
"$S" 80x24 --replay "$GR" --theme mono --roles -- Space g 3 0 Enter > "$T/global.txt" 2>&1
"$S" 80x24 --replay "$EX/../usb-stick.wbrec" --theme mono --roles -- Space g 2 4 Enter > "$T/global-ok.txt" 2>&1
if sed -n 3p "$T/global.txt" | grep -qE '^Global \[█+▒+b▒+f▒+T▒+·*\] 363%  OVER$' &&
   sed -n 27p "$T/global.txt" | grep -qE '^c{6}\.ad+e+ge+ge+fi+o*a\.i{10}$' &&
   sed -n 3p "$T/global-ok.txt" | grep -qE '^Global \[█+▒+b▒+f▒+·+T·+\] 92%$' &&
   sed -n 27p "$T/global-ok.txt" | grep -qE '^c{6}\.ad+e+ge+ge+o+fo+a\.h{3}$'; then
	ok "global meter: past the threshold, by how much"
else
	bad "global meter"; sed -n '3p;27p' "$T/global.txt" "$T/global-ok.txt"
fi
screen scenario-cache-thrash 100 30 "--replay $EX/cache-thrash.wbrec --theme mono" Space g 2 5 Enter 3
# the event log's title at 80 columns keeps its counts whole, the keys' hint going first
# (the edge cut "some not logged" to "some not")
"$S" 80x24 --replay "$EX/per-device.wbrec" --theme mono -- Space g 3 0 Enter 3 > "$T/events-80.txt" 2>&1
if grep -qx 'EVENTS (newest first)  handled 274, dropped 0, some not logged' "$T/events-80.txt"; then
	ok "the event log's title at 80 columns: its counts whole"
else
	bad "the event log's title at 80 columns: $(grep '^EVENTS' "$T/events-80.txt")"
fi
screen usb-stick 100 30 "--replay $EX/../usb-stick.wbrec --theme mono" Space g 2 4 Enter
# at 80x24 the stick and the disk still differ (MOUNT on Devices, the mount's end on Flusher)
screen usb-stick-80x24 80 24 "--replay $EX/../usb-stick.wbrec --theme mono" Space g 2 4 Enter
screen usb-stick-flusher-80x24 80 24 "--replay $EX/../usb-stick.wbrec --theme mono" Space g 2 4 Enter 3
# the event log names the devices as the rows above it do ("7:1" where the row said "loop1 …8/disk")
if awk '/^EVENTS/ { t = 1; next } t && / ago  / { n++; if ($0 !~ /  (throttled|wakeup|writeback) +loop[01] [^ ]*\/(disk|stick) +[a-z]/) bad = 1 }
	END { exit bad || n < 3 }' "$T/usb-stick-flusher-80x24.txt"; then
	ok "usb-stick-flusher-80x24: the event log names loop0 stick and loop1 disk"
else
	bad "usb-stick-flusher-80x24: the event log names a device otherwise"; cat "$T/usb-stick-flusher-80x24.txt"
fi
screen usb-stick-help-80x24 80 24 "--replay $EX/../usb-stick.wbrec --theme mono" Space h
# over the Graph < and > zoom: the playback's speed is + / - there (it listed "+/- or >/<" too)
screen usb-stick-help-graph-80x24 80 24 "--replay $EX/../usb-stick.wbrec --theme mono" Space 6 h
# the help's two columns at 80x24 have two blanks between them ("write the settings file e")
for f in help usb-stick-help-80x24; do
	# the key lines: under the title and under "Replay:", not the notes ("Devices: ...") after them
	if awk '/^  [^ ]/ { keys = /^  (wbtop -|Replay:)/; next }
		keys && length($0) > 42 && substr($0, 41, 2) != "  " { bad = 1 } END { exit bad }' "$T/$f.txt"; then
		ok "$f: a gutter between the columns"
	else
		bad "$f: an item runs into the next column"; cat "$T/$f.txt"
	fi
done
# a replay's help lists no live-only key: space pauses there and + / - change the playback's
# speed (its Replay: lines), not "freeze the display" and "faster/slower sampling"
if grep -q 'freeze the display' "$T/help.txt" && grep -q 'faster/slower sampling' "$T/help.txt" &&
   ! grep -q 'freeze the display\|faster/slower sampling' "$T/usb-stick-help-80x24.txt" &&
   grep -q 'pause / resume' "$T/usb-stick-help-80x24.txt"; then
	ok "the help lists the keys of its source: live or replay"
else
	bad "the help lists keys another source has"; cat "$T/usb-stick-help-80x24.txt"
fi
# the Graph pane through the UI (the selected device, the pipeline's forecast), and in ASCII
screen graph-usb-stick 100 30 "--replay $EX/../usb-stick.wbrec --theme mono" Space g 2 4 Enter 6
screen graph-usb-stick-ascii 80 24 "--replay $EX/../usb-stick.wbrec --theme mono" Space g 3 0 Enter Down 6 b b
# a recording without trace events (level 2): the marks row says n/a, not an empty row that
# reads as nothing throttled
screen graph-no-trace 80 24 "--replay $F/many-writers.wbrec --theme mono" Space 6
# unprivileged (level 1) at 80x24: the one plot is the global one, which has figures, and its
# title says why (the device's plot, all of it unknown, left the pane empty)
screen graph-level1-80x24 80 24 "--replay $F/level1.wbrec --theme mono" Space 6
if grep -q "^All devices (loop0's own figures need level 2: root, debugfs)" "$T/graph-level1-80x24.txt" &&
   grep -q 'dirty+wb' "$T/graph-level1-80x24.txt"; then
	ok "graph at level 1, 80x24: the global plot, saying why"
else
	bad "graph at level 1, 80x24: an empty device plot"; cat "$T/graph-level1-80x24.txt"
fi
screen scenario-reclaim 100 30 "--replay $EX/reclaim-stall.wbrec --theme mono" Space g 2 0 Enter 2
# exact seek on screen: 24 s reached by a forward jump, a backward jump and
# Left from 34 s shows the same screen (devices and flusher panes)
for pane in 1 3; do
	screen seek-fwd-$pane 100 30 "--replay $EX/../usb-stick.wbrec --theme mono" Space g 2 4 Enter $pane
	screen seek-back-$pane 100 30 "--replay $EX/../usb-stick.wbrec --theme mono" Space g 5 0 Enter g 2 4 Enter $pane
	screen seek-left-$pane 100 30 "--replay $EX/../usb-stick.wbrec --theme mono" Space g 3 4 Enter Left $pane
	for how in back left; do # all but the footer
		if diff <(sed '$d' "$T/seek-fwd-$pane.txt") <(sed '$d' "$T/seek-$how-$pane.txt") > "$T/seek.diff"; then
			ok "pane $pane at 24 s: $how equals a forward jump"
		else
			bad "pane $pane at 24 s: $how differs"; cat "$T/seek.diff"
		fi
	done
done
# the Tune pane on usb-stick at 24 s (#20): bdi.<stick>.max_bytes=16M lists the
# disk (it has writers, held by the global limit), drops the idle devices, and
# at 80x24 shows the before/after table; vm.dirty_bytes=20M there scrolls it
US="--replay $EX/../usb-stick.wbrec --theme mono"
screen tune-usb-stick-80x24 80 24 "$US" Space g 2 4 Enter e Down Down Down Down Down Enter 1 6 M Enter
screen tune-usb-stick-200x60 200 60 "$US" Space g 2 4 Enter e Down Down Down Down Down Enter 1 6 M Enter
screen tune-usb-stick-scroll 80 24 "$US" Space g 2 4 Enter 5 Down Enter 2 0 M Enter NPage
# PgDn in the before/after table shows the row after the last one shown (a step of 5 skipped
# one where 4 rows fit)
# shellcheck disable=SC2086 # the arguments are words
"$S" 80x24 $US -- Space g 2 4 Enter 5 Down Enter 2 0 M Enter > "$T/page0.txt" 2>&1
last=$(grep -o 'rows 1-[0-9]* of' "$T/page0.txt" | sed -E 's/rows 1-([0-9]+) of/\1/')
if [ -n "$last" ] && grep -q "rows $((last + 1))-" "$T/tune-usb-stick-scroll.txt"; then
	ok "tune-usb-stick-scroll: PgDn shows row $((last + 1)) first"
else
	bad "tune-usb-stick-scroll: PgDn from rows 1-${last:-?} skipped a row"; grep 'rows ' "$T/tune-usb-stick-scroll.txt"
fi
for f in tune-usb-stick-80x24 tune-usb-stick-200x60; do
	if grep -qE '^  loop1 +[^ ]*/disk .*throttled:global$' "$T/$f.txt" && ! grep -q '^  loop2 ' "$T/$f.txt" &&
	   ! grep -qE '[0-9]{8}' "$T/$f.txt"; then # 80M, never 83886080
		ok "$f: the disk listed, idle devices dropped, no raw byte counts"
	else
		bad "$f: disk row, idle rows or raw bytes"; cat "$T/$f.txt"
	fi
done
# a replay's seek keys keep their place in the footer at 80 columns on every pane, the
# less important keys going first (the Graph's and Tune's own keys took Seek and Jump's room)
for pane in 1 2 3 4 5 6; do
	"$S" 80x24 --replay "$EX/../usb-stick.wbrec" --theme mono -- Space $pane 2>&1 | tail -1 > "$T/foot-$pane.txt"
	if grep -q 'SpcPause' "$T/foot-$pane.txt" && grep -q 'Lt/RtSeek' "$T/foot-$pane.txt" &&
	   grep -q 'gJump' "$T/foot-$pane.txt" && grep -q 'qQuit$' "$T/foot-$pane.txt"; then
		ok "replay footer at 80 columns, pane $pane: Pause, Seek, Jump and Quit"
	else
		bad "replay footer at 80 columns, pane $pane: $(cat "$T/foot-$pane.txt")"
	fi
done
# a footer entry for two actions names both keys, as f/F does (s/S, n/N, a/k and u/R named
# only their first); at 80 columns, live and in a replay
# (a replay's Tune pane offers no a/k or u/R: nothing there to write; nor does a --root
# tree's, the "live" here: a/kApply and u/RUndo on the live kernel are test_ui's pane_keys_in_footer)
for want in "live 1 s/SSort" "live 5 eEdit rRaw" "live 6 f/FPin" "replay 1 s/SSort n/NNext" \
	    "replay 5 eEdit rRaw" "replay 6 n/NNext f/FPin"; do
	set -- $want
	src="--root $F/6.18-writing -d 0.3"
	[ "$1" = replay ] && src="--replay $EX/../usb-stick.wbrec"
	# shellcheck disable=SC2086 # the arguments are words
	"$S" 80x24 $src --theme mono -- "$2" 2>&1 | tail -1 > "$T/pair.txt"
	miss=
	for w in "${@:3}"; do grep -qF " $w " "$T/pair.txt" || miss="$miss $w"; done
	if [ -z "$miss" ]; then ok "$1 footer, pane $2: ${*:3}"; else bad "$1 footer, pane $2: no$miss in $(cat "$T/pair.txt")"; fi
done
set --
"$S" 80x24 --replay "$EX/../usb-stick.wbrec" --theme mono -- 5 2>&1 | tail -1 > "$T/pair.txt"
if grep -qE 'a/kApply|u/RUndo' "$T/pair.txt"; then bad "replay footer, pane 5: $(cat "$T/pair.txt")"
else ok "replay footer, pane 5: no a/kApply or u/RUndo"; fi
"$S" 80x24 --root "$F/6.18-writing" -d 0.3 --theme mono -- 5 2>&1 | tail -1 > "$T/pair.txt"
if grep -qE 'a/kApply|u/RUndo' "$T/pair.txt"; then bad "--root footer, pane 5: $(cat "$T/pair.txt")"
else ok "--root footer, pane 5: no a/kApply or u/RUndo"; fi
# the header's recorded host and kernel at 80 columns: whole, the version left out for them
# (it read "wbtop 0.1.0 ... vm 6.18.44-fc…"; before that "vm 6.18.44-fc-", as if a whole name)
if head -1 "$T/usb-stick-80x24.txt" | grep -q ' vm 6\.18\.44-fc-v[0-9]*$' &&
	! head -1 "$T/usb-stick-80x24.txt" | grep -q 'wbtop 0'; then
	ok "usb-stick-80x24: the kernel name whole, the version given way"
else
	bad "usb-stick-80x24: the header's kernel name"; head -1 "$T/usb-stick-80x24.txt"
fi
# the Zones pane has no filter: it shows none and Esc there leaves the Devices pane's alone
# (it showed "filter: stick" over the zones and cleared it unseen)
"$S" 100x30 --replay "$EX/../usb-stick.wbrec" --theme mono -- Space / s t i c k Enter 2 Escape > "$T/zones-esc.txt" 2>&1
"$S" 100x30 --replay "$EX/../usb-stick.wbrec" --theme mono -- Space / s t i c k Enter 2 Escape 1 > "$T/zones-esc-1.txt" 2>&1
if ! grep -q 'filter:' "$T/zones-esc.txt" && grep -qx 'the Zones pane has no filter' "$T/zones-esc.txt" &&
   grep -qE 'filter: stick(  9 (of 10 devices )?hidden)?$' "$T/zones-esc-1.txt" && ! grep -q '^ loop1 ' "$T/zones-esc-1.txt"; then
	ok "Esc on the Zones pane keeps the Devices filter"
else
	bad "Esc on the Zones pane"; sed -n '7p;29p' "$T/zones-esc.txt" "$T/zones-esc-1.txt"
fi
# what is typed at 80 columns shows whole, on a row of its own above the footer (after the tabs,
# " jump to (s" hid the time and a filter showed its first 3 characters); an applied filter
# longer than the tab line's room is cut with the marker
"$S" 80x24 --replay "$EX/../usb-stick.wbrec" --theme mono -- Space g 2 4 > "$T/typing-jump.txt" 2>&1
"$S" 80x24 --replay "$EX/../usb-stick.wbrec" --theme mono -- Space / s t i c k > "$T/typing-filter.txt" 2>&1
"$S" 80x24 --replay "$EX/../usb-stick.wbrec" --theme mono -- Space / s t i c k Enter > "$T/typed-filter.txt" 2>&1
if sed -n 23p "$T/typing-jump.txt" | grep -qx 'jump to (s or HH:MM:SS; Enter goes, Esc cancels): 24_' &&
   sed -n 23p "$T/typing-filter.txt" | grep -qx 'filter (Enter keeps, Esc clears): stick_' &&
   sed -n 7p "$T/typed-filter.txt" | grep -q ' filter: st…$'; then
	ok "a time or filter typed at 80 columns shows whole"
else
	bad "typing at 80 columns"; sed -n '7p;23p' "$T/typing-jump.txt" "$T/typing-filter.txt" "$T/typed-filter.txt"
fi
# a jump to a clock time between samples says where it landed, as the title does ("jumped to
# 9.8 s" under a title at 10.0/74.0s); the recording starts at 23:18:10.196 UTC
"$S" 100x30 --replay "$EX/../usb-stick.wbrec" --theme mono -- Space g 2 3 : 1 8 : 2 0 Enter > "$T/jump-clock.txt" 2>&1
if sed -n 1p "$T/jump-clock.txt" | grep -q ' 10\.0/74\.0s ' &&
   sed -n 29p "$T/jump-clock.txt" | grep -qx 'jumped to 10\.0 s, the first sample from 9\.8 s'; then
	ok "a jump between samples names the sample it landed on"
else
	bad "a jump between samples: $(sed -n '1p;29p' "$T/jump-clock.txt")"
fi
# a clock time as HH:MM in the minute the recording starts (23:18, the first sample at 23:18:10):
# its first sample, as --from 23:18 gives (it was "neither seconds nor a clock time")
"$S" 100x30 --replay "$EX/../usb-stick.wbrec" --theme mono -- Space g 2 3 : 1 8 Enter > "$T/jump-minute.txt" 2>&1
if sed -n 1p "$T/jump-minute.txt" | grep -q ' 0\.0/74\.0s ' && sed -n 29p "$T/jump-minute.txt" | grep -qx 'jumped to 0\.0 s'; then
	ok "a jump to HH:MM of the recording's first minute lands on its first sample"
else
	bad "a jump to 23:18: $(sed -n '1p;29p' "$T/jump-minute.txt")"
fi
# the Tune pane's twin warning only where the value moves: the kernel clears vm.dirty_bytes
# when the ratio written differs (dirty_ratio_handler); + then - is the ratio it has, 0
"$S" 100x30 --replay "$EX/../usb-stick.wbrec" --theme mono -- Space g 2 4 Enter 5 + > "$T/twin-up.txt" 2>&1
"$S" 100x30 --replay "$EX/../usb-stick.wbrec" --theme mono -- Space g 2 4 Enter 5 + - > "$T/twin-same.txt" 2>&1
if grep -q 'PREDICTED vm.dirty_ratio=1 ' "$T/twin-up.txt" && grep -q 'writing the ratio clears vm.dirty_bytes' "$T/twin-up.txt" &&
   grep -q 'PREDICTED vm.dirty_ratio=0 ' "$T/twin-same.txt" && ! grep -q 'clears vm.dirty_bytes (the kernel' "$T/twin-same.txt"; then
	ok "Tune: the ratio/bytes warning only where the value moves"
	# the background pair clears its twin on every write, the same value too
	"$S" 100x30 --replay "$EX/../usb-stick.wbrec" --theme mono -- Space g 2 4 Enter 5 Down Down + - > "$T/twin-bg.txt" 2>&1
	grep -q 'PREDICTED vm.dirty_background_ratio=0 ' "$T/twin-bg.txt" &&
		grep -q 'writing the ratio clears vm.dirty_background_bytes' "$T/twin-bg.txt" ||
		bad "Tune twin warning, background: $(grep 'PREDICTED\|clears vm' "$T/twin-bg.txt")"
else
	bad "Tune twin warning: $(grep -h 'PREDICTED\|clears vm' "$T/twin-up.txt" "$T/twin-same.txt")"
fi
# Esc drops the Tune pane's preview (it said "no filter to clear" and the preview, and the
# Graph's "if changed" forecast, stayed for the session)
"$S" 100x30 --replay "$EX/../usb-stick.wbrec" --theme mono -- Space g 2 4 Enter 5 + Escape > "$T/tune-esc.txt" 2>&1
if ! grep -q 'PREDICTED' "$T/tune-esc.txt" && sed -n 29p "$T/tune-esc.txt" | grep -qx 'preview dropped'; then
	ok "Esc drops the Tune preview"
else
	bad "Esc in Tune: $(grep -h 'PREDICTED' "$T/tune-esc.txt"; sed -n 29p "$T/tune-esc.txt")"
fi
# reclaim throttled in the event log: its reason by name and its time in ms, as pauses are (it
# said "throttled 100000 us (reason bits 1)")
"$S" 120x40 --replay "$EX/reclaim-stall.wbrec" --theme mono -- Space g 1 5 Enter 3 > "$T/reclaim-log.txt" 2>&1
if grep -q 'reclaim    pid [0-9]* *throttled 100\.0 ms on writeback$' "$T/reclaim-log.txt"; then
	ok "the event log names a reclaim throttle's reason, in ms"
else
	bad "reclaim in the event log: $(grep 'reclaim  ' "$T/reclaim-log.txt" | head -2)"
fi
# a replay cut by --from/--to: a jump outside the range says where it landed, Home is the
# range's start and , does not step before it; a damaged frame says so when it stops the replay
screen replay-range-jump 80 24 "--replay $EX/../usb-stick.wbrec --from 20 --to 30 --theme mono" Space g 5 Enter
screen replay-range-back 80 24 "--replay $EX/../usb-stick.wbrec --from 20 --to 30 --theme mono" Space Home ,
for f in replay-range-jump replay-range-back; do
	case $f in
	*jump) want='5.0 s is outside the range replayed (20.0-30.0 s): at 20.0 s' ;;
	*back) want="at the range's first sample" ;;
	esac
	if grep -qF "$want" "$T/$f.txt" && grep -q ' 20.0/74.0s ' "$T/$f.txt"; then
		ok "$f: $want"
	else
		bad "$f: not \"$want\" at 20.0 s"; cat "$T/$f.txt"
	fi
done
screen replay-damaged 80 24 "--replay $F/damaged/wbrec/level-max.wbrec --theme mono"
grep -q 'replay stopped: recording: offset [0-9]*: damaged frame' "$T/replay-damaged.txt" && ok "replay-damaged: the damage named" ||
	{ bad "replay-damaged: the damage not named"; cat "$T/replay-damaged.txt"; }
# a header note or a status line longer than the screen is cut at a word and marked ("from the
# kernel", "(access level 2147483647, n" read whole), with the marker a cut label has
if sed -n '5p;23p' "$T/replay-damaged.txt" | grep -vq '[^ ]…$'; then
	bad "replay-damaged: a line cut without its marker"; cat "$T/replay-damaged.txt"
else
	ok "replay-damaged: the dirtyable note and the status line cut at a word, marked"
fi
# a hidden level's line too long for 80 columns keeps its reason, what to do, and leaves out
# the list of what the level hides ("... bandwidth (not in…" cut before it)
if grep -qx ' level 2 hidden (not in the recording: made without root or debugfs)' "$T/graph-level1-80x24.txt" &&
   grep -qx ' level 3 hidden (not in the recording: made without tracefs or with --no-trace)' "$T/graph-no-trace.txt"; then
	ok "a hidden level at 80 columns: its reason whole"
else
	bad "a hidden level at 80 columns: its reason cut"; sed -n 7p "$T/graph-level1-80x24.txt" "$T/graph-no-trace.txt"
fi
# replay shows the same screens as live: record the fixture, replay it, and
# compare with the live golden below the header (title line, time bar)
if "$W" --root "$F/6.18-writing" --batch -n 4 -d 0.05 --record "$T/fx.wbrec" >/dev/null 2>&1 &&
   "$S" 80x24 --replay "$T/fx.wbrec" --theme mono 2>&1 | mask > "$T/replay.txt"; then
	grep -q "REPLAY" "$T/replay.txt" || bad "replay header"
	# live rows 2..23 == replay rows 3..24 less the status row and the footer (the replay's
	# status line differs), and less the reason a missing level gives (a fixture tree live,
	# the recording replayed)
	why() { sed -E 's/^( level [0-9] (hidden|missing|off)(: [^(]*| ))\(.*$/\1(why)/'; }
	if diff <(sed -n '2,21p' "$G/devices-80x24.txt" | why) <(sed -n '3,22p' "$T/replay.txt" | why) > "$T/replay.diff"; then
		ok "replay screen equals the live screen"
	else
		bad "replay screen differs"; cat "$T/replay.diff"
	fi
	# its Processes pane: the recording has no process table, not "read live only"
	if "$S" 80x24 --replay "$T/fx.wbrec" --theme mono -- 4 2>&1 |
	   grep -qx 'n/a: this recording has no process table (--no-procs, or a fixture tree)'; then
		ok "replay without a process table says the recording has none"
	else
		bad "replay without a process table: $("$S" 80x24 --replay "$T/fx.wbrec" --theme mono -- 4 2>&1 | sed -n 8p)"
	fi
else
	bad "record and replay the fixture"
fi

# a knob change's note on the time bar, longer than the row: cut at a word and marked
# (at 120 columns "vm.dirty_background_bytes 108685849 -> 0" read "... bytes 10")
cp -r "$F/6.18-writing" "$T/knob"
"$W" --root "$T/knob" --batch -n 8 -d 0.25 --record "$T/knob.wbrec" >/dev/null 2>&1 &
rec=$!
sleep 0.9
echo 5 > "$T/knob/proc/sys/vm/dirty_background_ratio"
echo 1500 > "$T/knob/proc/sys/vm/dirty_expire_centisecs"
echo 1000 > "$T/knob/proc/sys/vm/dirty_writeback_centisecs"
wait $rec
"$S" 200x24 --replay "$T/knob.wbrec" --theme mono -- Space End 2>&1 | sed -n 2p > "$T/note-200.txt"
"$S" 80x24 --replay "$T/knob.wbrec" --theme mono -- Space End 2>&1 | sed -n 2p > "$T/note-80.txt"
full=$(sed 's/^.*  at [0-9.]*s: //' "$T/note-200.txt") cut=$(sed 's/^.*  at [0-9.]*s: //; s/…$//' "$T/note-80.txt")
if grep -q 'vm.dirty_writeback_centisecs 500 -> 1000$' "$T/note-200.txt" && grep -q '[^ ]…$' "$T/note-80.txt" &&
   [ -n "$cut" ] && case "$full" in "$cut "*) true ;; *) false ;; esac; then
	ok "a long note on the time bar is cut at a word, marked"
else
	bad "the time bar's note: $(cat "$T/note-200.txt") / $(cat "$T/note-80.txt")"
fi

# live, the Processes pane just opened: its first read has no rates yet, and says so for the
# interval ("read live only (not from fixture trees or --no-procs)" there, live); a fixture
# tree still says it is not read
"$S" 80x24 --theme mono -d 2 -- 4 > "$T/procs-first.txt" 2>&1
"$S" 80x24 --root "$F/6.18-writing" --theme mono -d 2 -- 4 > "$T/procs-first-fx.txt" 2>&1
if grep -qx 'reading the process table: write rates come with the next sample' "$T/procs-first.txt" &&
   grep -q '^n/a: the process table is read live only' "$T/procs-first-fx.txt"; then
	ok "Processes pane live, before its first rates: reading, not n/a"
else
	bad "Processes pane before its first rates"; sed -n 8p "$T/procs-first.txt" "$T/procs-first-fx.txt"
fi

# unprivileged and live, the Processes pane says that other users' processes are
# missing instead of "no process wrote" (as root: the UI runs as nobody)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	if setpriv --reuid=65534 --regid=65534 --clear-groups "$S" 80x24 --theme mono -d 0.3 -- 4 > "$T/unpriv.txt" 2>&1 &&
	   grep -q "other users' processes cannot be read: run as root" "$T/unpriv.txt"; then
		ok "unprivileged Processes pane says other users' processes are unreadable"
	else
		bad "unprivileged Processes pane"; cat "$T/unpriv.txt"
	fi
	# a replay of a recording made so says it too (the sample carries it)
	chmod 711 "$T" && mkdir -m 1777 "$T/nobody"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$W" --batch -n 4 -d 0.2 --record "$T/nobody/u.wbrec" >/dev/null 2>&1
	if "$S" 80x24 --replay "$T/nobody/u.wbrec" --theme mono -- 4 > "$T/unpriv-replay.txt" 2>&1 &&
	   grep -q "other users' processes cannot be read: run as root" "$T/unpriv-replay.txt"; then
		ok "replay of an unprivileged recording: the Processes pane says the same"
	else
		bad "replay of an unprivileged recording"; cat "$T/unpriv-replay.txt"
	fi
fi
echo "$pass passed, $failed failed"
[ $failed = 0 ]
