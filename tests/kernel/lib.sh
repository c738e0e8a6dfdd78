# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers for root-only tests that change the kernel. Every change is
# registered with at_exit right after it is made; the EXIT trap undoes them in
# reverse order and then checks that the machine is exactly as found.
# Exit code 77 means "skipped" to meson.

set -u
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root"
command -v losetup >/dev/null || skip "needs losetup (util-linux)"

WBTOP=${WBTOP:-$(dirname "$0")/../../build/wbtop}

# The undo stack is also kept on disk, one command a line, in a file named
# by the test's PID and start time: meson stops a test (a timeout, Ctrl-C)
# with SIGTERM to its process group and SIGKILL half a second later, too soon
# for a cleanup that unmounts and detaches. On TERM/INT the file is replayed
# by a process outside that group; after a SIGKILL, by the next test that
# starts (below, before it looks at the machine). Each step leaves the file
# before it runs, so a replay cut short never runs one twice.
_UNDO_DIR=/run/wbtop-test-undo
mkdir -p -m 700 "$_UNDO_DIR" 2>/dev/null && [ -O "$_UNDO_DIR" ] && [ ! -L "$_UNDO_DIR" ] && chmod 700 "$_UNDO_DIR" ||
	skip "cannot keep the undo steps in $_UNDO_DIR"
_starttime() { local s; s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1; s=${s##*) }; set -- $s; echo "${20}"; }
_UNDO_FILE=$_UNDO_DIR/$$.$(_starttime $$)
_UNDO_PID=$BASHPID
_UNDO=()
_undo_save() {
	[ "$BASHPID" = "$_UNDO_PID" ] || { echo "FAIL: an undo step registered in a subshell"; exit 1; }
	printf '%s\n' "${_UNDO[@]}" > "$_UNDO_FILE.new" && mv "$_UNDO_FILE.new" "$_UNDO_FILE" ||
		{ echo "FAIL: cannot save the undo steps in $_UNDO_FILE"; exit 1; }
}
at_exit() {
	case "$*" in *$'\n'*) echo "FAIL: an undo step of more than one line: $*"; exit 1 ;; esac
	_UNDO+=("$*")
	_undo_save
}
# undo_pop: the last undo step done by the test itself
undo_pop() { unset '_UNDO[${#_UNDO[@]}-1]'; _undo_save; }
# _kill_pg PID START: PID's process group, where PID is gone or is still the
# process that started at START (a replay after a SIGKILL may come late)
_kill_pg() {
	local s
	s=$(_starttime "$1")
	if [ -z "$s" ] || [ "$s" = "$2" ]; then kill -- -"$1" 2>/dev/null || kill "$1" 2>/dev/null; fi
	wait "$1" 2>/dev/null
	return 0
}

# Everything a test may touch, as text, to compare before and after.
machine_state() {
	local f
	for f in /proc/sys/vm/dirty_ratio /proc/sys/vm/dirty_bytes /proc/sys/vm/dirty_background_ratio \
		 /proc/sys/vm/dirty_background_bytes /proc/sys/vm/dirty_expire_centisecs \
		 /proc/sys/vm/dirty_writeback_centisecs; do
		echo "$f $(cat $f)"
	done
	for b in /sys/class/bdi/*; do
		echo "$b $(cat $b/min_ratio_fine $b/max_ratio_fine $b/strict_limit 2>/dev/null | tr '\n' ' ')"
	done
	cat /sys/fs/cgroup/blkio/blkio.throttle.write_bps_device 2>/dev/null
	grep -c wbtop-test /proc/self/mountinfo
	losetup -a | grep -c wbtop-test
	# debugfs, and the tracefs mounts but debugfs's own tracing/ (the kernel
	# mounts it at the first look into it, and it stays while debugfs does)
	awk '$5 == "/sys/kernel/debug" && / - debugfs /' /proc/self/mountinfo | wc -l
	awk '/ - tracefs /{print $5}' /proc/self/mountinfo | grep -vx /sys/kernel/debug/tracing | sort
	ls /sys/fs/cgroup/memory 2>/dev/null | grep -c '^wbtop'
	cat /sys/block/zram0/disksize 2>/dev/null
}
# wbtop's trace instances, by name. Judged as a set, not a count: one left
# by a wbtop killed before this test (another suite's) is removed by the
# first live wbtop here, as wbtop does (a CI run failed live_json on a count
# that went 1 -> 0). Those of dead processes are removed now, and said.
# Where tracefs is mounted at /sys/kernel/tracing, at debugfs's tracing/, or
# both (one file system): whichever is there.
wb_instances() {
	ls /sys/kernel/tracing/instances /sys/kernel/debug/tracing/instances 2>/dev/null | grep '^wbtop' | sort -u
}
for _i in $(wb_instances); do
	_p=${_i##*[!0-9]}
	if [ -n "$_p" ] && ! kill -0 "$_p" 2>/dev/null; then
		{ rmdir "/sys/kernel/tracing/instances/$_i" || rmdir "/sys/kernel/debug/tracing/instances/$_i"; } 2>/dev/null &&
			echo "note: removed the trace instance $_i of a wbtop (pid $_p) that ended before this test"
	fi
done

# loop_ctl REQUEST N: LOOP_CTL_ADD (0x4C80) or LOOP_CTL_REMOVE (0x4C81) loopN
loop_ctl() {
	python3 -c 'import fcntl, os, sys
fd = os.open("/dev/loop-control", os.O_RDWR)
fcntl.ioctl(fd, int(sys.argv[1], 16), int(sys.argv[2]))' "$1" "$2"
}

# _replay_steps FILE STALE: the undo steps in FILE, last first, each dropped
# from FILE before it runs; then FILE is removed. The caller holds the lock,
# so that a test starting meanwhile waits for the machine to be put back.
# STALE=1 (the test is gone, for who knows how long): a bare "kill PID" is
# not run, as PID may be another's by now (bg_job's _kill_pg checks; the
# test's other children went with its process group).
_replay_steps() {
	local f=$1 stale=$2 i
	local -a steps=()
	[ -f "$f" ] || return 0
	mapfile -t steps < "$f"
	for ((i = ${#steps[@]} - 1; i >= 0; i--)); do
		printf '%s\n' "${steps[@]:0:i}" > "$f.new" && mv "$f.new" "$f"
		[ "$stale" = 1 ] && case ${steps[i]} in kill\ *) continue ;; esac
		eval "${steps[i]}" >/dev/null 2>&1 || true
	done
	rm -f "$f"
}
# A test that ended without its cleanup (killed): put back what it changed,
# in a subshell (a step that stops it cannot keep the lock or change this
# test's variables); then wait (2 min at most) for one replaying in the background.
for _f in "$_UNDO_DIR"/*.*; do
	[ -f "$_f" ] || continue
	_o=${_f##*/} _o=${_o%.new}
	[ "$(_starttime "${_o%%.*}")" = "${_o#*.}" ] && continue # still running
	case $_f in *.new) rm -f "$_f"; continue ;; esac # cut short while saved: the file beside it holds the steps
	(
		exec {_fd}>>"$_UNDO_DIR/lock"
		flock -w 120 "$_fd" || exit 0
		[ -f "$_f" ] || exit 0 # replayed meanwhile by the one it waited for
		echo "note: a test (pid ${_o%%.*}) ended without putting the machine back: its $(grep -c . "$_f") undo steps done now"
		_replay_steps "$_f" 1
	)
done
exec {_fd}>>"$_UNDO_DIR/lock"
flock -w 120 "$_fd" || echo "note: an earlier test's undo steps still run after 2 minutes"; exec {_fd}>&-

TMP=$(mktemp -d /tmp/wbtop-test.XXXXXX)
export TMUX_TMPDIR=$TMP # tmux 3.3 leaves its socket behind: in $TMP, it goes with it (after the kill-server at_exit)
at_exit "rm -rf $TMP" # the last step: a replay by another process removes it too

_INST_BEFORE=$(wb_instances)
_BEFORE=$(machine_state)

_cleanup() {
	local rc=$? i
	trap - EXIT INT TERM
	for ((i = ${#_UNDO[@]} - 1; i >= 0; i--)); do
		local step=${_UNDO[i]}
		unset '_UNDO[i]'
		_undo_save # dropped before it runs: a cleanup cut short leaves only what it did not do
		eval "$step" >/dev/null 2>&1 || true
	done
	rm -f "$_UNDO_FILE"
	local after
	after=$(machine_state)
	if [ "$after" != "$_BEFORE" ]; then
		echo "FAIL: the machine was not restored:"
		diff <(echo "$_BEFORE") <(echo "$after")
		rc=1
	fi
	local left
	left=$(comm -13 <(echo "$_INST_BEFORE") <(wb_instances))
	if [ -n "$left" ]; then
		echo "FAIL: trace instances left: $left"
		rc=1
	fi
	exit $rc
}
# Stopped by a signal: the undo steps run in a new session (meson's SIGKILL
# to this process group, half a second on, does not reach it); the machine
# check is left out, as nobody waits for this test's verdict.
# The lock is taken here and handed down, so that no test starting meanwhile
# takes these steps for a dead test's (run without the kills); the
# background's output goes to $_UNDO_DIR/log.
_on_signal() {
	trap - EXIT INT TERM
	echo "interrupted: putting the machine back in the background"
	exec {_lk}>>"$_UNDO_DIR/lock"
	flock -w 120 "$_lk"
	setsid -f bash -c "$(declare -f loop_ctl _starttime _kill_pg _replay_steps); _replay_steps '$_UNDO_FILE' 0" \
		</dev/null >>"$_UNDO_DIR/log" 2>&1
	exit 130
}
trap _cleanup EXIT
trap _on_signal INT TERM

# Save every dirty_* sysctl now; restore at exit (bytes before ratio, since a
# write to one clears its twin).
save_sysctls() {
	local r b br bb
	r=$(cat /proc/sys/vm/dirty_ratio); b=$(cat /proc/sys/vm/dirty_bytes)
	br=$(cat /proc/sys/vm/dirty_background_ratio); bb=$(cat /proc/sys/vm/dirty_background_bytes)
	at_exit "echo $(cat /proc/sys/vm/dirty_expire_centisecs) > /proc/sys/vm/dirty_expire_centisecs"
	at_exit "echo $(cat /proc/sys/vm/dirty_writeback_centisecs) > /proc/sys/vm/dirty_writeback_centisecs"
	if [ "$b" != 0 ]; then at_exit "echo $b > /proc/sys/vm/dirty_bytes"
	else at_exit "echo $r > /proc/sys/vm/dirty_ratio"; fi
	if [ "$bb" != 0 ]; then at_exit "echo $bb > /proc/sys/vm/dirty_background_bytes"
	else at_exit "echo $br > /proc/sys/vm/dirty_background_ratio"; fi
	# a ratio write of the same value does not switch modes back: go via another value
	at_exit "echo 2 > /proc/sys/vm/dirty_ratio; echo 1 > /proc/sys/vm/dirty_background_ratio"
}

# The flusher's timing at the kernel's defaults (expire 30 s, a periodic run every 5 s), for
# tests of what happens under them; after save_sysctls, which puts the machine's back. A machine
# set otherwise (periodic writeback off: dirty_writeback_centisecs 0) never writes what stays
# below the background threshold: a stick copied to is then never clean by itself.
flusher_defaults() {
	echo 3000 > /proc/sys/vm/dirty_expire_centisecs
	echo 500 > /proc/sys/vm/dirty_writeback_centisecs
}

# Save one BDI's knobs (by MAJ:MIN); restored at exit.
save_bdi() {
	local b=/sys/class/bdi/$1
	at_exit "echo $(cat $b/strict_limit) > $b/strict_limit"
	at_exit "echo $(cat $b/max_ratio_fine) > $b/max_ratio_fine"
	at_exit "echo $(cat $b/min_ratio_fine) > $b/min_ratio_fine"
	at_exit "echo 0 > $b/min_ratio_fine"
}

# Root's journal is always /var/lib/wbtop/journal (root ignores $WBTOP_JOURNAL):
# its folder is set aside now and put back at exit; sets JOURNAL.
save_journal() {
	JOURNAL=/var/lib/wbtop/journal
	if [ -e /var/lib/wbtop ] || [ -L /var/lib/wbtop ]; then
		mv /var/lib/wbtop "$TMP/var-lib-wbtop" || fail "cannot set /var/lib/wbtop aside"
		at_exit "[ -e $TMP/var-lib-wbtop ] && { rm -rf /var/lib/wbtop; mv $TMP/var-lib-wbtop /var/lib/wbtop; }"
	else
		at_exit "rm -rf /var/lib/wbtop"
	fi
}

# Wait (up to 60 s) until writeback left over by anything else has drained.
settle() {
	local i
	sync
	for i in $(seq 120); do
		[ "$(awk '/^nr_writeback /{print $2}' /proc/vmstat)" -lt 256 ] && return 0
		sleep 0.5
	done
	echo "note: writeback did not settle"
}

need_debugfs() {
	if [ ! -d /sys/kernel/debug/bdi ]; then
		mount -t debugfs none /sys/kernel/debug || skip "cannot mount debugfs"
		# its tracing/ first: mounted by the kernel at the first look into it,
		# it held debugfs busy, and debugfs stayed (scenario-gen stick4/run07,
		# heldout24/run13); for up to 5 s, as a wbtop killed by an earlier step
		# may still be leaving its trace instance (kernel_thresh_grid in CI),
		# then detached
		at_exit "for _i in \$(seq 50); do umount /sys/kernel/debug/tracing 2>/dev/null; umount /sys/kernel/debug 2>/dev/null && break; sleep 0.1; done; ! mountpoint -q /sys/kernel/debug || umount -l /sys/kernel/debug"
	fi
}

# new_loop FILE: a new loop device on FILE (an image, or another block
# device), direct I/O, removed at exit (LOOP_FRESH=0: the first free loopN,
# detached at exit); sets NEW_LOOP.
new_loop() {
	local dev
	if [ "${LOOP_FRESH:-1}" = 1 ] && [ -w /dev/loop-control ]; then
		# a loop device made for this test and removed after: its BDI starts
		# from the kernel's initial rate limits and bandwidth, not from what
		# ran on loopN before (the kernel keeps them while the device exists,
		# and a rate limit an earlier test sank can stay sunk for minutes)
		local n
		for n in $(seq 200 250); do [ -e /sys/class/bdi/7:$n ] || break; done
		loop_ctl 0x4C80 "$n" || fail "LOOP_CTL_ADD $n"
		at_exit "(for _k in \$(seq 50); do loop_ctl 0x4C81 $n 2>/dev/null && break; sleep 0.1; done)"
		dev=/dev/loop$n
		losetup --direct-io=on "$dev" "$1" || fail "losetup $dev"
	else
		dev=$(losetup --direct-io=on -f --show "$1") || fail "losetup"
	fi
	at_exit "losetup -d $dev"
	NEW_LOOP=$dev
}

# fs_on DEV NAME FSTYPE: a file system on DEV mounted at $TMP/NAME; sets
# LOOP_DEV, LOOP_MM (MAJ:MIN), LOOP_MNT and LOOP_BDI, the BDI that sees the
# writeback (btrfs: its own btrfs-N per mount).
fs_on() {
	local dev=$1 mnt=$TMP/$2 fs=$3 mm
	case $fs in
	ext4) mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 "$dev" ;;
	xfs) command -v mkfs.xfs >/dev/null || skip "needs xfsprogs"; mkfs.xfs -q -f "$dev" ;;
	btrfs) command -v mkfs.btrfs >/dev/null || skip "needs btrfs-progs"; mkfs.btrfs -q -f "$dev" >/dev/null ;;
	esac || fail "mkfs.$fs"
	mkdir -p "$mnt"
	mount "$dev" "$mnt" || fail "mount $dev"
	# write back before unmounting, so no test leaves writeback running for the next
	at_exit "sync -f $mnt; umount $mnt || umount -l $mnt"
	mm=$(lsblk -dno MAJ:MIN "$dev" | tr -d ' ')
	LOOP_DEV=$dev LOOP_MM=$mm LOOP_MNT=$mnt LOOP_BDI=$mm
	if [ "$fs" = btrfs ]; then
		local uuid
		uuid=$(blkid -o value -s UUID "$dev")
		LOOP_BDI=$(basename "$(readlink -f /sys/fs/btrfs/$uuid/bdi)")
	fi
}

# make_loop NAME SIZE_MB FSTYPE: a file system on a new loop device (new_loop,
# fs_on; sets what fs_on sets).
# Not in $(...): the undo steps must be registered in this shell.
make_loop() {
	local img=$TMP/$1.img
	# LOOP_FILL=1: the image written out, so that writing the device allocates nothing on the
	# disk below (whose journal's pages would count as its completions)
	if [ "${LOOP_FILL:-0}" = 1 ]; then
		dd if=/dev/zero of="$img" bs=1M count="$2" conv=fsync status=none
	else
		truncate -s "${2}M" "$img"
	fi
	new_loop "$img"
	fs_on "$NEW_LOOP" "$1" "$3"
}

# make_stick NAME SIZE_MB FSTYPE BYTES_PER_S QUEUE_DEPTH: a slow device that
# holds what a USB stick does in flight. A throttled loop device alone takes
# all the writeback the flusher submits (hundreds of MB wait in blk-throttle,
# counted as under writeback); here the file system is on a loop device
# whose queue takes QUEUE_DEPTH requests of at most 128 KiB, written with
# direct I/O to a second loop device (the "bus") throttled to BYTES_PER_S,
# so the flusher waits for a free request as it does on a stick. Sets what
# fs_on sets, and STICK_BUS_MM (the throttled device's MAJ:MIN).
make_stick() {
	local img=$TMP/$1.img q
	truncate -s "${2}M" "$img"
	new_loop "$img"
	STICK_BUS_MM=$(lsblk -dno MAJ:MIN "$NEW_LOOP" | tr -d ' ')
	new_loop "$NEW_LOOP"
	q=/sys/block/${NEW_LOOP#/dev/}/queue
	echo 128 > $q/max_sectors_kb || fail "max_sectors_kb of $NEW_LOOP"
	echo "$5" > $q/nr_requests || fail "nr_requests $5 of $NEW_LOOP"
	fs_on "$NEW_LOOP" "$1" "$3"
	throttle "$STICK_BUS_MM" "$4" # after mkfs, which writes tens of MB (and its undo runs before the unmount's sync)
}

# make_zram NAME SIZE_MB FS: FS on zram0 (memory: gigabytes a second, faster
# than any writer here), mounted at $TMP/NAME, reset at exit; sets what
# make_loop sets. Skips where zram0 is missing or in use.
make_zram() {
	local mnt=$TMP/$1 z=/sys/block/zram0
	[ -w $z/disksize ] || skip "needs zram0 (modprobe zram)"
	[ "$(cat $z/disksize)" = 0 ] || skip "zram0 is in use"
	# zram0's BDI outlives the reset (a loop device made for a test does not): its knobs too
	save_bdi "$(cat $z/dev)"
	echo "${2}M" > $z/disksize || fail "zram0 disksize"
	at_exit "echo 1 > $z/reset"
	"mkfs.$3" -q /dev/zram0 || fail "mkfs.$3 on zram0"
	mkdir -p "$mnt"
	mount /dev/zram0 "$mnt" || fail "mount zram0"
	at_exit "sync -f $mnt; umount $mnt || umount -l $mnt"
	LOOP_DEV=/dev/zram0 LOOP_MM=$(cat $z/dev) LOOP_MNT=$mnt
	LOOP_BDI=$LOOP_MM
}

# memcg NAME LIMIT_BYTES: a cgroup-v1 memory cgroup, removed at exit; sets MEMCG.
memcg() {
	local d=/sys/fs/cgroup/memory/$1
	[ -d /sys/fs/cgroup/memory ] || skip "no cgroup v1 memory controller"
	mkdir "$d" || fail "mkdir $d"
	# move any task left in it back to the root before removing it
	at_exit "for p in \$(cat $d/cgroup.procs); do echo \$p > /sys/fs/cgroup/memory/cgroup.procs; done; rmdir $d"
	echo "$2" > "$d/memory.limit_in_bytes" || fail "memory limit"
	MEMCG=$d
}

# throttle MAJ:MIN BYTES_PER_S: blkio v1 write limit, removed at exit
throttle() {
	local f=/sys/fs/cgroup/blkio/blkio.throttle.write_bps_device
	[ -w "$f" ] || skip "no cgroup v1 blkio throttling"
	echo "$1 $2" > "$f" || fail "throttle $1"
	at_exit "echo '$1 0' > $f"
}

# A background job killed at exit with everything it started (its own
# process group: a shell loop's dd goes too); sets BG_PID.
bg_job() {
	setsid "$@" &
	BG_PID=$!
	at_exit "_kill_pg $BG_PID $(_starttime $BG_PID)"
}
