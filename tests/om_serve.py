# SPDX-License-Identifier: GPL-2.0-or-later
"""What the /metrics tests share: wbtop started with --listen on a free
localhost port, the address it says it serves on read from its stderr."""
import re
import subprocess
import sys
import threading
import time
import urllib.request


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def serve(argv, stdout=subprocess.DEVNULL):
    """Start argv (a wbtop command ending in --listen 127.0.0.1:0); (process, host, port)."""
    p = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    while line and "serving http://" not in line:
        line = p.stderr.readline()
    m = re.search(r"http://([\d.]+):(\d+)/metrics", line or "")
    if not m:
        p.kill()
        fail("wbtop did not serve: " + (line or "") + p.stderr.read())
    threading.Thread(target=p.stderr.read, daemon=True).start()  # keep the pipe drained
    return p, m.group(1), int(m.group(2))


def scrape(port, deadline):
    """Seconds until a complete answer (retrying refused or reset connections), or None by deadline."""
    t0, last = time.monotonic(), None
    while time.monotonic() < deadline:
        try:
            body = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=5).read()
            if b"\nwbtop_build_info{" in body:
                return time.monotonic() - t0, None
            last = "incomplete body (%d bytes)" % len(body)
        except OSError as e:
            last = repr(e)
        time.sleep(0.1)
    return None, last


def connect_from(s, i, port, request):
    """Socket s from 127.0.0.2 or .3 (by i) connected to port, request sent, then non-blocking; None if refused."""
    s.bind(("127.0.0.%d" % (2 + i % 2), 0))
    s.settimeout(2)
    try:
        s.connect(("127.0.0.1", port))
        s.sendall(request)
        s.setblocking(False)
        return s
    except OSError:
        s.close()
        return None
