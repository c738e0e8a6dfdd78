#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile input to the UI's start: themes that are not files (/dev/zero, a
# FIFO, a directory, huge, binary), terminals without cursor addressing, an
# unknown function key, SIGTERM/SIGHUP. Each is refused with one line or
# ends wbtop; nothing blocks or spins.
set -u
W=${WBTOP:?} F=${FIXTURES:?}
T=$(mktemp -d)
export TMUX_TMPDIR=$T # tmux 3.3 leaves its socket behind: in $T, it goes with it
SOCK=
trap '[ -n "$SOCK" ] && tmux -L $SOCK kill-server >/dev/null 2>&1; rm -rf "$T"' EXIT
trap 'exit 143' TERM INT # killed (meson's timeout): the EXIT trap still cleans up
n=0
fail() { echo "FAIL: $*"; exit 1; }
check() { n=$((n + 1)); echo "ok $n - $*"; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }

# onpty CMD...: run CMD on a pseudo-terminal (the UI refuses pipes); its output
# on stdout, its exit code as ours, 124 if it is still running after 20 s
cat > "$T/onpty.py" <<'PY'
import os, pty, select, subprocess, sys, time
m, s = pty.openpty()
p = subprocess.Popen(sys.argv[1:], stdin=s, stdout=s, stderr=s, start_new_session=True)
os.close(s)
out, end = b"", time.time() + 20
while time.time() < end and p.poll() is None:
    if select.select([m], [], [], 0.1)[0]:
        try:
            out += os.read(m, 4096)
        except OSError:
            break
try:
    rc = p.wait(timeout=max(0.1, end - time.time()))
except subprocess.TimeoutExpired:
    p.kill(); p.wait(); rc = 124
while select.select([m], [], [], 0.2)[0]:  # what it wrote just before it ended
    try:
        b = os.read(m, 4096)
    except OSError:
        break
    if not b:
        break
    out += b
sys.stdout.write(out.decode(errors="replace"))
sys.exit(rc)
PY
onpty() { python3 "$T/onpty.py" "$@"; }
UI=("$W" --root "$F/6.18-writing" -d 0.3)

mkfifo "$T/fifo.theme"
mkdir "$T/dir.theme"
head -c 70000 /dev/zero | tr '\0' '#' > "$T/huge.theme"
yes '# a comment' | head -3000 > "$T/long.theme"
printf '[roles]\nnormal = red\0, blue\n' > "$T/nul.theme"
for th in /dev/zero:"not a regular file" "$T/fifo.theme":"not a regular file" "$T/dir.theme":"not a regular file" \
	  "$T/huge.theme":"larger than 64 KiB" "$T/long.theme":"more than 2000 lines" "$T/nul.theme":"NUL bytes" \
	  "$T/none.theme":"No such file"; do
	want=${th##*:} th=${th%:*}
	TERM=xterm onpty "${UI[@]}" --theme "$th" > "$T/out"; rc=$?
	[ $rc = 1 ] && grep -q "theme $th: .*$want" "$T/out" || fail "--theme $th: rc $rc: $(head -c 300 "$T/out")"
done
check "themes that are not small regular text files refused at once"

for term in dumb unknown-terminal-type ""; do
	TERM=$term onpty "${UI[@]}" > "$T/out"; rc=$?
	[ $rc = 1 ] && grep -q "TERM=$term.*--batch" "$T/out" || fail "TERM=$term: rc $rc: $(head -c 300 "$T/out")"
	grep -q $'\e\[' "$T/out" && fail "TERM=$term: escape sequences written"
done
check "TERM without cursor addressing refused with a hint to --batch"

# TERM unset was "TERM=: no such terminal type"; one holding an escape sequence was written to
# the terminal as it was (\e[2J cleared the screen under the message)
env -u TERM python3 "$T/onpty.py" "${UI[@]}" > "$T/out"; rc=$?
[ $rc = 1 ] && grep -q "TERM is not set; set it (e.g. xterm-256color) or use --batch" "$T/out" ||
	fail "TERM unset: rc $rc: $(head -c 300 "$T/out")"
TERM=$'\e[2Jx' onpty "${UI[@]}" > "$T/out"; rc=$?
[ $rc = 1 ] && grep -q 'TERM=?\[2Jx: no such terminal type' "$T/out" && ! grep -q $'\e' "$T/out" ||
	fail "TERM with an escape: rc $rc: $(head -c 300 "$T/out" | cat -v)"
check "TERM unset or holding an escape sequence: said so, nothing written to the terminal"

# a size curses cannot set up (LINES/COLUMNS in the environment): initscr() printed "Error opening
# terminal: xterm." and exited by itself, past wbtop's cleanup (live, its trace instance stayed)
LINES=99999 COLUMNS=99999 TERM=xterm onpty "${UI[@]}" > "$T/out"; rc=$?
[ $rc = 1 ] && grep -q "curses could not set up the terminal (TERM=xterm, LINES=99999, COLUMNS=99999)" "$T/out" &&
	! grep -q "Error opening terminal" "$T/out" || fail "LINES=99999 COLUMNS=99999: rc $rc: $(head -c 300 "$T/out")"
check "a terminal curses cannot set up: one line of wbtop's, exit 1"

# a machine with many BDIs (NFS, FUSE, loop devices): each keeps 9 files open, and under
# a soft limit of 1024 descriptors the second sample used to list no device at all
if [ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge 4096 ]; then
	cp -a "$F/6.18-writing" "$T/many"
	for i in $(seq 200); do
		cp -a "$T/many/sys/class/bdi/7:0" "$T/many/sys/class/bdi/9:$i"
		cp -a "$T/many/sys/kernel/debug/bdi/7:0" "$T/many/sys/kernel/debug/bdi/9:$i"
	done
	(ulimit -Sn 1024; "$W" --root "$T/many" --batch --json -n 2 -d 0.05 2> "$T/e") > "$T/many.json" || fail "many BDIs: rc"
	got=$(python3 -c 'import json, sys
print(" ".join(str(sum("kernel_thresh" in b for b in json.loads(l)["bdis"])) for l in open(sys.argv[1])))' "$T/many.json")
	[ "$got" = "211 211" ] && ! grep -q "Too many open files" "$T/e" || fail "many BDIs under ulimit -Sn 1024: $got; $(head -c 300 "$T/e")"
	check "211 BDIs under a soft limit of 1024 descriptors: every device in every sample"
fi

# past the hard limit: 300 BDIs under 64 descriptors. Every file kept open until none was
# left: "Too many open files" for each, and from the second sample /sys/class/bdi could not
# be listed, so no device at all. Now what is not kept is opened at each read: every device
# in every sample, and one line says so with the limit.
if command -v prlimit >/dev/null; then
	cp -a "$F/6.18-writing" "$T/lim"
	for i in $(seq 300); do
		cp -a "$T/lim/sys/class/bdi/7:0" "$T/lim/sys/class/bdi/9:$i"
		cp -a "$T/lim/sys/kernel/debug/bdi/7:0" "$T/lim/sys/kernel/debug/bdi/9:$i"
	done
	timeout -k 1 60 prlimit --nofile=64:64 "$W" --root "$T/lim" --batch --json -n 3 -d 0.05 > "$T/lim.json" 2> "$T/e" ||
		fail "311 BDIs under 64 descriptors: rc $?, $(head -c 300 "$T/e")"
	got=$(python3 -c 'import json, sys
print(" ".join("%d/%d/%d" % (len(d["bdis"]), sum("kernel_thresh" in b for b in d["bdis"]), sum("max_ratio" in b for b in d["bdis"]))
	       for d in map(json.loads, open(sys.argv[1]))))' "$T/lim.json")
	[ "$got" = "311/311/311 311/311/311 311/311/311" ] && grep -q "open-files limit 64: .* devices read by opening" "$T/e" &&
		! grep -q "Too many open files" "$T/e" || fail "311 BDIs under 64 descriptors: $got; $(head -c 300 "$T/e")"
	check "311 BDIs under a hard limit of 64 descriptors: every device in every sample, the limit said"
fi

# /metrics under a low open-files limit: 100 idle clients took every descriptor (up to 256
# connections), so the collectors could open no file until they timed out ("devices not read",
# /sys/class/bdi unlisted); now the connections are capped at a quarter of the limit
if command -v prlimit >/dev/null; then
	prlimit --nofile=64:64 "$W" --root "$F/6.18-writing" --batch --json -n 20 -d 0.2 --listen 127.0.0.1:0 \
		> "$T/idle.json" 2> "$T/e" &
	pid=$!
	for _ in $(seq 50); do grep -q "serving http" "$T/e" && break; sleep 0.1; done
	port=$(sed -n 's|.*serving http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$T/e")
	[ -n "$port" ] || fail "--listen under 64 descriptors: no port: $(head -c 300 "$T/e")"
	python3 - "$port" <<'PY'
import socket, sys, time
held = [socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2) for _ in range(100)]
time.sleep(2)
PY
	wait $pid || fail "--listen under 64 descriptors: rc $?"
	got=$(python3 -c 'import json, sys
print(" ".join(str(sum("kernel_thresh" in b for b in json.loads(l)["bdis"])) for l in open(sys.argv[1])))' "$T/idle.json")
	[ "$got" = "$(echo $(yes 11 | head -20))" ] && ! grep -q "Too many open files\|out of file descriptors" "$T/e" ||
		fail "100 idle clients under 64 descriptors: $got; $(head -c 300 "$T/e")"
	check "100 idle /metrics clients under 64 descriptors: every device still read"
fi

# more BDIs than a recording's frame holds (4096): the recorder wrote such samples and its
# reader refused every one as damage ("BDI count: no sample to replay"); now the collector
# follows 4096, says how many it leaves out, and the recording replays
cp -a "$F/6.18-writing" "$T/big"
python3 - "$T/big/sys/class/bdi" <<'PY'
import os, shutil, sys
src = os.path.join(sys.argv[1], "7:0")
for i in range(4100):
    shutil.copytree(src, os.path.join(sys.argv[1], "9:%d" % i))
PY
"$W" --root "$T/big" --batch -n 1 --no-procs --record "$T/big.wbrec" > /dev/null 2> "$T/e" || fail "4111 BDIs: rc $?"
grep -q "sys/class/bdi: 15 more devices than the 4096 wbtop follows" "$T/e" || fail "4111 BDIs: $(head -c 300 "$T/e")"
got=$("$W" --replay "$T/big.wbrec" --batch --json 2> "$T/e" | python3 -c 'import json, sys; print(len(json.loads(sys.stdin.read())["bdis"]))')
[ "$got" = 4096 ] || fail "4111 BDIs recorded, replayed: $got; $(head -c 300 "$T/e")"
# a --set device not in it: said with the recording's devices, as many as fit
"$W" --replay "$T/big.wbrec" --batch --set bdi.sdz.max_ratio=10 > /dev/null 2> "$T/e"; rc=$?
[ $rc = 2 ] && grep -q 'no backing device "sdz" in any sample replayed (the first has 7:0 (loop0), .* and 40[0-9][0-9] more)$' "$T/e" ||
	fail "--set on a device not in 4096: rc $rc, $(head -c 300 "$T/e")"
check "4111 BDIs: 4096 followed and said so; the recording of them replays"
# a device name of 32 bytes or more (a tree's; no kernel makes one): left out and said, not dropped unseen
cp -a "$F/6.18-writing" "$T/longname"
cp -a "$T/longname/sys/class/bdi/7:0" "$T/longname/sys/class/bdi/$(printf 'x%.0s' $(seq 40))"
"$W" --root "$T/longname" --batch -n 1 --no-procs > /dev/null 2> "$T/e" || fail "a long device name: rc $?"
grep -q "sys/class/bdi: 1 device names of 32 bytes or more (none a kernel makes): left out" "$T/e" ||
	fail "a long device name: $(head -c 300 "$T/e")"
check "a device name of 32 bytes or more: left out, said"

# a --root tree whose mountinfo is endless (/dev/zero): the btrfs member lookup read it
# line by line without a bound (GBs in seconds, deaf to SIGTERM); now it stops as kvfile does
cp -a "$F/6.18-writing" "$T/zero"
ln -sf /dev/zero "$T/zero/proc/self/mountinfo"
timeout -k 1 20 "$W" --root "$T/zero" --batch --json -n 1 > /dev/null 2> "$T/e"; rc=$?
[ $rc = 0 ] && grep -q "mountinfo: larger than" "$T/e" || fail "an endless mountinfo: rc $rc, $(head -c 300 "$T/e")"
check "an endless mountinfo in a --root tree: skipped, not read forever"

# FIFOs in a --root tree (vmstat, zoneinfo, a knob): opened without waiting for a writer
cp -a "$F/6.18-writing" "$T/fifo"
for f in proc/vmstat proc/zoneinfo $(cd "$T/fifo" && ls sys/class/bdi/*/max_ratio | head -1); do
	rm -f "$T/fifo/$f" && mkfifo "$T/fifo/$f"
done
timeout -k 1 20 "$W" --root "$T/fifo" --batch --json -n 2 -d 0.05 > /dev/null 2> "$T/e"; rc=$?
[ $rc != 124 ] && [ $rc != 137 ] && grep -q "proc/vmstat: unreadable" "$T/e" ||
	fail "FIFOs in a --root tree: rc $rc, $(head -c 300 "$T/e")"
check "FIFOs in a --root tree: read as unreadable, no wait"

command -v tmux >/dev/null || { echo "SKIP (rest): no tmux"; echo "$n passed, 0 failed"; exit 0; }
# start NAME: the UI in a fresh tmux server; its pid in $T/pid
start() {
	[ -n "$SOCK" ] && tmux -L $SOCK kill-server >/dev/null 2>&1
	SOCK=wbtop-hostile-$$-$1
	tmux -L $SOCK -f /dev/null new-session -d -x 80 -y 24 \
		"echo \$\$ > $T/pid; exec env LANG=C.UTF-8 TERM=tmux-256color ${UI[*]} --theme mono" || fail "tmux"
	for _ in $(seq 50); do [ -s "$T/pid" ] && tmux -L $SOCK capture-pane -p | grep -q "dirty " && return; sleep 0.2; done
	fail "$1: the UI did not start"
}
# gone: wait (bounded) for the UI's process to end; false if it is still there
gone() {
	for _ in $(seq 50); do kill -0 "$(cat "$T/pid")" 2>/dev/null || return 0; sleep 0.2; done
	return 1
}

# unknown escape sequences whose last bytes are q or Q: not a quit
start keys
for seq in "1b 5b 35 37 71" "1b 4f 51" "1b 5b 31 3b 39 51"; do
	tmux -L $SOCK send-keys -H $seq
done
tmux -L $SOCK send-keys h # the help screen: shown once every key before it was handled
for _ in $(seq 50); do tmux -L $SOCK capture-pane -p 2>/dev/null | grep -q "this help" && break; sleep 0.2; done
kill -0 "$(cat "$T/pid")" 2>/dev/null || fail "an unknown function key quit the UI"
tmux -L $SOCK capture-pane -p | grep -q "this help" || fail "the UI did not take keys after the sequences"
tmux -L $SOCK send-keys Escape # leave the help
tmux -L $SOCK send-keys q
gone || fail "q did not quit"
check "an unknown function key never quits; q does"

for sig in TERM HUP; do
	rm -f "$T/pid"
	start "sig$sig"
	kill -$sig "$(cat "$T/pid")"
	gone || fail "SIG$sig did not end the UI"
done
check "SIGTERM and SIGHUP end the UI"

# Ctrl-\ (SIGQUIT) and other signals that end a process by default: wbtop still dies of the
# signal, but puts the terminal back first (it was left without echo, in the alternate screen,
# the cursor hidden and mouse reporting on)
for sig in QUIT USR1; do
	[ -n "$SOCK" ] && tmux -L $SOCK kill-server >/dev/null 2>&1
	SOCK=wbtop-hostile-$$-sig$sig
	rm -f "$T/pid" "$T/rc" "$T/stty"
	tmux -L $SOCK -f /dev/null new-session -d -x 80 -y 24 "bash -c 'bash -c \"echo \\\$\\\$ > $T/pid; \
		exec env LANG=C.UTF-8 TERM=tmux-256color ${UI[*]} --theme mono\"; echo \$? > $T/rc; stty -a > $T/stty; \
		sleep 60'" || fail "tmux"
	for _ in $(seq 50); do [ -s "$T/pid" ] && tmux -L $SOCK capture-pane -p | grep -q "dirty " && break; sleep 0.2; done
	[ $sig = QUIT ] && tmux -L $SOCK send-keys 'C-\' || kill -$sig "$(cat "$T/pid")"
	for _ in $(seq 50); do [ -s "$T/stty" ] && break; sleep 0.2; done
	[ "$(cat "$T/rc" 2>/dev/null)" = $((128 + $(kill -l $sig))) ] || fail "SIG$sig: rc $(cat "$T/rc" 2>/dev/null)"
	got=$(tmux -L $SOCK display -p '#{alternate_on} #{cursor_flag} #{mouse_any_flag}')
	# ixon: the UI turns flow control off (Ctrl-S is a key there); the shell gets it back
	[ "$got" = "0 1 0" ] && grep -qE '(^| )icanon( |$)' "$T/stty" && grep -qE '(^| )echo( |$)' "$T/stty" &&
		grep -qE '(^| )ixon( |$)' "$T/stty" ||
		fail "SIG$sig: terminal left as it was (alternate screen, cursor, mouse: $got; $(grep -ow -- '-icanon\|-echo\|-ixon' "$T/stty"))"
done
check "SIGQUIT (Ctrl-\\) and SIGUSR1 end the UI with the terminal put back"
# + and - step the live delay through 0.1 s ... 60 s: one past the steps' ends (-d 100, -d 0.07)
# went the other way (- at -d 100 sampled every 60 s, + at -d 0.07 every 0.1 s); now it is kept
for c in "100 - 100s" "100 + 60s" "0.07 + 0.07s" "0.07 - 0.1s"; do
	set -- $c
	tmux -L $SOCK kill-server >/dev/null 2>&1
	SOCK=wbtop-hostile-$$-rate$1$2
	tmux -L $SOCK -f /dev/null new-session -d -x 80 -y 24 \
		"exec env LANG=C.UTF-8 TERM=tmux-256color $W --root $F/6.18-writing -d $1 --theme mono" || fail "tmux"
	for _ in $(seq 50); do tmux -L $SOCK capture-pane -p | grep -q "dirty " && break; sleep 0.2; done
	tmux -L $SOCK send-keys -- "$2"
	for _ in $(seq 50); do tmux -L $SOCK capture-pane -p | grep -q "sampling every" && break; sleep 0.1; done
	got=$(tmux -L $SOCK capture-pane -p | grep -o "sampling every [^ ]*")
	[ "$got" = "sampling every $3" ] || fail "-d $1, then $2: '$got', not 'sampling every $3'"
	tmux -L $SOCK send-keys q
done
check "+ and - past the delay steps' ends keep the delay, never step it the other way"
echo "$n passed, 0 failed"
