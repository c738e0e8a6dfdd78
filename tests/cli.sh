#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The command line on fixture trees: formats, errors, damaged input.
set -u
W=${WBTOP:?} F=${FIXTURES:?}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
n=0
fail() { echo "FAIL: $*"; exit 1; }
check() { n=$((n + 1)); echo "ok $n - $*"; }

$W --help | grep -q -- '--batch' || fail "--help"; check help
$W --version | grep -q '^wbtop ' || fail "--version"; check version
for bad in "-n x" "-d 0" "-d nan" "--frob" "--json" "extra"; do
	$W $bad >/dev/null 2>"$T/err"; rc=$?
	[ $rc = 2 ] && [ -s "$T/err" ] || fail "'$bad' gave rc=$rc without a message"
done; check "bad arguments refused with rc 2 and a message"

# every flag the chosen mode would ignore, or that conflicts, is a one-line error naming both
# (the --trial lines carry --root: were the value taken, nothing is written under a tree)
R=$F/rec-format1.wbrec
while IFS='|' read -r args want; do
	eval "set -- $args"
	$W "$@" </dev/null >"$T/out" 2>"$T/err"; rc=$?
	[ $rc = 2 ] && [ "$(wc -l < "$T/err")" = 1 ] && grep -q -- "$want" "$T/err" ||
		fail "'$args' gave rc=$rc: $(head -3 "$T/err") (wanted $want)"
	[ -s "$T/out" ] && fail "'$args' printed output"
done <<EOF2
-n ''|-n/--iterations ''
-n 3x|-n/--iterations '3x'
-n -1|expected a whole number
-b -n ' '|expected a whole number
-b --from ''|--from ''
--frob|--frob: unknown option
--for 60|--for: ambiguous, it abbreviates --forecast, --force (see --help)
-b --re=x.wbrec|--re: ambiguous, it abbreviates --record, --replay, --recover
--openm|--openm: ambiguous, it abbreviates --openmetrics, --openmetrics-file
-b -x|-x: unknown option
-b --json=1|--json=1: takes no value
-b --theme|--theme: needs a value
-b -n|-n: needs a value
--set --batch -n 1|--set: needs a value, not the option --batch
-b --replay --json|--replay: needs a value, not the option --json
-b --json --csv|--json and --csv
-b --csv --json|--json and --csv
-b --replay $R --replay $R|--replay given twice
-b --record $T/a --record $T/b|--record given twice
-b -n 1 -n 2|given twice
-b --max-size 1M|--max-size needs --record
-b --theme mono|--theme and -b/--batch
-b --warn 50|--warn and -b/--batch
-b --crit 99|--crit and -b/--batch
--replay $R --root $F/6.18-writing|--replay and --root
-b --mount-debugfs --root $F/6.18-writing|--mount-debugfs and --root
--replay $R --recover keep|--replay and --recover
-b --replay $R -d 2|-d/--delay and --replay
-b --replay $R --no-procs|--no-procs and --replay
-b --replay $R --record $T/x|--record and --replay
-b --replay $R --from 5 --to 2|--to 2 is before --from 5
-b --replay $R --from 1:2:3x|--from '1:2:3x': expected seconds from the recording's start or a clock time
-b --replay $R --to 24:00|--to '24:00': hours 24 out of range 0-23
-b --replay $R --from 12:60|--from '12:60': minutes 60 out of range 0-59
-b --replay $R --from 12:00:60|--from '12:00:60': seconds 60 out of range 0-59
-b --replay $R --from '12: 5'|--from '12: 5': expected
-b --to 3|--to needs --replay
-b --replay $R --set bdi.sdz.max_ratio=10|bdi.sdz.max_ratio: no backing device \"sdz\" in any sample replayed (the first has 7:0 (loop0), 7:1 (loop1),.* 254:0 (vda))$
-b -n 1 --root ''|--root '': expected a directory
-b -n 1 --root $T/none|--root $T/none: No such file or directory
-b -n 1 --root $F/rec-format1.wbrec|--root $F/rec-format1.wbrec: not a directory
-b -n 1 --root $F/6.18-idle -d 0x10|-d/--delay '0x10': expected seconds
-b -n 1 --root $F/6.18-idle -d ' 1'|-d/--delay ' 1': expected seconds
-b -n 1 --root $F/6.18-idle -d +1|-d/--delay '+1': expected seconds
-b -n 1 --root $F/6.18-idle -d 1e5|-d/--delay '1e5': expected seconds between 0.05 and 86400
-b -n 1 --root $F/6.18-idle -d 1e-1|-d/--delay '1e-1': expected seconds between 0.05 and 86400
-b --forecast 1.5|--forecast '1.5': expected whole seconds between 1 and 3600
-b --forecast 1e3|--forecast '1e3': expected whole seconds
-b --forecast 3601|--forecast '3601': expected whole seconds between 1 and 3600
-b --forecast 0|--forecast '0': expected whole seconds
-b --forecast -1|--forecast '-1': expected whole seconds
-b --forecast ' 60'|--forecast ' 60': expected whole seconds
-b --forecast ''|--forecast '': expected whole seconds
-b --csv --forecast 5|--forecast and --csv
-b --openmetrics --forecast 5|--forecast and --openmetrics
-b --listen 9 --forecast 5|--forecast and --listen need --json
-b --openmetrics-file $T/om --forecast 5|--forecast and --openmetrics-file need --json
-b --forecast 99999999999999999999|--forecast '99999999999999999999': expected whole seconds
-b -n 99999999999999999999|-n/--iterations '99999999999999999999': expected a whole number
--root $F/6.18-idle --set vm.dirty_ratio=20 --trial 2.5|--trial '2.5': expected whole seconds between 1 and 3600
--root $F/6.18-idle --set vm.dirty_ratio=20 --apply --trial 1e3|--trial '1e3': expected whole seconds
--root $F/6.18-idle --set vm.dirty_ratio=20 --trial 3601|--trial '3601': expected whole seconds between 1 and 3600
--root $F/6.18-idle --set vm.dirty_ratio=20 --trial 0|--trial '0': expected whole seconds
-b -n 9223372036854775808|-n/--iterations '9223372036854775808': expected a whole number between 0 and 9223372036854775807
-b -n 99999999999999999999|between 0 and 9223372036854775807
-b --record $T/a --max-size 1.5M|--max-size '1.5M': expected a size such as 100M
-b --record $T/a --max-size 1048577G|--max-size '1048577G': expected a size such as 100M.*from 1 to 1048576G
-b --record $T/a --max-size 5MK|--max-size '5MK': expected a size
-b --record $T/a --max-size 0|--max-size '0': expected a size
--warn 2000|--warn '2000': expected a percentage above 0, at most 1000
--crit 50|--crit 50 is below --warn's default, 75 (give --warn too)
--warn 99|--warn 99 is above --crit's default, 95 (give --crit too)
--warn 90 --crit 80|--warn 90 is above --crit 80
--root $F/6.18-idle --until-clean ''|--until-clean: no device ""
-b -n 1 --root $F/6.18-idle --listen '[]:0'|--listen \[\]:0: empty address in \[\]
-n 2|-n/--iterations needs -b/--batch
--forecast 10|--forecast needs -b/--batch
--csv|--csv needs -b/--batch
-b --csv-units|--csv-units needs --csv
--set vm.dirty_ratio=5 --apply --export-sysctl|--apply and --export-sysctl
--set vm.dirty_ratio=5 --export-sysctl --batch|-b/--batch and --export-sysctl
--set vm.dirty_ratio=5 --export-sysctl --theme mono|--theme and --export-sysctl
--set vm.dirty_ratio=5 --apply --no-trace|--no-trace and --apply
--trial 5|--trial needs --set
-b --set vm.dirty_ratio=5 --set vm.dirty_ratio=6|--set vm.dirty_ratio given twice
-b --root $F/6.18-writing --set bdi.7:0.max_ratio=5 --set bdi.loop0.max_ratio=60|bdi.7:0.max_ratio and bdi.loop0.max_ratio are the same knob
--root $F/6.18-writing --set bdi.7:0.max_ratio=5 --set bdi.loop0.max_ratio=60 --export-sysctl|are the same knob
--recover keep --root /tmp|--recover and --root
-b -n 1 --root / --mount-debugfs --replay $R|--mount-debugfs and --replay
EOF2
[ ! -e "$T/a" ] && [ ! -e "$T/x" ] || fail "a refused command line created a file"
check "conflicting and ignored flags refused: one line, rc 2, both named"

# an empty file name (an unset variable) is said as such, not as ': No such file or directory'
for args in "-b -n 1 --root $F/6.18-idle --record ''" "--record ''" "-b --replay ''" "--replay ''"; do
	eval "set -- $args"
	$W "$@" < /dev/null > "$T/out" 2> "$T/err"; rc=$?
	opt=$(printf '%s\n' "$@" | grep -- '^--re')
	[ $rc = 1 ] && [ "$(wc -l < "$T/err")" = 1 ] && grep -q -- "^wbtop: $opt '': the file name is empty" "$T/err" ||
		fail "'$args': rc $rc, $(head -3 "$T/err")"
done
check "--record '' and --replay '': 'the file name is empty', exit 1, in batch and the UI"

# the values the man page documents are taken: the ends of each range, a fractional delay
for args in "--forecast 1 -d 0.05" "--forecast 3600 -d 86400" "--forecast 060 -d 0.5" "-d 1.5 --record $T/m --max-size 1048576G"; do
	$W --root "$F/6.18-idle" -b -n 1 $args > /dev/null 2> "$T/err" || fail "'$args' refused: $(grep -v 'level 3' "$T/err")"
done
check "documented values taken: --forecast 1 and 3600, -d 0.05, 0.5 and 86400, --max-size 1048576G"

# --to 0 is the first sample, not "no limit"
[ "$($W --replay "$R" -b --json --to 0 | wc -l)" = 1 ] || fail "--to 0"
[ "$($W --replay "$R" -b --json --to 1 | wc -l)" = 2 ] || fail "--to 1"
[ "$($W --replay "$R" -b --json | wc -l)" -gt 10 ] || fail "no --to"
check "--to 0 means the first sample"

$W --root "$F/6.18-writing" -b --json -n 2 -d 0.1 >"$T/out" 2>"$T/err" || fail "json run"
python3 - "$T/out" <<'PY' || fail "json content"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 2, lines
for l in lines:
    d = json.loads(l)
    for k in ("time", "level", "sysctl", "global", "nodes", "zones", "bdis"):
        assert k in d, k
    g = d["global"]
    assert g["thresh"] == g["kernel_thresh"], g
    assert g["bg_thresh"] == g["kernel_bg_thresh"], g
    b = {x["bdi"]: x for x in d["bdis"]}
    assert b["btrfs-1"]["dev"] == "loop2" and b["btrfs-1"]["reclaimable"] > 0
    assert b["7:0"]["mounts"][0].endswith("/ext")
    assert "wakeups" not in b["7:0"]         # no tracing: absent, never 0
PY
check "json lines with model and kernel thresholds"

# every top-level JSON key is named in the man page's --json paragraph (mono, page_size and forecast were not)
SRC=$(cd "$(dirname "$0")/.." && pwd)
$W --root "$F/6.18-writing" -b --json -n 1 --set vm.dirty_ratio=30 --forecast 2 >"$T/keys" || fail "json keys run"
sed -n '/^\.B \\-\\-json$/,/^\.TP/{s/\\f[BIRP]//g;p}' "$SRC/man/wbtop.1" >"$T/man-json" # fonts off: \fBmono\fR
[ -s "$T/man-json" ] || fail "man: no --json paragraph"
for k in $(python3 -c 'import json, sys; print(" ".join(json.loads(open(sys.argv[1]).readline())))' "$T/keys"); do
	grep -qw -- "$k" "$T/man-json" || fail "man --json: the key $k is not named"
done
check "every top-level JSON key is in the man page"

$W --root "$F/6.18-writing" -b --csv -n 1 >"$T/csv" || fail csv
[ "$(head -1 "$T/csv" | cut -d, -f1-3)" = "time,bdi,dev" ] || fail "csv header"
[ "$(wc -l < "$T/csv")" = 12 ] || fail "csv rows: $(wc -l < "$T/csv")"
check "csv"

# --csv-units: the same header, then each column's unit; the data rows as without it
$W --root "$F/6.18-writing" -b --csv --csv-units -n 1 >"$T/csvu" || fail "csv units"
python3 - "$T/csv" "$T/csvu" <<'PY' || fail "csv units row"
import csv, sys
plain, units = (list(csv.reader(open(p))) for p in sys.argv[1:3])
head, unit, rows = units[0], dict(zip(units[0], units[1])), units[2:]
assert head == plain[0] and len(units[1]) == len(head), units[1]
assert len(rows) == len(plain) - 1
want = {"time": "s", "bdi": "", "reclaimable": "B", "write_bw": "B/s", "dirtied": "B/s",
        "min_ratio": "%", "strict_limit": "0/1", "global_thresh": "B", "time_iso": "UTC"}
assert all(unit[k] == v for k, v in want.items()), unit
for r in rows:  # each cell fits its unit: bytes whole, percent 0-100, flags 0/1
    for k, v in zip(head, r):
        if v == "":
            continue
        if unit[k] == "B":
            assert int(v) >= 0, (k, v)
        elif unit[k] == "%":
            assert 0 <= int(v) <= 100, (k, v)
        elif unit[k] == "0/1":
            assert v in ("0", "1"), (k, v)
        elif unit[k] in ("B/s", "s"):
            assert float(v) >= 0, (k, v)
PY
check "csv --csv-units: a units row under the unchanged header"

# CLEAN-IN (JSON drain_s) is in the CSV too, as the last column (the older ones keep their places),
# equal to JSON's in a replay of the stick at 24 s (the man page said so while no column held it)
$W --replay "$F/../../examples/usb-stick.wbrec" -b --csv --from 24 --to 24 >"$T/csvd" || fail "csv drain_s"
$W --replay "$F/../../examples/usb-stick.wbrec" -b --json --from 24 --to 24 >"$T/jsond" || fail "json drain_s"
python3 - "$T/csvd" "$T/jsond" <<'PY' || fail "csv drain_s: the column or its values"
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
assert rows[0][-2:] == ["drain_s", "drain_after_expiry"] and rows[0][1:4] == ["bdi", "dev", "mount"], rows[0]
js = json.loads(open(sys.argv[2]).readline())["bdis"]
want = {b["bdi"]: b.get("drain_s") for b in js}
got = {r[1]: r[-2] for r in rows[1:]}
assert want["7:0"] is not None and any(v is None for v in want.values()), want
for k, v in want.items():
    assert (got[k] == "") if v is None else abs(float(got[k]) - v) < 0.01, (k, got[k], v)
# CLEAN-IN's "+" (the pages wait for their expiry): loop1's at 24 s, as JSON's
flag = {b["bdi"]: b.get("drain_after_expiry") for b in js}
assert flag["7:1"] is True and flag["7:0"] is False, flag
for r in rows[1:]:
    assert r[-1] == ("" if flag[r[1]] is None else str(int(flag[r[1]]))), (r[1], r[-1], flag[r[1]])
PY
check "csv: drain_s, CLEAN-IN, and drain_after_expiry, its +, last, as JSON's"
# and the endpoint's exposition says the same, from the same catalogue row
$W --replay "$F/../../examples/usb-stick.wbrec" -b --openmetrics --from 24 --to 24 >"$T/omd" || fail "om drain"
grep -q '^wbtop_bdi_drain_after_expiry{bdi="7:1",.* 1 ' "$T/omd" &&
	grep -q '^wbtop_bdi_drain_after_expiry{bdi="7:0",.* 0 ' "$T/omd" &&
	grep -q '^# TYPE wbtop_bdi_drain_after_expiry gauge$' "$T/omd" ||
	fail "openmetrics drain_after_expiry: $(grep drain_after "$T/omd" | head -3)"
check "openmetrics: wbtop_bdi_drain_after_expiry as JSON's drain_after_expiry"

$W --root "$F/6.18-writing" -b --json --set vm.dirty_ratio=40 --set bdi.loop1.max_ratio=5 >"$T/wi" || fail whatif
python3 -c "
import json,sys; d=json.load(open('$T/wi')); w=d['whatif']
assert abs(w['global']['thresh'] - 2*d['global']['thresh']) < 2*4096*3, w
b={x['bdi']:x for x in w['bdis']}; assert b['7:1']['thresh'] <= w['global']['thresh']*5//100
" || fail "whatif content"
$W --root "$F/6.18-writing" -b --set vm.dirty_bytes=100 >/dev/null 2>"$T/err"; rc=$?
[ $rc = 2 ] && grep -q minimum "$T/err" || fail "invalid --set accepted (rc=$rc)"
check "what-if and its validation"

# a device the forecast does not see clean within its horizon is "> horizon", not "never" (its
# dirty pages below the background threshold expire later, after dirty_expire_centisecs)
$W --root "$F/6.18-writing" -b --json --forecast 3 | python3 -c "
import json,sys; f=json.load(sys.stdin)['forecast']; b={x['bdi']:x for x in f['bdis']}
assert 'clean_at_s' not in b['254:0'] and b['7:3']['clean_at_s'] == 0, b['254:0']" || fail "forecast json"
$W --root "$F/6.18-writing" -b --forecast 3 >"$T/fc" || fail "forecast text"
grep -qE '^  254:0 +[0-9.]+s +>3s ' "$T/fc" && ! grep -q never "$T/fc" || fail "forecast text: $(grep 254:0 "$T/fc")"
check "forecast: not clean within the horizon is '>3s', not 'never'"

# a file system with no backing device has no writeback: said so, not "no device ... or a mount point"
$W --root "$F/6.18-writing" --until-clean /proc -n 1 >/dev/null 2>"$T/err"; rc=$?
[ $rc = 2 ] && grep -q "/proc is on a file system with no backing device" "$T/err" || fail "--until-clean /proc: rc $rc $(cat "$T/err")"
check "--until-clean on a file system without writeback says so"

$W --root "$F/damaged" -b >"$T/out" 2>"$T/err" || fail "damaged fixture: rc $?"
grep -q 'proc/vmstat: no usable "nr_dirty"' "$T/err" || fail "damaged vmstat not named"
grep -q '^254:0 ' "$T/out" || fail "other collectors stopped"
check "damaged files named, the rest shown"

# a tree's vm.dirty_* out of the kernel's range (dirty_ratio 2^64-1) went into the model (a 16 TiB
# threshold, "dirtyable recovered"); one that is missing said nothing: each is named, no threshold
cp -a "$F/6.18-writing" "$T/sys"
echo 18446744073709551615 > "$T/sys/proc/sys/vm/dirty_ratio"
rm "$T/sys/proc/sys/vm/dirty_background_bytes"
echo 18446744073709551615 > "$T/sys/sys/class/bdi/7:0/max_ratio_fine" # MAX% 1844674407370955 in the text
echo 7 > "$T/sys/sys/class/bdi/7:1/strict_limit"
$W --root "$T/sys" -b --json >"$T/out" 2>"$T/err" || fail "vm.dirty_* damaged: rc $?"
grep -q "sys/vm/dirty_ratio: 18446744073709551615 is out of the kernel's range 0-100 (ignored)" "$T/err" &&
	grep -q "sys/vm/dirty_background_bytes: not there: the thresholds cannot be computed" "$T/err" &&
	grep -q "7:0/max_ratio_fine: 18446744073709551615 is out of the kernel's range 0-1000000 (ignored)" "$T/err" &&
	grep -q "7:1/strict_limit: 7 is out of the kernel's range 0-1 (ignored)" "$T/err" &&
	python3 -c 'import json, sys; d = json.load(sys.stdin); b = {x["bdi"]: x for x in d["bdis"]}
sys.exit("thresh" in d["global"] or "dirty_ratio" in d["sysctl"] or b["7:0"]["max_ratio"] != 100 or "strict_limit" in b["7:1"])' \
		< "$T/out" || fail "vm.dirty_* damaged: $(cat "$T/err"); $(head -c 300 "$T/out")"
check "a vm.dirty_* or device knob out of range or missing in a tree: named, not used"

# a count no kernel reaches (2^62 pages and more) was taken live and recorded, and the replay
# refused the sample as damage; so were a node's zone counters summed past it (kernels before
# 4.8 count dirty pages per zone); 2^62-1 pages were recorded, and shown as bytes wrapped (JSON
# "writeback" 18446744073709547520)
cp -a "$F/6.18-writing" "$T/cnt"
sed -i 's/^nr_dirty .*/nr_dirty 18446744073709551615/' "$T/cnt/proc/vmstat"
sed -i 's/^nr_writeback .*/nr_writeback 4611686018427387903/' "$T/cnt/proc/vmstat" # 2^62-1 pages: 64 bits of bytes wrap
sed -i '0,/managed  *[0-9]*/s//managed 4611686018427387904/' "$T/cnt/proc/zoneinfo"
cp -a "$F/4.4-handmade" "$T/sum"
sed -i 's/nr_dirty     [0-9]*/nr_dirty     3000000000000000000/' "$T/sum/proc/zoneinfo"
for t in cnt sum; do
	$W --root "$T/$t" -b -n 1 --no-procs --record "$T/$t.wbrec" >/dev/null 2>"$T/err" || fail "$t: rc $?"
	cp "$T/err" "$T/$t.err"
	got=$($W --replay "$T/$t.wbrec" -b --json 2>"$T/err" | python3 -c 'import json, sys
print(" ".join(str(json.loads(l)["global"].get("writeback", "-")) for l in sys.stdin))')
	[ "$got" = - ] || [ "$t" = sum ] && [ -n "$got" ] || fail "$t: recorded, replayed: $got; $(cat "$T/err")"
done
grep -q "proc/vmstat:38: nr_dirty: 18446744073709551615 is more than a kernel counts (ignored)" "$T/cnt.err" &&
	grep -q "proc/zoneinfo:[0-9]*: managed: 4611686018427387904 is more than a kernel counts" "$T/cnt.err" &&
	grep -q "1 figures past what a kernel counts (2^62, or 16 EiB in bytes; as read or summed)" "$T/cnt.err" &&
	grep -q "figures past what a kernel counts (2^62, or 16 EiB in bytes; as read or summed)" "$T/sum.err" ||
	fail "counts past 2^62: $(cat "$T/cnt.err" "$T/sum.err")"
check "counts past what a kernel reaches (2^62, or 16 EiB), read or summed: unknown, and the recording replays"

mkdir "$T/nothing" # one that is not there is a bad argument (exit 2, above)
$W --root "$T/nothing" -b >/dev/null 2>"$T/err"; rc=$?
[ $rc = 1 ] && grep -q "nothing to show" "$T/err" || fail "empty root: rc $rc"
check "empty root"

# --from/--to as clock times (local, as the header shows them) cut what the same
# range in seconds cuts, --to taking its whole second; one before the first sample is the start
t0=$($W --replay "$R" -b --json -n 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["time"])') || fail "first sample"
read -r c2 c5 rel2 rel5 cbefore < <(python3 -c "
import math, time
t0 = $t0; a = math.floor(t0) + 2; b = a + 3
clk = lambda t: time.strftime('%H:%M:%S', time.localtime(t))
print(clk(a), clk(b), a - t0, b - t0 + 0.999, clk(t0 - 30)[:5])")
$W --replay "$R" -b --json --from "$c2" --to "$c5" >"$T/clk" 2>"$T/err" || fail "--from $c2 --to $c5: $(cat "$T/err")"
$W --replay "$R" -b --json --from "$rel2" --to "$rel5" >"$T/sec" || fail "--from $rel2 --to $rel5"
[ -s "$T/clk" ] && cmp -s "$T/clk" "$T/sec" || fail "--from $c2 --to $c5 is not --from $rel2 --to $rel5"
$W --replay "$R" -b --json --from "$cbefore" >"$T/clk" 2>"$T/err" && $W --replay "$R" -b --json >"$T/sec" &&
	cmp -s "$T/clk" "$T/sec" || fail "--from $cbefore (before the first sample) is not the start"
# one second, from and to: its samples (it matched none, "no samples from 2.8 s to 2.8 s")
[ "$($W --replay "$R" -b --json --from "$c2" --to "$c2" 2>"$T/err" | wc -l)" -ge 1 ] ||
	fail "--from $c2 --to $c2: $(cat "$T/err")"
check "--from/--to as clock times"
# a clock --to before --from is a bad value like one in seconds: exit 2, not 1
$W --replay "$R" -b --json --from "$c5" --to "$c2" >"$T/out" 2>"$T/err"; rc=$?
[ $rc = 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" = 1 ] && grep -q -- "--to $c2 is before --from $c5" "$T/err" ||
	fail "--from $c5 --to $c2: rc $rc: $(cat "$T/err")"
check "a clock --to before --from: exit 2"
# a clock --from after the last sample: it was "no samples from 75.0002 s on", a time the
# user never typed (the clamped seconds); now the time as typed and the recording's span
cafter=$(python3 -c "import time; print(time.strftime('%H:%M:%S', time.localtime($t0 + 3600)))")
$W --replay "$R" -b --json --from "$cafter" >"$T/out" 2>"$T/err"; rc=$?
[ $rc = 1 ] && [ ! -s "$T/out" ] && grep -q "no samples from $cafter on: the recording runs [0-9:]* to [0-9:]*\$" "$T/err" ||
	fail "--from $cafter (after the last sample): rc $rc: $(cat "$T/err")"
check "a clock --from after the last sample: named as typed, with the recording's span"
# a clock --to before the first sample: it was clamped to 0, "the first sample", and exported it (exit 0)
cto=$(python3 -c "import time; print(time.strftime('%H:%M:%S', time.localtime($t0 - 120)))")
$W --replay "$R" -b --json --from "$cto" --to "$cto" >"$T/out" 2>"$T/err"; rc=$?
[ $rc = 1 ] && [ ! -s "$T/out" ] && grep -q "no samples up to $cto: the recording runs [0-9:]* to [0-9:]*\$" "$T/err" ||
	fail "--to $cto (before the first sample): rc $rc: $(cat "$T/err")"
check "a clock --to before the first sample: said, nothing exported"
# a two-device btrfs mounted by the member the kernel does not list first: the
# BDI takes the mount's source as its device and so shows the mount (it took the
# first listed and showed none)
cp -a "$F/6.18-writing" "$T/bt2"
D=$(echo "$T"/bt2/sys/fs/btrfs/*/devices)
for m in loop5 loop6 loop7; do ln -s ../../../../devices/virtual/block/$m "$D/$m"; done
other=$(ls -f "$D" | grep -v '^\.' | sed -n 2p) # not the first listed
sed -i "s| - btrfs /dev/loop2 | - btrfs /dev/$other |" "$T/bt2/proc/self/mountinfo"
$W --root "$T/bt2" --batch --json -n 1 --no-trace 2>/dev/null | python3 -c '
import json, sys
b = next(b for b in json.loads(sys.stdin.readline())["bdis"] if b["bdi"].startswith("btrfs-"))
sys.exit(0 if b["dev"] == sys.argv[1] and b["mounts"] == ["/tmp/wbtop-test.VgPpBe/btr"] else
         "btrfs BDI: dev %s, mounts %s (mounted from %s)" % (b["dev"], b["mounts"], sys.argv[1]))' "$other" ||
	fail "two-device btrfs"
check "a two-device btrfs shows its mount (mounted from $other)"
# a BDI whose knob files cannot be read (gone, or an empty directory mounted over
# it) is said on stderr, once, not only shown as "-"
cp -a "$F/6.18-writing" "$T/nk"
b=$(ls "$T/nk/sys/class/bdi" | head -1)
rm -f "$T/nk/sys/class/bdi/$b"/*
$W --root "$T/nk" --batch -n 3 -d 0.1 --no-trace > "$T/out" 2> "$T/err" || fail "unreadable knobs: rc $?"
[ "$(grep -c "BDI $b: none of its knobs" "$T/err")" = 1 ] || fail "unreadable knobs of $b: $(cat "$T/err")"
grep -q "^$b " "$T/out" || fail "unreadable knobs: $b not shown"
check "a BDI with no readable knob is said once and still shown"
# debugfs stats missing while sysfs is there (debugfs not mounted; a device without its
# stats file) were only "-": the cause is said on stderr, once
cp -a "$F/6.18-idle" "$T/nd"
rm -r "$T/nd/sys/kernel/debug"
$W --root "$T/nd" --batch -n 3 -d 0.05 > "$T/out" 2> "$T/err" || fail "no debugfs: rc $?"
[ "$(grep -c "debugfs stats unread: $T/nd/sys/kernel/debug/bdi: No such file or directory" "$T/err")" = 1 ] ||
	fail "no debugfs: $(cat "$T/err")"
cp -a "$F/6.18-idle" "$T/ns"
rm "$T/ns/sys/kernel/debug/bdi/7:3/stats"
$W --root "$T/ns" --batch -n 3 -d 0.05 --json > "$T/out" 2> "$T/err" || fail "no stats for 7:3: rc $?"
[ "$(grep -c "debugfs stats unread for 1 of 10 devices: 7:3 (No such file or directory); their dirty" "$T/err")" = 1 ] ||
	fail "no stats for 7:3: $(cat "$T/err")"
check "debugfs stats missing (no debugfs, one device's file gone): the cause said once"
# a value the kernel takes but that stops every writer is said in the what-if
$W --root "$F/6.18-writing" --set vm.dirty_bytes=18446744073709551615 --batch -n 1 > "$T/out" 2>&1 ||
	fail "dirty_bytes 2^64-1: rc $?"
grep -q "caution: the global dirty threshold would be 0" "$T/out" || fail "dirty_bytes 2^64-1: no caution"
$W --root "$F/6.18-writing" --set vm.dirty_bytes=1G --batch -n 1 2>&1 | grep -q caution && fail "dirty_bytes 1G: a caution"
check "vm.dirty_bytes=2^64-1 (a threshold of 0 in the kernel) is cautioned, 1G is not"
# output that cannot be written (a full disk: /dev/full) is exit 1 with a message; a replay's
# export and --export-sysctl were written only at exit, unchecked: exit 0, the file cut short
for args in "--replay $R -b --csv --to 0" "--replay $R -b --openmetrics" "--root $F/6.18-writing --set vm.dirty_ratio=5 --export-sysctl"; do
	$W $args > /dev/full 2> "$T/err"; rc=$?
	[ $rc = 1 ] && grep -q "writing the output: No space left on device" "$T/err" || fail "$args > /dev/full: rc $rc, $(cat "$T/err")"
done
# a closed pipe is not an error: the reader had enough
$W --replay "$R" -b --openmetrics 2> "$T/err" | head -c 1 > /dev/null
[ "${PIPESTATUS[0]}" = 0 ] && ! grep -q "writing the output" "$T/err" || fail "replay into a closed pipe: rc ${PIPESTATUS[0]}"
check "a full disk under a replay's export or --export-sysctl: exit 1, said"
# live batch output to a regular file goes through src/out/relay.c's thread (fd 1 a pipe, the
# file on another fd), so the kernel holding that write does not hold the sampling; Ctrl-C
# writes what is in the pipe, whole; past RLIMIT_FSIZE the thread's error stops batch, exit 1
$W --root "$F/6.18-writing" --batch --json -n 0 -d 0.1 > "$T/relay.json" 2> "$T/err" &
p=$!
sleep 0.5
fd1=$(readlink /proc/$p/fd/1)
kill -INT $p; wait $p; rc=$?
[ $rc = 0 ] && ! grep -q "writing" "$T/err" || fail "relay: rc $rc, $(cat "$T/err")"
case $fd1 in pipe:*) ;; *) fail "relay: fd 1 of a batch to a file is $fd1, not the relay's pipe" ;; esac
python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' "$T/relay.json" || fail "relay: a line not whole"
[ "$(wc -l < "$T/relay.json")" -ge 3 ] || fail "relay: $(wc -l < "$T/relay.json") samples"
( ulimit -f 8; exec $W --root "$F/6.18-writing" --batch --json -n 0 -d 0.05 > "$T/relay.json" 2> "$T/err" ); rc=$?
[ $rc = 1 ] && grep -q "writing the output: File too large" "$T/err" || fail "relay past RLIMIT_FSIZE: rc $rc, $(cat "$T/err")"
$W --root "$F/6.18-writing" --batch -n 2 -d 0.05 | head -c 1 > /dev/null
[ "${PIPESTATUS[0]}" = 0 ] || fail "a live batch into a closed pipe: rc ${PIPESTATUS[0]}"
check "live batch to a regular file: written by a thread (fd 1 a pipe), whole at Ctrl-C, a full file exit 1, a closed pipe not an error"
# a closed standard descriptor (>&-, 2>&-) was the next file opened: the recording, which then
# took the JSON or the messages (a damaged recording, exit 0); held now, its use fails as closed
$W --root "$F/6.18-writing" --batch --json -n 3 -d 0.05 --record "$T/c1.wbrec" >&- 2> "$T/err"; rc=$?
[ $rc = 1 ] && grep -q "writing the output: Bad file descriptor" "$T/err" || fail "stdout closed: rc $rc, $(cat "$T/err")"
$W --replay "$T/c1.wbrec" --batch --json > "$T/out" 2> "$T/err" && [ "$(wc -l < "$T/out")" -ge 1 ] &&
	! grep -q "offset" "$T/err" || fail "stdout closed: the recording damaged: $(head -c 300 "$T/err")"
# (a fixture tree's "level 3 hidden" line is written while recording; a --max-size refused at the
# first sample, written after it, now leaves no file at all)
$W --root "$F/6.18-writing" --batch --json -n 3 -d 0.05 --record "$T/c2.wbrec" > /dev/null 2>&-; rc=$?
[ $rc = 0 ] && [ -s "$T/c2.wbrec" ] && ! grep -a -q "wbtop: " "$T/c2.wbrec" ||
	fail "stderr closed: rc $rc, or the messages in the recording"
$W --replay "$T/c2.wbrec" --batch --json > /dev/null 2> "$T/err" && ! grep -q "offset" "$T/err" ||
	fail "stderr closed: the recording damaged: $(head -c 300 "$T/err")"
$W --root "$F/6.18-writing" --batch --json -n 3 -d 0.05 --record "$T/c3.wbrec" --max-size 1 > /dev/null 2>&-; rc=$?
[ $rc = 2 ] && [ ! -e "$T/c3.wbrec" ] || fail "stderr closed, --max-size 1: rc $rc, or a file left"
# a --max-size refused at the first sample printed that sample (6 KB of JSON, a CSV header and
# row) before exit 2: the refusal prints nothing, as it records nothing
for fmt in --json --csv "--csv --csv-units" ""; do
	$W --root "$F/6.18-writing" --batch $fmt -n 3 -d 0.05 --record "$T/c4.wbrec" --max-size 1K > "$T/out" 2> "$T/err"
	rc=$?
	[ $rc = 2 ] && [ ! -s "$T/out" ] && grep -q "2K is the least" "$T/err" && [ ! -e "$T/c4.wbrec" ] ||
		fail "--max-size 1K $fmt: rc $rc, $(wc -c < "$T/out") bytes printed, $(head -c 300 "$T/err")"
done
$W --root "$F/6.18-writing" --batch --json -n 1 <&- > "$T/out" 2> "$T/err" && [ "$(wc -l < "$T/out")" = 1 ] ||
	fail "stdin closed: rc $?, $(cat "$T/err")"
check "a closed stdout or stderr never writes into the recording: exit 1 'Bad file descriptor' for stdout"
# a plain recorder (--record F --batch: its text unasked) with stdout closed stopped after one
# sample, exit 1: the recording is its output, the text goes unwritten; asked-for output
# (--json above) and a batch that records nothing still fail as closed
$W --root "$F/6.18-writing" --batch -n 3 -d 0.05 --record "$T/c3.wbrec" >&- 2> "$T/err"; rc=$?
[ $rc = 0 ] && ! grep -q "writing the output" "$T/err" || fail "recorder, stdout closed: rc $rc, $(cat "$T/err")"
$W --replay "$T/c3.wbrec" --batch --json > "$T/out" 2> "$T/err" && [ "$(wc -l < "$T/out")" = 3 ] ||
	fail "recorder, stdout closed: $(wc -l < "$T/out") samples recorded, not 3: $(head -c 300 "$T/err")"
$W --root "$F/6.18-writing" --batch -n 1 >&- 2> "$T/err"; rc=$?
[ $rc = 1 ] && grep -q "writing the output: Bad file descriptor" "$T/err" || fail "batch, stdout closed: rc $rc, $(cat "$T/err")"
check "a recorder's text to a closed stdout goes unwritten: 3 samples recorded, exit 0"
# --record FILE > FILE: the relay's JSON and the frames in one file, exit 0, a damaged recording
same() { $W --root "$F/6.18-writing" --batch --json -n 3 -d 0.05 --record "$T/same.wbrec"; }
rm -f "$T/same.wbrec"; same > "$T/same.wbrec" 2> "$T/err"; rc=$?
[ $rc = 1 ] && grep -q "record .*same.wbrec is also standard output: not recorded" "$T/err" && [ ! -s "$T/same.wbrec" ] ||
	fail "--record FILE > FILE: rc $rc, $(head -c 300 "$T/err")"
rm -f "$T/same.wbrec"; same >> "$T/same.wbrec" 2> "$T/err"; rc=$?
[ $rc = 1 ] && grep -q "is also standard output" "$T/err" || fail "--record FILE >> FILE: rc $rc, $(head -c 300 "$T/err")"
rm -f "$T/same.wbrec"; same > /dev/null 2> "$T/same.wbrec"; rc=$?
[ $rc = 1 ] && grep -q "record .*same.wbrec is also standard error: not recorded" "$T/same.wbrec" ||
	fail "--record FILE 2> FILE: rc $rc, $(head -c 300 "$T/same.wbrec")"
check "--record FILE with standard output or error to FILE: refused (exit 1), not a damaged recording"
# --openmetrics-file FILE > FILE: each sample renamed a new FILE over the one stdout had open, the
# JSON went on into the unlinked file (lost, growing unseen), exit 0; the same for stderr's messages
omsame() { $W --root "$F/6.18-writing" --batch --json -n 3 -d 0.05 --openmetrics-file "$T/same.prom"; }
rm -f "$T/same.prom"; omsame > "$T/same.prom" 2> "$T/err"; rc=$?
[ $rc = 1 ] && [ "$(wc -l < "$T/err")" = 1 ] &&
	grep -q "openmetrics-file .*same.prom is also standard output: not written" "$T/err" && [ ! -s "$T/same.prom" ] ||
	fail "--openmetrics-file FILE > FILE: rc $rc, $(head -c 300 "$T/err")"
rm -f "$T/same.prom"; omsame >> "$T/same.prom" 2> "$T/err"; rc=$?
[ $rc = 1 ] && grep -q "is also standard output" "$T/err" || fail "--openmetrics-file FILE >> FILE: rc $rc, $(head -c 300 "$T/err")"
rm -f "$T/same.prom"; omsame > /dev/null 2> "$T/same.prom"; rc=$?
[ $rc = 1 ] && grep -q "openmetrics-file .*same.prom is also standard error: not written" "$T/same.prom" &&
	! grep -q "^wbtop_" "$T/same.prom" || fail "--openmetrics-file FILE 2> FILE: rc $rc, $(head -c 300 "$T/same.prom")"
rm -f "$T/same.prom"; omsame > "$T/out" 2> /dev/null && [ "$(wc -l < "$T/out")" = 3 ] && grep -q "^wbtop_dirty_bytes " "$T/same.prom" ||
	fail "--openmetrics-file FILE beside --json to another file"
check "--openmetrics-file FILE with standard output or error to FILE: refused (exit 1), no output lost"
# --record FILE --openmetrics-file FILE: the first sample's rename replaced the recording with the
# metrics (the frames went on into the unlinked file, exit 0); refused, also spelt another way
# and when FILE is already a recording (nothing appended to it, nothing replaced)
rm -f "$T/both"; $W --root "$F/6.18-writing" --batch --json -n 2 -d 0.05 --record "$T/both" \
	--openmetrics-file "$T/../$(basename "$T")/./both" > /dev/null 2> "$T/err"; rc=$?
[ $rc = 1 ] && [ "$(wc -l < "$T/err")" = 1 ] && grep -q "openmetrics-file .*both is also the --record file" "$T/err" &&
	[ ! -e "$T/both" ] || fail "--record FILE --openmetrics-file FILE: rc $rc, $(head -c 300 "$T/err")"
$W --root "$F/6.18-writing" --batch --json -n 2 -d 0.05 --record "$T/both" > /dev/null 2>&1 && cp "$T/both" "$T/both.0" ||
	fail "a recording to test with"
$W --root "$F/6.18-writing" --batch --json -n 2 -d 0.05 --record "$T/both" --openmetrics-file "$T/both" \
	> /dev/null 2> "$T/err"; rc=$?
[ $rc = 1 ] && cmp -s "$T/both" "$T/both.0" || fail "--record REC --openmetrics-file REC: rc $rc, $(head -c 300 "$T/err")"
# --max-size renames the recording onto FILE.1, and the next textfile over it (every rotated
# part lost, exit 0): refused; and /dev/null as --record and stdout is one mistake, one message
rm -f "$T/rot" "$T/rot.1"; $W --root "$F/6.18-writing" --batch -n 60 -d 0.05 --record "$T/rot" --max-size 4K \
	--openmetrics-file "$T/rot.1" > /dev/null 2> "$T/err"; rc=$?
[ $rc = 1 ] && grep -q "openmetrics-file .*rot.1 is where --max-size moves the --record file" "$T/err" &&
	[ ! -e "$T/rot" ] && [ ! -e "$T/rot.1" ] || fail "--record F --max-size --openmetrics-file F.1: rc $rc, $(head -c 300 "$T/err")"
$W --root "$F/6.18-writing" --batch -n 1 --record /dev/null > /dev/null 2> "$T/err"; rc=$?
[ $rc = 2 ] && grep -q "is a character device: a recording is a regular file" "$T/err" &&
	! grep -q "also standard output" "$T/err" || fail "--record /dev/null > /dev/null: rc $rc, $(head -c 300 "$T/err")"
check "--record FILE --openmetrics-file FILE: refused before sampling (exit 1), the recording left whole"
# --openmetrics-file or --listen refused at the start (exit 2) after --record had made FILE: a
# header-only recording was left behind (or one appended to). The metrics start first now
rm -f "$T/omrec"
$W --root "$F/6.18-writing" --batch -n 2 -d 0.05 --record "$T/omrec" --openmetrics-file "$T/nodir/x.prom" \
	> /dev/null 2> "$T/err"; rc=$?
[ $rc = 2 ] && [ "$(grep -c "openmetrics-file" "$T/err")" = 1 ] && [ ! -e "$T/omrec" ] ||
	fail "--record F, --openmetrics-file unwritable: rc $rc, F $([ -e "$T/omrec" ] && echo left), $(head -c 300 "$T/err")"
python3 -c 'import socket, time; s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True); time.sleep(60)' > "$T/port" &
busy=$!
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.1; done
$W --root "$F/6.18-writing" --batch -n 2 -d 0.05 --record "$T/omrec" --listen "127.0.0.1:$(cat "$T/port")" \
	> /dev/null 2> "$T/err"; rc=$?
kill $busy; wait $busy 2> /dev/null
[ $rc = 2 ] && grep -q "in use" "$T/err" && [ ! -e "$T/omrec" ] ||
	fail "--record F, --listen on a port in use: rc $rc, F $([ -e "$T/omrec" ] && echo left), $(head -c 300 "$T/err")"
cp "$T/both.0" "$T/omrec"
$W --root "$F/6.18-writing" --batch -n 2 -d 0.05 --record "$T/omrec" --openmetrics-file "$T/nodir/x.prom" \
	> /dev/null 2> "$T/err"; rc=$?
[ $rc = 2 ] && cmp -s "$T/omrec" "$T/both.0" || fail "--record REC, --openmetrics-file unwritable: rc $rc, REC changed"
check "--record FILE with --openmetrics-file or --listen refused (exit 2): no recording begun, none changed"
# a FUSE mount (bindfs: strict_limit and max_ratio 1 % by the kernel) written through a shared
# mapping, max_ratio 5 written at sample 12 (tests/fixtures/fuse-max-ratio.wbrec, recorded
# live): the what-if of that change, asked before it while the device wrote, is the threshold
# the kernel showed after it (its share was held at the 1 % cap; the what-if kept it: 45M for 229M)
$W --replay "$F/fuse-max-ratio.wbrec" --batch --json --set bdi.0:40.max_ratio=5 > "$T/fuse.json" 2> "$T/err" ||
	fail "fuse replay: rc $?, $(cat "$T/err")"
python3 - "$T/fuse.json" <<'PY' || fail "fuse: the what-if of max_ratio 5 is not the kernel's threshold after it"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
dev = lambda r, k="bdis": next(b for b in r[k] if b["bdi"] == "0:40")
d = dev(rows[0])
assert d["fstype"] == "fuse" and d["strict_limit"] == 1 and d["max_ratio"] == 1, d
after = sorted(dev(r)["kernel_thresh"] for r in rows if dev(r)["max_ratio"] == 5)
k = after[len(after) // 2]
wi = [dev(r["whatif"]) ["thresh"] for r in rows if dev(r)["max_ratio"] == 1 and dev(r)["reclaimable"] + dev(r)["writeback"] > 0]
assert len(wi) >= 5 and all(abs(w - k) <= k / 50 for w in wi), (k, wi)
PY
check "FUSE: listed as fuse, strict_limit, max_ratio 1; a what-if raising the cap it is held at is the kernel's threshold after"

# a what-if that held and stops holding: bench/scenario-gen/heldout15/run05 (a real run) raises
# 7:200's min_ratio to 35 at its 32nd sample, so max_ratio 0 is refused from there on. Every
# sample is still printed, the what-if with the first 31 only, one line says from when, exit 0
# (it stopped the replay there, exit 2: a live --record ended the same way)
R5=$F/../../bench/scenario-gen/heldout15/run05.wbrec
$W --replay "$R5" --batch --json --set bdi.7:200.max_ratio=0 > "$T/moved.json" 2> "$T/err"; rc=$?
python3 - "$T/moved.json" <<'PY' && [ $rc = 0 ] && [ "$(wc -l < "$T/err")" = 1 ] &&
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
have = ["whatif" in r for r in rows]
assert len(rows) == 60 and have == [True] * 31 + [False] * 29, (len(rows), have)
PY
	grep -q "no longer applies: bdi.7:200.max_ratio: max below this device's min ratio" "$T/err" ||
	fail "a what-if that stops holding: rc $rc, $(cat "$T/err")"
check "a --set that stops holding mid-replay: every sample printed, the what-if while it held, one line"

# a --set device that comes later in the recording (plugged in while recording: here 7:7 is put
# back in the tree between two appends): the replay failed at its first sample, exit 2, "no backing
# device in the recording at this sample". Now the samples before it go without the what-if, one
# line says so and one when it applies, exit 0 with every sample; a device no sample has stays
# an error (exit 2) that says so; another entry wrong at the first sample is said as before
cp -a "$F/6.18-writing" "$T/late" && mv "$T/late/sys/class/bdi/7:7" "$T/late-7:7"
$W --root "$T/late" --batch -n 3 -d 0.05 --no-procs --record "$T/late.wbrec" > /dev/null 2>&1 &&
	mv "$T/late-7:7" "$T/late/sys/class/bdi/7:7" &&
	$W --root "$T/late" --batch -n 3 -d 0.05 --no-procs --record "$T/late.wbrec" > /dev/null 2>&1 ||
	fail "late device: recording"
$W --replay "$T/late.wbrec" --batch --json --forecast 30 --set bdi.7:7.max_ratio=10 > "$T/late.json" 2> "$T/err"; rc=$?
python3 - "$T/late.json" <<'PY' && [ $rc = 0 ] && [ "$(grep -c 'what-if' "$T/err")" = 2 ] &&
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
have = ["whatif" in r for r in rows]
has77 = [any(b["bdi"] == "7:7" for b in r["bdis"]) for r in rows]
assert len(rows) == 6 and has77 == [False] * 3 + [True] * 3 and have == has77, (len(rows), has77, have)
dev = lambda bs: next(b for b in bs if b["bdi"] == "7:7")
assert dev(rows[-1]["whatif"]["bdis"])["thresh"] < dev(rows[-1]["bdis"])["thresh"], rows[-1] # capped at 10 %
PY
	grep -q '^wbtop: --set bdi.7:7.max_ratio=10: its device is not in the recording before [0-9:]*: the samples before go without the what-if$' "$T/err" &&
	grep -q '^wbtop: from [0-9:]* the what-if applies$' "$T/err" ||
	fail "a --set device that comes later: rc $rc, $(cat "$T/err")"
$W --replay "$T/late.wbrec" --batch --set bdi.sdz.max_ratio=10 > "$T/out" 2> "$T/err"; rc=$?
[ $rc = 2 ] && grep -q '^wbtop: bdi.sdz.max_ratio: no backing device "sdz" in any sample replayed (the first has 7:0 (loop0), .*)$' "$T/err" ||
	fail "a --set device in no sample: rc $rc, $(cat "$T/err")"
$W --replay "$T/late.wbrec" --batch --to 0.1 --set bdi.7:7.max_ratio=10 > "$T/out" 2> "$T/err"; rc=$?
[ $rc = 2 ] && grep -q 'no backing device "7:7" in any sample replayed' "$T/err" ||
	fail "a --set device after --to: rc $rc, $(cat "$T/err")"
$W --replay "$T/late.wbrec" --batch --set bdi.7:7.max_ratio=10 --set vm.dirty_ratio=101 > "$T/out" 2> "$T/err"; rc=$?
[ $rc = 2 ] && grep -q 'vm.dirty_ratio=101: above the kernel' "$T/err" && ! grep -q 'what-if' "$T/err" ||
	fail "a late device beside a bad value: rc $rc, $(cat "$T/err")"
$W --replay "$T/late.wbrec" --batch --set bdi.7:7.max_ratio=10 --set bdi.7:7.min_ratio=20 > "$T/out" 2> "$T/err"; rc=$?
[ $rc = 0 ] && grep -q "from [0-9:]* the what-if does not apply: bdi.7:7.min_ratio: min above this device's max ratio" "$T/err" ||
	fail "a late device whose --set does not hold when it comes: rc $rc, $(cat "$T/err")"
check "a --set device that comes later in a replay: the what-if from its first sample on, said; one in no sample: exit 2, said"

# text a person gave, quoted in an error: an escape sequence or a newline in an option's value, a
# file name, a --set key was written to the terminal as it was ($'\e[2J' cleared the screen under
# the message, a newline forged a second "wbtop:" line). Now C-style escapes, one line, cut short
# when long, in every message that quotes it: the option parser's, the files' and the trees'
bad() { # bad WANT ARGS...: one line on stderr (LINES=n: n), no control character in it, WANT (fixed) in it
	local want=$1
	shift
	$W "$@" < /dev/null > /dev/null 2> "$T/err"
	[ "$(wc -l < "$T/err")" = "${LINES:-1}" ] && ! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$T/err" &&
		grep -qF -- "$want" "$T/err" || fail "$(printf '%q' "$*"): $(cat -v "$T/err")"
}
mkdir "$T/q"$'\e[2J' # a tree with no kernel files
bad "'\e[2J5'" --delay $'\e[2J5'
bad "'1\n2'" -b -n $'1\n2'
bad "'5\r\e[1A'" -b --forecast $'5\r\e[1A'
bad "--frob\e[31m: unknown option" --frob$'\e[31m'
bad 'unexpected argument "x\ey"' -b $'x\ey'
bad "needs a value, not the option --json\e[2J" -b --replay --json$'\e[2J'
bad "--root $T/no\nsuch: No such file" -b --root "$T/no"$'\n'"such"
LINES=8 bad "no usable kernel files under $T/q\e[2J" -b -n 1 --root "$T/q"$'\e[2J'
LINES=8 bad "$T/q\e[2J/proc/vmstat: unreadable" -b -n 1 --root "$T/q"$'\e[2J'
bad "/x\e[2J.wbrec: No such file" -b --replay "$T/x"$'\e[2J'.wbrec
bad "--record: $T/no\ndir/x: No such file" -b -n 1 --root "$F/6.18-idle" --record "$T/no"$'\n'"dir/x"
bad "--openmetrics-file $T/no\tdir/x.prom" -b -n 1 --root "$F/6.18-idle" --openmetrics-file "$T/no"$'\t'"dir/x.prom"
bad '"\e]0;x\a" is not a whole number' -b -n 1 --root "$F/6.18-idle" --set $'vm.dirty_ratio=\e]0;x\a'
bad 'no backing device "\e[1m"' -b -n 1 --root "$F/6.18-idle" --set $'bdi.\e[1m.max_ratio=1'
bad '--set vm.dirty_ratio given twice (5\e, then 6\u009b)' -b --set $'vm.dirty_ratio=5\e' --set $'vm.dirty_ratio=6\xc2\x9b'
bad '--listen \e:1: "\e" is not an IP address' -b --listen $'\e:1'
bad "--recover 'k\u202eeep'" --recover $'k\xe2\x80\xaeeep'
bad 'no device "\e[2J"' --root "$F/6.18-idle" --until-clean $'\e[2J'
long=$(printf 'x%.0s' $(seq 5000))
bad "'xxxx" -d "$long"$'\e'
[ "$(wc -c < "$T/err")" -lt 300 ] && grep -q 'x\.\.\.x*\\e' "$T/err" || fail "a 5000-byte value: $(wc -c < "$T/err") bytes"
check "text a person gave is quoted in errors with C-style escapes, on one line, cut when long"

# numeric WBTOP_* variables set to a value they do not take were ignored unsaid: one line each
# naming the variable, what it takes and the default used, and the run goes on; a value they
# take, or an empty one, says nothing
for v in "WBTOP_BDI_SLOW_US=5ms|expected whole microseconds from 1 to 1000000; the default, 1000, is used" \
	 "WBTOP_BDI_SLOW_US=0|from 1 to 1000000" \
	 "WBTOP_FORECAST_MEMBERS=100|expected a whole number of ensemble members from 0 to 64; the default, 8, is used" \
	 $'WBTOP_FORECAST_MEMBERS=\e[2J|WBTOP_FORECAST_MEMBERS=\\e[2J: expected' \
	 "WBTOP_FORECAST_MEMBERS=-0|WBTOP_FORECAST_MEMBERS=-0: expected" \
	 "WBTOP_FORECAST_MEMBERS=+4|WBTOP_FORECAST_MEMBERS=+4: expected" \
	 "WBTOP_BDI_SLOW_US= 5|WBTOP_BDI_SLOW_US= 5: expected"; do
	env "${v%%|*}" $W --root "$F/6.18-idle" --batch -n 1 --no-trace > "$T/out" 2> "$T/err"; rc=$?
	[ $rc = 0 ] && [ -s "$T/out" ] && [ "$(grep -c WBTOP_ "$T/err")" = 1 ] && grep -q "^wbtop: ${v%%=*}=" "$T/err" &&
		grep -qF -- "${v#*|}" "$T/err" ||
		fail "${v%%|*}: rc $rc: $(head -c 300 "$T/err")"
done
for v in WBTOP_BDI_SLOW_US=20 WBTOP_FORECAST_MEMBERS=0 WBTOP_FORECAST_MEMBERS= WBTOP_BDI_SLOW_US=1000000; do
	env "$v" $W --root "$F/6.18-idle" --batch -n 1 --no-trace > /dev/null 2> "$T/err" && ! grep -q WBTOP_ "$T/err" ||
		fail "$v: $(head -c 300 "$T/err")"
done
check "WBTOP_BDI_SLOW_US, WBTOP_FORECAST_MEMBERS: a value not taken is said with what is, the default used"
echo "$n passed, 0 failed"
