"""tests/e2e/moved_host.py: a fake host of a cluster that serves nothing and
answers every `join`, `create` and tournament message with `moved`
(PROTOCOL.md §6.4), for the clients' tests (e2e_moved, browser_moved).
python3's standard library only; msgpack from tests/server/brigade_wire.py.

    python3 moved_host.py --target ws://127.0.0.1:PORT/ [--web DIR] [--port N]

--target - reads the target from the first line of standard input, once
the port is printed (the browser test starts brigaded with this host's page
origin in --allow-origin, then says where brigaded is).

It listens on 127.0.0.1 (port N, default any free one) and prints one line
once it does: `moved_host: listening on http://127.0.0.1:PORT`. Each
websocket (subprotocol brigade.v1) is answered by its path:

    /          moved, url --target (the real brigaded)
    /loop      moved, url this host's own ws://127.0.0.1:PORT/loop
    /nourl     moved without url (a broken server)
    /badurl    moved with url "http://elsewhere/" (not a websocket URL)

and, on any path, a join of the game "loop" as on /loop (a page always
opens its websocket at /).

Every answer is one line on stdout: `moved PATH TYPE REQUEST`, so a test can
count them. Other messages get no answer. Without an upgrade, GET serves
--web's files (the browser page, as brigaded does: / is index.html), so a
page served by this host opens its websocket here and is moved.

Importable too: MovedHost(target, web).start() runs it in a thread and keeps
the answers in .answers and every message received in .messages.
"""
import argparse
import base64
import hashlib
import mimetypes
import os
import socket
import socketserver
import struct
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))
from brigade_wire import pack, recv_until, unpack  # noqa: E402

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
MOVABLE = ("join", "create")


class _Handler(socketserver.BaseRequestHandler):
    def handle(self):
        host = self.server.host
        sock = self.request
        sock.settimeout(30)
        try:
            head = recv_until(sock, b"\r\n\r\n", 65536)
            if head is None:
                return
            text = head.split(b"\r\n\r\n", 1)[0].decode("latin-1")
            lines = text.split("\r\n")
            parts = lines[0].split(" ")
            if len(parts) < 2:
                return
            path = parts[1].split("?", 1)[0]
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    name, value = line.split(":", 1)
                    headers[name.strip().lower()] = value.strip()
            if headers.get("upgrade", "").lower() == "websocket":
                self._websocket(sock, path, headers, host)
            else:
                self._file(sock, path, host)
        except (OSError, ValueError):
            return

    def _file(self, sock, path, host):
        web = host.web
        name = "index.html" if path in ("/", "") else path.lstrip("/")
        full = os.path.realpath(os.path.join(web, name)) if web else ""
        if not web or not full.startswith(os.path.realpath(web) + os.sep) or \
                not os.path.isfile(full):
            sock.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        with open(full, "rb") as f:
            body = f.read()
        kind = mimetypes.guess_type(full)[0] or "application/octet-stream"
        if full.endswith(".mjs") or full.endswith(".js"):
            kind = "text/javascript"
        sock.sendall(("HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n"
                      "Cache-Control: no-store\r\nConnection: close\r\n\r\n"
                      % (kind, len(body))).encode() + body)

    def _websocket(self, sock, path, headers, host):
        key = headers.get("sec-websocket-key", "")
        accept = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
        offered = [p.strip() for p in headers.get("sec-websocket-protocol", "").split(",")]
        reply = ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                 "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n" % accept)
        if "brigade.v1" in offered:
            reply += "Sec-WebSocket-Protocol: brigade.v1\r\n"
        sock.sendall((reply + "\r\n").encode())
        message = b""
        while True:
            opcode, fin, payload = self._frame(sock)
            if opcode is None or opcode == 8:
                try:
                    sock.sendall(b"\x88\x02\x03\xe8")
                except OSError:
                    pass
                return
            if opcode == 9:
                self._send(sock, 10, payload)
                continue
            if opcode in (0, 2):
                message += payload
                if not fin:
                    continue
                self._answer(sock, path, message, host)
                message = b""

    @staticmethod
    def _read(sock, n):
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise OSError("closed")
            data += chunk
        return data

    def _frame(self, sock):
        try:
            b0, b1 = self._read(sock, 2)
        except OSError:
            return None, True, b""
        length = b1 & 0x7F
        if length == 126:
            length = struct.unpack(">H", self._read(sock, 2))[0]
        elif length == 127:
            length = struct.unpack(">Q", self._read(sock, 8))[0]
        mask = self._read(sock, 4) if b1 & 0x80 else b"\0\0\0\0"
        data = self._read(sock, length)
        payload = bytes(c ^ mask[i % 4] for i, c in enumerate(data))
        return b0 & 0x0F, bool(b0 & 0x80), payload

    @staticmethod
    def _send(sock, opcode, payload):
        n = len(payload)
        if n < 126:
            head = struct.pack(">BB", 0x80 | opcode, n)
        elif n < 65536:
            head = struct.pack(">BBH", 0x80 | opcode, 126, n)
        else:
            head = struct.pack(">BBQ", 0x80 | opcode, 127, n)
        sock.sendall(head + payload)

    def _answer(self, sock, path, data, host):
        try:
            message = unpack(data)
        except (ValueError, IndexError, struct.error):
            return
        if not isinstance(message, dict):
            return
        host.received(message)
        kind = message.get("type")
        if not isinstance(kind, str) or not (kind in MOVABLE or kind.startswith("tournament_")):
            return
        request = message.get("request")
        answer = {"type": "error", "request": request, "code": "moved",
                  "message": "this game is served by another host"}
        if path == "/loop" or message.get("game") == "loop":
            answer["url"] = "ws://127.0.0.1:%d/loop" % host.port
            answer["message"] = "sent on to the same host again"
        elif path == "/badurl":
            answer["url"] = "http://elsewhere/"
        elif path != "/nourl":
            answer["url"] = host.target
        host.answered(path, kind, request)
        self._send(sock, 2, pack(answer))


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


class MovedHost:
    """The fake host; .port once started, .answers the (path, type, request)
    answered, in order; .messages every message received (decoded), in
    order (what a client sent, e.g. its create's scenario)."""

    def __init__(self, target, web=None, port=0, out=None):
        self.target = target
        self.web = web
        self.out = out
        self.answers = []
        self.messages = []
        self.lock = threading.Lock()
        self.server = _Server(("127.0.0.1", port), _Handler)
        self.server.host = self
        self.port = self.server.server_address[1]

    def answered(self, path, kind, request):
        with self.lock:
            self.answers.append((path, kind, request))
            if self.out:
                self.out.write("moved %s %s %s\n" % (path, kind, request))
                self.out.flush()

    def received(self, message):
        with self.lock:
            self.messages.append(message)

    def start(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--web")
    parser.add_argument("--port", type=int, default=0)
    options = parser.parse_args()
    host = MovedHost(options.target, options.web, options.port, sys.stdout)
    print("moved_host: listening on http://127.0.0.1:%d" % host.port, flush=True)
    if options.target == "-":
        host.target = sys.stdin.readline().strip()
        print("moved_host: moving to %s" % host.target, flush=True)
    try:
        host.server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
