#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A btrfs of two devices mounted by one of them: its BDI (btrfs-N) shows the
# mount whichever member the kernel lists first (it showed none when the
# mount's source was not that one), and --until-clean by either member, or
# by the mount point, follows that BDI.
. "$(dirname "$0")/lib.sh"
command -v mkfs.btrfs >/dev/null || skip "needs btrfs-progs"
need_debugfs
settle
devs=()
for i in 1 2; do
	truncate -s 256M "$TMP/m$i.img"
	d=$(losetup -f --show "$TMP/m$i.img") || fail "losetup"
	at_exit "losetup -d $d"
	devs+=("$d")
done
mkfs.btrfs -q -f -d single -m single "${devs[@]}" > /dev/null || fail "mkfs.btrfs"
btrfs device scan "${devs[@]}" > /dev/null 2>&1
mkdir -p "$TMP/mnt"
UUID=$(blkid -o value -s UUID "${devs[0]}")
for src in "${devs[1]}" "${devs[0]}"; do # each member as the mount's source in turn
	mount -t btrfs "$src" "$TMP/mnt" || fail "mount $src"
	at_exit "umount $TMP/mnt"
	BDI=$(basename "$(readlink -f /sys/fs/btrfs/$UUID/bdi)")
	# mountinfo names one member as the source (btrfs shows its latest_dev, not always $src)
	shown=$(findmnt -no SOURCE "$TMP/mnt")
	echo "members: $(ls -f /sys/fs/btrfs/$UUID/devices | grep -v '^\.' | tr '\n' ' ')mounted from $src, shown as $shown; BDI $BDI"
	"$WBTOP" --batch --json -n 1 --no-trace > "$TMP/j" 2>/dev/null || fail "wbtop --json"
	python3 - "$TMP/j" "$BDI" "$TMP/mnt" "${shown#/dev/}" <<'PY' || fail "the btrfs BDI does not show its mount"
import json, sys
j = json.loads(open(sys.argv[1]).readline())
b = next(b for b in j["bdis"] if b["bdi"] == sys.argv[2])
print(f"  {b['bdi']}: dev {b['dev']}, mounts {b['mounts']}")
sys.exit(0 if sys.argv[3] in b["mounts"] and b["dev"] == sys.argv[4] else 1)
PY
	for d in "${devs[@]}" "$TMP/mnt"; do
		out=$(timeout 20 "$WBTOP" --until-clean "$d" -n 1 --no-trace 2>&1); rc=$?
		[ $rc -le 1 ] && echo "$out" | grep -q "($BDI)" || fail "--until-clean $d: exit $rc: $out"
	done
	# a relative path on it, from inside the mount (it was "no device")
	out=$(cd "$TMP/mnt" && timeout 20 "$WBTOP" --until-clean . -n 1 --no-trace 2>&1); rc=$?
	[ $rc -le 1 ] && echo "$out" | grep -q "($BDI)" || fail "--until-clean . in the mount: exit $rc: $out"
	echo "  --until-clean by either member, by the mount point and by . in it follows $BDI"
	sync -f "$TMP/mnt"; umount "$TMP/mnt" || fail "umount"
	undo_pop
done
echo ok
