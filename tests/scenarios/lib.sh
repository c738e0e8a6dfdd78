# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the scenarios: the kernel tests' helpers (undo stack, machine
# check, loops, throttles) plus running wbtop as the observer.
. "$(dirname "$0")/../kernel/lib.sh"
SCEN_DIR=$(cd "$(dirname "$0")" && pwd)
export PYTHONPATH=$SCEN_DIR${PYTHONPATH:+:$PYTHONPATH}

# observe NAME SAMPLES [wbtop options...]: wbtop --batch --json at 1 Hz into
# $TMP/NAME.json, recording to $TMP/NAME.wbrec; the recording must replay to
# the same samples. SCENARIO_RECORD_DIR=DIR keeps the recording (shipped ones
# in examples/ are made this way).
observe() {
	local name=$1 n=$2 rec=$TMP/$1.wbrec
	shift 2
	"$WBTOP" --batch --json -n "$n" -d 1 --record "$rec" "$@" > "$TMP/$name.json" ||
		fail "wbtop --batch failed"
	"$WBTOP" --replay "$rec" --batch --json > "$TMP/$name.replay.json" || fail "replay of $rec"
	[ "$(wc -l < "$TMP/$name.json")" = "$(wc -l < "$TMP/$name.replay.json")" ] ||
		fail "the recording replays to a different number of samples"
	echo "recording: $(stat -c %s "$rec") bytes for $n samples"
	if [ -n "${SCENARIO_RECORD_DIR:-}" ]; then
		cp "$rec" "$SCENARIO_RECORD_DIR/$name.wbrec"
	fi
}

# writer_loop FILE MB: rewrite FILE's first MB MiB for ever (a steady dirtier).
writer_loop() {
	bg_job bash -c "while :; do dd if=/dev/zero of='$1' bs=1M count=$2 conv=notrunc status=none; done"
}
