#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""/metrics under load: 50 clients scraping as fast as they can for 30 s
(LOAD_SECONDS) while 40 idle connections hold half a request open (reopened
whenever the server times them out). Checks that every scrape is answered in
full, that wbtop's samples stay on time (from wbtop's own JSON timestamps:
the latest sample's delay is printed; the test fails past four intervals, which
a sampler waiting on its clients would reach - it serves from the last sample
and never waits - while a busy 2-CPU machine running other tests beside the 50
clients has delayed one by up to an interval) and that its memory stays flat.
No root: wbtop reads the live kernel without tracing (nothing is changed)."""
import gzip
import http.client
import json
import os
import re
import socket
import tempfile
import threading
import time

from om_serve import fail, serve

WBTOP = os.environ["WBTOP"]
SECONDS = float(os.environ.get("LOAD_SECONDS", "30"))
CLIENTS, IDLE, DELAY = 50, 40, 0.5
PAUSE = 0.05  # between one client's scrapes: up to ~1000 scrapes/s in all, on a shared machine
ACCEPT_OM = "application/openmetrics-text; version=1.0.0"


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))


def start(out):
    return serve([WBTOP, "--batch", "--json", "-n", "0", "-d", str(DELAY), "--no-trace", "--no-procs",
                  "--listen", "127.0.0.1:0"], stdout=out)


class Counts:
    def __init__(self):
        self.lock = threading.Lock()
        self.ok = self.bad = self.reopened = 0
        self.errors = []

    def add(self, ok, err=None):
        with self.lock:
            if ok:
                self.ok += 1
            else:
                self.bad += 1
                if len(self.errors) < 5:
                    self.errors.append(err)


def scraper(host, port, end, n, c):
    """Scrape until end; every answer must be complete (both formats)."""
    while time.monotonic() < end:
        om, gz = n % 2 == 0, n % 3 == 0  # both formats, a third of each gzipped
        hdr = dict({"Accept": ACCEPT_OM} if om else {}, **({"Accept-Encoding": "gzip"} if gz else {}))
        try:
            conn = http.client.HTTPConnection(host, port, timeout=30)
            conn.request("GET", "/metrics", headers=hdr)
            r = conn.getresponse()
            body = r.read()
            conn.close()
            if r.getheader("Content-Length") and len(body) != int(r.getheader("Content-Length")):
                raise OSError("short body")
            if gz != (r.getheader("Content-Encoding") == "gzip"):
                raise OSError("gzip asked %s, got %s" % (gz, r.getheader("Content-Encoding")))
            body = gzip.decompress(body) if gz else body
            full = body.endswith(b"# EOF\n") if om else b"\nwbtop_build_info{" in body
            c.add(r.status == 200 and full, "status %d, %d bytes" % (r.status, len(body)))
        except (OSError, http.client.HTTPException) as e:
            c.add(False, repr(e))
        time.sleep(PAUSE)


def idler(host, port, end, c):
    """Hold a connection with half a request; open a new one when the server drops it."""
    while time.monotonic() < end:
        try:
            s = socket.create_connection((host, port), timeout=5)
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
            s.settimeout(max(0.1, end - time.monotonic()))
            try:
                s.recv(1)  # blocks until the server's timeout closes it (or the end)
            except socket.timeout:
                pass
            s.close()
            with c.lock:
                c.reopened += 1
        except OSError:
            time.sleep(0.1)


def main():
    out = tempfile.TemporaryFile(mode="w+")
    p, host, port = start(out)
    c = Counts()
    try:
        time.sleep(2)
        rss0 = rss_kib(p.pid)
        end = time.monotonic() + SECONDS
        threads = [threading.Thread(target=idler, args=(host, port, end, c)) for _ in range(IDLE)]
        threads += [threading.Thread(target=scraper, args=(host, port, end, i, c)) for i in range(CLIENTS)]
        for t in threads:
            t.start()
        rss = []
        while time.monotonic() < end:
            time.sleep(1)
            rss.append(rss_kib(p.pid))
        for t in threads:
            t.join()
    finally:
        p.terminate()
        p.wait(timeout=30)
    out.seek(0)
    samples = [json.loads(l) for l in out if l.strip()]
    mono = [s["mono"] for s in samples]
    late = max(m - (mono[0] + i * DELAY) for i, m in enumerate(mono))
    third = max(1, len(rss) // 3)
    early, last = max(rss[:third]), max(rss[-third:])
    asan = b"__asan_init" in open(WBTOP, "rb").read()
    print("scrapes answered %d, failed %d (%.0f/s); idle connections reopened after the server's timeout: %d"
          % (c.ok, c.bad, c.ok / SECONDS, c.reopened - IDLE))
    print("samples %d at %.1f s: latest %.3f s after its slot" % (len(mono), DELAY, late))
    print("wbtop RSS KiB: before %d, first third max %d, last third max %d%s"
          % (rss0, early, last, " (sanitizer build: not judged)" if asan else ""))
    if c.bad or c.ok == 0:
        fail("%d scrapes not answered in full: %s" % (c.bad, c.errors))
    if len(mono) < SECONDS / DELAY / 2:
        fail("only %d samples in %.0f s" % (len(mono), SECONDS))
    if late >= 4 * DELAY:
        fail("a sample came %.3f s after its slot (interval %.1f s)" % (late, DELAY))
    if not asan and last > early + 4096:
        fail("memory grew under load: %d -> %d KiB" % (early, last))
    print("1 passed, 0 failed")


main()
