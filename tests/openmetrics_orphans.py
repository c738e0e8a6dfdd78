#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What slow readers leave in the kernel: 256 connections ask for a large
answer (openmetrics_slowread's tree) and read none of it. MHD closes each
after its 10 s timeout; closed normally, the rest of each answer (about 70 kB
here) stayed queued on a socket no process held - 17 MB in all, past wbtop's
own exit, for as long as the clients kept their windows shut. They must be
reset instead: 13 s on, nothing of wbtop's port may still hold queued data.
Nor once wbtop has stopped with such readers mid-answer (MHD_stop_daemon
closed them normally too: 64 of them left 4 MB queued). Reads /proc/net/tcp (no ss needed); no root."""
import time

from om_serve import fail
from openmetrics_slowread import serve_grown, shut, slow_reader

SLOW = 256


def queued(port):
    """Server-side sockets on port that still hold unsent data: (count, bytes)."""
    n = total = 0
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(name) as f:
                lines = f.readlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            local, state, tx = f[1], f[3], int(f[4].split(":")[0], 16)
            if int(local.split(":")[1], 16) == port and state != "0A" and tx:  # 0A: LISTEN
                n, total = n + 1, total + tx
    return n, total


def main():
    tmp, p, port = serve_grown("wbtop-orphans.")
    socks = []
    try:
        time.sleep(1)
        socks = [slow_reader(port, i) for i in range(SLOW)]
        time.sleep(2)
        n, total = queued(port)
        if n < SLOW // 2:
            fail("only %d answers held back by the slow readers: the test does not hold them" % n)
        time.sleep(11)  # past MHD's 10 s timeout
        n2, total2 = queued(port)
        print("answers held back: %d (%d kB) at 2 s, %d (%d kB) at 13 s" % (n, total // 1024, n2, total2 // 1024))
        if n2:
            fail("%d connections MHD gave up on still hold %d kB of their answers in the kernel"
                 % (n2, total2 // 1024))
        if p.poll() is not None:
            fail("wbtop ended: %d" % p.returncode)
        socks += [slow_reader(port, i) for i in range(SLOW // 4)]
        time.sleep(2)
        n3, _ = queued(port)
        if n3 < SLOW // 8:
            fail("only %d answers held back before the exit: the test does not hold them" % n3)
        p.terminate()
        p.wait(timeout=30)
        time.sleep(0.5)
        n4, total4 = queued(port)
        print("answers held back: %d before wbtop's exit, %d (%d kB) after" % (n3, n4, total4 // 1024))
        if n4:
            fail("%d connections wbtop stopped with still hold %d kB of their answers in the kernel"
                 % (n4, total4 // 1024))
    finally:
        shut(socks, p, tmp)
    print("1 passed, 0 failed")


main()
