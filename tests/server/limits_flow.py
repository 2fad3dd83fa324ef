"""tests/server/limits_flow.py: brigaded's admission limits (issue 13).

    limits_flow.py CASE BRIGADED SCENARIOS_DIR

connections: with --max-connections 4, two idle TCP connections and two
websockets fill it (every connection counts); 12 idle connections (the cap
and 8 more) stop the accepting until one closes; four websockets open and a
fifth gets HTTP 503 naming the limit, once one closes another opens; with
--join-timeout-s 1 a websocket that has not joined is closed with 1008 "no
join in time" and one that joined stays; the refusals are logged.

per_address: with --max-connections-per-address 2 and the server listening
on every address, a third websocket from one non-loopback address of this
machine gets 503 naming the option, while loopback (a local proxy) is not
capped. Without a non-loopback address here, it says so and checks the
loopback half only.

descriptors: brigaded under ulimit -n 80 with a player joined and
websockets opened until one is refused: at the descriptor limit it stops
accepting without a busy loop, answers waiting connections 503, logs one
line, still acks the player, and accepts again once the flood closes.

ping: with --ping-interval-s 1, a websocket that answers pings stays open,
one that talks is not pinged, one that never answers is closed with 1008
"no answer to ping" after about 2 s.

rate_messages, rate_creates, rate_failed_joins: the token buckets of
--rate-messages, --rate-creates and --rate-failed-joins (rate_limited with
retry_after, PROTOCOL.md §6.4), the growing lockout of refused joins, per
connection and per address. max_games: a full server answers unavailable
with retry_after. game_lifecycle: idle games reported and ended by the
server, ended games leaving memory and read back for a late join.
"""
import os
import re
import select
import socket
import struct
import sys
import time

import brigade_wire as wire
from game_flow import (Client, Failure, Server, Table, case_arguments, check, create_game,
                       expect_error, hold_journal_lock, run_case, scenario_text, seed)


def handshake(port, host="127.0.0.1"):
    """A websocket, or the HTTP status and body of a refused handshake."""
    try:
        return wire.WebSocket(port, host=host, timeout=5), None
    except wire.Closed as refused:
        return None, refused.reason


def status_of(port, host="127.0.0.1"):
    """The status line and body of a handshake, read whole."""
    s = socket.create_connection((host, port), timeout=5)
    s.sendall(("GET / HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
               "Sec-WebSocket-Protocol: brigade.v1\r\n\r\n" % (host, port)).encode())
    data = b""
    while True:
        try:
            chunk = s.recv(4096)
        except socket.timeout:
            break
        if not chunk:
            break
        data += chunk
        if b" 101 " in data.split(b"\r\n")[0]:
            break
    s.close()
    return data.decode(errors="replace")


def case_connections(server, scenarios):
    # Every connection counts, not only websockets: each holds a
    # descriptor. Two idle TCP connections and two websockets make 4.
    idle = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(2)]
    pair = [handshake(server.port)[0] for _ in range(2)]
    check(all(pair), "two websockets beside two idle connections")
    answer = status_of(server.port)
    check(" 503 " in answer.split("\r\n")[0] + " " and "the server has 4 connections" in answer,
          "a websocket beside 2 idle connections and 2 websockets: %r" % answer)
    for c in idle + [ws.sock for ws in pair]:
        c.close()
    time.sleep(0.3)
    # Past the cap by 8 nothing more is accepted until a connection closes:
    # the next one waits in the listen queue, then is served.
    idle = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(12)]
    time.sleep(0.3)
    waiting = socket.create_connection(("127.0.0.1", server.port), timeout=0.7)
    waiting.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    try:
        early = waiting.recv(4096)
    except socket.timeout:
        early = None
    check(early is None, "12 connections with --max-connections 4, a 13th answered: %r" % early)
    idle[0].close()
    waiting.settimeout(3)
    answer = waiting.recv(4096).decode(errors="replace")
    check(answer.startswith("HTTP/1.1 200"), "the 13th once one closed: %r" % answer[:60])
    for c in idle[1:] + [waiting]:
        c.close()
    time.sleep(0.3)
    held = []
    for i in range(4):
        ws, refused = handshake(server.port)
        check(ws is not None, "websocket %d refused: %r" % (i + 1, refused))
        held.append(ws)
    answer = status_of(server.port)
    check(answer.startswith("HTTP/1.0 503") or answer.startswith("HTTP/1.1 503"),
          "a fifth websocket: %r" % answer[:60])
    check("--max-connections" in answer, "the 503 names the limit: %r" % answer)
    # One joins a game (the join deadline then no longer applies to it).
    joined = held[0]
    joined.send_message({"type": "create", "request": 1, "scenario": open(
        os.path.join(scenarios, "example_a.json"), encoding="utf-8").read()})
    created = joined.recv_message()
    check(created.get("type") == "created", "create: %r" % created)
    joined.send_message({"type": "join", "request": 2, "game": created["game"],
                         "token": created["seats"]["A"], "seed": "ab" * 32})
    welcome = joined.recv_message()
    check(welcome.get("type") == "welcome", "join: %r" % welcome)
    # The others never join: closed with 1008 "no join in time" after 1 s
    # (the deadline is checked every second).
    start = time.time()
    for ws in held[1:]:
        try:
            ws.recv()
            raise Failure("an unjoined websocket got a message")
        except wire.Closed as closed:
            check(closed.code == 1008 and closed.reason == "no join in time",
                  "unjoined: closed %r %r" % (closed.code, closed.reason))
    waited = time.time() - start
    check(waited < 4, "closed %.1f s after opening, not about 1-2" % waited)
    # The joined one is still open and answers.
    joined.send_message({"type": "act", "request": 3, "action": {"kind": "done"}})
    answer = joined.recv_message()
    check(answer.get("type") == "error" and answer.get("request") == 3,
          "the joined connection still answers: %r" % answer)
    held[0].close()
    time.sleep(0.3)
    # Room again.
    ws, refused = handshake(server.port)
    check(ws is not None, "after the closes a websocket is refused: %r" % refused)
    ws.close()
    check("websocket refused from 127.0.0.1: the server has 4 connections" in server.text(),
          "the refusal is logged")
    check("User code denied connection" not in server.text(),
          "lws's own line a refusal is not logged (a flood of refusals would flood the log)")


def local_address():
    """A non-loopback IPv4 address of this machine, or None."""
    try:
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        probe.connect(("192.0.2.1", 9))  # no packet is sent
        address = probe.getsockname()[0]
        probe.close()
        return None if address.startswith("127.") else address
    except OSError:
        return None


def case_per_address(server, scenarios):
    # Loopback is not capped: five from 127.0.0.1 with a cap of 2.
    held = []
    for i in range(5):
        ws, refused = handshake(server.port)
        check(ws is not None, "loopback websocket %d refused: %r" % (i + 1, refused))
        held.append(ws)
    address = local_address()
    if address is None:
        print("no non-loopback address on this machine: the capped half is not checked")
    else:
        mine = []
        for i in range(2):
            ws, refused = handshake(server.port, host=address)
            check(ws is not None, "websocket %d from %s refused: %r" % (i + 1, address, refused))
            mine.append(ws)
        answer = status_of(server.port, host=address)
        check(" 503 " in answer.split("\r\n")[0] + " ", "a third from %s: %r" % (address,
                                                                              answer[:60]))
        check("--max-connections-per-address" in answer and address in answer,
              "the 503 names the address and the option: %r" % answer)
        mine[0].close()
        time.sleep(0.3)
        ws, refused = handshake(server.port, host=address)
        check(ws is not None, "after a close, from %s: %r" % (address, refused))
        ws.close()
        mine[1].close()
    for ws in held:
        ws.close()


def case_failed_joins(server, scenarios):
    """A refused join is logged with the peer's address and the game, never
    the token or the password; a burst is logged as one line a second with a
    count."""
    c = Client(server)
    created = c.ask({"type": "create", "spectator_password": "the right one",
                     "scenario": open(os.path.join(scenarios, "example_a.json"),
                                      encoding="utf-8").read()})
    check(created.get("type") == "created", "create: %r" % created)
    game = created["game"]
    bad_token = "f00d" * 16
    answer = c.ask({"type": "join", "game": game, "token": bad_token})
    check(answer.get("code") == "bad_token", "a bad token: %r" % answer)
    time.sleep(1.1)
    answer = c.ask({"type": "join", "game": game, "token": created["spectator"],
                    "password": "a wrong guess"})
    check(answer.get("code") == "bad_token", "a wrong password: %r" % answer)
    for i in range(20):  # a burst within the second
        c.ask({"type": "join", "game": game, "token": bad_token})
    time.sleep(1.1)
    c.ask({"type": "join", "game": game, "token": bad_token})
    c.close()
    log = server.text()
    check(("from 127.0.0.1: join of game %s refused: not a token of the game" % game) in log,
          "the bad token is logged with the address and the game")
    check(("join of game %s refused: a wrong spectator password" % game) in log,
          "the wrong password is logged")
    check("more refused joins in the last second)" in log, "the burst is counted, not logged")
    lines = [l for l in log.splitlines() if "refused: " in l and game in l]
    check(len(lines) <= 4, "at most a line a second: %d lines" % len(lines))
    check(bad_token not in log and "a wrong guess" not in log and "the right one" not in log,
          "no token or password in the log")


def cpu_seconds(pid):
    """The user and system CPU time of process `pid` so far, in seconds."""
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def open_descriptors(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def refused_quickly(port, what):
    """A connection that waits while brigaded is out of descriptors: it is
    answered 503 (or reset) within 2 s, not left hanging. Returns the
    answer."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    started = time.time()
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    data = b""
    try:
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    except ConnectionResetError:
        pass
    except socket.timeout:
        raise Failure("%s: no answer in 5 s while out of descriptors" % what)
    finally:
        s.close()
    waited = time.time() - started
    check(waited < 2, "%s: answered after %.1f s, not at once" % (what, waited))
    answer = data.decode(errors="replace")
    check(not data or answer.startswith("HTTP/1.1 503"), "%s: %r" % (what, answer[:80]))
    return answer


def case_descriptors(server, scenarios):
    """brigaded under ulimit -n 80 (--max-connections far above it): a player
    joined, websockets opened until one is refused. At the descriptor limit
    the server stops accepting (no busy loop: little CPU, a few lines of
    log), answers the connections that wait 503 at once, the player's
    actions are acked as ever; once the flood closes, connections are
    accepted again."""
    from fanout_flow import Raw, act_and_wait, game_begun
    pid = server.proc.pid
    created, players, seq, unit, figures = game_begun(server, scenarios)
    actor = Raw(players["A"].ws)
    held = []
    refusal = None
    while refusal is None and len(held) < 200:
        started = time.time()
        try:
            held.append(wire.WebSocket(server.port, timeout=5))
        except (wire.Closed, OSError) as refused:
            refusal = "%s after %.1f s" % (refused, time.time() - started)
    check(refusal is not None, "200 websockets under ulimit -n 80")
    print("%d websockets, then %s; brigaded holds %d descriptors" %
          (len(held), refusal, open_descriptors(pid)))
    check("503" in refusal, "the first refused websocket: %s" % refusal)
    check(len(held) >= 40 and open_descriptors(pid) >= 76,
          "the flood reached the limit: %d websockets, %d descriptors" %
          (len(held), open_descriptors(pid)))
    # A descriptor freed at the limit lets one more in (and the log stays
    # quiet: the shortage goes on).
    for i in range(5):
        held.pop().close()
        try:
            held.append(wire.WebSocket(server.port, timeout=3))
        except (wire.Closed, OSError) as refused:
            raise Failure("a websocket after one closed at the limit: %s" % refused)
    # A few seconds at the limit, connections coming: little CPU (lws's
    # own listener spun at 100%, logging each failed accept).
    before = cpu_seconds(pid)
    started = time.time()
    for i in range(6):
        answer = refused_quickly(server.port, "connection %d at the limit" % i)
        time.sleep(0.5)
    spent = cpu_seconds(pid) - before
    elapsed = time.time() - started
    print("at the limit: %.2f s of CPU in %.1f s; a refusal: %r" %
          (spent, elapsed, answer.split("\r\n")[0]))
    check(spent < 0.1 * elapsed, "%.2f s of CPU in %.1f s at the limit" % (spent, elapsed))
    # The joined player notices nothing.
    started = time.time()
    act_and_wait(actor, 0, unit, figures)
    took = time.time() - started
    check(took < 1, "the player's ack took %.2f s at the limit" % took)
    log = server.text()
    # Each websocket's open and close is a line (issue 17): what is left is
    # what the shortage itself logged.
    rest = "\n".join(l for l in log.splitlines()
                     if not re.search(r"websocket (opened|closed|lost)|joined game|created game", l))
    check(len(rest) < 4096, "%d bytes of log at the limit: %r" % (len(rest), rest[-600:]))
    check(log.count("out of file descriptors") == 1 and "accepting connections again" not in log,
          "one line for the shortage: %r" % log)
    # The flood goes: connections are accepted again.
    for ws in held:
        ws.close()
    deadline = time.time() + 5
    while True:
        try:
            ws = wire.WebSocket(server.port, timeout=2)
            break
        except (wire.Closed, OSError) as refused:
            check(time.time() < deadline, "no websocket 5 s after the flood: %s" % refused)
            time.sleep(0.2)
    ws.close()
    act_and_wait(actor, 1, unit, figures)
    deadline = time.time() + 3  # a second without a failed accept ends it
    while "accepting connections again after" not in server.text():
        check(time.time() < deadline, "the end of the shortage is not logged: %r" %
              server.text()[-600:])
        time.sleep(0.1)


def frames_of(data):
    """The whole server frames at the start of `data`: [(opcode, payload)]
    and the bytes left."""
    frames = []
    while len(data) >= 2:
        n, head = data[1] & 0x7F, 2
        if n == 126:
            n, head = int.from_bytes(data[2:4], "big"), 4
        elif n == 127:
            n, head = int.from_bytes(data[2:10], "big"), 10
        if len(data) < head + n:
            break
        frames.append((data[0] & 0x0F, data[head:head + n]))
        data = data[head + n:]
    return frames, data


def case_ping(server, scenarios):
    """--ping-interval-s 1: a websocket that answers pings (brigade_wire
    does, like browsers and lws) stays open for 5 s and is pinged about
    once a second with a payload; one that sends a message every 0.4 s is
    never pinged; one that never answers (a raw socket after the
    handshake) gets a ping after 1 s and the close 1008 "no answer to
    ping" after about 2, logged once."""
    answering = wire.WebSocket(server.port, timeout=5)
    chatty = Client(server)
    silent = wire.WebSocket(server.port, timeout=5)
    opened = time.time()
    silent.sock.setblocking(False)
    heard, seen = silent.pending, []  # the silent one's bytes, its frames with their times
    next_chat = opened
    while time.time() < opened + 5:
        ready, _, _ = select.select([answering.sock, silent.sock], [], [], 0.05)
        if answering.sock in ready:
            answering.sock.settimeout(0.02)
            try:
                answering.recv()  # answers the pings; the server sends nothing else
                raise Failure("the answering websocket got a message")
            except socket.timeout:
                pass
        if silent.sock in ready:
            try:
                chunk = silent.sock.recv(4096)
            except BlockingIOError:
                chunk = b""
            heard += chunk
            frames, heard = frames_of(heard)
            seen += [(time.time() - opened, opcode, payload) for opcode, payload in frames]
        if time.time() >= next_chat:
            answer = chatty.ask({"type": "act", "action": {"kind": "done"}})
            check(answer.get("type") == "error", "the chatty websocket: %r" % answer)
            next_chat += 0.4
    print("the answering websocket: %d pings; the silent one: %r" %
          (len(answering.pings), [(round(t, 2), op, p) for t, op, p in seen]))
    check(3 <= len(answering.pings) <= 6 and all(len(p) == 8 for p in answering.pings),
          "the answering websocket: pings %r in 5 s, not about one a second with a payload" %
          answering.pings)
    answer = Client.__new__(Client)
    answer.ws, answer.request = answering, 0
    check(answer.ask({"type": "act", "action": {"kind": "done"}}).get("type") == "error",
          "the answering websocket is open after 5 s")
    check(not chatty.ws.pings, "the chatty websocket was pinged %d times" % len(chatty.ws.pings))
    check(len(seen) >= 2 and seen[0][1] == 0x9 and 1.0 <= seen[0][0] < 1.6,
          "the silent websocket's first frame, a ping after 1 s: %r" % seen[:1])
    close = [(t, p) for t, op, p in seen if op == 0x8]
    check(close and 1.9 <= close[0][0] < 3.0 and
          close[0][1] == struct.pack(">H", 1008) + b"no answer to ping",
          "the silent websocket's close 1008 after about 2 s: %r" % close)
    check(server.text().count("no answer to a ping in 1 s, closing") == 1,
          "the silent websocket's close is logged once")
    answering.close()
    chatty.close()
    silent.sock.close()


def expect_rate_limited(answer, request=None, at_least=1, at_most=None):
    """A rate_limited error with a retry_after in whole seconds."""
    expect_error(answer, "rate_limited", request)
    retry = answer.get("retry_after")
    check(isinstance(retry, int) and retry >= at_least and
          (at_most is None or retry <= at_most),
          "retry_after %r not in %r..%r: %r" % (retry, at_least, at_most, answer))


def case_rate_messages(server, scenarios):
    """--rate-messages 5: ten at once (two seconds' worth), then five a
    second; each refused message is answered rate_limited with its request
    and retry_after 1; 100 refused in a row close the connection (1008)."""
    c = Client(server)
    for i in range(10):
        expect_error(c.ask({"type": "act", "action": {"kind": "done"}}), "not_joined")
    request = c.send({"type": "act", "action": {"kind": "done"}})
    expect_rate_limited(c.recv(), request, 1, 1)
    empty_at = time.monotonic()
    time.sleep(1.1)  # five more tokens (more if the machine is slow to wake us)
    slept = time.monotonic() - empty_at
    answers = []
    while len(answers) < 14 and answers[-2:] != ["rate_limited"] * 2:
        answers.append(c.ask({"type": "act", "action": {"kind": "done"}})["code"])
    spent = time.monotonic() - empty_at
    passed = answers.index("rate_limited") if "rate_limited" in answers else len(answers)
    # Five a second: as many pass as the tokens the time since the bucket
    # was empty gave (one either way for the server's own clock).
    low, high = int(5 * slept) - 1, min(10, int(5 * spent) + 1)
    check(answers[passed:] == ["rate_limited"] * 2 and set(answers[:passed]) == {"not_joined"}
          and low <= passed <= high,
          "after %.2f s (%.2f s when the last was answered), %d go through, not %d..%d: %r"
          % (slept, spent, passed, low, high, answers))
    # A second connection has its own bucket (loopback: no address bucket).
    other = Client(server)
    expect_error(other.ask({"type": "act", "action": {"kind": "done"}}), "not_joined")
    other.close()
    # A client that ignores retry_after: 100 in a row and it is closed.
    # (Each answer is read before the next is sent, so that neither side's
    # buffers decide when the server reads the next one.)
    codes = []
    closed = None
    for i in range(120):
        try:
            c.send({"type": "act", "action": {"kind": "done"}})
        except (OSError, wire.Closed):
            pass  # closed meanwhile: its close frame is read next
        try:
            codes.append(c.recv()["code"])
        except wire.Closed as gone:
            closed = gone
            break
    check(closed is not None and closed.code == 1008, "closed with 1008: %r" % closed)
    check(set(codes) == {"rate_limited"} and len(codes) == 100 - 2 - 1,  # 2 refused above
          "refused until closed: %d %r" % (len(codes), set(codes)))
    check("messages in a row over its rate" in server.text(), "the close is logged")
    # Text frames count too: ten answered bad_frame, then rate_limited.
    t = Client(server)
    codes = []
    for i in range(12):
        t.ws.send_frame(0x1, b'{"type": "create"}')
        codes.append(t.recv()["code"])
    check(codes == ["bad_frame"] * 10 + ["rate_limited"] * 2, "text frames: %r" % codes)
    t.close()


def case_rate_address(server, scenarios):
    """--rate-messages 5 --rate-messages-per-address 8: two connections from
    127.0.0.3 share 16 at once; one over its own rate (10) spends no more of
    the address's, so the other still has 6."""
    a = wire.WebSocket(server.port, source="127.0.0.3", timeout=10)
    b = wire.WebSocket(server.port, source="127.0.0.3", timeout=10)
    def codes(ws, n):
        out = []
        for i in range(n):
            ws.send_message({"type": "act", "request": i + 1, "action": {"kind": "done"}})
            out.append(ws.recv_message()["code"])
        return out
    first = codes(a, 14)
    check(first == ["not_joined"] * 10 + ["rate_limited"] * 4, "a: %r" % first)
    second = codes(b, 8)
    check(second == ["not_joined"] * 6 + ["rate_limited"] * 2, "b: %r" % second)
    # 127.0.0.1 is not limited by address: a third connection has its own 10.
    c = Client(server)
    third = [c.ask({"type": "act", "action": {"kind": "done"}})["code"] for i in range(10)]
    check(third == ["not_joined"] * 10, "loopback: %r" % third)
    for ws in (a, b):
        ws.close()
    c.close()


def case_rate_creates(server, scenarios):
    """--rate-creates 3: three games at once, the fourth refused with
    rate_limited and a retry_after of about 20 minutes (3 an hour)."""
    c = Client(server)
    # A refused create (not a scenario) does not count.
    expect_error(c.ask({"type": "create", "scenario": "{}"}), "bad_message")
    for i in range(3):
        create_game(c, scenarios)
    answer = c.ask({"type": "create", "scenario": scenario_text(scenarios, "example_a.json")})
    expect_rate_limited(answer, None, 1190, 1201)
    c.close()


def case_rate_failed_joins(server, scenarios):
    """--rate-failed-joins 3: three refused joins, then a lockout of 1 s,
    2 s, ... during which even the right token is refused; the lockout is
    the connection's, and (from another address than the machine's own)
    the address's over all its connections."""
    c = Client(server)
    game, seats = create_game(c, scenarios)
    bad = "0bad" * 16
    for i in range(3):
        expect_error(c.ask({"type": "join", "game": game, "token": bad}), "bad_token")
    # The fourth is refused for its token, and locks out for a second.
    expect_error(c.ask({"type": "join", "game": game, "token": bad}), "bad_token")
    started = time.time()
    expect_rate_limited(c.ask({"type": "join", "game": game, "token": seats["A"],
                               "seed": seed()}), None, 1, 1)
    # A guessed game id counts too, but not while locked out.
    time.sleep(max(0.0, 1.05 - (time.time() - started)))
    expect_error(c.ask({"type": "join", "game": "no-such-game", "token": bad}), "unknown_game")
    expect_rate_limited(c.ask({"type": "join", "game": game, "token": bad}), None, 2, 2)
    time.sleep(2.05)
    # Once the lockout is over, the right token works.
    answer = c.ask({"type": "join", "game": game, "token": seats["A"], "seed": seed()})
    check(answer.get("type") == "welcome", "after the lockout: %r" % answer)
    c.close()
    # Another connection from loopback was never locked out.
    d = Client(server)
    answer = d.ask({"type": "join", "game": game, "token": seats["B"], "seed": seed()})
    check(answer.get("type") == "welcome", "another connection: %r" % answer)
    d.close()
    # 127.0.0.2 is an address of its own (only 127.0.0.1 and ::1, where a
    # local proxy connects from, go without address limits).
    address = "127.0.0.2"
    first = wire.WebSocket(server.port, source=address, timeout=10)
    second = wire.WebSocket(server.port, source=address, timeout=10)
    def ask(ws, message):
        ws.send_message(dict(message, request=1))
        return ws.recv_message()
    for ws in (first, first, second, second):  # four from one address
        answer = ask(ws, {"type": "join", "game": game, "token": bad})
    expect_error(answer, "bad_token")
    # The address is locked out: a third connection from it too.
    third = wire.WebSocket(server.port, source=address, timeout=10)
    expect_rate_limited(ask(third, {"type": "join", "game": game, "token": seats["umpire"]}))
    for ws in (first, second, third):
        ws.close()


def case_max_games(server, scenarios):
    """--max-games 2: a third create is refused with unavailable and a
    retry_after (not internal); the games in memory play on."""
    c = Client(server)
    game, seats = create_game(c, scenarios)
    create_game(c, scenarios)
    answer = c.ask({"type": "create", "scenario": scenario_text(scenarios, "example_a.json")})
    expect_error(answer, "unavailable")
    check(answer.get("retry_after") == 60 and "--max-games" in answer["message"],
          "a full server's answer: %r" % answer)
    answer = c.ask({"type": "join", "game": game, "token": seats["A"], "seed": seed()})
    check(answer.get("type") == "welcome", "a game in memory still joins: %r" % answer)
    # An ended game does not count: the umpire ends the other one (before
    # it began), and a create works again.
    other = answer  # keep the joined connection: the game stays in memory
    umpire = Client(server)
    check(umpire.ask({"type": "join", "game": game, "token": seats["umpire"]}).get("type") ==
          "welcome", "the umpire joins")
    answer = umpire.ask({"type": "act", "action": {"kind": "end", "reason": "no-show"}})
    check(answer.get("type") == "ack", "the umpire ends a battle not begun: %r" % answer)
    check(umpire.recv().get("type") == "delta", "the end's delta")
    create_game(umpire, scenarios)
    umpire.close()
    c.close()


def wait_for_log(server, text, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if text in server.text():
            return True
        time.sleep(0.05)
    return False


def case_game_lifecycle(server, scenarios):
    """--game-waiting-end 2s --game-idle-end 3s --game-idle-report 1s: a game
    whose players never came is ended by the server; a battle under way
    with no action is reported, then ended, its players told by a delta
    (phase ended, the reason in the log, the seed revealed); ended games
    leave memory once nobody is joined, and a late join reads the final
    state back from the journal."""
    c = Client(server)
    waiting, waiting_seats = create_game(c, scenarios)
    c.close()
    table = Table(server, scenarios)
    check(wait_for_log(server, "game %s: no action for 1 s (under way" % table.game, 3),
          "the idle battle is reported")
    check(wait_for_log(server, "game %s ended by the server: no action for 2 s (its players "
                       "never both joined)" % waiting, 3),
          "the waiting game is ended")
    # The players of the idle battle hear its end as a delta.
    for who in ("A", "B", "umpire"):
        table.deltas(who, table.seq + 1)
    table.seq += 1
    state = table.states["A"]
    check(state["phase"] == "ended" and len(state["dice"]["server_seed"]) == 64,
          "ended, seed revealed: %s %r" % (state["phase"], state["dice"]))
    texts = [e["text"] for e in state["log"] if e["seq"] == table.seq]
    check(any("the server ends the battle: no action for 3 s (a battle left unplayed)" in t
              for t in texts),
          "the reason in the log: %r" % texts)
    check(table.states["A"] == table.states["B"] == table.states["umpire"], "one state")
    # Nothing more is accepted.
    expect_error(table.ask("A", {"kind": "done"}), "wrong_phase")
    # The waiting game left memory; a late join gets its final state.
    check(wait_for_log(server, "ended game(s) left memory", 3), "ended games leave memory")
    late = Client(server)
    answer = late.ask({"type": "join", "game": waiting, "token": waiting_seats["A"],
                       "seed": seed()})
    check(answer.get("type") == "welcome" and answer["state"]["phase"] == "ended" and
          answer["state"]["turn"] == 0, "a late join of the ended waiting game: %r" %
          {k: answer.get(k) for k in ("type", "code", "message")})
    late.close()
    # The battle's players leave: it leaves memory too, and comes back.
    for who in ("A", "B", "umpire"):
        table.clients[who].close()
    before = server.text().count("ended game(s) left memory")
    deadline = time.time() + 5
    while time.time() < deadline and server.text().count("ended game(s) left memory") <= before:
        time.sleep(0.05)
    check(server.text().count("ended game(s) left memory") > before, "the battle leaves memory")
    again = Client(server)
    answer = again.ask({"type": "join", "game": table.game, "token": table.seats["B"]})
    check(answer.get("type") == "welcome" and answer["state"] == state,
          "a late join gets the final state: %r" % answer.get("type"))
    again.close()
    # brigade replay names the server, not an umpire, for its end.
    import subprocess
    brigade = os.path.join(os.path.dirname(os.path.dirname(server.brigaded)), "client-cli",
                           "brigade")
    done = subprocess.run([brigade, "replay", "--data", os.path.join(server.tmp, "data"),
                           "--game", table.game], capture_output=True, text=True, timeout=30)
    check(done.returncode == 0, "replay: %s %s" % (done.stdout, done.stderr))
    check("the server (the battle left idle)" in done.stdout and
          "the server ends the battle: no action for 3 s" in done.stdout,
          "replay tells the server's end: %s" % done.stdout[-600:])


def case_busy_queue(server, scenarios):
    """While a player's act waits for the journal (its write lock held by
    another process), refused joins, a spectator's acts and a new
    spectator's join are answered at once from the committed state, not
    queued behind it (where 16 would fill the game's queue and get the
    player's next moves refused): the player's act is then committed and
    acked, and the new spectator gets its delta."""
    c = Client(server)
    created = c.ask({"type": "create", "scenario": scenario_text(scenarios, "example_a.json")})
    check(created.get("type") == "created", "create: %r" % created)
    game, seats = created["game"], created["seats"]
    c.close()
    players = {}
    for seat in ("A", "B"):
        players[seat] = Client(server)
        welcome = players[seat].ask({"type": "join", "game": game, "token": seats[seat],
                                     "seed": seed()})
        check(welcome.get("type") == "welcome", "join %s: %r" % (seat, welcome))
    players["A"].recv()  # B's seed: a delta to A
    state = welcome["state"]
    seat = state["awaiting"][0]
    release, locker = hold_journal_lock(os.path.join(server.tmp, "data", "brigade.sqlite"),
                                        10, 5, "the lock is taken")
    request = players[seat].send({"type": "act", "action": {"kind": "choose_initiative",
                                                            "phasing": seat}})
    time.sleep(0.2)  # the act is in the journal thread's hands, waiting
    other = Client(server)
    started = time.time()
    for i in range(40):
        expect_error(other.ask({"type": "join", "game": game, "token": "0bad" * 16}),
                     "bad_token")
    watcher = Client(server)
    welcome = watcher.ask({"type": "join", "game": game, "token": created["spectator"]})
    check(welcome.get("type") == "welcome" and welcome["seq"] == 2,
          "a spectator joins at the committed seq while the act waits: %r" % welcome.get("seq"))
    for i in range(30):
        expect_error(watcher.ask({"type": "act", "action": {"kind": "done"}}), "read_only")
    check(time.time() - started < 2.0, "answered at once, not after the lock: %.2f s" %
          (time.time() - started))
    release.set()
    answer = players[seat].recv()
    while answer.get("type") == "watchers":  # the players hear the new spectator
        answer = players[seat].recv()
    check(answer.get("type") == "ack" and answer.get("request") == request and
          answer.get("seq") == 3, "the player's act is committed: %r" % answer)
    delta = watcher.recv()
    check(delta.get("type") == "delta" and delta["seq"] == 3, "the spectator's delta: %r" % delta)
    locker.join(5)
    for client in (other, watcher, players["A"], players["B"]):
        client.close()


def sanitized(brigaded):
    """Whether brigaded is built with AddressSanitizer (whose quarantine
    keeps freed memory: RSS says nothing then)."""
    import subprocess
    try:
        out = subprocess.run(["ldd", brigaded], capture_output=True, text=True).stdout
    except OSError:
        return False
    return "libasan" in out


def rss_mib(server, field="VmRSS"):
    """The server's resident memory now (VmRSS) or at its peak (VmHWM)."""
    for line in open("/proc/%d/status" % server.proc.pid):
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024.0
    return 0.0


def case_memory_games(server, scenarios):
    """1,500 games that never begin (--game-waiting-end 1s): each is ended
    by the server and leaves memory, and the memory goes back to the
    system: RSS afterwards within 40 MiB of where it started (SQLite's page
    cache grows meanwhile), though the games took well over that."""
    baseline = rss_mib(server)
    ws = wire.WebSocket(server.port, timeout=30)
    text = scenario_text(scenarios, "example_a.json")
    count = 1500
    for i in range(count):
        ws.send_message({"type": "create", "request": i + 1, "scenario": text})
    created = sum(1 for i in range(count) if ws.recv_message().get("type") == "created")
    check(created == count, "%d of %d created" % (created, count))
    deadline = time.time() + 60
    while time.time() < deadline and "left memory (0 in memory)" not in server.text():
        time.sleep(0.2)
    check("left memory (0 in memory)" in server.text(), "every game left memory")
    log = server.text()
    named = log.count("ended by the server: ")
    check(0 < named < count // 3 and "more idle games ended by the server" in log,
          "the ends are counted, not each logged: %d lines" % named)
    time.sleep(0.5)
    after = rss_mib(server)
    peak = rss_mib(server, "VmHWM")
    print("RSS MiB: start %.1f, %d games %.1f, after %.1f" % (baseline, count, peak, after))
    if sanitized(server.brigaded):
        print("AddressSanitizer build: its quarantine keeps freed memory; RSS not checked")
        return
    check(peak > baseline + 60, "the games took memory: %.1f -> %.1f MiB" % (baseline, peak))
    check(after < baseline + 40, "memory came back: %.1f MiB after, %.1f at the start" %
          (after, baseline))
    ws.close()


CASES = {
    "failed_joins": (case_failed_joins, []),
    "connections": (case_connections, ["--max-connections", "4", "--join-timeout-s", "1"]),
    "per_address": (case_per_address, ["--listen", "0.0.0.0", "--max-connections-per-address",
                                       "2"]),
    "rate_messages": (case_rate_messages, ["--rate-messages", "5"]),
    "rate_address": (case_rate_address, ["--rate-messages", "5",
                                         "--rate-messages-per-address", "8"]),
    "rate_creates": (case_rate_creates, ["--rate-creates", "3"]),
    "rate_failed_joins": (case_rate_failed_joins, ["--rate-failed-joins", "3"]),
    "max_games": (case_max_games, ["--max-games", "2"]),
    "memory_games": (case_memory_games, ["--rate-creates", "0", "--rate-messages", "0",
                                         "--game-waiting-end", "1s", "--game-idle-report", "0"]),
    "busy_queue": (case_busy_queue, ["--rate-failed-joins", "0", "--rate-messages", "0"]),
    "game_lifecycle": (case_game_lifecycle, ["--game-waiting-end", "2s", "--game-idle-end", "3s",
                                             "--game-idle-report", "1s"]),
    # --max-connections far above the descriptors: the real limit is met.
    "descriptors": (case_descriptors, ["--max-connections", "1000", "--join-timeout-s", "0"]),
}

CASES["ping"] = (case_ping, ["--ping-interval-s", "1"])

# brigaded's open files limit (ulimit -n) in a case.
OPEN_FILES = {"descriptors": 80}


def main():
    name, brigaded, scenarios = case_arguments("limits_flow.py", CASES)
    case, extra = CASES[name]
    server = Server(brigaded, extra, open_files=OPEN_FILES.get(name))
    return run_case(name, server, case, scenarios)


if __name__ == "__main__":
    sys.exit(main())
