#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Graph pane, drawn in process from each shipped recording (no terminal,
# no sleeps): golden screens at 80x24 and 200x60 (the busiest device, braille),
# one in block characters and one in ASCII; and a forecast pinned before the
# min_ratio change in cache-thrash.wbrec, whose printed error so far must
# equal tools/forecast-eval's for the same moment. WBTOP_UPDATE_GOLDEN=1
# rewrites the goldens.
set -u
W=${WBTOP:?} GS=${GRAPH_SCREEN:?}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
G=$ROOT/tests/ui/golden/graph
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0 failed=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
bad() { echo "not ok - $*"; failed=$((failed + 1)); }

# golden NAME RECORDING ARGS...
golden() {
	local name=$1 rec=$2
	shift 2
	if ! "$GS" "$rec" "$@" > "$T/$name.txt" 2> "$T/err"; then
		bad "$name: $(cat "$T/err")"; return
	fi
	[ "${WBTOP_UPDATE_GOLDEN:-0}" = 1 ] && cp "$T/$name.txt" "$G/$name.txt"
	if diff -u "$G/$name.txt" "$T/$name.txt" > "$T/diff"; then ok "$name"; else bad "$name"; cat "$T/diff"; fi
}

for f in "$ROOT"/examples/*.wbrec "$ROOT"/examples/scenarios/*.wbrec; do
	n=$(basename "$f" .wbrec)
	golden "$n-80x24" "$f" 80x24 --bdi auto
	golden "$n-200x60" "$f" 200x60 --bdi auto
done
golden usb-stick-global-80x24 "$ROOT/examples/usb-stick.wbrec" 80x24 --at 30
golden usb-stick-block-80x24 "$ROOT/examples/usb-stick.wbrec" 80x24 --bdi 7:0 --at 30 --block
golden usb-stick-ascii-80x24 "$ROOT/examples/usb-stick.wbrec" 80x24 --bdi 7:0 --at 30 --ascii
golden usb-stick-zoom-200x60 "$ROOT/examples/usb-stick.wbrec" 200x60 --bdi 7:0 --zoom 3
golden usb-stick-zoom-80x24 "$ROOT/examples/usb-stick.wbrec" 80x24 --bdi 7:0 --at 30 --zoom 1
# a device never written (loop3): its bandwidth is the kernel's starting 100 MiB/s, not drawn
golden usb-stick-idle-200x60 "$ROOT/examples/usb-stick.wbrec" 200x60 --bdi 7:3
# the rate plot's axis fits what it draws: a new device's bandwidth before the kernel measured it
# (100 MiB/s) set a 100M/s axis for a writer not started yet, and 110M/s of writers got 200M/s
"$GS" "$ROOT/bench/forecast-runs/fresh/run01.wbrec" 120x60 --bdi 7:201 --at 4 > "$T/fresh.txt" 2>&1
"$GS" "$ROOT/bench/forecast-runs/fresh/run01.wbrec" 120x60 --bdi 7:201 --at 6 > "$T/fresh6.txt" 2>&1
if sed -n '/bandwidth and writer/{n;p}' "$T/fresh.txt" | grep -q '^1\.0M/s' &&
   grep -q 'bandwidth: not measured yet' "$T/fresh.txt" &&
   sed -n '/bandwidth and writer/{n;p}' "$T/fresh6.txt" | grep -q '^150M/s'; then
	ok "rate plot: the axis fits what is drawn, not the kernel's starting bandwidth"
else
	bad "rate plot: the axis"; sed -n '/bandwidth and writer/,$p' "$T/fresh.txt" "$T/fresh6.txt"
fi
# ... and the level plots' in the same steps, one rule for every plot: zone-fair-ext4's 128M threshold
# had a 200M axis beside its rates' 15M/s
if sed -n '/dirty + writeback against the limits/{n;p}' "$T/zone-fair-ext4-200x60.txt" | grep -q '^  150M ' &&
   sed -n '/dirty + writeback against its threshold/{n;p}' "$T/zone-fair-ext4-200x60.txt" | grep -q '^  150M ' &&
   sed -n '/bandwidth and writer/{n;p}' "$T/zone-fair-ext4-200x60.txt" | grep -q '^ 15M/s '; then
	ok "level plots: the axis in the rate plot's steps"
else
	bad "level plots: the axis"; grep -A1 'against\|bandwidth and' "$T/zone-fair-ext4-200x60.txt"
fi
# ... with a row above the highest line: usb-stick's 80M threshold, a step itself, was the plot's top edge
if sed -n '/dirty + writeback against the limits/{n;p}' "$T/usb-stick-80x24.txt" | grep -q '^  100M ' &&
   sed -n '/dirty + writeback against the limits/{n;n;p}' "$T/usb-stick-80x24.txt" | grep -q '[^ ]'; then
	ok "level plots: the 80M threshold under the axis' top row"
else
	bad "level plots: the axis' headroom"; grep -A2 'against the limits' "$T/usb-stick-80x24.txt"
fi
# the marks' legend at every span at 80x24: each row's right of now where the forecast leaves
# room, else on a row of its own (a long span left it out)
for z in 0 1 2 3; do
	"$GS" "$ROOT/examples/usb-stick.wbrec" 80x24 --bdi 7:0 --at 30 --zoom "$z" > "$T/zoom.txt" 2>&1
	if grep -q '▼ throttled' "$T/zoom.txt" && grep -q '• flusher' "$T/zoom.txt"; then
		ok "marks legend at 80x24, zoom $z"
	else
		bad "marks legend at 80x24, zoom $z"; cat "$T/zoom.txt"
	fi
done

# a pause and a flusher wakeup in one column both show, each on its own row (the usb
# stick's flusher work at 18-30 s was hidden under its pauses)
"$GS" "$ROOT/examples/usb-stick.wbrec" 80x24 --bdi 7:0 --at 30 > "$T/both.txt" 2>&1
if python3 - "$T/both.txt" <<'PY'; then
import sys
rows = open(sys.argv[1], encoding="utf-8").read().split("\n")
m = next(i for i, r in enumerate(rows) if r.startswith("marks "))
both = sum(a == "▼" and b == "•" for a, b in zip(rows[m], rows[m + 1]))
sys.exit(both < 5)
PY
	ok "marks: pauses and wakeups of one moment both show"
else
	bad "marks: a wakeup hidden under a pause"; tail -3 "$T/both.txt"
fi

# every level plot's legend names the data and the forecast drawn over it, at 80x24 too (the
# limits' longer items left "dirty+wb" and "forecast" out: the other items go first)
for f in "$T"/*-80x24.txt; do
	if grep -E '(━|--) writeback' "$f" | grep -vE 'dirty\+wb  (┄|\.\.) forecast$' | grep -q .; then
		bad "$(basename "$f" .txt): a legend without dirty+wb or forecast"; grep -E '(━|--) writeback' "$f"
	else
		ok "$(basename "$f" .txt): the legends name dirty+wb and the forecast"
	fi
done

# unprivileged (level 1, tests/fixtures/level1.wbrec): a device's plots draw nothing the pane
# does not know - no model threshold (a lower bound there: "-" in Devices), no legend item
# without data, no forecast from a level taken as 0 - and say why
"$GS" "$ROOT/tests/fixtures/level1.wbrec" 80x24 --bdi 254:0 > "$T/l1.txt" 2>&1
sed -n '/^254:0: /,$p' "$T/l1.txt" > "$T/l1-dev.txt"
if grep -q 'n/a: per-device figures need level 2 (root, debugfs)' "$T/l1-dev.txt" &&
   ! grep -qE 'model|kernel thresh|writeback  |dirty\+wb|forecast|p10-p90' "$T/l1-dev.txt" &&
   grep -q 'dirty+wb' "$T/l1.txt"; then
	ok "level 1: the device's plot says what it lacks and draws nothing unknown"
else
	bad "level 1: the device's plot"; cat "$T/l1.txt"
fi

# the pinned forecast's error line: whole items only, the writer's a rate ("writer -100% (0B vs 3"
# at 80 columns, "global" alone at 120)
for sz in 80x24 120x30 200x60; do
	"$GS" "$ROOT/examples/scenarios/cache-thrash.wbrec" "$sz" --bdi 7:1 --pin 20 --at 30 | grep '^pinned forecast' > "$T/err.txt"
	if grep -qE '^pinned forecast vs real so far:(  [a-z]+ [-+][0-9]+% \([^ ]+ vs [^ ]+\))+$' "$T/err.txt" &&
	   ! grep -E 'writer' "$T/err.txt" | grep -vqE 'writer [-+0-9]+% \([^ ]+/s vs [^ ]+/s\)'; then
		ok "pinned errors at $sz: whole items, the writer per second"
	else
		bad "pinned errors at $sz: $(cat "$T/err.txt")"
	fi
done

# Prediction against reality: cache-thrash's flash device (7:1) gets min_ratio
# at 32 s. Pin at T, step to T + 20; the pane's error equals forecast-eval's.
CT=$ROOT/examples/scenarios/cache-thrash.wbrec
"$W" --replay "$CT" --batch --json > "$T/ct.json" || bad "export cache-thrash"
for pin in 20 28; do
	python3 - "$W" "$GS" "$CT" "$T/ct.json" "$ROOT/tools/forecast-eval" "$pin" <<'PY' && ok "pinned at $pin s: the pane's errors equal forecast-eval's" || bad "pinned at $pin s"
import json, subprocess, sys
w, gs, rec, js, fe, pin = sys.argv[1:7]
pin = float(pin)
s = [json.loads(l) for l in open(js)]
t0 = s[0]["mono"]
dev = "7:1"
# forecast-eval's T: the first sample where the device dirtied, less 1 s, plus --at
start = next(x["mono"] for x in s if next(b for b in x["bdis"] if b["bdi"] == dev).get("dirtied", 0) > 0) - 1
span = 20
# the sample at pin s, and forecast-eval's T exactly there; its window
# (T+0.5..T+span+0.5) holds the samples the pane compares, (T, T+span+0.5]
tpin = min(s, key=lambda x: abs(x["mono"] - t0 - pin))["mono"] - t0
at = t0 + tpin - start
fe_out = subprocess.run([fe, w, rec, dev, "--at", repr(at), "--window", "0.5", str(span + 0.5), "--json"],
                        capture_output=True, text=True, check=True).stdout
fev = json.loads(fe_out.splitlines()[0])
g = subprocess.run([gs, rec, "80x24", "--bdi", dev, "--pin", repr(tpin - 1e-3), "--at", repr(tpin + span + 0.5), "--errors"],
                   capture_output=True, text=True, check=True).stdout
pane = {l.split()[0]: l.split() for l in g.splitlines()}
ok = True
for what, key in (("level", "level"), ("writer", "writer")):
    f_fc, f_obs = fev[key]
    p_fc, p_obs = float(pane[what][2]), float(pane[what][3])
    rel_fe = (f_fc - f_obs) / max(f_obs, 1)
    rel_p = float(pane[what][4])
    print(f"  pin {tpin:.0f} s, {what}: pane {p_fc:.0f} vs {p_obs:.0f} ({rel_p:+.1%}); "
          f"forecast-eval {f_fc:.0f} vs {f_obs:.0f} ({rel_fe:+.1%})")
    if abs(rel_p - rel_fe) > 0.005 or abs(p_fc - f_fc) > max(1, 1e-6 * f_fc):
        ok = False
sys.exit(0 if ok else 1)
PY
done
echo "$pass passed, $failed failed"
[ $failed = 0 ]
