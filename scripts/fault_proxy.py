"""An HTTP proxy that injects store faults between damas and an S3 server (moto), for
scripts/kill-soak.sh's distributed mode. Each request is, at the rates given:

- answered 503 SlowDown without reaching the server (S3's way to say "retry");
- forwarded, but its answer replaced by 500 InternalError (the write may have happened: a retry
  must be harmless);
- delayed by up to --delay seconds before it is forwarded;
- cut: the connection is reset (RST) before an answer, after the request reached the server;
- or forwarded unchanged.

With --hold REGEX, requests whose method and path ("PUT /bucket/key") match are held --hold-seconds before they are
forwarded, and the file --flag exists while one is held: the soak uses it to kill the learner
while it publishes a checkpoint (which otherwise takes milliseconds).

toxiproxy (the usual tool) injects at the TCP level only, without HTTP status codes, and no
package registry this project draws on has it, so this stdlib proxy does the HTTP level itself.
It listens on 127.0.0.1 only and writes its counts as JSON to --stats on SIGTERM or SIGINT.

    fault_proxy.py --listen PORT --upstream http://127.0.0.1:PORT [--rate 0.05] [--stats FILE]
"""

import argparse
import http.client
import json
import os
import random
import re
import signal
import socket
import struct
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COUNTS = {"requests": 0, "503_before": 0, "500_after": 0, "delayed": 0, "reset": 0, "held": 0}
LOCK = threading.Lock()
HELD = [0]

ERROR_BODY = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{code}</Code>'
    "<Message>injected by fault_proxy.py</Message></Error>"
)


def count(what):
    with LOCK:
        COUNTS[what] += 1


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    upstream = None
    rate = 0.0
    delay = 0.0
    rng = random.Random(0)
    hold = None
    hold_seconds = 0.0
    flag = None

    def held(self):
        """Holds a matching request, with the flag file there while any is held."""
        count("held")
        with LOCK:
            HELD[0] += 1
            if self.flag:
                open(self.flag, "w").close()
        time.sleep(self.hold_seconds)
        with LOCK:
            HELD[0] -= 1
            if self.flag and HELD[0] == 0:
                try:
                    os.remove(self.flag)
                except FileNotFoundError:
                    pass

    def log_message(self, *args):
        pass

    def reply(self, status, code, message):
        body = ERROR_BODY.format(code=code).encode()
        self.send_response(status, message)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def reset(self):
        # SO_LINGER with a zero timeout: close() sends RST instead of FIN.
        self.connection.setsockopt(
            socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
        )
        self.close_connection = True
        self.connection.close()

    def handle_any(self):
        count("requests")
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        if self.hold and self.hold.search(f"{self.command} {self.path}"):
            self.held()
        with LOCK:
            roll = self.rng.random()
            wait = self.rng.random() * self.delay
        # The rate is split evenly over the four faults.
        share = self.rate / 4
        if roll < share:
            count("503_before")
            self.reply(503, "SlowDown", "Slow Down")
            return
        if roll < 2 * share:
            count("delayed")
            time.sleep(wait)
        fault_after = None
        if 2 * share <= roll < 3 * share:
            fault_after = "500_after"
        elif 3 * share <= roll < 4 * share:
            fault_after = "reset"
        headers = {k: v for k, v in self.headers.items() if k.lower() != "connection"}
        connection = http.client.HTTPConnection(self.upstream.hostname, self.upstream.port, timeout=60)
        try:
            connection.request(self.command, self.path, body=body, headers=headers)
            answer = connection.getresponse()
            data = answer.read()
        except OSError:
            self.reply(502, "BadGateway", "Bad Gateway")
            return
        finally:
            connection.close()
        if fault_after == "500_after":
            count("500_after")
            self.reply(500, "InternalError", "Internal Server Error")
            return
        if fault_after == "reset":
            count("reset")
            self.reset()
            return
        self.send_response(answer.status, answer.reason)
        for key, value in answer.getheaders():
            if key.lower() not in ("connection", "transfer-encoding", "content-length"):
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = handle_any


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", type=int, required=True, help="port on 127.0.0.1")
    parser.add_argument("--upstream", required=True, help="the S3 server's URL")
    parser.add_argument("--rate", type=float, default=0.05, help="share of requests given a fault")
    parser.add_argument("--delay", type=float, default=2.0, help="longest injected delay, seconds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stats", help="file the counts are written to when stopped")
    parser.add_argument("--hold", help='regex of requests ("PUT /bucket/key") held before they are forwarded')
    parser.add_argument("--hold-seconds", type=float, default=1.5)
    parser.add_argument("--flag", help="file that exists while a request is held")
    args = parser.parse_args()
    Handler.upstream = urllib.parse.urlparse(args.upstream)
    Handler.rate = args.rate
    Handler.delay = args.delay
    Handler.rng = random.Random(args.seed)
    Handler.hold = re.compile(args.hold) if args.hold else None
    Handler.hold_seconds = args.hold_seconds
    Handler.flag = args.flag
    server = ThreadingHTTPServer(("127.0.0.1", args.listen), Handler)
    server.daemon_threads = True

    def stop(*_):
        if args.stats:
            with open(args.stats, "w") as out:
                json.dump(COUNTS, out)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    server.serve_forever()


if __name__ == "__main__":
    main()
