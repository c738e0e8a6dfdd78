#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Root: hostile and damaged journals. A journal naming a file outside the
# knobs, a ".." BDI, a line over 511 bytes (whose tail would be an entry), a
# journal that is a symlink or writable by others, $WBTOP_JOURNAL pointing at
# a hostile one: `wbtop --recover revert` writes nothing (canary files stay
# as they were, the knobs too), exits 1 and names the file, line and problem.
# A symlinked "<journal>.new" is never followed by a revert or an --apply.
. "$(dirname "$0")/lib.sh"
save_sysctls
save_journal
n=0
mkdir -p $TMP/c
CANARY=$TMP/canary BDICANARY=$TMP/c/max_ratio # "/sys/class/bdi/../../..$TMP/c/max_ratio"
echo untouched > $CANARY; echo untouched > $BDICANARY
E=/proc/sys/vm/dirty_expire_centisecs
EXP=$(cat $E)
(:) & wait $!; DEAD=$! # the pid of a wbtop that is gone
before=$(machine_state)

canaries_ok() { [ "$(cat $CANARY) $(cat $BDICANARY)" = "untouched untouched" ]; }
# journal TEXT: root's journal, 0600 in its 0700 folder, as wbtop writes it
journal() { mkdir -p -m 700 /var/lib/wbtop; rm -f $JOURNAL; printf '%b' "$1" > $JOURNAL; chmod 600 $JOURNAL; }
# refused WHAT SAYS: --recover revert refuses the journal, says SAYS, writes nothing
refused() {
	"$WBTOP" --batch -n 1 --no-trace --recover revert < /dev/null > /dev/null 2> $TMP/err
	local rc=$?
	[ $rc = 1 ] || { cat $TMP/err; fail "$1: rc $rc, not 1"; }
	grep -qF -- "$2" $TMP/err || { cat $TMP/err; fail "$1: the message does not say \"$2\""; }
	grep -q "nothing written" $TMP/err || { cat $TMP/err; fail "$1: does not say nothing was written"; }
	canaries_ok || fail "$1: a canary was written: $(cat $CANARY $BDICANARY)"
	[ "$(machine_state)" = "$before" ] || fail "$1: a knob was written"
	[ "$(cat $E)" = "$EXP" ] || fail "$1: the valid entry was applied"
	n=$((n + 1)); echo "ok $n - $1: refused, nothing written"
}
H1="wbtop-journal 1\npid $DEAD\n" H2="wbtop-journal 2\npid $DEAD\n"
GOOD="vm.dirty_expire_centisecs\t$((EXP + 1))\t$EXP\n" # would write, if the journal were trusted
GOOD1="/proc/sys/vm/dirty_expire_centisecs\t$((EXP + 1))\t$EXP\n" # the same in version 1

journal "$H1$GOOD1$CANARY\t0\t1\n"
refused "a path outside the knobs" "$JOURNAL:4: \"$CANARY\" is not a knob"
journal "$H1/sys/class/bdi/../../..$TMP/c/max_ratio\t0\t1\n"
refused "a .. BDI in a path" "$JOURNAL:3:"
journal "$H2${GOOD}bdi.../../..$TMP/c.max_ratio\t0\t1\n"
refused "a .. BDI" "$JOURNAL:4: \"../../..$TMP/c\" is not a backing device's name"
# a key or value with a terminal's escape sequence: named, never sent raw to the terminal
journal "$H2${GOOD}vm.\x1b]0;owned\x07dirty_ratio\t5\t6\n"
refused "an escape sequence in a key" "$JOURNAL:4: \"vm.\\e]0;owned\\adirty_ratio\" is not a knob"
grep -q "$(printf '\033')" $TMP/err && fail "an escape sequence in a key: sent raw to stderr"
journal "$H2${GOOD}vm.dirty_ratio\t5\x1b[2J\t6\n"
refused "an escape sequence in a value" "$JOURNAL:4:"
grep -q "$(printf '\033')" $TMP/err && fail "an escape sequence in a value: sent raw to stderr"
# a BDI no longer there is a device removed or unplugged since (its knobs went with it), not
# damage: the rest is put back and it is named (the whole journal was refused, the rest never put back)
journal "$H2${GOOD}bdi.nosuch.max_ratio\t0\t1\n"
"$WBTOP" --batch -n 1 --no-trace --recover revert < /dev/null > /dev/null 2> $TMP/err; rc=$?
[ $rc = 0 ] && grep -q "gone since, with their knobs (nothing to put back): nosuch" $TMP/err ||
	{ cat $TMP/err; fail "a BDI that has gone: rc $rc"; }
[ "$(cat $E)" = $((EXP + 1)) ] || fail "a BDI that has gone: the rest of the journal was not put back"
[ -e $JOURNAL ] && fail "a BDI that has gone: the journal was kept"
canaries_ok || fail "a BDI that has gone: a canary was written"
echo $EXP > $E
n=$((n + 1)); echo "ok $n - a BDI that has gone: the rest put back, the device named"
journal "$H2${GOOD}vm.dirty_ratio\t500\t20\n"
refused "a value the kernel would refuse" "vm.dirty_ratio=500"
# a 600-byte line whose last 89 bytes, read on their own, are an entry writing the canary
long=$(printf '%*s' 511 '' | tr ' ' x) zeros=$(printf '%*s' $((600 - 511 - ${#CANARY} - 4)) '' | tr ' ' 0)
journal "$H1$GOOD1$long$CANARY\t$zeros\t1\n"
[ "$(sed -n 4p $JOURNAL | wc -c)" = 600 ] || fail "the long line is $(sed -n 4p $JOURNAL | wc -c) bytes"
refused "a 600-byte line" "$JOURNAL:4: longer than 511 bytes"
journal "$H2$GOOD"; chmod 666 $JOURNAL
refused "a journal writable by others" "not trusted"
journal "$H2$GOOD"; chown nobody $JOURNAL 2>/dev/null && refused "a journal owned by another user" "not trusted"
journal "$H2$GOOD"; mv $JOURNAL $TMP/target; ln -s $TMP/target $JOURNAL
refused "a journal that is a symlink" "symbolic link"
rm -f $JOURNAL

# root ignores $WBTOP_JOURNAL: a hostile journal there is not even read
printf "wbtop-journal 1\npid $DEAD\n$CANARY\t0\t1\n" > $TMP/evil
WBTOP_JOURNAL=$TMP/evil "$WBTOP" --batch -n 1 --no-trace --recover revert < /dev/null > /dev/null 2> $TMP/err
rc=$?
[ $rc = 0 ] && ! grep -q "evil\|journal\|unconfirmed" $TMP/err || { cat $TMP/err; fail "\$WBTOP_JOURNAL as root: rc $rc"; }
canaries_ok || fail "\$WBTOP_JOURNAL as root: the canary was written"
n=$((n + 1)); echo "ok $n - root ignores \$WBTOP_JOURNAL"

# a symlinked <journal>.new: a revert and an --apply replace the journal
# through a new file of their own, never through the link
journal "$H2$GOOD"; ln -s $CANARY $JOURNAL.new
"$WBTOP" --batch -n 1 --no-trace --recover revert < /dev/null > /dev/null 2> $TMP/err
grep -q "reverted" $TMP/err || { cat $TMP/err; fail "a valid journal beside a symlinked .new: not reverted"; }
[ "$(cat $E)" = $((EXP + 1)) ] || fail "the revert did not write the journaled value"
echo $EXP > $E
"$WBTOP" --set vm.dirty_expire_centisecs=$((EXP + 1)) --apply < /dev/null > /dev/null 2> $TMP/err ||
	{ cat $TMP/err; fail "--apply beside a symlinked .new"; }
echo $EXP > $E
canaries_ok || fail "a symlinked .new was followed: $(cat $CANARY)"
[ -L $JOURNAL.new ] || fail "the .new symlink was replaced"
[ "$(ls /var/lib/wbtop)" = journal.new ] || fail "left in /var/lib/wbtop: $(ls /var/lib/wbtop)"
n=$((n + 1)); echo "ok $n - a symlinked .new is never followed; no temporary file left"

# --apply refuses to start over another wbtop's unconfirmed changes (or damage)
journal "$H2$GOOD"
"$WBTOP" --set vm.dirty_expire_centisecs=$((EXP + 2)) --apply < /dev/null > /dev/null 2> $TMP/err; rc=$?
[ $rc = 1 ] && grep -q "unconfirmed changes of wbtop pid $DEAD" $TMP/err || { cat $TMP/err; fail "--apply over a journal: rc $rc"; }
[ "$(cat $E)" = "$EXP" ] || fail "--apply over another's journal wrote"
[ "$(sed -n 3p $JOURNAL)" = "$(printf '%b' "$GOOD" | head -1)" ] || fail "the other wbtop's journal was changed"
rm -f $JOURNAL
n=$((n + 1)); echo "ok $n - --apply over another wbtop's journal: refused, the journal kept"
echo "$n passed, 0 failed"
