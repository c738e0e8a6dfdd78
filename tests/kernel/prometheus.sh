#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Root: a real Prometheus scrapes wbtop --listen every second while a loop
# device is written; what Prometheus stored for that device must be what
# wbtop's own JSON said for the same sample. Prometheus runs on 127.0.0.1
# with a temporary config and data directory and is stopped at exit.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null; then
	. "$SRC/tools/deps.sh"
	ensure_pkgs prometheus || skip "prometheus is not installed and cannot be"
fi
command -v curl >/dev/null || skip "needs curl"
need_debugfs
make_loop om 300 ext4; MM=$LOOP_MM MNT=$LOOP_MNT

# a writer that keeps pages dirty on the device: 1 MiB every 50 ms over 200 MiB
bg_job bash -c "for i in \$(seq 100000); do dd if=/dev/zero of=$MNT/f bs=1M count=1 seek=\$((i % 200)) \
	conv=notrunc status=none; sleep 0.05; done"

# wbtop: JSON on stdout, /metrics on a free port
"$WBTOP" --batch --json -n 0 -d 1 --listen 127.0.0.1:0 >"$TMP/wbtop.json" 2>"$TMP/wbtop.err" &
WPID=$!
at_exit "kill $WPID; wait $WPID"
for _ in $(seq 100); do
	ADDR=$(sed -n 's#^wbtop: serving http://\(.*\)/metrics$#\1#p' "$TMP/wbtop.err")
	[ -n "$ADDR" ] && break
	sleep 0.1
done
[ -n "$ADDR" ] || fail "wbtop did not start: $(cat "$TMP/wbtop.err")"

# Prometheus, scraping every second
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$TMP/prometheus.yml" <<EOF
global: {scrape_interval: 1s, scrape_timeout: 1s}
scrape_configs:
  - job_name: wbtop
    static_configs: [{targets: ['$ADDR']}]
EOF
promtool check config "$TMP/prometheus.yml" >/dev/null || fail "config"
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/prom" \
	--web.listen-address="127.0.0.1:$PORT" --log.level=warn >"$TMP/prom.log" 2>&1 &
PPID_=$!
at_exit "kill $PPID_; wait $PPID_"
API="http://127.0.0.1:$PORT/api/v1"
for _ in $(seq 150); do curl -sf "http://127.0.0.1:$PORT/-/ready" >/dev/null && break; sleep 0.2; done

# ten scrapes (up to 60 s: a scrape is one per second, this only bounds a broken run)
for _ in $(seq 60); do
	got=$(curl -sf "$API/query" --data-urlencode 'query=count_over_time(up{job="wbtop"}[5m])' |
		python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')
	[ "${got%.*}" -ge 12 ] 2>/dev/null && break
	sleep 1
done
[ "${got%.*}" -ge 10 ] 2>/dev/null || fail "only ${got:-0} scrapes: $(tail -3 "$TMP/prom.log")"

# what a scrape looks like to promtool, on the real kernel
curl -sf "http://$ADDR/metrics" >"$TMP/scrape" || fail "scrape"
promtool check metrics <"$TMP/scrape" >"$TMP/lint" 2>&1 && [ ! -s "$TMP/lint" ] || fail "promtool: $(cat "$TMP/lint")"

curl -sf "$API/targets" >"$TMP/targets.json" || fail "targets"
# every range query is evaluated at the same instant, 2 s back, so each sees
# the same committed scrapes (evaluated at "now" a later query could hold a
# scrape the earlier ones had not seen yet)
AT=$(python3 -c 'import time; print("%.3f" % (time.time() - 2))')
for q in "wbtop_bdi_dirty_bytes{bdi=\"$MM\"}[5m]" "wbtop_bdi_threshold_bytes{bdi=\"$MM\",source=\"kernel\"}[5m]" \
	'wbtop_sample_timestamp_seconds[5m]' "wbtop_writeback_starts_total{bdi=\"$MM\"}[5m]"; do
	curl -sf "$API/query" --data-urlencode "query=$q" --data-urlencode "time=$AT" >>"$TMP/series.json" || fail "query $q"
	echo >>"$TMP/series.json"
done
python3 - "$TMP/targets.json" "$TMP/series.json" "$TMP/wbtop.json" "$MM" <<'PY' || fail "Prometheus disagrees with wbtop"
import json, sys
targets, series, jsonl, mm = sys.argv[1:5]
t = json.load(open(targets))["data"]["activeTargets"]
assert len(t) == 1 and t[0]["health"] == "up" and not t[0]["lastError"], t
res = [json.loads(l)["data"]["result"] for l in open(series) if l.strip()]
def points(r):   # scrape time -> value
    assert len(r) == 1, r
    return {float(ts): float(v) for ts, v in r[0]["values"]}
dirty, kthresh, stamp = points(res[0]), points(res[1]), points(res[2])
assert set(dirty) == set(kthresh) == set(stamp), ("scrapes without every series",
    sorted(set(stamp) ^ set(dirty)), sorted(set(stamp) ^ set(kthresh)))
assert res[3], "no writeback_starts counters (level 3)"
for r in res[3]:
    vals = [float(v) for _, v in r["values"]]
    assert vals == sorted(vals), ("a counter went down", r["metric"])
samples = {}
for l in open(jsonl):
    d = json.loads(l)
    samples[round(d["time"], 3)] = {b["bdi"]: b for b in d["bdis"]}
n = nonzero = 0
lag = []
for ts, wall in sorted(stamp.items()):
    s = samples.get(round(wall, 3))
    assert s is not None, ("a scraped sample missing from the JSON", wall)
    b = s[mm]
    assert dirty[ts] == b["reclaimable"], ("dirty", ts, dirty[ts], b["reclaimable"])
    assert kthresh[ts] == b["kernel_thresh"], ("kernel threshold", ts, kthresh[ts], b["kernel_thresh"])
    n += 1
    nonzero += b["reclaimable"] > 0
    lag.append(ts - wall)
assert n >= 10 and nonzero >= 3, (n, nonzero)
print("%d scrapes matched wbtop's JSON sample for sample (%d with the device dirty); "
      "scrape lag after the sample %.3f..%.3f s" % (n, nonzero, min(lag), max(lag)))
PY
echo "1 passed, 0 failed"
