#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every recording shipped in examples/ replays without root: exported whole
# (JSON and CSV), seeked (--from/--to), and its samples say what its scenario
# is about (devices with writeback, level 3 events).
set -u
W=${WBTOP:?}
EX=$(cd "$(dirname "$0")/.." && pwd)/examples
T=$(mktemp -d); chmod 755 "$T"; trap 'rm -rf "$T"' EXIT
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	run=(setpriv --reuid=65534 --regid=65534 --clear-groups)
else
	run=()
fi
pass=0 failed=0
for f in "$EX"/*.wbrec "$EX"/scenarios/*.wbrec; do
	n=${f#"$EX"/}
	size=$(stat -c %s "$f")
	if "${run[@]}" "$W" --replay "$f" --batch --json > "$T/all.json" 2> "$T/err" &&
	   "${run[@]}" "$W" --replay "$f" --batch --json --from 5 --to 15 > "$T/cut.json" 2>> "$T/err" &&
	   "${run[@]}" "$W" --replay "$f" --batch --csv > "$T/all.csv" 2>> "$T/err" &&
	   python3 - "$T/all.json" "$T/cut.json" "$T/all.csv" "$size" <<'PY'
import json, sys
allj = [json.loads(l) for l in open(sys.argv[1])]
cut = [json.loads(l) for l in open(sys.argv[2])]
csv = open(sys.argv[3]).read().splitlines()
size = int(sys.argv[4])
t0 = allj[0]["mono"]
assert len(allj) >= 20, f"{len(allj)} samples"
assert size < 1 << 20, f"{size} bytes: shipped recordings stay well under 1 MB"
assert all(4.5 <= x["mono"] - t0 <= 15.5 for x in cut) and 9 <= len(cut) <= 12, \
    [round(x["mono"] - t0, 1) for x in cut]
assert len(csv) > len(allj), "CSV: a row per device per sample"
assert all(x["level"] == 3 for x in allj), "recorded at level 3"
busy = {b["bdi"] for x in allj for b in x["bdis"] if b.get("writeback", 0) > 1 << 20}
assert busy, "some device has writeback"
print(f"{len(allj)} samples, {size} bytes, busy devices {sorted(busy)}")
PY
	then
		pass=$((pass + 1)); echo "ok - $n"
	else
		failed=$((failed + 1)); echo "not ok - $n"; cat "$T/err"
	fi
done

# --set in text and CSV shows the what-if, --forecast in text the drain times:
# nothing the JSON carries is dropped silently (each checked against the JSON)
f=$EX/usb-stick.wbrec
if "${run[@]}" "$W" --replay "$f" --batch --from 24 -n 1 --set vm.dirty_bytes=200M --forecast 30 > "$T/w.txt" 2> "$T/err" &&
   "${run[@]}" "$W" --replay "$f" --batch --csv --from 24 -n 1 --set vm.dirty_bytes=200M > "$T/w.csv" 2>> "$T/err" &&
   "${run[@]}" "$W" --replay "$f" --batch --json --from 24 -n 1 --set vm.dirty_bytes=200M --forecast 30 > "$T/w.json" 2>> "$T/err" &&
   python3 - "$T/w.txt" "$T/w.csv" "$T/w.json" <<'PY'
import csv, json, sys
text = open(sys.argv[1]).read()
rows = list(csv.DictReader(open(sys.argv[2])))
j = json.loads(open(sys.argv[3]).readline())
wi = {b["bdi"]: b for b in j["whatif"]["bdis"]}
assert "What-if: " in text and "IF-THRESH" in text, text
assert "Forecast (current settings" in text and "Forecast (what-if" in text, text
for r in rows:
    w = wi[r["bdi"]]
    assert int(r["if_thresh"]) == w["thresh"] and int(r["if_bg_thresh"]) == w["bg_thresh"], r
    assert r["if_state"] == w["state"] + (":" + w["held_by"] if "held_by" in w else ""), r
for b in j["forecast"]["bdis"]:  # every device's drain time in the text forecast
    if "drain_s" in b:
        got = [l.split()[1] for l in text.split("Forecast (current")[1].splitlines()[2:] if l.split()[:1] == [b["bdi"]]]
        assert got and abs(float(got[0].rstrip("s")) - b["drain_s"]) <= 0.051, (b["bdi"], got, b["drain_s"])
print(f"what-if in text and CSV for {len(rows)} devices, forecast drain times in text")
PY
then
	pass=$((pass + 1)); echo "ok - --set and --forecast in text and CSV"
else
	failed=$((failed + 1)); echo "not ok - --set and --forecast in text and CSV"; cat "$T/err"
fi
# ... and a held what-if state in the form of the state column ("over-limit:device"), in CSV
# and JSON alike (if_state read "over-limit" beside state "throttled:global", JSON had no held_by)
if "${run[@]}" "$W" --replay "$f" --batch --csv --from 24 -n 1 --set bdi.loop1.max_bytes=16M > "$T/h.csv" 2> "$T/err" &&
   "${run[@]}" "$W" --replay "$f" --batch --json --from 24 -n 1 --set bdi.loop1.max_bytes=16M > "$T/h.json" 2>> "$T/err" &&
   python3 - "$T/h.csv" "$T/h.json" <<'PY'
import csv, json, sys
rows = {r["bdi"]: r for r in csv.DictReader(open(sys.argv[1]))}
wi = {b["bdi"]: b for b in json.loads(open(sys.argv[2]).readline())["whatif"]["bdis"]}
held = [b for b in wi.values() if b["state"] in ("throttled", "over-limit")]
assert held, wi
for b in held:
    assert rows[b["bdi"]]["if_state"] == b["state"] + ":" + b["held_by"], (rows[b["bdi"]], b)
PY
then
	pass=$((pass + 1)); echo "ok - a held what-if state names its limit in CSV and JSON"
else
	failed=$((failed + 1)); echo "not ok - a held what-if state names its limit in CSV and JSON"; cat "$T/err"
fi
# which limit holds a writer (#20): at 24 s in usb-stick the stick is over its
# own limit and the disk, far under its own, is held by the global level
n="usb-stick at 24 s: stick held by its own limit, disk by the global one"
if "${run[@]}" "$W" --replay "$f" --batch --csv --from 24 -n 1 > "$T/held.csv" 2> "$T/err" &&
   python3 - "$T/held.csv" <<'PY'
import csv, sys
st = {r["mount"].rsplit("/", 1)[-1]: r["state"] for r in csv.DictReader(open(sys.argv[1]))}
assert st["stick"].endswith(":device") and st["disk"] == "throttled:global", st
PY
then
	pass=$((pass + 1)); echo "ok - $n"
else
	failed=$((failed + 1)); echo "not ok - $n"; cat "$T/err"
fi
# a cut export equals the full export at the same samples, byte for byte,
# forecast included (the window before --from is rebuilt, as after a seek)
"${run[@]}" "$W" --replay "$f" --batch --json --forecast 30 --set vm.dirty_ratio=5 > "$T/full.json" 2> "$T/err"
for from in 0.5 24 60; do
	"${run[@]}" "$W" --replay "$f" --batch --json --forecast 30 --set vm.dirty_ratio=5 --from $from -n 3 > "$T/cut.json" 2>> "$T/err"
	if [ -s "$T/cut.json" ] && grep -qxFf "$T/cut.json" "$T/full.json" &&
	   [ "$(grep -cxFf "$T/cut.json" "$T/full.json")" = 3 ]; then
		pass=$((pass + 1)); echo "ok - --from $from equals the full export there"
	else
		failed=$((failed + 1)); echo "not ok - --from $from differs from the full export"; cat "$T/err"
	fi
done
echo "$pass passed, $failed failed"
[ $failed = 0 ]
