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
echo "$pass passed, $failed failed"
[ $failed = 0 ]
