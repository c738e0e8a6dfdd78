#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""/metrics when one address holds its whole share: 150 connections from
127.0.0.1 each send half a request and wait (more than the 128 one address
may hold). --listen binds 127.0.0.1 by default, so every local client - a
local Prometheus too - comes from that one address. MHD's own limit per
address refused the scraper before wbtop's accept policy could close one of
those idle connections for it: every scrape was refused. A scrape from
127.0.0.1 must now be answered in full within SCRAPE_S, five times. No root:
wbtop reads a fixture tree."""
import os
import socket
import time

from om_serve import fail, scrape, serve

WBTOP, FIXTURES = os.environ["WBTOP"], os.environ["FIXTURES"]
IDLE, SCRAPE_S = 150, 3.0



def main():
    p, _, port = serve([WBTOP, "--root", FIXTURES + "/6.18-writing", "--batch", "-n", "0", "-d", "0.5",
                        "--no-trace", "--no-procs", "--listen", "127.0.0.1:0"])
    socks = []
    try:
        took, err = scrape(port, time.monotonic() + 30)  # the first sample is there
        if took is None:
            fail("no scrape before the idle connections: " + err)
        for _ in range(IDLE):
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
            s.sendall(b"GET /metrics HTTP/1.1\r\nX: ")
            socks.append(s)
        time.sleep(1)  # every one accepted (or refused) and waiting
        times = []
        for n in range(5):
            took, err = scrape(port, time.monotonic() + SCRAPE_S)
            if took is None:
                fail("scrape %d from 127.0.0.1: none within %.0f s beside %d idle connections from it: %s"
                     % (n + 1, SCRAPE_S, IDLE, err))
            times.append(took)
        print("%d idle connections from 127.0.0.1; scrapes from it answered in %s s"
              % (IDLE, ", ".join("%.3f" % t for t in times)))
        if p.poll() is not None:
            fail("wbtop ended: %d" % p.returncode)
    finally:
        for s in socks:
            s.close()
        p.terminate()
        p.wait(timeout=30)
    print("1 passed, 0 failed")


main()
