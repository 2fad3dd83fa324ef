#!/usr/bin/env python3
"""tests/journal/group_test.py: the journal thread and its group commit
(issue 11), end to end over the wire (tests/server/brigade_wire.py).

    group_test.py CASE --brigaded B --brigade C --scenarios DIR --wire DIR

Cases:
  locked        another process holds the journal's write lock for 3 s
                (python's sqlite3: BEGIN IMMEDIATE on DIR/brigade.sqlite):
                /healthz, a join and welcome of another game, a websocket
                ping and a resume's already committed deltas each answer
                within 100 ms; the actions sent meanwhile (three games) are
                acked only after the lock goes, in one group commit.
  busy_timeout  --journal-busy-ms 300 and the lock held 2 s: an action is
                refused with `unavailable`, is not applied (no delta, the
                seq unchanged); sent again with the same request id after
                the lock goes, it is applied once. `brigade play` sends a
                command refused so again by itself.
  crash_group   30 games act at once; the server is killed (SIGKILL) while
                groups are in flight; after the restart every acknowledged
                action is in the journal, and each action that got no ack,
                sent again with its request id, is applied exactly once.
"""
import os
import re
import select
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import shutil
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))
import brigade_wire as wire  # noqa: E402
import game_flow as flow  # noqa: E402
from game_flow import Failure, check  # noqa: E402

LIMIT = 0.100  # seconds: what must answer while the journal is locked


class Server:
    def __init__(self, brigaded, extra=()):
        self.brigaded = brigaded
        self.extra = list(extra)
        self.tmp = tempfile.mkdtemp(prefix="brigade-group-test.")
        self.data = os.path.join(self.tmp, "data")
        self.log_path = os.path.join(self.tmp, "server.log")
        self.proc = None
        self.start()

    def start(self):
        start = len(self.text()) if os.path.exists(self.log_path) else 0
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [self.brigaded, "--port", "0", "--data", self.data, "--web", self.tmp] + self.extra,
            stdout=log, stderr=subprocess.STDOUT)
        log.close()
        self.port = flow.wait_listening(self.proc, self.text, start)

    def text(self):
        with open(self.log_path, "rb") as handle:
            return handle.read().decode(errors="replace")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        status = self.proc.wait(15)
        check(status == 0, "brigaded exit status %r: %s" % (status, self.text()[-2000:]))

    def kill9(self):
        self.proc.kill()
        self.proc.wait()

    def cleanup(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)


class Lock(threading.Thread):
    """Holds the journal's write lock from another process's point of view
    (another connection: what an sqlite3 shell or a backup does)."""

    def __init__(self, path, seconds):
        super().__init__(daemon=True)
        self.path, self.seconds = path, seconds
        self.held = threading.Event()
        self.released_at = None

    def run(self):
        db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        db.execute("BEGIN IMMEDIATE")
        self.held.set()
        time.sleep(self.seconds)
        db.execute("ROLLBACK")
        self.released_at = time.monotonic()
        db.close()


class Conn(flow.Client):
    """flow.Client with a websocket ping."""

    def ping(self):
        """Round trip of a websocket ping, seconds (the connection idle)."""
        start = time.monotonic()
        self.ws.send_frame(0x9, b"ping")
        while True:
            b0, b1 = self.ws._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = int.from_bytes(self.ws._read(2), "big")
            elif n == 127:
                n = int.from_bytes(self.ws._read(8), "big")
            payload = self.ws._read(n)
            # A presence message (PROTOCOL.md §6.8: the other seat joined)
            # may come first.
            if b0 & 0x0F == 0x2 and wire.unpack(payload).get("type") == "presence":
                continue
            break
        check(b0 & 0x0F == 0xA and payload == b"ping", "no pong: %r %r" % (b0, payload))
        return time.monotonic() - start

    def close(self):
        self.ws.close()


def healthz(server):
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        head = wire.recv_until(sock, b"\r\n") or b""
    check(b" 200 " in head.split(b"\r\n")[0], "healthz: %r" % head[:80])
    return time.monotonic() - start


class Game:
    """A game with both seats joined (the battle begun) and the state as
    each delta left it."""

    def __init__(self, server, scenario):
        maker = Conn(server)
        created = maker.ask({"type": "create", "scenario": scenario})
        check(created["type"] == "created", "create: %r" % created)
        maker.close()
        self.id, self.seats = created["game"], created["seats"]
        self.conns = {}
        for seat in ("A", "B"):
            self.conns[seat] = Conn(server, 100 if seat == "A" else 100000)
            welcome = self.conns[seat].ask({"type": "join", "game": self.id,
                                            "token": self.seats[seat],
                                            "seed": os.urandom(32).hex()})
            check(welcome["type"] == "welcome", "join: %r" % welcome)
        started = self.conns["A"].recv()
        check(started["type"] == "delta" and started["seq"] == 2, "start: %r" % started)
        self.state, self.seq = welcome["state"], welcome["seq"]

    def take_delta(self, seat, seq):
        delta = self.conns[seat].recv()
        check(delta["type"] == "delta" and delta["seq"] == seq, "delta %d: %r" % (seq, delta))
        if seat == "A":
            self.state = flow.apply_ops(self.state, delta["ops"])
            self.seq = seq
        return delta

    def actor(self):
        return self.state["awaiting"][0]

    def act(self, timeout=10):
        """The awaited seat's next action, acked; both take the delta."""
        seat = self.actor()
        answer = self.conns[seat].ask({"type": "act",
                                       "action": flow.pick_action(self.state, seat)}, timeout)
        check(answer["type"] == "ack" and answer["seq"] == self.seq + 1, "act: %r" % answer)
        for s in ("A", "B"):
            self.take_delta(s, answer["seq"])
        return answer


def scenario_text(args):
    with open(os.path.join(args.scenarios, "example_a.json"), encoding="utf-8") as handle:
        return handle.read()


# ------------------------------------------------------------------ cases

def case_locked(args):
    server = Server(args.brigaded)
    try:
        scenario = scenario_text(args)
        games = [Game(server, scenario) for _ in range(5)]
        waiting, idle, resumed = games[:3], games[3], games[4]
        resumed.act()  # seq 3: a committed delta to resume
        lock = Lock(os.path.join(server.data, "brigade.sqlite"), 3.0)
        lock.start()
        check(lock.held.wait(10), "the lock was not taken")
        held_at = time.monotonic()
        sent = {}
        for game in waiting:
            seat = game.actor()
            request = game.conns[seat].send(
                {"type": "act", "action": flow.pick_action(game.state, seat)})
            sent[game.id] = (seat, request)
        time.sleep(0.3)  # the journal thread is waiting on the lock now

        times = {"healthz": healthz(server)}
        start = time.monotonic()
        joiner = Conn(server)
        welcome = joiner.ask({"type": "join", "game": idle.id, "token": idle.seats["A"]}, 1)
        times["join and welcome"] = time.monotonic() - start
        check(welcome["type"] == "welcome" and welcome["seq"] == idle.seq, "%r" % welcome)
        times["ping"] = idle.conns["B"].ping()
        start = time.monotonic()
        late = Conn(server)
        answer = late.ask({"type": "join", "game": resumed.id, "token": resumed.seats["B"],
                           "last_seq": 2}, 1)
        delta = late.recv(1)
        times["resumed, committed delta"] = time.monotonic() - start
        check(answer["type"] == "resumed" and delta["type"] == "delta" and delta["seq"] == 3,
              "resume: %r %r" % (answer, delta))
        check(time.monotonic() - held_at < 2.5, "the measurements outlasted the lock")
        print("while the journal is locked: " +
              ", ".join("%s %.1f ms" % (k, v * 1000) for k, v in times.items()))
        for what, seconds in times.items():
            check(seconds < LIMIT, "%s took %.0f ms with the journal locked" %
                  (what, seconds * 1000))

        for game in waiting:
            seat, request = sent[game.id]
            answer = game.conns[seat].recv(10)
            acked_at = time.monotonic()
            check(answer.get("request") == request and answer["type"] == "ack" and
                  answer["seq"] == game.seq + 1, "the waiting act: %r" % answer)
            lock.join()
            check(acked_at >= lock.released_at - 0.05,
                  "acked %.2f s before the lock went" % (lock.released_at - acked_at))
            for s in ("A", "B"):
                game.take_delta(s, answer["seq"])
        for game in games:
            for conn in game.conns.values():
                conn.close()
        joiner.close()
        late.close()
        server.stop()
        m = re.search(r"in (\d+) group commits \(largest (\d+)\)", server.text())
        check(m and int(m.group(2)) >= 3, "the waiting acts were not one group: %s" %
              (m.group(0) if m else server.text()[-500:]))
        print("group commits: %s" % m.group(0))
    finally:
        server.cleanup()


def case_busy_timeout(args):
    server = Server(args.brigaded, ["--journal-busy-ms", "300"])
    try:
        game = Game(server, scenario_text(args))
        seq = game.seq
        lock = Lock(os.path.join(server.data, "brigade.sqlite"), 2.0)
        lock.start()
        check(lock.held.wait(10), "the lock was not taken")
        seat = game.actor()
        other = "B" if seat == "A" else "A"
        action = flow.pick_action(game.state, seat)
        start = time.monotonic()
        request = game.conns[seat].send({"type": "act", "action": action})
        refused = game.conns[seat].recv(5)
        took = time.monotonic() - start
        check(refused.get("type") == "error" and refused.get("code") == "unavailable" and
              refused.get("request") == request, "with the lock held: %r" % refused)
        check(took < 1.9, "refused only after %.2f s" % took)
        print("refused with unavailable after %.0f ms: %s" % (took * 1000, refused["message"]))
        game.conns[other].quiet(0.2)  # no delta: not applied
        lock.join()
        fresh = Conn(server)
        welcome = fresh.ask({"type": "join", "game": game.id, "token": game.seats[other]})
        check(welcome["type"] == "welcome" and welcome["seq"] == seq, "not applied: %r" % welcome)
        fresh.close()
        # Sent again with the same request id: applied now, once.
        game.conns[seat].ws.send_message({"type": "act", "request": request, "action": action})
        answer = game.conns[seat].recv()
        check(answer == {"type": "ack", "request": request, "seq": seq + 1}, "again: %r" % answer)
        for s in ("A", "B"):
            game.take_delta(s, seq + 1)
        game.conns[seat].ws.send_message({"type": "act", "request": request, "action": action})
        again = game.conns[seat].recv()
        check(again == answer, "the repeat: %r" % again)
        game.conns[other].quiet(0.3)

        # brigade play sends a command refused with unavailable again.
        for conn in game.conns.values():
            conn.close()
        seat = game.actor()
        line = "initiative A" if game.state["phase"] == "initiative" else "done"
        lock = Lock(os.path.join(server.data, "brigade.sqlite"), 1.5)
        lock.start()
        check(lock.held.wait(10), "the lock was not taken")
        done = subprocess.run(
            [args.brigade, "play", "--server", "ws://127.0.0.1:%d" % server.port, "--game",
             game.id, "--token", game.seats[seat], "--timeout", "20"],
            input=line + "\n", capture_output=True, text=True, timeout=60)
        lock.join()
        output = done.stdout + done.stderr
        check(done.returncode == 0, "brigade play exit %d: %s" % (done.returncode, output))
        check("unavailable" in output and "sending it again" in output,
              "brigade play did not say it sends again: %s" % output)
        check_seq = Conn(server)
        welcome = check_seq.ask({"type": "join", "game": game.id, "token": game.seats[other]})
        check(welcome["seq"] == seq + 2, "the CLI's command applied once: seq %d, expected %d"
              % (welcome["seq"], seq + 2))
        check_seq.close()
        server.stop()
    finally:
        server.cleanup()


def case_crash_group(args):
    server = Server(args.brigaded)
    try:
        scenario = scenario_text(args)
        games = [Game(server, scenario) for _ in range(30)]
        pending = {}   # game id -> (seat, request, action)
        acked = {}     # game id -> {seq: request}
        by_sock = {}
        for game in games:
            acked[game.id] = {}
            for seat, conn in game.conns.items():
                by_sock[conn.ws.sock] = (game, seat, conn)

        def send_next(game):
            seat = game.actor() if game.state["awaiting"] else None
            if seat is None or game.state["phase"] == "ended":
                return
            action = flow.pick_action(game.state, seat)
            request = game.conns[seat].send({"type": "act", "action": action})
            pending[game.id] = (seat, request, action)

        for game in games:
            send_next(game)
        kill_at = time.monotonic() + 1.5
        answered = 0
        while time.monotonic() < kill_at:
            ready = [s for s, (_, _, c) in by_sock.items() if c.ws.pending]
            if not ready:
                ready, _, _ = select.select(list(by_sock), [], [], 0.05)
            for sock in ready:
                game, seat, conn = by_sock[sock]
                message = conn.recv()
                if message["type"] == "ack":
                    p = pending.get(game.id)
                    check(p and p[1] == message["request"] and seat == p[0], "ack %r" % message)
                    acked[game.id][message["seq"]] = (seat, message["request"])
                elif message["type"] == "error":
                    p = pending.pop(game.id, None)
                    check(p and p[1] == message["request"], "error %r" % message)
                    raise Failure("game %s: %r refused: %r" % (game.id, p[2], message))
                elif message["type"] == "delta" and seat == "A":
                    game.state = flow.apply_ops(game.state, message["ops"])
                    game.seq = message["seq"]
                # The next action once A has the delta of the acked one.
                p = pending.get(game.id)
                if p and acked[game.id].get(game.seq) == (p[0], p[1]):
                    answered += 1
                    del pending[game.id]
                    send_next(game)
        server.kill9()
        total_acked = sum(len(a) for a in acked.values())
        print("killed with %d actions acked, %d in flight" % (total_acked, len(pending)))
        check(total_acked >= 60, "too few actions before the kill (%d)" % total_acked)
        for game in games:
            for conn in game.conns.values():
                conn.close()

        server.start()
        applied_now = repeated = 0
        for game in games:
            last_acked = max(acked[game.id], default=game.seq)
            p = pending.get(game.id)
            seat = p[0] if p else "A"
            conn = Conn(server, 1000)
            # The view began at the last delta seen: a repeat of the
            # request in flight is answered, not applied again.
            answer = conn.ask({"type": "join", "game": game.id, "token": game.seats[seat],
                               "last_seq": game.seq})
            check(answer["type"] in ("welcome", "resumed"), "rejoin: %r" % answer)
            server_seq = answer["seq"]
            check(server_seq >= last_acked, "game %s: acked seq %d lost (seq %d after restart)"
                  % (game.id, last_acked, server_seq))
            check(server_seq <= last_acked + 1, "game %s: seq %d, acked only to %d" %
                  (game.id, server_seq, last_acked))
            if not p:
                conn.close()
                continue
            _, request, action = p
            acked_request = acked[game.id].get(server_seq)
            if answer["type"] == "resumed":
                for _ in range(server_seq - game.seq):
                    conn.recv()
            ack = conn.ask({"type": "act", "request": request, "action": action})
            check(ack["type"] == "ack", "game %s: the resent action: %r" % (game.id, ack))
            if ack["seq"] == server_seq + 1:
                applied_now += 1   # it had not committed: applied now
                conn.recv()        # its delta
            else:
                check(ack["seq"] == server_seq and acked_request in (None, (seat, request)),
                      "game %s: the resent action answered %r at seq %d" %
                      (game.id, ack, server_seq))
                repeated += 1      # committed before the kill: its first answer
            again = conn.ask({"type": "act", "request": request, "action": action})
            check(again == ack, "game %s: the third send %r, first %r" % (game.id, again, ack))
            conn.quiet(0.1)
            conn.close()
        print("resent %d actions in flight: %d had committed (first answer again), "
              "%d applied now" % (applied_now + repeated, repeated, applied_now))
        server.stop()

        # The journal: every acked (game, seq) holds that request's answer
        # (on the action's first event), and each resent request has exactly
        # one.
        db = sqlite3.connect(os.path.join(server.data, "brigade.sqlite"))
        for game in games:
            for seq, (seat, request) in acked[game.id].items():
                rows = db.execute("SELECT seq FROM events WHERE game = ? AND seat = ? AND "
                                  "request = ? AND idx = 0", (game.id, seat, request)).fetchall()
                check(rows == [(seq,)], "game %s: acked seq %d request %d: rows %r" %
                      (game.id, seq, request, rows))
            # The game's seq is its last event's (journal/journal.h).
            head = db.execute("SELECT max(seq) FROM events WHERE game = ?",
                              (game.id,)).fetchone()[0]
            count = db.execute("SELECT count(DISTINCT seq) FROM events WHERE game = ?",
                               (game.id,)).fetchone()[0]
            check(count == head + 1, "game %s: %d seqs of events, head %d" %
                  (game.id, count, head))
        db.close()
    finally:
        server.cleanup()


CASES = {"locked": case_locked, "busy_timeout": case_busy_timeout,
         "crash_group": case_crash_group}


def main():
    parser = flow.case_parser(CASES)
    args = parser.parse_args()
    return flow.pass_or_fail(lambda: CASES[args.case](args),
                             (Failure, wire.Closed, socket.timeout, TimeoutError))


if __name__ == "__main__":
    sys.exit(main())
