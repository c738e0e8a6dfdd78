# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the scenarios: the kernel tests' helpers (undo stack, machine
# check, loops, throttles) plus running wbtop as the observer.
. "$(dirname "$0")/../kernel/lib.sh"
SCEN_DIR=$(cd "$(dirname "$0")" && pwd)
export PYTHONPATH=$SCEN_DIR${PYTHONPATH:+:$PYTHONPATH}

# observe NAME SAMPLES [wbtop options...]: wbtop --batch --json at 1 Hz into
# $TMP/NAME.json, recording to $TMP/NAME.wbrec; the recording must replay to
# the same samples. SCENARIO_RECORD_DIR=DIR keeps the recording (shipped ones
# in examples/scenarios/ are made this way).
observe() {
	observe_start "$@"
	observe_wait
}

# The same in two halves, to act on the kernel while wbtop watches.
observe_start() {
	OBS_NAME=$1 OBS_N=$2
	shift 2
	"$WBTOP" --batch --json -n "$OBS_N" -d 1 --record "$TMP/$OBS_NAME.wbrec" "$@" \
		> "$TMP/$OBS_NAME.json" &
	OBS_PID=$!
	at_exit "kill $OBS_PID 2>/dev/null"
}

observe_wait() {
	local name=$OBS_NAME n=$OBS_N rec=$TMP/$OBS_NAME.wbrec
	wait "$OBS_PID" || fail "wbtop --batch failed"
	"$WBTOP" --replay "$rec" --batch --json > "$TMP/$name.replay.json" || fail "replay of $rec"
	[ "$(wc -l < "$TMP/$name.json")" = "$(wc -l < "$TMP/$name.replay.json")" ] ||
		fail "the recording replays to a different number of samples"
	echo "recording: $(stat -c %s "$rec") bytes for $n samples"
	if [ -n "${SCENARIO_RECORD_DIR:-}" ]; then
		cp "$rec" "$SCENARIO_RECORD_DIR/$name.wbrec"
	fi
	if [ -n "${SCENARIO_KEEP_JSON:-}" ]; then # for looking into a failure
		cp "$TMP/$name.json" "$SCENARIO_KEEP_JSON/$name.json"
	fi
}

# device NAME SIZE_MB FS BYTES_PER_S: a loop device with a file system, its
# knobs saved, written at most BYTES_PER_S (0: as fast as it goes); sets
# LOOP_DEV, LOOP_MM, LOOP_MNT, LOOP_BDI. Not in $(...), like make_loop.
device() {
	make_loop "$1" "$2" "$3"
	save_bdi "$LOOP_MM"
	[ "$4" = 0 ] || throttle "$LOOP_MM" "$4"
}

# CLOCK_MONOTONIC now, as wbtop's "mono" (to place an action among its samples)
mono() { python3 -c 'import time; print(time.clock_gettime(time.CLOCK_MONOTONIC))'; }

# writer_loop FILE MB: rewrite FILE's first MB MiB for ever (a steady dirtier).
writer_loop() {
	bg_job bash -c "while :; do dd if=/dev/zero of='$1' bs=1M count=$2 conv=notrunc status=none; done"
}
