"""tests/server/brigade_wire.py: a minimal websocket client (RFC 6455) and
msgpack codec for brigaded's end-to-end tests, written for these tests only
(no third-party modules; python3's standard library).

The msgpack side covers what the wire allows (PROTOCOL.md §2): nil, bool,
int, str, array, map; decode also reads bin/float so a test can see a server
bug instead of crashing.
"""
import base64
import os
import socket
import struct


# ------------------------------------------------------------------ msgpack

def pack(value):
    if value is None:
        return b"\xc0"
    if value is True:
        return b"\xc3"
    if value is False:
        return b"\xc2"
    if isinstance(value, int):
        if 0 <= value <= 0x7F:
            return bytes([value])
        if -32 <= value < 0:
            return struct.pack("b", value)
        if 0 <= value <= 0xFF:
            return b"\xcc" + struct.pack(">B", value)
        if 0 <= value <= 0xFFFF:
            return b"\xcd" + struct.pack(">H", value)
        if 0 <= value <= 0xFFFFFFFF:
            return b"\xce" + struct.pack(">I", value)
        if 0 <= value <= 0xFFFFFFFFFFFFFFFF:
            return b"\xcf" + struct.pack(">Q", value)
        if -0x80 <= value:
            return b"\xd0" + struct.pack(">b", value)
        if -0x8000 <= value:
            return b"\xd1" + struct.pack(">h", value)
        if -0x80000000 <= value:
            return b"\xd2" + struct.pack(">i", value)
        return b"\xd3" + struct.pack(">q", value)
    if isinstance(value, str):
        data = value.encode("utf-8")
        n = len(data)
        if n < 32:
            return bytes([0xA0 | n]) + data
        if n <= 0xFF:
            return b"\xd9" + bytes([n]) + data
        if n <= 0xFFFF:
            return b"\xda" + struct.pack(">H", n) + data
        return b"\xdb" + struct.pack(">I", n) + data
    if isinstance(value, (list, tuple)):
        n = len(value)
        head = bytes([0x90 | n]) if n < 16 else (
            b"\xdc" + struct.pack(">H", n) if n <= 0xFFFF else b"\xdd" + struct.pack(">I", n))
        return head + b"".join(pack(v) for v in value)
    if isinstance(value, dict):
        n = len(value)
        head = bytes([0x80 | n]) if n < 16 else (
            b"\xde" + struct.pack(">H", n) if n <= 0xFFFF else b"\xdf" + struct.pack(">I", n))
        return head + b"".join(pack(k) + pack(v) for k, v in value.items())
    raise TypeError("cannot pack %r" % (value,))


class _Reader:
    def __init__(self, data):
        self.data = data
        self.pos = 0

    def take(self, n):
        if self.pos + n > len(self.data):
            raise ValueError("truncated msgpack")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def value(self):
        b = self.take(1)[0]
        if b <= 0x7F:
            return b
        if b >= 0xE0:
            return b - 0x100
        if 0x80 <= b <= 0x8F:
            return self.map(b & 0x0F)
        if 0x90 <= b <= 0x9F:
            return [self.value() for _ in range(b & 0x0F)]
        if 0xA0 <= b <= 0xBF:
            return self.take(b & 0x1F).decode("utf-8")
        simple = {0xC0: None, 0xC2: False, 0xC3: True}
        if b in simple:
            return simple[b]
        fixed = {0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q",
                 0xD0: ">b", 0xD1: ">h", 0xD2: ">i", 0xD3: ">q",
                 0xCA: ">f", 0xCB: ">d"}
        if b in fixed:
            fmt = fixed[b]
            return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]
        if b in (0xD9, 0xDA, 0xDB):
            n = struct.unpack({0xD9: ">B", 0xDA: ">H", 0xDB: ">I"}[b],
                              self.take({0xD9: 1, 0xDA: 2, 0xDB: 4}[b]))[0]
            return self.take(n).decode("utf-8")
        if b in (0xC4, 0xC5, 0xC6):
            n = struct.unpack({0xC4: ">B", 0xC5: ">H", 0xC6: ">I"}[b],
                              self.take({0xC4: 1, 0xC5: 2, 0xC6: 4}[b]))[0]
            return bytes(self.take(n))
        if b in (0xDC, 0xDD):
            n = struct.unpack(">H" if b == 0xDC else ">I", self.take(2 if b == 0xDC else 4))[0]
            return [self.value() for _ in range(n)]
        if b in (0xDE, 0xDF):
            n = struct.unpack(">H" if b == 0xDE else ">I", self.take(2 if b == 0xDE else 4))[0]
            return self.map(n)
        raise ValueError("msgpack byte 0x%02x not handled" % b)

    def map(self, n):
        out = {}
        for _ in range(n):
            k = self.value()
            out[k] = self.value()
        return out


def unpack(data):
    reader = _Reader(bytes(data))
    value = reader.value()
    if reader.pos != len(reader.data):
        raise ValueError("trailing bytes after msgpack value")
    return value


# ---------------------------------------------------------------- websocket

def recv_until(sock, marker, limit=None):
    """The bytes read from `sock` until they hold `marker` (an HTTP head's
    end), or None when the peer closes first or they pass `limit` bytes."""
    data = b""
    while marker not in data:
        chunk = sock.recv(4096)
        if not chunk:
            return None
        data += chunk
        if limit is not None and len(data) > limit:
            return None
    return data


class Closed(Exception):
    """The server closed the connection; .code is its close code or None."""

    def __init__(self, code, reason=""):
        super().__init__("closed with %s %s" % (code, reason))
        self.code = code
        self.reason = reason


class WebSocket:
    def __init__(self, port, protocol="brigade.v1", host="127.0.0.1", timeout=10.0,
                 receive_buffer=None, source=None, origin=None):
        """source: the local address to connect from (127.0.0.2: another
        peer address than 127.0.0.1's, as far as brigaded's limits go);
        origin: an Origin header to send (a browser page's)."""
        if receive_buffer is None:
            self.sock = socket.create_connection(
                (host, port), timeout=timeout,
                source_address=(source, 0) if source else None)
        else:
            # A small receive window, set before the handshake offers it (a
            # slow reader).
            self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
            self.sock.settimeout(timeout)
            self.sock.connect((host, port))
        key = base64.b64encode(os.urandom(16)).decode()
        lines = ["GET / HTTP/1.1", "Host: %s:%d" % (host, port), "Upgrade: websocket",
                 "Connection: Upgrade", "Sec-WebSocket-Key: " + key,
                 "Sec-WebSocket-Version: 13"]
        if protocol:
            lines.append("Sec-WebSocket-Protocol: " + protocol)
        if origin:
            lines.append("Origin: " + origin)
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = recv_until(self.sock, b"\r\n\r\n")
        if head is None:
            raise Closed(None, "handshake: connection closed")
        head, self.pending = head.split(b"\r\n\r\n", 1)
        status = head.split(b"\r\n", 1)[0]
        if b" 101 " not in status + b" ":
            raise Closed(None, "handshake: " + status.decode(errors="replace"))
        self.closed = False
        self.presences = []
        self.pings = []  # the payloads of the server's pings, each answered in recv()

    def send_frame(self, opcode, payload, fin=True):
        mask = os.urandom(4)
        n = len(payload)
        head = bytes([(0x80 if fin else 0) | opcode])
        if n < 126:
            head += bytes([0x80 | n])
        elif n <= 0xFFFF:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(head + mask + masked)

    def send(self, payload):
        """One binary message."""
        self.send_frame(0x2, payload)

    def send_message(self, value):
        self.send(pack(value))

    def _read(self, n):
        while len(self.pending) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise Closed(None, "connection dropped")
            self.pending += chunk
        out, self.pending = self.pending[:n], self.pending[n:]
        return out

    def recv(self):
        """The next data message's bytes; answers pings; raises Closed."""
        message = b""
        while True:
            b0, b1 = self._read(2)
            opcode, fin = b0 & 0x0F, b0 & 0x80
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            if b1 & 0x80:
                raise ValueError("server frames must not be masked")
            payload = self._read(n)
            if opcode == 0x8:
                code = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else None
                if not self.closed:
                    try:
                        self.send_frame(0x8, payload[:2])
                    except OSError:
                        pass
                self.closed = True
                raise Closed(code, payload[2:].decode(errors="replace"))
            if opcode == 0x9:
                self.pings.append(payload)
                self.send_frame(0xA, payload)
                continue
            if opcode == 0xA:
                continue
            message += payload
            if fin:
                return message

    def recv_message(self):
        """The next message but `presence` ones (PROTOCOL.md §6.8: who is
        connected, sent to the seats at every join and leave), which are
        kept, in order, in self.presences."""
        while True:
            message = unpack(self.recv())
            if isinstance(message, dict) and message.get("type") == "presence":
                self.presences.append(message)
                continue
            return message

    def close(self, code=1000):
        """The closing handshake (RFC 6455 §5.5.1): our close frame, then
        whatever the server still sends (presences, deltas) read and dropped
        up to its own close and the end of the stream, for at most 2 s.
        Closing a socket with unread bytes makes the kernel send a reset,
        which on a loaded machine can reach brigaded before it has read our
        close frame: the log would say "lost", not "closed by the peer"."""
        if not self.closed:
            self.closed = True
            try:
                self.send_frame(0x8, struct.pack(">H", code))
                self.sock.settimeout(2.0)
                while self.sock.recv(65536):
                    pass
            except OSError:
                pass
        self.sock.close()
