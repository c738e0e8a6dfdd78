#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live, the BDIs' mounts are kept from sample to sample until poll() on
# /proc/self/mountinfo says a mount changed: a bind mount made while wbtop
# runs shows up on its device from the next sample on, and not before.
# Root, in a private mount namespace of its own (nothing outside sees it).
set -u
W=${WBTOP:?}
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (a mount namespace)"; exit 77; }
command -v unshare >/dev/null || { echo "SKIP: no unshare"; exit 77; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
mkdir "$T/m"
unshare -m --propagation private sh -c "
	'$W' --batch --json -n 6 -d 0.4 --no-trace --no-procs > '$T/out' 2>/dev/null &
	sleep 1.1
	mount --bind '$T' '$T/m' && touch '$T/mounted'
	wait" || { echo "FAIL: unshare"; exit 1; }
[ -e "$T/mounted" ] || { echo "SKIP: cannot bind-mount in a private namespace here"; exit 77; }
python3 - "$T/out" "$T/m" <<'PY' || exit 1
import json, sys
seen = [any(sys.argv[2] in b["mounts"] for b in json.loads(l)["bdis"]) for l in open(sys.argv[1])]
assert len(seen) == 6, seen
assert not seen[0] and seen[-1], seen           # absent at first, present at the end
assert seen == sorted(seen), seen               # once seen, it stays
PY
[ $? = 0 ] || exit 1
grep -q " $T/m " /proc/self/mountinfo && { echo "FAIL: the mount leaked out of the namespace"; exit 1; }
echo "1 passed, 0 failed"
