#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --until-clean PATH for any path, as df resolves it: a directory and a file
# on a loop device's file system (not its mount point) are followed on that
# device; a partition (/dev/loopNp1) and a directory on it on the disk's BDI
# (a partition has none of its own). Before, all of these said "no device".
. "$(dirname "$0")/lib.sh"
need_debugfs
settle
make_loop paths 64 ext4
mkdir -p "$LOOP_MNT/a/b" && echo x > "$LOOP_MNT/a/b/f" || fail "mkdir"
for p in "$LOOP_MNT/a/b" "$LOOP_MNT/a/b/f" "$LOOP_MNT/a/b/../b"; do
	out=$(timeout 20 "$WBTOP" --until-clean "$p" -n 2 -d 0.2 --no-trace 2>&1); rc=$?
	echo "$p: exit $rc: $(echo "$out" | tail -1)"
	[ $rc -le 1 ] && echo "$out" | grep -q " ${LOOP_DEV#/dev/} " || fail "$p is not followed on ${LOOP_DEV#/dev/}"
done
# a partitioned loop device: its partition's file system is written back by the disk's BDI
truncate -s 64M "$TMP/part.img"
# an MBR with one Linux partition from sector 2048 to the end (no sfdisk needed)
python3 - "$TMP/part.img" <<'PY' || fail "partition table"
import struct, sys
f = open(sys.argv[1], "r+b")
start, n = 2048, 64 * 2048 - 2048
entry = struct.pack("<B3sB3sII", 0, b"\0\0\0", 0x83, b"\0\0\0", start, n)
f.seek(446); f.write(entry); f.seek(510); f.write(b"\x55\xaa")
PY
PDEV=$(losetup -P --direct-io=on -f --show "$TMP/part.img") || fail "losetup -P"
at_exit "losetup -d $PDEV"
P1=/sys/class/block/${PDEV#/dev/}p1
for _i in $(seq 50); do [ -e "$P1/dev" ] && break; sleep 0.1; done
if [ ! -e "$P1/dev" ]; then # this kernel reads no partition table (CONFIG_MSDOS_PARTITION)
	echo "ok (paths); NOT RUN: partitions (the kernel made no ${PDEV#/dev/}p1 from an MBR)"
	exit 0
fi
if [ ! -b "${PDEV}p1" ]; then # no udev here: the node by hand
	mknod "${PDEV}p1" b "$(cut -d: -f1 "$P1/dev")" "$(cut -d: -f2 "$P1/dev")" || fail "mknod"
	at_exit "rm -f ${PDEV}p1"
fi
mkfs.ext4 -q "${PDEV}p1" || fail "mkfs ${PDEV}p1"
mkdir -p "$TMP/pm"
mount "${PDEV}p1" "$TMP/pm" || fail "mount ${PDEV}p1"
at_exit "sync -f $TMP/pm; umount $TMP/pm || umount -l $TMP/pm"
mkdir -p "$TMP/pm/d"
for p in "${PDEV}p1" "$TMP/pm" "$TMP/pm/d"; do
	out=$(timeout 20 "$WBTOP" --until-clean "$p" -n 2 -d 0.2 --no-trace 2>&1); rc=$?
	echo "$p: exit $rc: $(echo "$out" | tail -1)"
	[ $rc -le 1 ] && echo "$out" | grep -q " ${PDEV#/dev/} " || fail "$p is not followed on ${PDEV#/dev/}"
done
echo "ok"
