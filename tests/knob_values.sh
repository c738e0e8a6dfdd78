#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --set values against the kernel's ranges, on a fixture tree: --export-sysctl,
# the what-if and --apply share one check; every bad value gets its own line,
# exit 2, nothing printed to install. --apply under --root is refused (exit 2).
set -u
W=${WBTOP:?} F=${FIXTURES:?}
R="--root $F/6.18-writing"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
n=0
fail() { echo "FAIL: $*"; exit 1; }
check() { n=$((n + 1)); echo "ok $n - $*"; }

# refused ARGS... : exit 2, nothing on stdout, one stderr line per bad value (given as BAD=...)
refused() {
	local what=$1; shift
	$W $R "$@" >"$T/out" 2>"$T/err"; rc=$?
	[ $rc = 2 ] || { cat "$T/err"; fail "$what: rc $rc, not 2"; }
	[ -s "$T/out" ] && { cat "$T/out"; fail "$what: printed something to install"; }
}

refused "the issue's three" --set vm.dirty_ratio=500 --set vm.dirty_bytes=1 --set bdi.loop1.strict_limit=7 --export-sysctl
[ "$(wc -l < "$T/err")" = 3 ] || { cat "$T/err"; fail "not one line per bad value"; }
for kv in vm.dirty_ratio=500 vm.dirty_bytes=1 bdi.loop1.strict_limit=7; do
	grep -q "^wbtop: $kv: " "$T/err" || { cat "$T/err"; fail "no line for $kv"; }
done
grep -q "maximum of 100" "$T/err" && grep -q "minimum of 8192" "$T/err" || { cat "$T/err"; fail "the bounds are not named"; }
check "--export-sysctl: three bad values, three lines, exit 2, nothing to install"

for bad in vm.dirty_expire_centisecs=18446744073709551615 vm.dirty_expire_centisecs=18446744073709551616 \
	   vm.dirty_writeback_centisecs=4294967296 vm.dirty_expire_centisecs=2147483648 vm.dirty_bytes=0 \
	   vm.dirty_background_bytes=0 vm.dirty_background_ratio=101 bdi.loop1.min_ratio=101 \
	   bdi.loop1.max_ratio_fine=1000001 bdi.loop1.strict_limit=2 vm.dirty_bytes=16T; do
	for mode in --export-sysctl "-b -n 1"; do
		refused "$bad $mode" --set "$bad" $mode
		[ "$(wc -l < "$T/err")" = 1 ] && grep -q "${bad%%=*}" "$T/err" || { cat "$T/err"; fail "$bad $mode: message"; }
	done
done
check "out-of-range values refused by --export-sysctl and the what-if alike"

# a value that is not a number says what it is instead: 2^64 and more (digits or bytes with a
# unit) and a sign were all "is not a whole number"
for c in 'vm.dirty_ratio=99999999999999999999999:"99999999999999999999999" is too large' \
	 'vm.dirty_bytes=99999999999999999999999G:"99999999999999999999999G" is too large' \
	 'vm.dirty_ratio=-1:"-1" is negative: the kernel takes 0 or more' \
	 'bdi.loop1.max_bytes=-5M:"-5M" is negative' 'vm.dirty_ratio=abc:"abc" is not a whole number' \
	 'vm.dirty_bytes=1.5G:"1.5G": unknown unit' 'vm.dirty_ratio=5%%:"5%%": unknown unit'; do
	refused "${c%%:*}" --set "${c%%:*}" -b -n 1
	[ "$(wc -l < "$T/err")" = 1 ] && grep -qF "${c#*:}" "$T/err" || { cat "$T/err"; fail "${c%%:*}: message"; }
done
check "a value too large for 64 bits, negative, or not a number: said which"

# names from a tree go into the udev rules as they were: a BDI named with a quote and a newline
# wrote a line of its own ("RUN...") into the file to install, a block device named with a quote
# closed KERNEL=="..." early; now such a name is refused, nothing printed, exit 2
cp -a "$F/6.18-writing" "$T/odd"
mv "$T/odd/sys/class/bdi/btrfs-1" "$T/odd/sys/class/bdi/x\"y
RUN"
ln -sfn '../../devices/virtual/block/lo"op1' "$T/odd/sys/dev/block/7:1"
for set in "bdi.x\"y
RUN.max_ratio=5" "bdi.7:1.max_ratio=5"; do
	$W --root "$T/odd" --set "$set" --export-sysctl >"$T/out" 2>"$T/err"; rc=$?
	[ $rc = 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" = 1 ] &&
		grep -q 'holds characters a udev rule or a shell line cannot carry as they are; nothing exported' "$T/err" ||
		fail "--export-sysctl of an odd name: rc $rc: $(cat "$T/out" "$T/err")"
done
$W --root "$T/odd" --set bdi.7:0.max_ratio=5 --export-sysctl | grep -q 'KERNEL=="loop0"' || fail "--export-sysctl of loop0"
check "--export-sysctl: a device name a udev rule cannot carry is refused, nothing printed"

refused "min above max" --set bdi.loop1.max_ratio=10 --set bdi.loop1.min_ratio=20 --export-sysctl
grep -q "min above" "$T/err" || { cat "$T/err"; fail "min above max: message"; }
check "the rules between knobs hold for --export-sysctl"

$W $R --set vm.dirty_writeback_centisecs=2147483647 --set vm.dirty_expire_centisecs=0 --set vm.dirty_bytes=8192 \
	--set bdi.loop1.strict_limit=1 --export-sysctl >"$T/out" 2>"$T/err" || { cat "$T/err"; fail "edges refused"; }
grep -q "^vm.dirty_writeback_centisecs = 2147483647$" "$T/out" && grep -q "^vm.dirty_bytes = 8192$" "$T/out" &&
	grep -q 'ATTR{bdi/strict_limit}="1"' "$T/out" || { cat "$T/out"; fail "edges not exported"; }
check "values at the edges exported"

# a section only for the kind of knob set: no empty udev part for sysctls alone, nor the reverse
$W $R --set vm.dirty_ratio=15 --export-sysctl >"$T/out" 2>"$T/err" || fail "sysctl alone: $(cat "$T/err")"
grep -q "^vm.dirty_ratio = 15$" "$T/out" && ! grep -q "udev" "$T/out" || { cat "$T/out"; fail "sysctl alone"; }
$W $R --set bdi.loop1.strict_limit=1 --export-sysctl >"$T/out" 2>"$T/err" || fail "bdi alone: $(cat "$T/err")"
grep -q 'ATTR{bdi/strict_limit}="1"' "$T/out" && ! grep -q "sysctl.d" "$T/out" || { cat "$T/out"; fail "bdi alone"; }
check "--export-sysctl prints only the sections it has knobs for"

$W $R --set vm.dirty_ratio=30 --apply >/dev/null 2>"$T/err"; rc=$?
[ $rc = 2 ] && grep -q "not under --root" "$T/err" || { cat "$T/err"; fail "--apply under --root: rc $rc"; }
$W $R --set vm.dirty_ratio=30 --trial 5 >/dev/null 2>"$T/err"; rc=$?
[ $rc = 2 ] && grep -q "^wbtop: --trial writes knobs on the running kernel only" "$T/err" ||
	{ cat "$T/err"; fail "--trial under --root: rc $rc"; }
check "--apply and --trial under --root refused as a conflict (exit 2)"
echo "$n passed, 0 failed"
