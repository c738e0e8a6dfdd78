#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""/metrics beside slow readers: 256 connections from two addresses each send
a whole request, then read the answer a byte a second. The exposition of a
machine with 130 devices (170 kB, a fixture tree grown here) is more than the
kernel takes at once for a peer with an Ethernet MSS and a small receive
buffer, so each answer stays in progress until MHD's 10 s timeout. Such
connections were never closed to make room (only those without a request in
progress were), so for those 10 s every scrape was refused - and as long as
they kept coming back. A scrape from a third address must be answered in
full within SCRAPE_S, five times. No root: wbtop reads the fixture tree."""
import os
import re
import shutil
import socket
import tempfile
import time

from om_serve import connect_from, fail, scrape, serve

WBTOP, FIXTURES = os.environ["WBTOP"], os.environ["FIXTURES"]
SLOW, SCRAPE_S, DEVICES = 256, 3.0, 120


def grow(root):
    """A copy of the 6.18-writing tree with DEVICES more idle loop devices, each like loop3."""
    src = os.path.join(FIXTURES, "6.18-writing")
    shutil.copytree(src, root, symlinks=True)
    with open(os.path.join(src, "proc/diskstats")) as f:
        loop3 = next(line for line in f if " loop3 " in line)
    with open(os.path.join(root, "proc/diskstats"), "a") as f:
        for i in range(8, 8 + DEVICES):
            os.symlink("../../devices/virtual/block/loop%d" % i, os.path.join(root, "sys/dev/block/7:%d" % i))
            for d in ("sys/class/bdi", "sys/kernel/debug/bdi"):
                shutil.copytree(os.path.join(root, d, "7:3"), os.path.join(root, d, "7:%d" % i))
            f.write(re.sub(r"^(\s*7\s+)3 loop3 ", r"\g<1>%d loop%d " % (i, i), loop3))


def slow_reader(port, i):
    """A connection from 127.0.0.2 or .3 that asked for /metrics and reads nothing yet (None if refused)."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 1460)  # loopback's 64 kB MSS would buffer it all
    return connect_from(s, i, port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")


def serve_grown(prefix):
    """wbtop serving a grown tree (grow()) in a new temporary directory: (directory, process, port)."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    root = os.path.join(tmp, "root")
    grow(root)
    p, _, port = serve([WBTOP, "--root", root, "--batch", "-n", "0", "-d", "0.5", "--no-trace", "--no-procs",
                        "--listen", "127.0.0.1:0"])
    return tmp, p, port


def shut(socks, p, tmp):
    """Close the readers' sockets, stop wbtop, remove its tree."""
    for s in socks:
        if s is not None:
            s.close()
    p.terminate()
    p.wait(timeout=30)
    shutil.rmtree(tmp, ignore_errors=True)


def main():
    tmp, p, port = serve_grown("wbtop-slowread.")
    socks = []
    try:
        took, err = scrape(port, time.monotonic() + 30)  # the first sample is there
        if took is None:
            fail("no scrape before the slow readers: " + err)
        t0 = time.monotonic()
        socks = [slow_reader(port, i) for i in range(SLOW)]
        held = sum(s is not None for s in socks)
        if held < SLOW // 2:
            fail("only %d of %d slow readers connected: the test does not fill the server" % (held, SLOW))
        time.sleep(1)  # every request read and answering: a scrape arriving with them took a slot not yet busy
        times = []
        for n in range(5):
            for s in socks:  # a byte a second, each
                try:
                    if s is not None:
                        s.recv(1)
                except OSError:
                    pass
            took, err = scrape(port, time.monotonic() + SCRAPE_S)
            if took is None:
                fail("scrape %d: none within %.0f s (%.1f s after %d slow readers connected): %s"
                     % (n + 1, SCRAPE_S, time.monotonic() - t0, held, err))
            times.append(took)
            time.sleep(max(0.0, 1 - took))
        print("%d slow readers; scrapes answered in %s s" % (held, ", ".join("%.3f" % t for t in times)))
        if p.poll() is not None:
            fail("wbtop ended: %d" % p.returncode)
    finally:
        shut(socks, p, tmp)
    print("1 passed, 0 failed")


if __name__ == "__main__":
    main()
