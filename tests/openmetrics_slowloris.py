#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""/metrics under a slowloris: 256 connections from two addresses (the limit
per address is half of that) each send their request a byte a second, well
inside the server's 10 s idle timeout, and open again whenever the server
closes one. MHD's timeout is per idle period, so they used to hold every slot
for as long as they trickled (no scrape in 120 s). Now a new connection
closes the one that has waited longest without a request in progress: a
scrape from a third address must be answered in full within SCRAPE_S, five
times, while most of the slow connections stay open. Bounds are generous (a
scrape takes milliseconds here); no root: wbtop reads a fixture tree."""
import os
import socket
import threading
import time

from om_serve import connect_from, fail, scrape, serve

WBTOP, FIXTURES = os.environ["WBTOP"], os.environ["FIXTURES"]
SLOW, SCRAPE_S = 256, 10.0


def start():
    p, _, port = serve([WBTOP, "--root", FIXTURES + "/6.18-writing", "--batch", "-n", "0", "-d", "0.5",
                        "--no-trace", "--no-procs", "--listen", "127.0.0.1:0"])
    return p, port



class Slow:
    """SLOW connections from 127.0.0.2 and 127.0.0.3, a byte each a second; reopened when closed."""

    def __init__(self, port):
        self.port, self.stop, self.reopened = port, False, 0
        self.socks = [self.open(i) for i in range(SLOW)]
        self.thread = threading.Thread(target=self.trickle, daemon=True)
        self.thread.start()

    def open(self, i):
        return connect_from(socket.socket(), i, self.port, b"GET /metrics HTTP/1.1\r\nX: ")

    def is_open(self, s):
        try:
            return s is not None and s.recv(1) != b""  # the server never answers a request it has not had
        except BlockingIOError:
            return True
        except OSError:
            return False

    def trickle(self):
        while not self.stop:
            for i, s in enumerate(self.socks):
                try:
                    if s is None:
                        raise OSError
                    s.send(b"x")
                except OSError:
                    if s is not None:
                        s.close()
                    self.socks[i] = self.open(i)
                    self.reopened += 1
            time.sleep(1)

    def count_open(self):
        return sum(self.is_open(s) for s in list(self.socks))

    def close(self):
        self.stop = True
        self.thread.join()
        for s in self.socks:
            if s is not None:
                s.close()


def main():
    p, port = start()
    slow = None
    try:
        took, err = scrape(port, time.monotonic() + 30)  # the first sample is there
        if took is None:
            fail("no scrape before the slow clients: " + err)
        slow = Slow(port)
        time.sleep(3)  # every slow connection accepted and trickling
        before = slow.count_open()
        if before < SLOW // 2:
            fail("only %d of %d slow connections open: the test does not fill the server" % (before, SLOW))
        times = []
        for _ in range(5):
            took, err = scrape(port, time.monotonic() + SCRAPE_S)
            if took is None:
                fail("no scrape within %.0f s while %d slow connections were open: %s" % (SCRAPE_S, before, err))
            times.append(took)
        after = slow.count_open()
        print("slow connections open: %d before the scrapes, %d after (%d reopened); scrapes answered in %s s"
              % (before, after, slow.reopened, ", ".join("%.3f" % t for t in times)))
        if after < before // 2:
            fail("the slow connections were mostly gone (%d of %d): the scrapes did not run beside them"
                 % (after, before))
        if p.poll() is not None:
            fail("wbtop ended: %d" % p.returncode)
    finally:
        if slow:
            slow.close()
        p.terminate()
        p.wait(timeout=30)
    print("1 passed, 0 failed")


main()
