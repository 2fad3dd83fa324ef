"""tests/server/fanout_flow.py: brigaded's fan-out to many spectators
(server/net.c's write path, issue 12).

    fanout_flow.py CASE BRIGADED SCENARIOS_DIR

stalled_spectator: 1,000 spectators watch one game live and one more never
reads after its welcome. The player acts 400 times (adjust, each one delta
to every joined connection). Every reading spectator gets every delta, in
order, byte for byte the same frames; the players get every ack and delta;
the stalled one gets an unbroken run of deltas from the first, then the
close 1008 "send queue full" (or, read more than 10 s after, the end of
the connection), and the server logs it once. brigaded runs
with --send-queue-kib 16 and --socket-send-kib 16 (the kernel's buffers
would otherwise take megabytes of a stalled reader's deltas before its
queue in brigaded begins to grow).

queue_total: two stalled spectators pass --send-queue-total-kib together;
one is closed for it.

ping_between_frames: a ping falls due while a slow spectator's welcome is
half sent; it goes between whole frames (case_ping_between_frames).

memory_returns: the memory stalled spectators held goes back to the system
once they are gone (case_memory_returns).
"""
import resource
import select
import socket
import struct
import sys
import time

import brigade_wire as wire
from game_flow import Client, Server, case_arguments, check, join, run_case, scenario_text

SPECTATORS = 1000
ACTIONS = 400
NOTE = "a long note, so that each delta is a few hundred bytes: " + "x" * 90


class Raw:
    """A spectator's connection read in bulk: its frames' payloads as they
    come (non-blocking), and the close if one came; pings are answered."""

    def __init__(self, ws):
        self.ws = ws
        self.buffer = ws.pending
        self.payloads = []
        self.close_code = None
        self.eof = False
        self.pings = 0
        ws.sock.setblocking(False)

    def fileno(self):
        return self.ws.sock.fileno()

    def read(self):
        try:
            while True:
                chunk = self.ws.sock.recv(262144)
                if not chunk:
                    self.eof = True
                    break
                self.buffer += chunk
        except BlockingIOError:
            pass
        self.parse()

    def parse(self):
        data, at = self.buffer, 0
        while len(data) - at >= 2:
            b0, b1 = data[at], data[at + 1]
            n, head = b1 & 0x7F, 2
            if n == 126:
                if len(data) - at < 4:
                    break
                n, head = struct.unpack(">H", data[at + 2:at + 4])[0], 4
            elif n == 127:
                if len(data) - at < 10:
                    break
                n, head = struct.unpack(">Q", data[at + 2:at + 10])[0], 10
            if len(data) - at < head + n:
                break
            check(b0 & 0x80 and not b1 & 0x80, "a fragmented or masked server frame")
            payload = data[at + head:at + head + n]
            opcode = b0 & 0x0F
            if opcode == 0x2:
                self.payloads.append(payload)
            elif opcode == 0x9:
                self.pings += 1
                self.ws.send_frame(0xA, payload)
            elif opcode == 0x8:
                self.close_code = struct.unpack(">H", payload[:2])[0] if n >= 2 else None
                self.close_reason = payload[2:].decode(errors="replace")
            at += head + n
        self.buffer = data[at:]


def drain(connections, seconds):
    """Reads every connection until none has anything for `seconds`."""
    idle_until = time.time() + seconds
    while time.time() < idle_until:
        ready, _, _ = select.select(connections, [], [], 0.05)
        for c in ready:
            c.read()
        if ready:
            idle_until = time.time() + seconds


def consecutive_deltas(payloads, first_seq, what):
    """The payloads are deltas of seqs first_seq, first_seq + 1, ...:
    returns how many."""
    for i, payload in enumerate(payloads):
        message = wire.unpack(payload)
        check(message.get("type") == "delta" and message.get("seq") == first_seq + i,
              "%s: message %d is %r, not the delta of seq %d" %
              (what, i, {k: v for k, v in message.items() if k != "ops"}, first_seq + i))
    return len(payloads)


def game_begun(server, scenarios):
    """A game with a spectators' password, both seats joined and the
    initiative chosen: (created, players, seq, unit, figures), seat A's unit
    to adjust."""
    creator = Client(server)
    created = creator.ask({"type": "create", "spectator_password": "watch",
                           "scenario": scenario_text(scenarios, "example_a.json")})
    check(created.get("type") == "created", "create answered %r" % created)
    creator.close()
    game, seats = created["game"], created["seats"]
    players = {}
    for seat in ("A", "B"):
        players[seat] = Client(server)
        welcome = join(players[seat], game, seats[seat])
    players["A"].recv()  # B's seed: the battle begins
    actor_seat = welcome["state"]["awaiting"][0]
    answer = players[actor_seat].ask({"type": "act", "action": {"kind": "choose_initiative",
                                                                "phasing": "A"}})
    check(answer.get("type") == "ack", "choose_initiative answered %r" % answer)
    for seat in ("A", "B"):
        delta = players[seat].recv()
        check(delta.get("type") == "delta", "the initiative's delta: %r" % delta)
    seq = answer["seq"]
    state = welcome["state"]
    unit = next(u for u, v in sorted(state["units"].items()) if v["side"] == "A")
    return created, players, seq, unit, state["units"][unit]["figures"]


def act_and_wait(actor, n, unit, figures):
    """Seat A's action n (an adjust, request 100 + n) and, read into
    actor.payloads with what else comes, its ack."""
    first = len(actor.payloads)
    actor.ws.sock.setblocking(True)
    actor.ws.send_message({"type": "act", "request": 100 + n, "action": {
        "kind": "adjust", "unit": unit, "figures": figures, "note": NOTE}})
    actor.ws.sock.setblocking(False)
    deadline = time.time() + 10
    while not any(m.get("type") == "ack" and m.get("request") == 100 + n
                  for m in map(wire.unpack, actor.payloads[first:])):
        check(time.time() < deadline, "no ack for action %d" % n)
        select.select([actor], [], [], 0.05)
        actor.read()


def spectator(server, created, seq, receive_buffer=None):
    """A spectator joined live (its welcome at `seq` read), as a Raw."""
    ws = wire.WebSocket(server.port, timeout=10, receive_buffer=receive_buffer)
    ws.send_message({"type": "join", "request": 1, "game": created["game"],
                     "token": created["spectator"], "password": "watch"})
    got = ws.recv_message()
    check(got.get("type") == "welcome" and got.get("seq") == seq,
          "a spectator's welcome: %r" % {k: v for k, v in got.items() if k != "state"})
    return Raw(ws)


def case_stalled_spectator(server, scenarios):
    created, players, seq, unit, figures = game_begun(server, scenarios)
    game = created["game"]

    # The spectators: 1,000 that read, then one that stops after its welcome
    # (a small receive buffer, so that its queue in brigaded fills soon).
    started = time.time()
    watchers = []
    for i in range(SPECTATORS + 1):
        watchers.append(spectator(server, created, seq,
                                  receive_buffer=4096 if i == SPECTATORS else None))
    stalled, readers = watchers[-1], watchers[:-1]
    print("%d spectators joined in %.1f s" % (len(watchers), time.time() - started))
    # The players heard each join (watchers counts) and nothing else.
    # They hear the count at most once a second (not once a join), the last
    # within a second of the last join.
    joined_in = time.time() - started
    seat_raw = {seat: Raw(players[seat].ws) for seat in ("A", "B")}
    want = {"type": "watchers", "game": game, "count": SPECTATORS + 1}
    deadline = time.time() + 3
    while time.time() < deadline and not all(
            raw.payloads and wire.unpack(raw.payloads[-1]) == want for raw in seat_raw.values()):
        drain(list(seat_raw.values()) + readers, 0.1)
    for seat, raw in seat_raw.items():
        counts = [wire.unpack(p) for p in raw.payloads]
        check(counts and counts[-1] == want, "player %s last heard %r" % (seat, counts[-1:]))
        check(len(counts) <= joined_in + 3, "player %s heard %d counts for %d joins in %.1f s" %
              (seat, len(counts), SPECTATORS + 1, joined_in))
        raw.payloads = []
    for r in readers:
        check(not r.payloads, "a spectator got %d messages before any action" % len(r.payloads))

    # The actions: the actor's ack and delta, the other seat's delta, every
    # reading spectator's delta, read as they come.
    actor = seat_raw["A"]
    started = time.time()
    for n in range(ACTIONS):
        act_and_wait(actor, n, unit, figures)
        if n % 25 == 24:
            drain(readers + [seat_raw["B"]], 0.02)
    drain(readers + list(seat_raw.values()), 0.5)
    print("%d actions in %.1f s" % (ACTIONS, time.time() - started))

    # The players also hear the watcher count fall when the stalled one is
    # dropped (PROTOCOL.md §6.2): set aside.
    counts = {}
    for seat, raw in seat_raw.items():
        heard = [wire.unpack(p) for p in raw.payloads]
        counts[seat] = [m["count"] for m in heard if m.get("type") == "watchers"]
        raw.payloads = [p for p, m in zip(raw.payloads, heard) if m.get("type") != "watchers"]
    answers = [wire.unpack(p) for p in actor.payloads]
    acks = [a for a in answers if a.get("type") == "ack"]
    check([a["seq"] for a in acks] == list(range(seq + 1, seq + 1 + ACTIONS)),
          "the actor's acks are seqs %d.. in order" % (seq + 1))
    for i, a in enumerate(answers):
        # Each ack comes before its own delta (PROTOCOL.md §6.3).
        if a.get("type") == "ack":
            check(i + 1 < len(answers) and answers[i + 1].get("seq") == a["seq"] and
                  answers[i + 1].get("type") == "delta", "ack %d then its delta" % a["seq"])
    consecutive_deltas(seat_raw["B"].payloads, seq + 1, "player B")
    check(len(seat_raw["B"].payloads) == ACTIONS, "player B got %d deltas, not %d" %
          (len(seat_raw["B"].payloads), ACTIONS))
    first = readers[0].payloads
    check(consecutive_deltas(first, seq + 1, "spectator 0") == ACTIONS,
          "spectator 0 got %d deltas, not %d" % (len(first), ACTIONS))
    for i, r in enumerate(readers):
        check(r.payloads == first and r.close_code is None,
              "spectator %d got %d frames (close %r), not the %d deltas spectator 0 got" %
              (i, len(r.payloads), r.close_code, ACTIONS))

    # The stalled one: what was in flight, then the close.
    stalled.ws.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    deadline = time.time() + 10
    while stalled.close_code is None and not stalled.eof and time.time() < deadline:
        select.select([stalled], [], [], 0.1)
        stalled.read()
    got = consecutive_deltas(stalled.payloads, seq + 1, "the stalled spectator")
    # Its close frame, or, when it was still not read after 10 s, the
    # connection dropped without one (server/net.c).
    check((stalled.close_code == 1008 and stalled.close_reason == "send queue full") or
          (stalled.close_code is None and stalled.eof),
          "the stalled spectator: close %r %r (end of stream %r) after %d deltas" %
          (stalled.close_code, getattr(stalled, "close_reason", None), stalled.eof, got))
    check(0 < got < ACTIONS, "the stalled spectator got %d deltas before its close" % got)
    check(server.text().count("send queue over 16384 bytes, closing") == 1,
          "brigaded logs the stalled connection once")
    # Its socket closed on our side too: brigaded lets it go at once (no
    # wait for an answering close), and the players hear the new count.
    stalled.ws.sock.close()
    for seat, raw in seat_raw.items():
        raw.payloads = []
    deadline = time.time() + 10
    while time.time() < deadline and not all(counts[seat] or raw.payloads
                                             for seat, raw in seat_raw.items()):
        drain(list(seat_raw.values()), 0.1)
    drain(list(seat_raw.values()), 0.2)
    for seat, raw in seat_raw.items():
        counts[seat] += [wire.unpack(p).get("count") for p in raw.payloads]
        check(counts[seat] == [SPECTATORS], "player %s heard the watchers fall to %r, not once "
              "to %d" % (seat, counts[seat], SPECTATORS))
    # A late spectator's welcome (the whole state, its log 400 actions long)
    # is larger than the 16 KiB queue limit and still goes: the limit is on
    # what waits behind the message in flight.
    late = wire.WebSocket(server.port, timeout=10)
    late.send_message({"type": "join", "request": 1, "game": game,
                       "token": created["spectator"], "password": "watch"})
    frame = late.recv()
    check(len(frame) > 16384, "the late welcome is %d bytes, not over the limit" % len(frame))
    welcome = wire.unpack(frame)
    check(welcome.get("type") == "welcome" and welcome.get("seq") == seq + ACTIONS,
          "the late spectator's welcome: %r" % {k: v for k, v in welcome.items() if k != "state"})
    late.close()
    print("the stalled spectator got %d deltas, then %s" %
          (got, "1008" if stalled.close_code else "the end of the connection"))


def case_queue_total(server, scenarios):
    """--send-queue-total-kib 32: two stalled spectators' backlogs together
    pass the server's bound long before either passes its own (16 MiB):
    one is closed with 1008 "server send queues full" (logged), the readers
    and the players get every delta."""
    created, players, seq, unit, figures = game_begun(server, scenarios)
    readers = [spectator(server, created, seq) for _ in range(10)]
    stalled = [spectator(server, created, seq, receive_buffer=4096) for _ in range(2)]
    actor = Raw(players["A"].ws)
    other = Raw(players["B"].ws)
    acked = 0
    for n in range(200):
        act_and_wait(actor, n, unit, figures)
        acked = n + 1
        drain(readers + [other], 0.005)
        if "closing this slow reader" in server.text():
            break
    drain(readers + [other, actor], 0.3)
    check("the server's send queues are over 32768 bytes, closing this slow reader"
          in server.text(), "the server's bound was not reached in %d actions" % acked)
    for i, r in enumerate(readers):
        deltas = [p for p in r.payloads if wire.unpack(p).get("type") == "delta"]
        check(consecutive_deltas(deltas, seq + 1, "reader %d" % i) == acked,
              "reader %d got %d deltas of %d" % (i, len(deltas), acked))
    closes = []
    for s in stalled:
        s.ws.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        deadline = time.time() + 5
        while s.close_code is None and not s.eof and time.time() < deadline:
            select.select([s], [], [], 0.1)
            s.read()
        closes.append((s.close_code, getattr(s, "close_reason", None)))
    check((1008, "server send queues full") in closes,
          "a stalled spectator closed for the server's bound: %r" % closes)
    print("%d actions; the stalled spectators: %r" % (acked, closes))


def case_ping_between_frames(server, scenarios):
    """--ping-interval-s 1 --socket-send-kib 4: a spectator that reads
    nothing for 1.6 s after its join has most of its welcome (the state
    after 300 actions, over 100 KB) waiting in the server when its ping
    falls due, and deltas queued behind it. The ping goes between whole
    frames: the spectator then reads the whole welcome, the ping, every
    delta in order, and is not closed (it answers)."""
    created, players, seq, unit, figures = game_begun(server, scenarios)
    actor, other = Raw(players["A"].ws), Raw(players["B"].ws)  # they read (and answer)
    for n in range(300):
        act_and_wait(actor, n, unit, figures)
        other.read()
    seq += 300
    ws = wire.WebSocket(server.port, timeout=10, receive_buffer=4096)
    ws.send_message({"type": "join", "request": 1, "game": created["game"],
                     "token": created["spectator"], "password": "watch"})
    slow = Raw(ws)
    started = time.time()
    for n in range(300, 310):  # queued behind the welcome
        act_and_wait(actor, n, unit, figures)
        other.read()
    while time.time() < started + 1.6:
        select.select([actor, other], [], [], 0.05)
        actor.read()
        other.read()
    slow.ws.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    deadline = time.time() + 3
    while time.time() < deadline:
        select.select([slow, actor, other], [], [], 0.05)
        for raw in (slow, actor, other):
            raw.read()
    check(slow.payloads, "the slow spectator got nothing")
    welcome = wire.unpack(slow.payloads[0])
    check(welcome.get("type") == "welcome" and welcome.get("seq") == seq and
          len(slow.payloads[0]) > 100000,
          "the slow spectator's first message: %d bytes, %r" %
          (len(slow.payloads[0]), {k: v for k, v in welcome.items() if k != "state"}))
    check(consecutive_deltas(slow.payloads[1:], seq + 1, "the slow spectator") == 10,
          "the slow spectator got %d deltas, not 10" % (len(slow.payloads) - 1))
    check(slow.pings >= 1 and slow.close_code is None and not slow.eof,
          "the slow spectator: %d pings, close %r" % (slow.pings, slow.close_code))
    check("no answer to a ping" not in server.text(), "a connection was let go")
    print("the slow spectator: a welcome of %d bytes, %d pings, 10 deltas" %
          (len(slow.payloads[0]), slow.pings))


def rss_mib(pid):
    """The resident memory of process `pid` (VmRSS), in MiB."""
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise Failure("no VmRSS for %d" % pid)


RETURN_BOUND_MIB = 16  # what may stay after the stalled readers went


def case_memory_returns(server, scenarios):
    """Issue 13: 150 spectators join a game of 1,000 actions (a welcome of
    over 400 KB each) and never read; the players act on. brigaded's
    resident memory grows by the welcomes waiting (at least 48 MiB, or this
    test could not fail); once the stalled connections are closed it falls
    back to within 16 MiB of what it was before they came (brigaded trims
    its heap: server/net.c). Under AddressSanitizer (whose allocator keeps
    freed memory) the resident size means nothing: a lighter run (300
    actions, 80 spectators: still over the 8 MiB freed that make brigaded
    trim) checks the flow only."""
    pid = server.proc.pid
    sanitized = any("libasan" in line or "libubsan" in line
                    for line in open("/proc/%d/maps" % pid))
    actions, spectators = (300, 80) if sanitized else (1000, 150)
    created, players, seq, unit, figures = game_begun(server, scenarios)
    actor, other = Raw(players["A"].ws), Raw(players["B"].ws)
    for n in range(actions):
        act_and_wait(actor, n, unit, figures)
        other.read()
        actor.payloads, other.payloads = [], []
    baseline = rss_mib(pid)
    stalled = []
    for i in range(spectators):
        ws = wire.WebSocket(server.port, timeout=10, receive_buffer=4096)
        ws.send_message({"type": "join", "request": 1, "game": created["game"],
                         "token": created["spectator"], "password": "watch"})
        stalled.append(ws)  # never read: the welcome waits in brigaded
    for n in range(actions, actions + 20):
        act_and_wait(actor, n, unit, figures)
        other.read()
    time.sleep(0.5)
    peak = rss_mib(pid)
    check("connection %d from 127.0.0.1: joined game" % (spectators + 3) in server.text(),
          "the stalled spectators joined")
    check(sanitized or peak >= baseline + 48, "the stalled spectators held %.1f MiB (%.1f to "
          "%.1f), not enough to see it come back" % (peak - baseline, baseline, peak))
    for ws in stalled:
        ws.sock.close()
    deadline = time.time() + 5
    after = rss_mib(pid)
    while after > baseline + RETURN_BOUND_MIB and time.time() < deadline:
        time.sleep(0.1)
        other.read()
        after = rss_mib(pid)
    print("resident memory: %.1f MiB before the stalled spectators, %.1f with them, %.1f "
          "after%s" % (baseline, peak, after,
                       " (AddressSanitizer: not checked)" if sanitized else ""))
    if not sanitized:
        check(after <= baseline + RETURN_BOUND_MIB,
              "%.1f MiB 5 s after the stalled spectators went, more than %.1f + %d" %
              (after, baseline, RETURN_BOUND_MIB))
    act_and_wait(actor, actions + 20, unit, figures)  # the players are served as ever


CASES = {"stalled_spectator": (case_stalled_spectator,
                               ["--send-queue-kib", "16", "--socket-send-kib", "16"]),
         "queue_total": (case_queue_total,
                         ["--send-queue-total-kib", "32", "--socket-send-kib", "4"]),
         "ping_between_frames": (case_ping_between_frames,
                                 ["--ping-interval-s", "1", "--socket-send-kib", "4"]),
         "memory_returns": (case_memory_returns,
                            ["--socket-send-kib", "4", "--ping-interval-s", "0"])}


def main():
    name, brigaded, scenarios = case_arguments("fanout_flow.py", CASES)
    # A thousand connections here and in brigaded (which inherits this).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 4096 if hard == resource.RLIM_INFINITY else min(hard, 4096)
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    check(resource.getrlimit(resource.RLIMIT_NOFILE)[0] >= SPECTATORS + 64,
          "the open files limit is too low for %d spectators" % SPECTATORS)
    case, extra = CASES[name]
    # The cases drive hundreds of actions and 1,000 joins as fast as the
    # server takes them: their subject is the write path, not the rate
    # limits (limits_flow.py tests those).
    server = Server(brigaded, extra + ["--rate-messages", "0", "--rate-failed-joins", "0"])
    return run_case(name, server, case, scenarios)


if __name__ == "__main__":
    sys.exit(main())
