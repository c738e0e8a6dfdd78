#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Run live as an unprivileged user: a lower level, a line saying what is
# hidden and how to get it, exit 0.
set -u
W=${WBTOP:?}
T=$(mktemp -d); chmod 755 "$T"; trap 'rm -rf "$T"' EXIT
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null || { echo "SKIP: no setpriv"; exit 77; }
	run=(setpriv --reuid=65534 --regid=65534 --clear-groups)
else
	run=()
fi
"${run[@]}" "$W" --batch --json -n 2 -d 0.2 >"$T/out" 2>"$T/err"; rc=$?
[ $rc = 0 ] || { echo "FAIL: rc $rc"; cat "$T/err"; exit 1; }
python3 - "$T/out" <<'PY' || exit 1
import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    assert d["level"] in (0, 1), d["level"]
    assert d["global"]["kernel_thresh"] > 0
    for b in d["bdis"]:
        assert "reclaimable" not in b, b  # debugfs is root-only: absent, not 0
        # without the device's share (debugfs) its thresholds and state are not known: absent, not a guess
        for k in ("thresh", "bg_thresh", "state", "kernel_thresh"):
            assert k not in b, (k, b)
PY
# the Flusher pane's OVER-BG: without the device's pages (debugfs) only a yes (the global level past its
# background threshold) is known; a "no" was a guess (0 in the CSV, "no" on screen)
"${run[@]}" "$W" --batch --csv -n 1 >"$T/csv" 2>/dev/null || { echo "FAIL: --csv as nobody"; exit 1; }
python3 - "$T/csv" <<'PY' || exit 1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and all(r["over_bg"] in ("", "1") for r in rows), [(r["bdi"], r["over_bg"]) for r in rows]
PY
# other users' processes cannot be read: the sample says how many, and so
# does a replay of a recording made so (the Processes pane shows it)
mkdir -m 1777 "$T/u"
"${run[@]}" "$W" --batch -n 3 -d 0.2 --record "$T/u/u.wbrec" >/dev/null 2>&1 || { echo "FAIL: --record as nobody"; exit 1; }
"$W" --replay "$T/u/u.wbrec" --batch --json >"$T/replay" 2>"$T/rerr" || { echo "FAIL: replay"; cat "$T/rerr"; exit 1; }
python3 - "$T/out" "$T/replay" <<'PY' || exit 1
import json, sys
for f in sys.argv[1:]:
    for l in open(f):
        d = json.loads(l)
        if "procs" in d:
            assert d["global"]["procs_unreadable"] > 0, (f, d["global"])
        else:
            assert "procs_unreadable" not in d["global"], (f, d["global"])
PY
grep -q "level 2 hidden:.*run as root" "$T/err" || { echo "FAIL: no explanation"; cat "$T/err"; exit 1; }
# debugfs mounted (root's): root is what is missing, and --mount-debugfs would change nothing
if grep -qs ' /sys/kernel/debug .* - debugfs ' /proc/self/mountinfo && grep -q "hidden:.*--mount-debugfs" "$T/err"; then
	echo "FAIL: debugfs is mounted, yet the hint says --mount-debugfs"; cat "$T/err"; exit 1
fi
"${run[@]}" "$W" --batch -n 1 --mount-debugfs >/dev/null 2>"$T/err"
if [ "$(id -u)" = 0 ] && ! grep -qs ' /sys/kernel/debug ' /proc/self/mountinfo; then
	grep -q "needs root" "$T/err" || { echo "FAIL: --mount-debugfs as nobody"; exit 1; }
fi
echo "1 passed, 0 failed"
