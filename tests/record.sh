#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Recordings: round trip, seek and export ranges, torn tails, kill -9 at
# random moments, hostile files, format versions. On fixture trees: no root.
set -u
W=${WBTOP:?} F=${FIXTURES:?}
T=$(mktemp -d) S=wbrec-$$ # S: the tmux server of section 12, also gone if the test is killed
export TMUX_TMPDIR=$T # tmux 3.3 leaves its socket behind: in $T, it goes with it
trap 'tmux -L $S kill-server > /dev/null 2>&1; rm -rf "$T"' EXIT
trap 'exit 143' TERM INT # killed (meson's timeout): the EXIT trap still cleans up
n=0
fail() { echo "FAIL: $*"; exit 1; }
ok() { n=$((n + 1)); echo "ok $n - $*"; }

# 1. round trip: what --batch --json printed while recording == the export, byte for byte
$W --root "$F/6.18-writing" --batch --json -n 40 -d 0.05 --record "$T/a.wbrec" > "$T/live.json" 2>/dev/null ||
	fail "record rc"
$W --replay "$T/a.wbrec" --batch --json > "$T/replay.json" || fail "replay rc"
cmp -s "$T/live.json" "$T/replay.json" || { diff <(head -c 600 "$T/live.json") <(head -c 600 "$T/replay.json"); fail "round trip differs"; }
[ "$(wc -l < "$T/replay.json")" = 40 ] || fail "replay count"
ok "round trip, byte for byte ($(stat -c %s "$T/a.wbrec") bytes for 40 samples)"

# 2. ranges and CSV export
python3 - "$T/live.json" > "$T/t" <<'PY'
import json, sys
ts = [json.loads(l)["mono"] for l in open(sys.argv[1])]
# cut in the widest gaps near samples 10 and 20, clear of the millisecond
# rounding of the printed times (a loaded machine can take two samples a
# millisecond apart: a sampler that fell behind catches up)
i = max(range(8, 13), key=lambda k: ts[k] - ts[k - 1])
j = max(range(18, 23), key=lambda k: ts[k] - ts[k - 1])
print((ts[i - 1] + ts[i]) / 2 - ts[0], (ts[j - 1] + ts[j]) / 2 - ts[0], i + 1, j, j - i)
PY
read a b first last count < "$T/t"
$W --replay "$T/a.wbrec" --batch --json --from "$a" --to "$b" > "$T/range.json" || fail "range rc"
[ "$(wc -l < "$T/range.json")" = "$count" ] || fail "range: $(wc -l < "$T/range.json") samples, not $count"
cmp -s "$T/range.json" <(sed -n "$first,${last}p" "$T/live.json") || fail "range content"
$W --replay "$T/a.wbrec" --batch --csv > "$T/out.csv" || fail "csv rc"
[ "$(wc -l < "$T/out.csv")" = $((40 * 11 + 1)) ] || fail "csv rows $(wc -l < "$T/out.csv")"
ok "--from/--to select samples; CSV export"

# 3. every truncation point: all whole frames before it replay, identical
size=$(stat -c %s "$T/a.wbrec")
for cut in 17 100 $((size / 3)) $((size / 2)) $((size - 30)) $((size - 1)); do
	head -c $cut "$T/a.wbrec" > "$T/cut.wbrec"
	if $W --replay "$T/cut.wbrec" --batch --json > "$T/cut.json" 2> "$T/cut.err"; then
		k=$(wc -l < "$T/cut.json")
		cmp -s "$T/cut.json" <(head -n "$k" "$T/live.json") || fail "cut at $cut: replayed samples differ"
		[ $cut -ge $((size - 1)) ] && [ $k -lt 39 ] && fail "cut at $cut lost whole frames ($k)"
		# a cut between two frames leaves a whole, shorter recording (the
		# format has no trailer: a writer killed between frames leaves the
		# same), silent by design; a byte more tears the next frame
		if [ $k -lt 40 ] && ! grep -q "offset" "$T/cut.err"; then
			head -c $((cut + 1)) "$T/a.wbrec" > "$T/cut1.wbrec"
			$W --replay "$T/cut1.wbrec" --batch --json > /dev/null 2> "$T/cut1.err"
			grep -q "offset" "$T/cut1.err" || fail "cut at $cut (+1): no warning naming the offset"
		fi
	else
		grep -q "offset" "$T/cut.err" || fail "cut at $cut: error without an offset"
	fi
done
ok "torn tails: whole frames replay, the tear is reported with its offset"

# 4. kill -9 at random moments, many times
for i in $(seq 12); do
	rm -f "$T/k.wbrec" # else appended to (section 11)
	$W --root "$F/6.18-writing" --batch --json -n 0 -d 0.05 --record "$T/k.wbrec" > "$T/k.json" 2>/dev/null &
	p=$!
	# the kill's moment is random from the first sample on: start-up (slow
	# under ASAN on a busy machine) is not what this tests
	for _ in $(seq 200); do [ -s "$T/k.json" ] && break; sleep 0.05; done
	sleep "0.$((RANDOM % 9 + 1))"
	kill -9 $p; wait $p 2>/dev/null
	$W --replay "$T/k.wbrec" --batch --json > "$T/kr.json" 2>/dev/null
	printed=$(wc -l < "$T/k.json") got=$(wc -l < "$T/kr.json")
	[ "$printed" -gt 0 ] || fail "kill -9 #$i: the recorder printed nothing in 10 s (did it start?)"
	# everything printed was recorded first; at most the frame being written is lost
	[ "$got" -ge $((printed - 1)) ] || fail "kill -9 #$i: $got replayed, $printed printed"
	cmp -s <(head -n $((printed - 1)) "$T/kr.json") <(head -n $((printed - 1)) "$T/k.json") ||
		fail "kill -9 #$i: replay differs from what was printed"
done
ok "kill -9 x12: every file replays up to its last whole frame"

# 5. hostile and foreign files: a clear message, exit 1, never a crash
printf 'not a recording at all' > "$T/junk"
$W --replay "$T/junk" --batch 2> "$T/e"; [ $? = 1 ] && grep -q "not a wbtop recording" "$T/e" || fail "junk"
python3 - "$T/a.wbrec" "$T/major.wbrec" "$T/minor.wbrec" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
m = bytearray(d); m[8] = 9; open(sys.argv[2], "wb").write(m)          # major 9
n = bytearray(d); n[10] = 7                                             # minor 7 and an unknown header field
hl = int.from_bytes(n[12:16], "little")
extra = bytes([99]) + (5).to_bytes(2, "little") + b"hello"
n = n[:16 + hl] + extra + n[16 + hl:]
n[12:16] = (hl + len(extra)).to_bytes(4, "little")
open(sys.argv[3], "wb").write(n)
PY
$W --replay "$T/major.wbrec" --batch 2> "$T/e"; [ $? = 1 ] && grep -q "format 9\." "$T/e" || fail "unknown major accepted"
$W --replay "$T/minor.wbrec" --batch --json > "$T/minor.json" || fail "newer minor refused"
cmp -s "$T/minor.json" "$T/live.json" || fail "newer minor: samples differ"
$W --replay "$T/nonexistent" --batch 2> "$T/e"; [ $? = 1 ] && grep -q "No such file" "$T/e" || fail "missing file"
ok "junk, unknown major refused with a reason; a newer minor's unknown fields skipped"
# an empty file, a header cut in its first 16 bytes and a header length over the cap were
# all "bad magic" or "runs past the end of the file", wherever the damage was; a file cut
# inside its header after them said "header length 105 runs past the end of the file"
: > "$T/empty.wbrec"
head -c 8 "$T/a.wbrec" > "$T/cut8.wbrec"
head -c 100 "$T/a.wbrec" > "$T/cut100.wbrec"
python3 - "$T/a.wbrec" "$T/hlen.wbrec" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read()); d[12:16] = (70000).to_bytes(4, "little")
open(sys.argv[2], "wb").write(d + bytes(80000))
PY
for c in "empty:an empty file, not a recording" \
	 "cut8:a recording cut short in its header (a truncated copy?): 8 bytes, where a header has at least 16" \
	 "cut100:a recording cut short in its header (a truncated copy?): 100 bytes, where the header alone is" \
	 "hlen:header length 70000 over the 65536 bytes a header may have (offset 12)"; do
	$W --replay "$T/${c%%:*}.wbrec" --batch 2> "$T/e"; rc=$?
	[ $rc = 1 ] && grep -qF "${c#*:}" "$T/e" || fail "${c%%:*}.wbrec: rc $rc, $(cat "$T/e")"
done
ok "an empty file, a header cut short (in its first 16 bytes or after), a header length over the cap: each said as it is"
# format 1 (fixed frame headers) is still read
got=$($W --replay "$F/rec-format1.wbrec" --batch --json 2> "$T/e" | wc -l)
[ "$got" = 75 ] || { cat "$T/e"; fail "format 1 recording: $got samples, expected 75"; }
ok "a format-1 recording replays (75 samples)"
# format 3 (sections): the same recording re-recorded (bench_record --rewrite) exports the same, byte for byte
for x in "" "--forecast 40"; do
	$W --replay "$F/rec-format1.wbrec" --batch --json $x > "$T/f1.json" 2>/dev/null
	$W --replay "$F/rec-format3.wbrec" --batch --json $x > "$T/f3.json" 2>/dev/null || fail "format 3 rc"
	[ -s "$T/f3.json" ] && cmp -s "$T/f1.json" "$T/f3.json" || fail "format 3 export $x differs from format 1's"
done
ok "a format-3 recording of the same samples exports the same JSON (also --forecast 40)"

# 6. rotation by size
$W --root "$F/6.18-writing" --batch -n 60 -d 0.05 --record "$T/r.wbrec" --max-size 2K > /dev/null 2>&1 || fail "rotate rc"
[ -f "$T/r.wbrec.1" ] || fail "no rotated file"
[ "$(stat -c %s "$T/r.wbrec")" -le 2048 ] || fail "file over its cap"
$W --replay "$T/r.wbrec.1" --batch --json > /dev/null && $W --replay "$T/r.wbrec" --batch --json > /dev/null || fail "rotated files replay"
ok "--max-size rotates to FILE.1, both replay"
# a cap under twice a file's header and first sample moved the file to FILE.1 at every sample
# (--max-size 1: a file of one sample each time); now refused at the first sample, before it is
# written: the run leaves no file (it left a header and the sample, ~800 bytes), and a file
# that was there is as it was - a recording appended to, an empty one, one --force would replace
rm -f "$T"/r.wbrec*
$W --root "$F/6.18-writing" --batch -n 20 -d 0.05 --record "$T/r.wbrec" --max-size 1K > /dev/null 2> "$T/e"; rc=$?
[ $rc = 2 ] && grep -q -- "--max-size 1024: a file's header and first sample take [0-9]* bytes.*2K is the least.*nothing recorded" "$T/e" ||
	fail "--max-size 1K: rc $rc, $(head -c 300 "$T/e")"
[ ! -e "$T/r.wbrec.1" ] && [ ! -e "$T/r.wbrec" ] || fail "--max-size 1K: a file left: $(ls -l "$T"/r.wbrec*)"
$W --root "$F/6.18-writing" --batch -n 3 -d 0.05 --record "$T/r.wbrec" > /dev/null 2>&1 || fail "a recording to refuse on"
: > "$T/empty.wbrec"
sum=$(md5sum < "$T/r.wbrec")
for x in "r.wbrec --max-size 1" "r.wbrec --max-size 1 --force" "empty.wbrec --max-size 1"; do
	set -- $x
	$W --root "$F/6.18-writing" --batch -n 2 -d 0.05 --record "$T/$1" "${@:2}" > /dev/null 2> "$T/e"; rc=$?
	[ $rc = 2 ] && grep -q "2K is the least" "$T/e" || fail "--record $x: rc $rc, $(head -c 300 "$T/e")"
	[ "$(md5sum < "$T/r.wbrec")" = "$sum" ] && [ ! -s "$T/empty.wbrec" ] && [ ! -e "$T/r.wbrec.1" ] ||
		fail "--record $x: the file changed: $(ls -l "$T"/r.wbrec* "$T/empty.wbrec")"
done
ok "--max-size under twice a file's header and first sample: refused (rc 2) with the least; no file left, one there as it was"
# FILE.1 is replaced only when it is a recording: someone's file there is refused at the start
# (exit 1, FILE not made), and one put there since stops the recording at the next rotation
rm -f "$T"/r.wbrec*
echo "keep me" > "$T/r.wbrec.1"
$W --root "$F/6.18-writing" --batch -n 3 -d 0.05 --record "$T/r.wbrec" --max-size 2K > /dev/null 2> "$T/e"; rc=$?
[ $rc = 1 ] && grep -q "r.wbrec.1 is not a wbtop recording, and --max-size would move .*r.wbrec over it" "$T/e" ||
	fail "FILE.1 not a recording, at the start: rc $rc, $(head -c 300 "$T/e")"
[ ! -e "$T/r.wbrec" ] && [ "$(cat "$T/r.wbrec.1")" = "keep me" ] || fail "FILE.1 not a recording: FILE made or FILE.1 changed"
rm -f "$T/r.wbrec.1"
$W --root "$F/6.18-writing" --batch --json -n 600 -d 0.05 --record "$T/r.wbrec" --max-size 2K > "$T/o" 2> "$T/e" &
p=$!
for _ in $(seq 300); do [ -e "$T/r.wbrec.1" ] && break; sleep 0.1; done
echo "keep me" > "$T/j" && mv "$T/j" "$T/r.wbrec.1"
wait $p; rc=$?
[ $rc = 1 ] && grep -q "not moved to .*r.wbrec.1 (--max-size), which is not a wbtop recording and would be replaced; it holds [0-9]* whole samples" "$T/e" ||
	fail "FILE.1 not a recording, since the start: rc $rc, $(head -c 300 "$T/e")"
held=$(sed -n 's/.*it holds \([0-9]*\) whole samples.*/\1/p' "$T/e")
[ "$(cat "$T/r.wbrec.1")" = "keep me" ] && [ "$($W --replay "$T/r.wbrec" --batch --json 2> /dev/null | wc -l)" = "$held" ] ||
	fail "FILE.1 not a recording, since the start: FILE.1 changed, or FILE does not hold the $held samples said"
ok "--max-size: FILE.1 not a recording refused at the start (rc 1, nothing made) and at a rotation (rc 1, FILE whole)"
# FILE.1 that another running wbtop records to (its flock) is not replaced: the rename would
# leave that wbtop writing into an unlinked file, its recording gone (it was, as "a recording")
rm -f "$T"/r.wbrec* "$T"/q.wbrec*
$W --root "$F/6.18-writing" --batch -n 0 -d 0.05 --record "$T/r.wbrec.1" > /dev/null 2> "$T/ea" &
a=$! b=
trap 'kill $a $b 2> /dev/null; tmux -L $S kill-server > /dev/null 2>&1; rm -rf "$T"' EXIT # -n 0: not left on a failure
for _ in $(seq 100); do [ -s "$T/r.wbrec.1" ] && break; sleep 0.1; done
ino=$(stat -c %i "$T/r.wbrec.1")
$W --root "$F/6.18-writing" --batch -n 3 -d 0.05 --record "$T/r.wbrec" --max-size 2K > /dev/null 2> "$T/e"; rc=$?
[ $rc = 1 ] && [ "$(wc -l < "$T/e")" = 1 ] &&
	grep -q "r.wbrec.1 is being recorded to by another wbtop, and --max-size would move .*r.wbrec over it" "$T/e" ||
	fail "FILE.1 recorded to, at the start: rc $rc, $(head -c 300 "$T/e")"
[ ! -e "$T/r.wbrec" ] && [ "$(stat -c %i "$T/r.wbrec.1")" = "$ino" ] || fail "FILE.1 recorded to: FILE made or FILE.1 moved"
# since the start: the other wbtop takes FILE.1 (made by a rotation or by itself) before the next rotation
$W --root "$F/6.18-writing" --batch -n 600 -d 0.05 --record "$T/q.wbrec" --max-size 8K > /dev/null 2> "$T/e" &
p=$!
for _ in $(seq 100); do [ -s "$T/q.wbrec" ] && break; sleep 0.1; done
$W --root "$F/6.18-writing" --batch -n 0 -d 0.05 --record "$T/q.wbrec.1" > /dev/null 2> "$T/eb" &
b=$!
for _ in $(seq 100); do [ -s "$T/q.wbrec.1" ] && [ -n "$(find /proc/$b/fd -lname "$T/q.wbrec.1" 2> /dev/null)" ] && break; sleep 0.1; done
ino=$(stat -c %i "$T/q.wbrec.1")
wait $p; rc=$?
[ $rc = 1 ] && grep -q "not moved to .*q.wbrec.1 (--max-size), which is being recorded to by another wbtop and would be replaced; it holds [0-9]* whole samples" "$T/e" ||
	fail "FILE.1 recorded to, since the start: rc $rc, $(head -c 300 "$T/e")"
[ "$(stat -c %i "$T/q.wbrec.1")" = "$ino" ] || fail "FILE.1 recorded to, since the start: FILE.1 replaced"
kill $a $b; wait $a; ra=$?; wait $b; rb=$?
trap 'tmux -L $S kill-server > /dev/null 2>&1; rm -rf "$T"' EXIT
[ $ra = 0 ] && [ $rb = 0 ] && [ ! -s "$T/ea" ] && [ ! -s "$T/eb" ] || fail "the other wbtops: rc $ra $rb, $(cat "$T/ea" "$T/eb")"
[ "$($W --replay "$T/r.wbrec.1" --batch --json 2> /dev/null | wc -l)" -gt 3 ] &&
	[ "$($W --replay "$T/q.wbrec.1" --batch --json 2> /dev/null | wc -l)" -gt 3 ] || fail "the other wbtops' recordings"
ok "--max-size: FILE.1 another wbtop records to is kept, at the start (rc 1, nothing made) and at a rotation (rc 1)"
# 7. values out of range in valid frames (fixtures/damaged/wbrec, see regen.py there): the
# decoder reports them as damage with the offset; the sinks never see them (the level
# indexed tables: SIGSEGV); under the sanitizer build this also checks for UB
D="$F/damaged/wbrec"
for c in "level-max 3 2147483647" "level-neg 2 -3" "level-max-3 3 2147483647" "level-neg-3 2 -3"; do
	set -- $c # -3: format 3 (sections)
	for fmt in --text --json --csv; do
		a=; [ $fmt = --text ] || a=$fmt
		$W --replay "$D/$1.wbrec" --batch $a > "$T/o" 2> "$T/e"; rc=$?
		[ $rc = 0 ] || fail "$1 $fmt: rc $rc (the samples before the damage replay)"
		grep -q "offset [0-9]*: damaged frame (access level $3, not 0..3)" "$T/e" || { cat "$T/e"; fail "$1 $fmt: damage not reported"; }
		[ $fmt = --json ] && { [ "$(wc -l < "$T/o")" = $2 ] || fail "$1: $(wc -l < "$T/o") samples, expected $2"; }
	done
done
for g in good good-3; do
	$W --replay "$D/$g.wbrec" --batch --json > "$T/o" 2>/dev/null && [ "$(wc -l < "$T/o")" = 6 ] || fail "$g.wbrec"
done
# a key frame after the damage: its samples replay (the replay ended at the damage, exit 0,
# the rest of the recording unread); level-max's 6 frames, then good's, a minute on
python3 - "$D" "$T/twokeys.wbrec" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("regen", sys.argv[1] + "/regen.py")
r = importlib.util.module_from_spec(spec)
spec.loader.exec_module(r)
head, bad = r.read(sys.argv[1] + "/level-max.wbrec")
_, good = r.read(sys.argv[1] + "/good.wbrec")
good[0][1] = r.zz(60 * 10**6)  # the frame header's time: a delta from the frame before
r.write(sys.argv[2], head, bad + good)
PY
$W --replay "$T/twokeys.wbrec" --batch --json > "$T/o" 2> "$T/e"; rc=$?
[ $rc = 0 ] && [ "$(wc -l < "$T/o")" = 9 ] &&
	grep -q "damaged frame (access level 2147483647, not 0..3); 3 samples lost, the replay goes on at the next key frame" "$T/e" ||
	{ cat "$T/e"; fail "a key frame after the damage: rc $rc, $(wc -l < "$T/o") samples, expected 9"; }
# damage that repeats a key frame's marker (32 KiB of them) with a 16 MiB length, then zeros: each
# candidate was read and checksummed whole (a 4 KiB run took 30 s, a megabyte hours, Ctrl-C
# unheard); a key frame over a megabyte must be followed by a frame or the end. The samples
# after it still replay (twokeys' second key frame, after the run). timeout: a hang guard only
python3 - "$T/twokeys.wbrec" "$T/markers.wbrec" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
uv = lambda v: bytes([(v >> (7 * i) & 0x7f) | (0x80 if v >> (7 * (i + 1)) else 0) for i in range(max(1, (v.bit_length() + 6) // 7))])
L = 16 * 2**20 - 64
c = b"WF\x01" + uv(L) + b"\x01\x00"
hl = int.from_bytes(d[12:16], "little")
open(sys.argv[2], "wb").write(d[:16 + hl] + b"XX" + c * (32768 // len(c)) + b"\0" * (L + 64) + d[16 + hl:])
PY
timeout 120 $W --replay "$T/markers.wbrec" --batch --json > "$T/o" 2> "$T/e"; rc=$?
[ $rc = 0 ] && [ "$(wc -l < "$T/o")" -ge 6 ] ||
	{ cat "$T/e"; fail "a run of 16 MiB markers: rc $rc, $(wc -l < "$T/o") samples"; }
ok "a run of false frame markers with 16 MiB lengths is skipped, the key frames after it replay"
# --from in the lost run, and at the key frame after it: its 6 samples, none taken for context
# (--from 60 printed 3: the refill of the window skipped past where it began, unsaid)
for f in 0.2 60; do
	n=$($W --replay "$T/twokeys.wbrec" --batch --json --from $f 2> "$T/e" | wc -l)
	[ "$n" = 6 ] && grep -q "3 samples lost" "$T/e" || { cat "$T/e"; fail "--from $f after the damage: $n samples, expected 6"; }
done
# header field 6, the interval: NaN, and 4.3e-79 s (one bit flipped in 0.05), which the UI
# took as its pace: a sample every wakeup, then a wakeup every millisecond at the end
for v in nan 4.3e-79; do
	python3 - "$D/good.wbrec" "$T/ivl.wbrec" "$v" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read()); o = 16
while o < 16 + int.from_bytes(d[12:16], "little"):
    n = int.from_bytes(d[o + 1:o + 3], "little")
    if d[o] == 6: d[o + 3:o + 11] = struct.pack("<d", float(sys.argv[3]))
    o += 3 + n
open(sys.argv[2], "wb").write(d)
PY
	$W --replay "$T/ivl.wbrec" --batch 2> "$T/e"; [ $? = 1 ] && grep -q "damaged header: sampling interval $v s (offset [0-9]*)" "$T/e" ||
		fail "an interval of $v s in the header: $(cat "$T/e")"
done
ok "out-of-range access levels (2147483647, -3; formats 2 and 3), a NaN or tiny interval: damage at their offset, in text, JSON and CSV; the next key frame's samples replay"

# 8. nothing to replay: exit 1 and a message (no output, no exit 0)
hl=$(python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); print(16 + int.from_bytes(d[12:16],"little"))' "$T/a.wbrec")
head -c "$hl" "$T/a.wbrec" > "$T/hdr.wbrec"
none() { # expected message, then the command line
	local m=$1; shift
	"$W" "$@" > "$T/o" 2> "$T/e"; rc=$?
	[ $rc = 1 ] && [ ! -s "$T/o" ] && grep -q "$m" "$T/e" || { cat "$T/e"; fail "$* : rc $rc, $(wc -c < "$T/o") bytes out"; }
}
none "no samples to replay" --replay "$T/hdr.wbrec" --batch
none "access level -3.*no sample to replay" --replay "$D/level-first-3.wbrec" --batch --json
none "no samples to replay" --replay "$T/hdr.wbrec" --batch --json
none "access level -3.*no sample to replay" --replay "$D/level-first.wbrec" --batch --csv
none "no samples from 1000 s on: the recording is" --replay "$T/a.wbrec" --batch --from 1000
none "no samples from 1000 s to 2000 s" --replay "$T/a.wbrec" --batch --json --from 1000 --to 2000
# the first frame torn: its CRC fails, nothing before it
python3 - "$T/a.wbrec" "$T/crc.wbrec" "$hl" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read()); d[int(sys.argv[3]) + 8] ^= 0xff
open(sys.argv[2], "wb").write(d)
PY
none "no samples to replay" --replay "$T/crc.wbrec" --batch
grep -q "offset $hl: a checksum mismatch" "$T/e" || fail "torn first frame: offset not named"
# in the UI as well: it says so before the screen starts (no terminal needed)
none "no samples to replay" --replay "$T/hdr.wbrec"
"$W" --replay "$T/a.wbrec" --batch --from 5 --to 1 2> "$T/e"; [ $? = 2 ] && grep -q "before --from" "$T/e" || fail "--to before --from"
ok "nothing to replay (header only, first frame damaged or torn, --from past the end) is exit 1 with a message"

# 8b. one flipped byte mid-recording loses the samples up to the next key frame, not the rest
# (a key frame every 256 frames: a format-3 recording of 270 samples has two)
$W --root "$F/6.18-writing" --batch -n 270 -d 0.05 --record "$T/long.wbrec" > /dev/null 2>&1 || fail "long record rc"
for r in "$F/rec-format1.wbrec" "$T/long.wbrec"; do
	full=$($W --replay "$r" --batch --json 2>/dev/null | wc -l)
	python3 - "$r" "$T/flip.wbrec" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read()); d[1100] ^= 0x10
open(sys.argv[2], "wb").write(d)
PY
	got=$($W --replay "$T/flip.wbrec" --batch --json 2> "$T/e" | wc -l)
	grep -q "skipped [0-9]* bytes to the next key frame" "$T/e" || { cat "$T/e"; fail "$r flipped: skip not said"; }
	[ "$got" -gt 10 ] && [ "$got" -lt "$full" ] || fail "$r flipped at 1100: $got of $full samples replayed"
	$W --replay "$T/flip.wbrec" --batch --json 2>/dev/null | python3 -c '
import json, sys
t = [json.loads(l)["mono"] for l in sys.stdin]
sys.exit(0 if all(b > a for a, b in zip(t, t[1:])) else 1)' || fail "$r flipped: times after the skip go backwards"
done
ok "a flipped byte skips to the next key frame (formats 1 and 3): the samples after it replay, in time order"

# 9. files that are not recordings, or change under the reader
mkdir "$T/adir"; mkfifo "$T/fifo"
none "adir: is a directory" --replay "$T/adir" --batch
timeout 20 "$W" --replay "$T/fifo" --batch 2> "$T/e"; rc=$?
[ $rc = 1 ] && grep -q "fifo: not a regular file (a FIFO)" "$T/e" || fail "FIFO: rc $rc (124: blocked in open)"
none "null: not a regular file" --replay /dev/null --batch
ok "a directory, a FIFO (without blocking), a device: refused by name"
# --record to a FIFO: without a reader its open failed "No such device or address" (ENXIO, exit 1);
# with one it was opened, the reader saw an end, then "not a regular file". A recording is
# appended to, its size checked at every sample and read back after a restart: a FIFO or a
# socket is a bad --record (exit 2), said before anything is sampled, never opened, nothing made
mkdir "$T/st"; mkfifo "$T/st/fifo"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$T/st/sock"
for f in fifo:"a FIFO (named pipe)" sock:"a socket"; do
	kind=${f#*:} f=${f%%:*}
	for args in "-b -n 2 -d 0.05" "-b -n 2 -d 0.05 --max-size 1M --listen 0" ""; do # "": the UI
		timeout 20 "$W" --root "$F/6.18-writing" $args --record "$T/st/$f" < /dev/null > "$T/out" 2> "$T/e"; rc=$?
		[ $rc = 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/e")" = 1 ] &&
			grep -qF -- "--record $T/st/$f is $kind: a recording is a regular file" "$T/e" ||
			fail "--record $f $args: rc $rc, $(cat "$T/e")"
	done
done
[ "$(ls "$T/st" | tr '\n' ' ')" = "fifo sock " ] && [ -p "$T/st/fifo" ] && [ -S "$T/st/sock" ] ||
	fail "--record a FIFO or socket: $(ls -l "$T/st")"
exec 3<> "$T/st/fifo" # a reader: it must see nothing written and no end
timeout 20 "$W" --root "$F/6.18-writing" -b -n 2 -d 0.05 --record "$T/st/fifo" > /dev/null 2> "$T/e"; rc=$?
[ $rc = 2 ] && grep -q "is a FIFO" "$T/e" || fail "--record a FIFO with a reader: rc $rc, $(cat "$T/e")"
read -r -t 0.3 -u 3 got && fail "--record a FIFO with a reader: written to it: $got"
exec 3<&-
ok "--record a FIFO or a socket, with a reader or not: exit 2 at once, never opened, nothing made"
# a directory and a device, as bad a --record: exit 2 before anything is sampled, as a FIFO (they were exit 1 after)
for f in "$T/st":"a directory" /dev/null:"a character device"; do
	kind=${f#*:} f=${f%%:*}
	timeout 20 "$W" --root "$F/6.18-writing" -b -n 2 -d 0.05 --record "$f" > "$T/out" 2> "$T/e"; rc=$?
	[ $rc = 2 ] && [ ! -s "$T/out" ] && grep -qF -- "--record $f is $kind: a recording is a regular file" "$T/e" ||
		fail "--record $f: rc $rc, $(cat "$T/e")"
done
# the kernel's own files (a "regular file" of size 0): it cut /proc/self/comm and wrote a
# header into it; as root /proc/sys/vm/dirty_ratio would be a sysctl written
for f in /proc/self/comm:procfs /sys/kernel/x.wbrec:sysfs; do
	fs=${f#*:} f=${f%%:*}
	timeout 20 "$W" --root "$F/6.18-writing" -b -n 2 -d 0.05 --record "$f" > "$T/out" 2> "$T/e"; rc=$?
	[ $rc = 2 ] && [ ! -s "$T/out" ] && grep -qF -- "--record $f is on $fs, the kernel's own files, not storage" "$T/e" ||
		fail "--record $f: rc $rc, $(cat "$T/e")"
done
ok "--record a directory, a device or a kernel file: exit 2 at once"
# 10. the disk fills while recording (RLIMIT_FSIZE: write() fails with EFBIG): batch
# stops, exit 1, the message names the file and the error, and the file ends with its
# last whole sample: it replays without a warning, as a prefix of what was printed. The
# frames are written by a thread (a write throttled by the kernel must not hold the
# sampling), so the failure is known a sample or two after the sample it hit: those
# were printed, not recorded (the sample at which it is known is not printed: as many
# printed as kept when the thread had caught up)
( ulimit -f 4; exec "$W" --root "$F/6.18-writing" --batch --json -n 0 -d 0.05 --record "$T/full.wbrec" ) \
	2> "$T/e" | cat > "$T/full.json"; rc=${PIPESTATUS[0]}
[ "$rc" = 1 ] || fail "full disk: rc $rc"
grep -q "recording stopped: $T/full.wbrec: writing: File too large (errno 27); it holds [0-9]* whole samples" "$T/e" ||
	{ cat "$T/e"; fail "full disk: the message"; }
[ "$(stat -c %s "$T/full.wbrec")" -le 4096 ] || fail "full disk: file over the limit"
$W --replay "$T/full.wbrec" --batch --json > "$T/fr.json" 2> "$T/e" || fail "full disk: the file does not replay"
grep -q "offset" "$T/e" && fail "full disk: a torn frame left at the end: $(cat "$T/e")"
k=$(wc -l < "$T/fr.json") p=$(wc -l < "$T/full.json")
[ "$k" -gt 10 ] && [ "$p" -ge "$k" ] && [ "$p" -le $((k + 4)) ] || fail "full disk: $k samples in the file, $p printed"
cmp -s "$T/fr.json" <(head -n "$k" "$T/full.json") || fail "full disk: the file is not what was printed"
ok "a full disk while recording: exit 1, file and errno named, $k whole samples kept, no torn frame"
# 11. --record on an existing file: a recording of this boot is appended to; any other
# file is kept (exit 1) unless --force; a symlink is never written through
rec() { "$W" --root "$F/6.18-writing" --batch --json -n "$1" -d 0.05 --record "$2" "${@:3}"; }
rec 3 "$T/ap.wbrec" > "$T/ap1.json" 2>/dev/null && rec 4 "$T/ap.wbrec" > "$T/ap2.json" 2>/dev/null || fail "append rc"
$W --replay "$T/ap.wbrec" --batch --json > "$T/apr.json" 2> "$T/e" || fail "appended file does not replay"
[ "$(wc -l < "$T/apr.json")" = 7 ] && ! grep -q offset "$T/e" || fail "append: $(wc -l < "$T/apr.json") samples, not 3 + 4"
cmp -s <(head -n 3 "$T/apr.json") "$T/ap1.json" || fail "append: the first recording changed"
printf 'keep me\n' > "$T/notes.txt"
rec 2 "$T/notes.txt" > /dev/null 2> "$T/e"; rc=$?
[ $rc = 1 ] && grep -q "notes.txt: exists and is not a wbtop recording: not overwritten (--force replaces it)" "$T/e" ||
	fail "a text file: rc $rc, $(cat "$T/e")"
[ "$(cat "$T/notes.txt")" = "keep me" ] || fail "a text file was changed"
ln -s "$T/notes.txt" "$T/link.wbrec"
for force in "" --force; do
	rec 2 "$T/link.wbrec" $force > /dev/null 2> "$T/e"; rc=$?
	[ $rc = 1 ] && grep -q "link.wbrec: a symbolic link: wbtop does not write through one" "$T/e" || fail "symlink $force: rc $rc"
	[ "$(cat "$T/notes.txt")" = "keep me" ] || fail "written through a symlink ($force)"
done
rec 2 "$T/notes.txt" --force > /dev/null 2>&1 && [ "$($W --replay "$T/notes.txt" --batch --json | wc -l)" = 2 ] ||
	fail "--force did not replace the text file"
rec 2 "$T/adir" > /dev/null 2> "$T/e"; [ $? = 2 ] && grep -q "adir is a directory" "$T/e" || fail "--record a directory"
$W --root "$F/6.18-writing" --batch --force > /dev/null 2> "$T/e"; [ $? = 2 ] && grep -q "force needs --record" "$T/e" ||
	fail "--force alone"
# a second wbtop recording to the same file (appending, or --force) is refused while
# the first one records: it would cut the first one's newest frames off
rec 60 "$T/busy.wbrec" > "$T/busy1.json" 2>/dev/null & busy=$!
for _ in $(seq 50); do [ -s "$T/busy.wbrec" ] && break; sleep 0.1; done
for force in "" --force; do
	rec 2 "$T/busy.wbrec" $force > /dev/null 2> "$T/e"; rc=$?
	[ $rc = 1 ] && grep -q "busy.wbrec: another wbtop is recording to it" "$T/e" || fail "a busy recording $force: rc $rc, $(cat "$T/e")"
done
wait $busy || fail "the first recorder failed"
$W --replay "$T/busy.wbrec" --batch --json > "$T/busy2.json" 2> "$T/e" && cmp -s "$T/busy1.json" "$T/busy2.json" &&
	! grep -q offset "$T/e" || fail "a busy recording was damaged: $(cat "$T/e")"
ok "--record appends to a recording of this boot, keeps other files (--force replaces), never follows a symlink"
# --root DIR recorded this boot's id, so a recording of a tree was appended to a live one of this
# boot (or of another tree) as if one source. Its boot id is the tree's own now, else a "tree:" id
# of DIR's path (and of this boot, whose clock its samples carry): the same tree goes on
bootid() { python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read(); n = struct.unpack("<I", d[12:16])[0]; h, i = d[16:16 + n], 0
while i < len(h):
    t, l = h[i], struct.unpack("<H", h[i + 1:i + 3])[0]
    if t == 3: print(h[i + 3:i + 3 + l].decode())
    i += 3 + l' "$1"; }
cp -r "$F/6.18-writing" "$T/tree1"; cp -r "$F/6.18-writing" "$T/tree2"
rtree() { "$W" --root "$1" --batch -n 2 -d 0.05 --record "$2"; }
rtree "$T/tree1" "$T/tr.wbrec" > /dev/null 2>&1 && rtree "$T/tree1/." "$T/tr.wbrec" > /dev/null 2>&1 || fail "a tree twice: rc $?"
id=$(bootid "$T/tr.wbrec")
case "$id" in tree:????????????????) ;; *) fail "a tree's boot id: $id" ;; esac
[ "$id" != "$(cat /proc/sys/kernel/random/boot_id)" ] || fail "a tree recorded with this boot's id"
[ "$($W --replay "$T/tr.wbrec" --batch --json 2>/dev/null | wc -l)" = 4 ] || fail "the same tree twice: not one recording"
rtree "$T/tree2" "$T/tr.wbrec" > /dev/null 2> "$T/e"; rc=$?
[ $rc = 1 ] && grep -q "tr.wbrec: a recording of another --root tree, or of a running kernel" "$T/e" &&
	[ "$($W --replay "$T/tr.wbrec" --batch --json 2>/dev/null | wc -l)" = 4 ] || fail "another tree appended: rc $rc, $(cat "$T/e")"
mkdir -p "$T/tree2/proc/sys/kernel/random"
echo 0f6e5c1b-4a2d-4e8f-9a7b-123456789abc > "$T/tree2/proc/sys/kernel/random/boot_id"
rtree "$T/tree2" "$T/tr2.wbrec" > /dev/null 2>&1 && [ "$(bootid "$T/tr2.wbrec")" = 0f6e5c1b-4a2d-4e8f-9a7b-123456789abc ] ||
	fail "a tree's own boot id: $(bootid "$T/tr2.wbrec")"
ok "--root DIR: the tree's boot id, or one of DIR's that no kernel has; another tree is not appended to"
# frames of another file appended (their time deltas start again: the index takes them as
# hours later, the decoder finds them earlier): an export from there has nothing to give, exit 1
rec 5 "$T/cb.wbrec" > /dev/null 2>&1 || fail "cb rc"
python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read()
open(sys.argv[1], "ab").write(d[16 + struct.unpack("<I", d[12:16])[0]:])' "$T/cb.wbrec"
$W --replay "$T/cb.wbrec" --batch --json > "$T/cb.json" 2> "$T/e" && [ "$(wc -l < "$T/cb.json")" = 5 ] ||
	fail "appended frames: the 5 samples before them: rc $?, $(cat "$T/e")"
# the span the index gives them follows the clock at recording (CLOCK_MONOTONIC: the machine's
# uptime, ~1000 s on a machine booted for the run, where a fixed --from 3000 was past the end):
# asked for past the end first, then a quarter and three quarters into the span it names
$W --replay "$T/cb.wbrec" --batch --json --from 999999999 > /dev/null 2> "$T/e"
span=$(sed -n 's/.*the recording is \([0-9.]*\) s long.*/\1/p' "$T/e")
[ -n "$span" ] || fail "appended frames, --from past the end: $(cat "$T/e")"
for from in $(python3 -c 'import sys; x = float(sys.argv[1]); print(x / 4, x * 3 / 4)' "$span"); do
	$W --replay "$T/cb.wbrec" --batch --json --from $from > "$T/cb.json" 2> "$T/e"; rc=$?
	[ $rc = 1 ] && [ ! -s "$T/cb.json" ] && grep -q "no sample could be replayed" "$T/e" ||
		fail "appended frames, --from $from: rc $rc, $(wc -l < "$T/cb.json") samples, $(cat "$T/e")"
done
ok "a replay that exports no sample (damage before or at --from) exits 1"
# 12. the same in the UI (in tmux): it goes on sampling, shows the message frame after
# frame, and exits 1 with it on stderr
if command -v tmux > /dev/null; then
	tmux -L $S -f /dev/null new-session -d -x 120 -y 40 "env TERM=tmux-256color bash -c 'ulimit -f 1; \
		exec $W --root $F/6.18-writing -d 0.1 --record $T/ui.wbrec 2> $T/ui.err'; echo \$? > $T/ui.rc"
	shown=0
	for _ in $(seq 300); do # up to 30 s, under ASAN on a busy machine
		tmux -L $S capture-pane -p > "$T/pane" 2>/dev/null
		grep -q "recording stopped: $T/ui.wbrec: writing: File too large" "$T/pane" && shown=$((shown + 1))
		[ $shown -ge 5 ] && break
		sleep 0.1
	done
	# still sampling: the clock in the header moves on, the message stays
	sleep 1.2; tmux -L $S capture-pane -p > "$T/pane2" 2>/dev/null
	grep -q "recording stopped" "$T/pane2" && [ "$(head -1 "$T/pane")" != "$(head -1 "$T/pane2")" ] ||
		{ tmux -L $S kill-server > /dev/null 2>&1; fail "UI: stopped sampling, or the message went away"; }
	tmux -L $S send-keys q
	for _ in $(seq 100); do [ -s "$T/ui.rc" ] && break; sleep 0.1; done
	tmux -L $S kill-server > /dev/null 2>&1
	[ $shown -ge 5 ] || fail "UI: the recording's failure not on screen ($shown captures)"
	[ "$(cat "$T/ui.rc")" = 1 ] || fail "UI: exit $(cat "$T/ui.rc") after the recording failed"
	grep -q "recording stopped: $T/ui.wbrec: writing: File too large (errno 27)" "$T/ui.err" || fail "UI: stderr"
	$W --replay "$T/ui.wbrec" --batch > /dev/null 2> "$T/e" && ! grep -q offset "$T/e" || fail "UI: file does not replay whole"
	ok "a full disk in the UI: shown on every frame while sampling goes on, exit 1"
else
	echo "# skipped the UI part: no tmux"
fi
echo "$n passed, 0 failed"
