#!/usr/bin/env python3
"""tests/server/game_flow.py: end-to-end tests of brigaded's game layer
(create / join / act, errors, deltas) over real websockets.

    game_flow.py CASE BRIGADED SCENARIOS_DIR

Starts brigaded on an ephemeral port (--port 0) with a temporary --data,
runs one case, prints "1 passed, 0 failed" (or the failure) and always
kills the server. Uses only the standard library and brigade_wire.py
(its own websocket client and msgpack codec), so it checks the server
against an implementation independent of protocol/.
"""
import argparse
import copy
import os
import socket
import re
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import brigade_wire as wire  # noqa: E402


class Failure(Exception):
    pass


def check(condition, what):
    if not condition:
        raise Failure(what)


def pass_or_fail(body, errors=(Failure,)):
    """Runs body(): prints PASS and returns 0, or, on one of `errors`,
    prints FAIL and it on stderr and returns 1."""
    try:
        body()
    except errors as failure:
        print("FAIL: %s" % failure, file=sys.stderr)
        return 1
    print("PASS")
    return 0


def case_parser(cases):
    """The arguments of tests/journal's crash_test.py and group_test.py:
    CASE --brigaded --brigade --scenarios --wire (more may be added)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("case", choices=sorted(cases))
    parser.add_argument("--brigaded", required=True)
    parser.add_argument("--brigade", required=True)
    parser.add_argument("--scenarios", required=True)
    parser.add_argument("--wire", required=True,
                        help="tests/server (brigade_wire.py, game_flow.py: the ones beside this "
                        "script are read)")
    return parser


def wait_listening(proc, text, start=0, what="start", seconds=10):
    """brigaded's port, from the "listening on" line of its log (`text()`)
    after its first `start` characters; a Failure if it exits or has not
    said it within `seconds`."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        m = re.search(r"listening on http://[^ ]*:(\d+),", text()[start:])
        if m:
            return int(m.group(1))
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    raise Failure("brigaded did not %s: %s" % (what, text()))


class Server:
    def __init__(self, brigaded, extra=(), open_files=None):
        self.brigaded = brigaded
        self.extra = list(extra)  # more options of brigaded
        self.open_files = open_files  # brigaded's ulimit -n, None: this process's
        self.tmp = tempfile.mkdtemp(prefix="brigade-game-test.")
        self.log_path = os.path.join(self.tmp, "server.log")
        self.log = open(self.log_path, "wb")
        self.proc = self.spawn()
        self.port = wait_listening(self.proc, self.text)

    def spawn(self):
        def limit():
            hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
            resource.setrlimit(resource.RLIMIT_NOFILE, (self.open_files, hard))
        return subprocess.Popen(
            [self.brigaded, "--port", "0", "--data", os.path.join(self.tmp, "data"),
             "--web", self.tmp] + self.extra,
            stdout=self.log, stderr=subprocess.STDOUT,
            preexec_fn=limit if self.open_files else None)

    def text(self):
        return open(self.log_path, "rb").read().decode(errors="replace")

    def restart(self):
        """Stops brigaded (SIGTERM) and starts it again on the same data."""
        check(self.stop() == 0, "brigaded exit status %r" % self.proc.returncode)
        self.log = open(self.log_path, "ab")
        self.restart_after_stop()

    def kill_and_restart(self):
        """kill -9, then brigaded again on the same data."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.log.close()
        self.log = open(self.log_path, "ab")
        self.restart_after_stop()

    def restart_after_stop(self):
        """Starts brigaded again on the same data (after stop())."""
        start = len(self.text())
        self.proc = self.spawn()
        self.port = wait_listening(self.proc, self.text, start, "restart")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        return self.proc.returncode

    def cleanup(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)


def hold_journal_lock(path, hold_s, wait_s, what):
    """The write lock of the journal at `path` taken (BEGIN IMMEDIATE) by a
    connection of a thread of its own and held until release.set() (or
    `hold_s`): (release, thread), once it is held (within `wait_s`)."""
    held, release = threading.Event(), threading.Event()

    def hold():
        db = sqlite3.connect(path, timeout=10, isolation_level=None)
        db.execute("BEGIN IMMEDIATE")
        held.set()
        release.wait(hold_s)
        db.execute("ROLLBACK")
        db.close()

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    check(held.wait(wait_s), what)
    return release, thread


class RedisServer:
    """A redis-server of the test's own on a free port, nothing saved;
    restartable (empty). A subclass says how to ask it: ping()."""

    def __init__(self, tmp):
        self.port = free_port()
        self.tmp = tmp
        self.proc = None
        self.start()

    def start(self):
        self.log = open(os.path.join(self.tmp, "redis.log"), "ab")
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", self.tmp],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                if self.ping():
                    return
            except OSError:
                time.sleep(0.05)
        raise Failure("redis-server did not start")

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


class Client:
    """One connection; requests numbered from 1."""

    def __init__(self, server, first=0):
        self.ws = wire.WebSocket(server.port, timeout=10)
        self.request = first  # `first`: requests numbered from first + 1

    def send(self, message):
        self.request += 1
        message = dict(message)
        message.setdefault("request", self.request)
        self.ws.send_message(message)
        return message["request"]

    def recv(self, timeout=None):
        """The next message; `timeout`: waited for so long (then 10 s again)."""
        if timeout is None:
            return self.ws.recv_message()
        self.ws.sock.settimeout(timeout)
        try:
            return self.ws.recv_message()
        finally:
            self.ws.sock.settimeout(10)

    def quiet(self, seconds=0.5):
        """Nothing more arrives within `seconds`."""
        self.ws.sock.settimeout(seconds)
        try:
            message = self.ws.recv_message()
        except (socket.timeout, TimeoutError):
            return True
        finally:
            self.ws.sock.settimeout(10)
        raise Failure("unexpected message: %r" % message)

    def ask(self, message, timeout=None):
        """Sends one request and returns its answer (the next message)."""
        request = self.send(message)
        answer = self.recv() if timeout is None else self.recv(timeout)
        check(answer.get("request") == request,
              "answer %r does not echo request %d" % (answer, request))
        return answer

    def close(self):
        self.ws.close()


def expect_error(answer, code, request=None):
    check(answer.get("type") == "error", "expected error %s, got %r" % (code, answer))
    check(answer.get("code") == code, "expected error %s, got %r" % (code, answer))
    check(isinstance(answer.get("message"), str) and answer["message"],
          "error without a message: %r" % answer)
    if request is not None:
        check(answer.get("request") == request, "error request %r, expected %r" % (answer, request))


def apply_ops(state, ops):
    """PROTOCOL.md §7.2, all or nothing."""
    new = copy.deepcopy(state)
    for op in ops:
        path = op["path"]
        check(isinstance(path, list) and path, "empty path in %r" % op)
        c = new
        for e in path[:-1]:
            if isinstance(c, dict):
                check(isinstance(e, str) and e in c, "no key %r on the way of %r" % (e, op))
            else:
                check(isinstance(c, list) and isinstance(e, int) and 0 <= e < len(c),
                      "bad index %r on the way of %r" % (e, op))
            c = c[e]
        e = path[-1]
        if op["op"] == "set":
            check("value" in op, "set without value")
            if isinstance(c, dict):
                check(isinstance(e, str), "int key on a map")
                c[e] = op["value"]
            else:
                check(isinstance(c, list) and isinstance(e, int) and 0 <= e <= len(c),
                      "bad set index %r" % op)
                if e == len(c):
                    c.append(op["value"])
                else:
                    c[e] = op["value"]
        elif op["op"] == "remove":
            if isinstance(c, dict):
                check(e in c, "remove of a missing key %r" % op)
                del c[e]
            else:
                check(isinstance(c, list) and e == len(c) - 1, "remove not of the last %r" % op)
                c.pop()
        else:
            raise Failure("unknown op %r" % op)
    return new


def case_arguments(script, cases):
    """A flow script's arguments CASE BRIGADED SCENARIOS_DIR, as (case,
    brigaded, scenarios), CASE one of `cases`; else its usage line and
    exit status 2."""
    if len(sys.argv) != 4 or sys.argv[1] not in cases:
        print("usage: %s {%s} BRIGADED SCENARIOS_DIR" % (script, "|".join(cases)))
        sys.exit(2)
    return sys.argv[1:]


def run_case(name, server, case, *args, log_tail=3000, exit_zero=True, counts=False):
    """Runs case(server, *args) on a started server, then stops it: the
    exit status must be 0 (unless not `exit_zero`) and the log free of
    sanitizer reports. Prints ok or the failure with the end of the log
    (its last `log_tail` characters, None: all), and with `counts` "1
    passed, 0 failed" or "0 passed, 1 failed"; returns the exit status."""
    try:
        case(server, *args)
        status = server.stop()
        if exit_zero:
            check(status == 0, "brigaded exit status %r after SIGTERM" % status)
        for report in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
            check(report not in server.text(), "sanitizer report in the log")
    except (Failure, wire.Closed, OSError, ValueError, KeyError, IndexError) as error:
        print("FAIL: %s: %s: %s" % (name, type(error).__name__, error))
        text = server.text()
        if log_tail is None:
            print("--- brigaded log:")
        else:
            print("--- brigaded log (last %d bytes):" % log_tail)
            text = text[-log_tail:]
        print(text)
        if counts:
            print("0 passed, 1 failed")
        return 1
    finally:
        server.cleanup()
    print("ok: %s" % name)
    if counts:
        print("1 passed, 0 failed")
    return 0


def scenario_text(scenarios, name):
    return open(os.path.join(scenarios, name), encoding="utf-8").read()


def create_on_own(server, scenarios, more=None, name="example_a.json"):
    """A game created on a connection of its own, the create message with
    the members `more` too: the `created` answer."""
    client = Client(server)
    message = {"type": "create", "scenario": scenario_text(scenarios, name)}
    message.update(more or {})
    created = client.ask(message)
    client.close()
    check(created.get("type") == "created", "create answered %r" % created)
    return created


def create_game(client, scenarios, name="example_a.json"):
    answer = client.ask({"type": "create", "scenario": scenario_text(scenarios, name)})
    check(answer.get("type") == "created", "create answered %r" % answer)
    game, seats = answer["game"], answer["seats"]
    check(isinstance(game, str) and 1 <= len(game) <= 63, "game id %r" % game)
    check(set(seats) == {"A", "B", "umpire"}, "seats %r" % seats)
    for token in seats.values():
        check(re.fullmatch(r"[0-9a-f]{64}", token), "token form %r" % token)
    check(len(set(seats.values())) == 3, "two seats with one token")
    return game, seats


STATE_KEYS = {"game", "title", "turn", "phase", "step", "phasing", "awaiting", "sides", "units",
              "charges", "melees", "log", "dice", "hold", "umpire", "pending", "fought",
              "rolled_back"}
UNIT_KEYS = {"side", "name", "type", "class", "figures", "nation", "formation", "formed",
             "wavering", "status", "general", "sappers", "ranks", "defending", "terrain", "move"}
# Present only when set (PROTOCOL.md §7.1, issue 10): the phase's reports, a
# unit's fled_turn; a game created under rules version 2 shows rules_version
# and a pursuer's quarry (pursuing); from version 3 (issue 14) the battle's
# end (nil until it ends) and each unit's starting strength.
STATE_OPTIONAL_KEYS = {"reports", "rules_version", "end", "ruleset"}
UNIT_OPTIONAL_KEYS = {"fled_turn", "pursuing", "strength"}


def check_state(state, game, started=True):
    check(isinstance(state, dict)
          and STATE_KEYS <= set(state) <= STATE_KEYS | STATE_OPTIONAL_KEYS,
          "state members %r" % sorted(state) if isinstance(state, dict) else state)
    check(state["game"] == game, "state.game")
    check(state.get("rules_version") == 3, "a new game's rules_version %r" %
          state.get("rules_version"))
    check(state["turn"] >= 1 if started else state["turn"] == 0, "turn")
    check(state["phase"] in ("initiative", "mandatory_moves", "charge", "movement", "fire",
                             "melee", "morale", "ended"), "phase %r" % state["phase"])
    check(state["phasing"] in ("A", "B", None), "phasing")
    check(state["end"] is None if state["phase"] != "ended"
          else state["end"]["cause"] in ("no_units", "umpire", "lapsed"), "end %r" % state["end"])
    check(all(s in ("A", "B") for s in state["awaiting"]), "awaiting")
    check(set(state["sides"]) == {"A", "B"}, "sides")
    for unit_id, unit in state["units"].items():
        check(UNIT_KEYS <= set(unit) <= UNIT_KEYS | UNIT_OPTIONAL_KEYS,
              "unit %s members %r" % (unit_id, sorted(unit)))
    for entry in state["log"]:
        for key in ("seq", "turn", "phase", "kind", "text"):
            check(key in entry, "log entry without %s: %r" % (key, entry))


def free_port():
    """A TCP port of 127.0.0.1 that nothing listens on now (for a server
    given its port, not --port 0)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def seed():
    """A player's dice seed (PROTOCOL.md §10.3)."""
    return os.urandom(32).hex()


def join(client, game, token):
    answer = client.ask({"type": "join", "game": game, "token": token, "seed": seed()})
    check(answer.get("type") == "welcome", "join answered %r" % answer)
    return answer


# --------------------------------------------------------------- cases

def case_malformed(server, scenarios):
    c = Client(server)
    refused = ["01", "9180", "81a16101" + "81a16202", "82a16101", "81a161cb3ff0000000000000",
               "81a161c40100", "810102", "82a16101a16102", "81a161" * 17 + "c0", "", "c1"]
    for frame in refused:
        c.ws.send(bytes.fromhex(frame))
        expect_error(c.recv(), "bad_frame", 0)
    # Not valid msgpack at all, then a text message.
    c.ws.send(b"\xff\xfe garbage")
    expect_error(c.recv(), "bad_frame", 0)
    c.ws.send_frame(0x1, b'{"type": "create"}')
    expect_error(c.recv(), "bad_frame", 0)
    # The connection still works: a good request gets its answer.
    create_game(c, scenarios)
    # Fragmented message, reassembled.
    frame = wire.pack({"type": "create", "request": 77,
                       "scenario": scenario_text(scenarios, "example_a.json")})
    c.ws.send_frame(0x2, frame[:10], fin=False)
    c.ws.send_frame(0x0, frame[10:100], fin=False)
    c.ws.send_frame(0x0, frame[100:], fin=True)
    answer = c.recv()
    check(answer.get("type") == "created" and answer.get("request") == 77,
          "fragmented create: %r" % answer)
    c.close()


def case_too_large(server, scenarios):
    c = Client(server)
    c.ws.send(b"\x81\xa1a" + b"\x00" * 65537)
    expect_error(c.recv(), "too_large", 0)
    try:
        extra = c.recv()
        raise Failure("expected a close, got %r" % extra)
    except wire.Closed as closed:
        check(closed.code == 1009, "close code %r, expected 1009" % closed.code)


def case_bad_messages(server, scenarios):
    c = Client(server)
    expect_error(c.ask({"type": "create"}), "bad_message")
    expect_error(c.ask({"type": "create", "scenario": "x", "colour": "red"}), "bad_message")
    expect_error(c.ask({"type": "dance"}), "unknown_type")
    expect_error(c.ask({"type": "create", "scenario": "{"}), "bad_message")
    answer = c.ask({"type": "create", "scenario": '{"title": "t", "sides": {}, "units": []}'})
    expect_error(answer, "bad_message")
    check("scenario" in answer["message"], "scenario error message %r" % answer["message"])
    expect_error(c.ask({"type": "act", "action": {"kind": "done"}}), "not_joined")
    expect_error(c.ask({"type": "join", "game": "nope", "token": "x"}), "unknown_game")
    game, seats = create_game(c, scenarios)
    expect_error(c.ask({"type": "join", "game": game, "token": "0" * 64}), "bad_token")
    expect_error(c.ask({"type": "join", "game": game, "token": seats["A"][:-1]}), "bad_token")
    join(c, game, seats["A"])
    # A second join on the connection is refused, of another seat or the same
    # (a welcome is answered once a connection, PROTOCOL.md §5.2).
    expect_error(c.ask({"type": "join", "game": game, "token": seats["B"]}), "bad_message")
    # ... whatever it names: no such game, no such token (§5.2).
    expect_error(c.ask({"type": "join", "game": "nope", "token": "x"}), "bad_message")
    expect_error(c.ask({"type": "join", "game": game, "token": "0" * 64}), "bad_message")
    answer = c.ask({"type": "join", "game": game, "token": seats["A"], "seed": seed()})
    expect_error(answer, "bad_message")
    check("already" in answer["message"] and "another connection" in answer["message"],
          "the refusal says why: %r" % answer["message"])
    expect_error(c.ask({"type": "act", "action": {"kind": "fly"}}), "bad_message")
    expect_error(c.ask({"type": "act", "action": {"kind": "declare_charge", "unit": "hussars",
                                                   "target": "dragoons", "facing": "front"}}),
                 "wrong_phase")
    c.close()


def pick_action(state, seat):
    """A legal-looking action for `seat`, or None when it is not awaited."""
    if seat not in state["awaiting"]:
        return None
    phase, step = state["phase"], state["step"]
    if phase == "initiative" and step == "choose":
        return {"kind": "choose_initiative", "phasing": seat}
    if phase == "charge" and step == "declare":
        mine = [u for u, v in state["units"].items() if v["side"] == seat]
        theirs = [u for u, v in state["units"].items() if v["side"] != seat]
        declared = {ch["unit"] for ch in state["charges"]}
        for unit in mine:
            v = state["units"][unit]
            if unit not in declared and v["formed"] and v["status"] == "normal" and theirs and \
                    v["type"] not in ("infantry", "artillery") and seat == state["phasing"]:
                return {"kind": "declare_charge", "unit": unit, "target": theirs[0],
                        "facing": "front"}
        return {"kind": "done"}
    if phase == "charge" and step == "respond":
        for ch in state["charges"]:
            target = state["units"][ch["target"]]
            if target["side"] == seat and ch["response"] is None:
                return {"kind": "respond", "unit": ch["target"],
                        "response": "countercharge" if target["formed"] else "stand"}
        return {"kind": "done"}
    if step == "reroll":
        for melee in state["melees"]:
            for unit in melee["units"]:
                v = state["units"][unit]
                if v["side"] == seat and v["sappers"]:
                    return {"kind": "sappers_reroll", "unit": unit, "die": -1}
        return {"kind": "done"}
    return {"kind": "done"}


def case_play(server, scenarios, scenario="example_a.json"):
    """Two seats play; every delta must apply and match a fresh welcome."""
    creator = Client(server)
    game, seats = create_game(creator, scenarios, scenario)
    clients = {}
    states = {}
    seq = None
    # A's first join adds its dice seed (seq 1: turn 0, nothing rolled);
    # B's adds the other and begins the battle (seq 2, a delta to A).
    for seat in ("A", "B"):
        clients[seat] = Client(server)
        welcome = join(clients[seat], game, seats[seat])
        check(welcome["seat"] == seat, "welcome seat")
        check_state(welcome["state"], game, started=seat == "B")
        states[seat] = welcome["state"]
        seq = welcome["seq"]
    check(seq == 2, "the game is at seq 2 once both seeds are in, got %r" % seq)
    check(states["B"]["dice"]["seeds"]["A"] and states["B"]["dice"]["seeds"]["B"] and
          len(states["B"]["dice"]["commitment"]) == 64 and states["B"]["dice"]["server_seed"]
          is None, "dice: %r" % states["B"]["dice"])
    delta = clients["A"].recv()
    check(delta.get("type") == "delta" and delta["seq"] == 2, "A's delta 2: %r" % delta)
    states["A"] = apply_ops(states["A"], delta["ops"])
    check(states["A"] == states["B"], "A's state from the delta differs from B's welcome")
    check(states["A"]["turn"] == 1 and states["A"]["phase"] == "initiative",
          "game begins with turn 1's initiative: %r" % states["A"]["phase"])
    check(any(e["kind"] == "roll" and e.get("name", "").startswith("T1.initiative.")
              for e in states["A"]["log"]), "initiative rolls in the log")

    # The seat not awaited is refused, and nothing changes.
    state = states["A"]
    idle = [s for s in ("A", "B") if s not in state["awaiting"]]
    if idle:
        expect_error(clients[idle[0]].ask({"type": "act", "action": {
            "kind": "choose_initiative", "phasing": idle[0]}}), "wrong_seat")

    phases_seen = set()
    for step in range(60):
        state = states["A"]
        phases_seen.add(state["phase"])
        if state["phase"] == "ended":
            break
        actor = next((s for s in ("A", "B") if pick_action(state, s)), None)
        if actor is None:
            break
        action = pick_action(state, actor)
        answer = clients[actor].ask({"type": "act", "action": action})
        if answer.get("type") == "error":
            # The rules may refuse our simple choice: fall back to done once.
            check(answer["code"] in ("invalid_action", "wrong_phase"),
                  "step %d %r: %r" % (step, action, answer))
            answer = clients[actor].ask({"type": "act", "action": {"kind": "done"}})
        check(answer.get("type") == "ack", "step %d %r: %r" % (step, action, answer))
        check(answer["seq"] == seq + 1, "ack seq %r after %r" % (answer["seq"], seq))
        seq += 1
        for seat in ("A", "B"):
            delta = clients[seat].recv()
            check(delta.get("type") == "delta" and delta["game"] == game and delta["seq"] == seq,
                  "seat %s expected delta %d, got %r" % (seat, seq, delta))
            states[seat] = apply_ops(states[seat], delta["ops"])
        creator_idle = True  # the creator never joined: it gets no delta
        check(creator_idle, "")
        # A fresh connection's welcome equals the state built from deltas.
        fresh = Client(server)
        welcome = join(fresh, game, seats["A"])
        fresh.close()
        check(welcome["seq"] == seq, "welcome seq %r, expected %r" % (welcome["seq"], seq))
        check(welcome["state"] == states["A"] == states["B"],
              "state from deltas differs from the snapshot at seq %d" % seq)
        check_state(welcome["state"], game)
    kinds = sorted({e["kind"] for e in states["A"]["log"]})
    print("play: %d actions accepted, turn %d, phases seen: %s; log kinds: %s" % (
        seq, states["A"]["turn"], ", ".join(sorted(phases_seen)), ", ".join(kinds)))
    check(seq >= 5, "only %d actions accepted" % seq)
    check({"initiative", "charge"} <= phases_seen, "phases seen %r" % sorted(phases_seen))
    # Tokens are never logged.
    text = server.text()
    check(all(token not in text for token in seats.values()), "a seat token is in the log")
    for c in list(clients.values()) + [creator]:
        c.close()


def case_shutdown(server, scenarios):
    c = Client(server)
    game, seats = create_game(c, scenarios)
    join(c, game, seats["A"])
    server.proc.send_signal(signal.SIGTERM)
    try:
        extra = c.recv()
        raise Failure("expected a close, got %r" % extra)
    except wire.Closed as closed:
        check(closed.code == 1001, "close code %r, expected 1001" % closed.code)
    check(server.proc.wait(10) == 0, "exit status %r" % server.proc.returncode)


def case_garbage(server, scenarios):
    """Random and mutated frames (fixed seed): each gets exactly one answer,
    the server never crashes, and the game stays consistent."""
    import random
    rng = random.Random(1805)
    c = Client(server)
    game, seats = create_game(c, scenarios)
    join(c, game, seats["A"])
    seeds = [
        wire.pack({"type": "act", "request": 9, "action": {"kind": "done"}}),
        wire.pack({"type": "join", "request": 9, "game": game, "token": seats["A"]}),
        wire.pack({"type": "act", "request": 9, "action": {
            "kind": "adjust", "unit": "hussars", "figures": 3, "note": "n"}}),
        wire.pack({"type": "create", "request": 9,
                   "scenario": scenario_text(scenarios, "example_a.json")}),
    ]
    answers = 0
    for i in range(1500):
        if i % 3 == 0:
            frame = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
        else:
            frame = bytearray(rng.choice(seeds))
            for _ in range(rng.randrange(1, 4)):
                where = rng.randrange(len(frame))
                what = rng.randrange(3)
                if what == 0:
                    frame[where] = rng.randrange(256)
                elif what == 1:
                    del frame[where]
                else:
                    frame.insert(where, rng.randrange(256))
            frame = bytes(frame)
        c.ws.send(frame)
        answer = c.recv()
        answers += 1
        check(answer.get("type") in ("error", "created", "welcome", "ack"),
              "frame %s: answer %r" % (frame.hex(), answer))
        if answer["type"] == "error":
            check(isinstance(answer.get("code"), str), "error code")
        if answer["type"] == "ack":
            delta = c.recv()
            check(delta.get("type") == "delta", "ack without delta")
    check(answers == 1500, "answers")
    c.close()


def case_spectator_read_only(server, scenarios):
    """A spectator (PROTOCOL.md §5.2): its id and the game's password open a
    read-only seat; its acts are refused with read_only and change nothing;
    it gets every delta; the players hear how many watch."""
    creator = Client(server)
    answer = creator.ask({"type": "create", "scenario": scenario_text(scenarios, "example_a.json"),
                          "spectator_password": "pass word"})
    check(answer.get("type") == "created" and re.fullmatch(r"[0-9a-f]{32}",
                                                            answer.get("spectator", "")),
          "created with a spectator id: %r" % answer)
    creator.close()
    game, seats, spectator_id = answer["game"], answer["seats"], answer["spectator"]
    players = {}
    for seat in ("A", "B"):
        players[seat] = Client(server)
        welcome = join(players[seat], game, seats[seat])
        check("watchers" not in welcome, "nobody watches yet: %r" % welcome.get("watchers"))
    players["A"].recv()  # the delta of B's seed: the battle begins
    watcher = Client(server)
    expect_error(watcher.ask({"type": "join", "game": game, "token": spectator_id}), "bad_token")
    expect_error(watcher.ask({"type": "join", "game": game, "token": spectator_id,
                              "password": "wrong"}), "bad_token")
    welcome = watcher.ask({"type": "join", "game": game, "token": spectator_id,
                           "password": "pass word"})
    check(welcome.get("type") == "welcome" and welcome["seat"] == "spectator" and
          welcome["seq"] == 2 and welcome["state"]["turn"] == 1, "spectator welcome %r" %
          {k: v for k, v in welcome.items() if k != "state"})
    for seat in ("A", "B"):
        heard = players[seat].recv()
        check(heard == {"type": "watchers", "game": game, "count": 1},
              "player %s hears the spectator: %r" % (seat, heard))
    # Read-only: every act refused, nothing changes.
    for action in ({"kind": "done"}, {"kind": "choose_initiative", "phasing": "A"}):
        expect_error(watcher.ask({"type": "act", "action": action}), "read_only")
    check(welcome["state"]["awaiting"], "someone is awaited")
    actor = welcome["state"]["awaiting"][0]
    answer = players[actor].ask({"type": "act", "action": {"kind": "choose_initiative",
                                                           "phasing": "A"}})
    check(answer.get("type") == "ack" and answer["seq"] == 3, "the player's act: %r" % answer)
    for client in (players["A"], players["B"], watcher):
        delta = client.recv()
        check(delta.get("type") == "delta" and delta["seq"] == 3, "delta 3: %r" % delta)
    # A fresh player welcome says how many watch.
    fresh = Client(server)
    welcome = join(fresh, game, seats["A"])
    check(welcome.get("watchers") == 1, "welcome watchers %r" % welcome.get("watchers"))
    fresh.close()
    watcher.close()
    for seat in ("A", "B"):
        heard = players[seat].recv()
        check(heard == {"type": "watchers", "game": game, "count": 0},
              "player %s hears the spectator leave: %r" % (seat, heard))
    # A game without a password: the id alone opens the spectator seat.
    creator = Client(server)
    answer = creator.ask({"type": "create", "scenario": scenario_text(scenarios,
                                                                     "example_a.json")})
    creator.close()
    check(answer.get("type") == "created", "create: %r" % answer)
    watcher = Client(server)
    welcome = watcher.ask({"type": "join", "game": answer["game"], "token": answer["spectator"]})
    check(welcome.get("type") == "welcome" and welcome["seat"] == "spectator" and
          welcome["state"]["turn"] == 0, "spectator of a game without password: %r" %
          {k: v for k, v in welcome.items() if k != "state"})
    expect_error(watcher.ask({"type": "act", "action": {"kind": "done"}}), "read_only")
    watcher.close()
    print("spectator_read_only: ok")


def case_spectator_delay(server, scenarios):
    """A game with spectator_delay 1 (PROTOCOL.md §5.1): the spectator sees
    the state as it was just before the last phase change while the players
    see it live; each phase change moves its view on by one delta."""
    creator = Client(server)
    answer = creator.ask({"type": "create", "scenario": scenario_text(scenarios, "example_a.json"),
                          "spectator_delay": 1})
    check(answer.get("type") == "created", "create: %r" % answer)
    creator.close()
    game, seats, spectator_id = answer["game"], answer["seats"], answer["spectator"]
    expect_error(Client(server).ask({"type": "create", "scenario": "{}",
                                     "spectator_delay": 65}), "bad_message")
    players, states = {}, {}
    for seat in ("A", "B"):
        players[seat] = Client(server)
        states[seat] = join(players[seat], game, seats[seat])["state"]
    delta = players["A"].recv()
    states["A"] = apply_ops(states["A"], delta["ops"])
    history = {2: copy.deepcopy(states["A"])}  # seq -> the players' state
    watcher = Client(server)
    welcome = watcher.ask({"type": "join", "game": game, "token": spectator_id})
    # seq 2 changed turn 0 to 1: the spectator sees seq 1 (turn 0).
    check(welcome.get("type") == "welcome" and welcome["seat"] == "spectator" and
          welcome["seq"] == 1 and welcome["state"]["turn"] == 0 and
          welcome.get("spectator_delay") == 1,
          "delayed welcome: %r" % {k: v for k, v in welcome.items() if k != "state"})
    view = welcome["state"]
    for seat in ("A", "B"):
        check(players[seat].recv().get("type") == "watchers", "watchers to %s" % seat)
    seq = 2
    views_seen = 0
    for step in range(40):
        state = states["A"]
        if state["turn"] >= 2 or state["phase"] == "ended":
            break
        actor = state["awaiting"][0]
        action = ({"kind": "choose_initiative", "phasing": "A"} if state["step"] == "choose"
                  else {"kind": "done"})
        answer = players[actor].ask({"type": "act", "action": action})
        check(answer.get("type") == "ack", "step %d: %r" % (step, answer))
        seq = answer["seq"]
        before = states["A"]
        for s in ("A", "B"):
            states[s] = apply_ops(states[s], players[s].recv()["ops"])
        history[seq] = copy.deepcopy(states["A"])
        if (states["A"]["turn"], states["A"]["phase"]) != (before["turn"], before["phase"]):
            # The phase changed: the spectator now sees the state just
            # before it (seq - 1), by one delta that skips seqs.
            delta = watcher.recv()
            check(delta.get("type") == "delta" and delta["seq"] == seq - 1,
                  "the view moves to seq %d: %r" % (seq - 1, delta))
            view = apply_ops(view, delta["ops"])
            check(view == history[seq - 1], "the spectator's view is the players' state at "
                                            "seq %d" % (seq - 1))
            check(view["phase"] != states["A"]["phase"] or view["turn"] != states["A"]["turn"],
                  "the spectator is a phase behind")
            views_seen += 1
    check(views_seen >= 3, "only %d view changes" % views_seen)
    # A fresh delayed welcome agrees with the view built from deltas.
    again = Client(server)
    fresh = again.ask({"type": "join", "game": game, "token": spectator_id})
    check(fresh.get("type") == "welcome" and fresh["state"] == view and fresh["seq"] < seq,
          "a fresh delayed welcome: %r" % {k: v for k, v in fresh.items() if k != "state"})
    again.close()
    watcher.close()
    print("spectator_delay: %d view changes, spectator one phase behind" % views_seen)


def case_umpire_seat(server, scenarios):
    """The umpire seat (design.md "Roles", PROTOCOL.md §5.2, §10.2): create
    hands out seats.umpire; the umpire joins without a dice seed, and its
    first join seats it (seq 1: state.umpire true, an umpire_ruled
    "seated" entry); it sees the live state and every delta, does not hold
    up the battle's start, is not a spectator and is refused every
    player's action with wrong_seat."""
    creator = Client(server)
    game, seats = create_game(creator, scenarios)
    creator.close()
    umpire = Client(server)
    welcome = umpire.ask({"type": "join", "game": game, "token": seats["umpire"]})
    check(welcome.get("type") == "welcome" and welcome["seat"] == "umpire" and
          welcome["seq"] == 1 and "watchers" not in welcome,
          "umpire welcome %r" % {k: v for k, v in welcome.items() if k != "state"})
    check_state(welcome["state"], game, started=False)
    check(welcome["state"]["umpire"] is True, "state.umpire %r" % welcome["state"]["umpire"])
    entry = welcome["state"]["log"][-1]
    check(entry["kind"] == "umpire_ruled" and entry["ruling"] == "seated" and entry["seq"] == 1,
          "the seating in the log: %r" % entry)
    players = {}
    for seat in ("A", "B"):
        players[seat] = Client(server)
        join(players[seat], game, seats[seat])
    # The battle began with the players' seeds alone: seq 2 (A's), 3 (B's).
    for seq in (2, 3):
        delta = umpire.recv()
        check(delta.get("type") == "delta" and delta["seq"] == seq, "umpire delta %r" % delta)
    players["A"].recv()  # B's seed
    for action in ({"kind": "done"}, {"kind": "choose_initiative", "phasing": "A"}):
        expect_error(umpire.ask({"type": "act", "action": action}), "wrong_seat")
    # A second umpire connection is the same seat: it is welcomed live, and
    # seats nobody again.
    again = Client(server)
    welcome = again.ask({"type": "join", "game": game, "token": seats["umpire"]})
    check(welcome.get("type") == "welcome" and welcome["seat"] == "umpire" and
          welcome["seq"] == 3 and welcome["state"]["turn"] == 1, "second umpire welcome")
    # A player acts: the umpire sees it at once, with the same seq.
    actor = welcome["state"]["awaiting"][0]
    answer = players[actor].ask({"type": "act", "action": {"kind": "choose_initiative",
                                                           "phasing": "A"}})
    check(answer.get("type") == "ack" and answer["seq"] == 4, "the player's act: %r" % answer)
    for client in (umpire, again, players["A"], players["B"]):
        delta = client.recv()
        check(delta.get("type") == "delta" and delta["seq"] == 4, "delta 4: %r" % delta)
    # The umpire's token is a token of this game only, and never logged.
    other, _ = create_game(Client(server), scenarios)
    expect_error(Client(server).ask({"type": "join", "game": other, "token": seats["umpire"]}),
                 "bad_token")
    check(seats["umpire"] not in server.text(), "the umpire's token is in the log")


def case_umpire_hold(server, scenarios):
    """The umpire's actions (PROTOCOL.md §5.3, design.md "Roles"): hold
    refuses the players' actions with held until release; note and
    umpire_adjust are journaled log entries; each reaches everyone as one
    delta, and the states the deltas give equal a fresh welcome's. The
    players' umpire actions are refused with wrong_seat."""
    creator = Client(server)
    game, seats = create_game(creator, scenarios)
    creator.close()
    clients, states = {}, {}
    for seat in ("A", "B"):
        clients[seat] = Client(server)
        join(clients[seat], game, seats[seat])
    clients["A"].recv()  # B's seed: seq 2
    clients["umpire"] = Client(server)
    welcome = clients["umpire"].ask({"type": "join", "game": game, "token": seats["umpire"]})
    check(welcome.get("type") == "welcome" and welcome["seq"] == 3, "umpire welcome")
    check(welcome["state"]["hold"] is None, "not held: %r" % welcome["state"]["hold"])
    for seat in ("A", "B"):  # the umpire's seating: seq 3
        delta = clients[seat].recv()
        check(delta.get("type") == "delta" and delta["seq"] == 3, "seating delta %r" % delta)
    for seat in clients:
        states[seat] = copy.deepcopy(welcome["state"])
    seq = [3]

    def umpire_acts(action):
        answer = clients["umpire"].ask({"type": "act", "action": action})
        check(answer.get("type") == "ack" and answer["seq"] == seq[0] + 1,
              "umpire %s: %r" % (action["kind"], answer))
        seq[0] += 1
        for seat, client in clients.items():
            delta = client.recv()
            check(delta.get("type") == "delta" and delta["seq"] == seq[0],
                  "%s's delta %d: %r" % (seat, seq[0], delta))
            states[seat] = apply_ops(states[seat], delta["ops"])
        fresh = Client(server)
        snapshot = join(fresh, game, seats["A"])
        fresh.close()
        check(snapshot["seq"] == seq[0], "fresh welcome seq")
        for seat in clients:
            check(states[seat] == snapshot["state"],
                  "%s's state from the deltas differs from a fresh welcome" % seat)
        return snapshot["state"]

    state = welcome["state"]
    actor = state["awaiting"][0]
    player_action = {"kind": "choose_initiative", "phasing": "A"}
    # The players may not take the umpire's actions.
    for action in ({"kind": "hold", "reason": "mine"}, {"kind": "release", "reason": "x"},
                   {"kind": "note", "reason": "x"},
                   {"kind": "umpire_adjust", "unit": sorted(state["units"])[0], "figures": 1,
                    "reason": "x"}):
        expect_error(clients["A"].ask({"type": "act", "action": action}), "wrong_seat")
    # The umpire needs a reason, and may not release a game not held.
    expect_error(clients["umpire"].ask({"type": "act", "action": {"kind": "hold"}}),
                 "bad_message")
    expect_error(clients["umpire"].ask({"type": "act", "action": {
        "kind": "release", "reason": "nothing held"}}), "invalid_action")
    state = umpire_acts({"kind": "hold", "reason": "a dispute over the wood's edge"})
    check(state["hold"] == "a dispute over the wood's edge", "hold %r" % state["hold"])
    check(state["log"][-1]["kind"] == "umpire_ruled" and
          "a dispute over the wood's edge" in state["log"][-1]["text"],
          "the hold in the log: %r" % state["log"][-1])
    expect_error(clients[actor].ask({"type": "act", "action": player_action}), "held")
    state = umpire_acts({"kind": "note", "reason": "measured: 11 inches"})
    check(state["hold"] is not None and "measured: 11 inches" in state["log"][-1]["text"],
          "the note: %r" % state["log"][-1])
    unit_id = sorted(state["units"])[0]
    figures = state["units"][unit_id]["figures"]
    state = umpire_acts({"kind": "umpire_adjust", "unit": unit_id, "figures": figures - 1,
                         "formed": False, "reason": "a stand was missed in the fire"})
    check(state["units"][unit_id]["figures"] == figures - 1 and
          state["units"][unit_id]["formed"] is False, "the adjustment: %r" % state["units"][unit_id])
    check("umpire: a stand was missed in the fire" in state["log"][-1]["text"],
          "the adjustment in the log: %r" % state["log"][-1])
    state = umpire_acts({"kind": "release", "reason": "agreed"})
    check(state["hold"] is None, "released: %r" % state["hold"])
    answer = clients[actor].ask({"type": "act", "action": player_action})
    check(answer.get("type") == "ack" and answer["seq"] == seq[0] + 1,
          "the player's act after the release: %r" % answer)
    check(all(token not in server.text() for token in seats.values()), "a token is in the log")


class Table:
    """Players A and B and the umpire at one game of example A, each
    connection keeping its state from the deltas (PROTOCOL.md §7.2)."""

    def __init__(self, server, scenarios, scenario="example_a.json"):
        self.server = server
        creator = Client(server)
        self.game, self.seats = create_game(creator, scenarios, scenario)
        creator.close()
        self.clients, self.states, self.by_seq = {}, {}, {}
        self.clients["umpire"] = Client(server)
        welcome = self.clients["umpire"].ask({"type": "join", "game": self.game,
                                              "token": self.seats["umpire"]})
        check(welcome.get("type") == "welcome" and welcome["seq"] == 1, "umpire seated at 1")
        self.states["umpire"] = welcome["state"]
        for seat in ("A", "B"):
            client = Client(server)
            welcome = join(client, self.game, self.seats[seat])
            for other in self.clients:
                self.deltas(other, welcome["seq"])
            self.clients[seat] = client
            self.states[seat] = welcome["state"]
        self.seq = 3
        self.by_seq[3] = copy.deepcopy(self.states["A"])

    def deltas(self, who, seq):
        delta = self.clients[who].recv()
        check(delta.get("type") == "delta" and delta["seq"] == seq,
              "%s expected delta %d, got %r" % (who, seq, delta))
        self.states[who] = apply_ops(self.states[who], delta["ops"])

    def ask(self, who, action):
        """The action's answer; an ack's delta is applied for everyone."""
        answer = self.clients[who].ask({"type": "act", "action": action})
        if answer.get("type") == "ack":
            check(answer["seq"] == self.seq + 1, "ack seq %r after %d" % (answer, self.seq))
            self.seq += 1
            for other in self.clients:
                self.deltas(other, self.seq)
            check(self.states["A"] == self.states["B"] == self.states["umpire"],
                  "the seats' states differ at seq %d" % self.seq)
            self.by_seq[self.seq] = copy.deepcopy(self.states["A"])
        return answer

    def act(self, who, action):
        answer = self.ask(who, action)
        check(answer.get("type") == "ack", "%s %r: %r" % (who, action, answer))
        return self.states["A"]

    def fresh(self):
        """A fresh welcome's state, checked equal to what the deltas gave."""
        client = Client(self.server)
        welcome = join(client, self.game, self.seats["A"])
        client.close()
        check(welcome["seq"] == self.seq and welcome["state"] == self.states["A"],
              "a fresh welcome differs from the deltas at seq %d" % self.seq)
        return welcome["state"]

    def play_until(self, done, limit=120):
        """Plays simple legal actions (the umpire settles D9's events) until
        done(state)."""
        for _ in range(limit):
            state = self.states["A"]
            if done(state):
                return state
            check(state["phase"] != "ended", "the battle ended first")
            if state["step"] == "settle":
                for pending in state["pending"]:
                    self.act("umpire", {"kind": "settle", "unit": pending["unit"],
                                        "event": pending["event"],
                                        "reason": "D9: no effect this time"})
                continue
            actor = next((s for s in ("A", "B") if pick_action(state, s)), None)
            check(actor is not None, "nobody is awaited in %s/%s" % (state["phase"],
                                                                     state["step"]))
            answer = self.ask(actor, pick_action(state, actor))
            if answer.get("type") == "error":
                check(answer["code"] in ("invalid_action", "wrong_phase"), "%r" % answer)
                self.act(actor, {"kind": "done"})
        state = self.states["A"]
        raise Failure("not reached in %d actions: turn %d, %s/%s, log tail %r" % (
            limit, state["turn"], state["phase"], state["step"],
            [e["text"] for e in state["log"][-8:]]))


def table_with_melee(server, scenarios):
    """A Table whose game has fought a melee this turn (state.fought). The
    dice are the server's: a charge may fail its morale test and leave
    both units unformed for good, so a game is tried again a few times."""
    for _ in range(8):
        table = Table(server, scenarios)
        try:
            table.play_until(lambda s: s["fought"], limit=40)
            return table
        except Failure:
            for client in table.clients.values():
                client.close()
    raise Failure("no melee in 8 games")


def last_results(state, melee):
    """The latest melee_unit_result entry of each unit of `melee`."""
    results = {}
    for entry in state["log"]:
        if entry["kind"] == "melee_unit_result" and entry["melee"] == melee:
            results[entry["unit"]] = entry
    return results


def case_umpire_overrule(server, scenarios):
    """The umpire overrules a melee (PROTOCOL.md §10.2): both players see
    the overruled state, in which each unit's figures move by the
    difference between the old and the new casualties and its status is
    the new result's; the dice stay (dice.next does not move)."""
    table = table_with_melee(server, scenarios)
    state = table.states["A"]
    fought = state["fought"][0]
    melee, winner, result = fought["melee"], fought["winner"], fought["result"]
    new = {"retreat": "pushed_back", "broken": "pushed_back", "pushed_back": "retreat",
           "draw": "retreat", "auto": "pushed_back"}[result]
    new_winner = winner or "A"
    before = {u: state["units"][u]["figures"] for u in fought["units"]}
    old = last_results(state, melee)
    next_die = state["dice"]["next"]
    for who in ("A", "B"):
        expect_error(table.ask(who, {"kind": "overrule", "melee": melee, "result": new,
                                     "winner": new_winner, "reason": "mine"}), "wrong_seat")
    expect_error(table.ask("umpire", {"kind": "overrule", "melee": "T9.M9", "result": new,
                                      "winner": new_winner, "reason": "x"}), "invalid_action")
    for bad in ({"result": "auto", "winner": new_winner}, {"result": "routed", "winner": "A"},
                {"unit": fought["units"][0], "outcome": "fled"}):
        expect_error(table.ask("umpire", dict({"kind": "overrule", "melee": melee,
                                               "reason": "x"}, **bad)), "bad_message")
    state = table.act("umpire", {"kind": "overrule", "melee": melee, "result": new,
                                 "winner": new_winner,
                                 "reason": "the hussars' flank was covered by the wood"})
    # Nothing is rolled again: a new roll only for a test the melee did not
    # take, or for melee dice an automatic result (12.12-12.16) never rolled.
    new_rolls = [e for e in state["log"] if e["seq"] == table.seq and e["kind"] == "roll"]
    check(all(e["name"].endswith((".pursuit", ".reform")) or result == "auto"
              for e in new_rolls), "the overrule rolled %r" % new_rolls)
    check(state["dice"]["next"] == next_die + 2 * len(new_rolls), "dice.next after the overrule")
    kinds = [e["kind"] for e in state["log"] if e["seq"] == table.seq and e["kind"] != "roll"]
    check(kinds[0] == "umpire_ruled" and kinds[-1] == "melee_overruled" and
          kinds.count("melee_unit_result") == len(fought["units"]),
          "the overrule's entries: %r" % kinds)
    ruled = [e for e in state["log"] if e["seq"] == table.seq][0]
    check(ruled["ruling"] == "overrule" and ruled["melee"] == melee and
          ruled["reason"] == "the hussars' flank was covered by the wood", "ruling %r" % ruled)
    now = last_results(state, melee)
    for unit in fought["units"]:
        check(now[unit].get("overruled") is True, "%s's new result entry %r" % (unit, now[unit]))
        expected = max(0, before[unit] + old[unit]["casualties"] - now[unit]["casualties"])
        check(state["units"][unit]["figures"] == expected,
              "%s: %d figures, expected %d + %d - %d" % (
                  unit, state["units"][unit]["figures"], before[unit],
                  old[unit]["casualties"], now[unit]["casualties"]))
        if state["units"][unit]["side"] != new_winner:
            check(state["units"][unit]["status"] == new.replace("retreat", "retreating"),
                  "the loser %s is %s after %s" % (unit, state["units"][unit]["status"], new))
        check(state["units"][unit]["status"] == now[unit]["status"] or expected == 0,
              "%s's status %s, its result says %s" % (unit, state["units"][unit]["status"],
                                                      now[unit]["status"]))
    check(state["fought"][0]["result"] == new and state["fought"][0]["winner"] == new_winner,
          "state.fought %r" % state["fought"])
    table.fresh()
    # Both players go on from the overruled state.
    table.play_until(lambda s: s["turn"] == 2)
    table.fresh()


def check_replayed_and_restarted(server, table):
    """The journal replayed from seq 0, rolled-back rows and all, gives the
    live state's snapshot hash (brigade replay and brigade state), and a
    restart rebuilds the same state: B's welcome after the restart."""
    check(replay_hash(server, table.game) == {"type": "hash", "seq": table.seq,
                                               "hash": live_hash(server, table)},
          "brigade replay's hash differs from the live state's")
    for client in table.clients.values():
        client.close()
    server.restart()
    fresh = Client(server)
    welcome = join(fresh, table.game, table.seats["B"])
    fresh.close()
    check(welcome["seq"] == table.seq and welcome["state"] == table.states["A"],
          "the state after a restart differs")
    return welcome

def case_umpire_rollback(server, scenarios):
    """The umpire rolls back (PROTOCOL.md §10.2): the state returns to the
    one after to_seq for everyone, the log keeps its entries and lists the
    rolled-back ones, the journal marks them and deletes nothing, the game
    is held until released, no die number comes twice, and a restart
    rebuilds the same state."""
    import sqlite3
    table = table_with_melee(server, scenarios)
    # Back to the moment the Charge phase began, before the melee.
    to_seq = min(seq for seq, st in table.by_seq.items() if st["phase"] == "charge")
    target = table.by_seq[to_seq]
    before = copy.deepcopy(table.states["A"])
    for who in ("A", "B"):
        expect_error(table.ask(who, {"kind": "rollback", "to_seq": to_seq, "reason": "x"}),
                     "wrong_seat")
    expect_error(table.ask("umpire", {"kind": "rollback", "to_seq": table.seq,
                                      "reason": "x"}), "invalid_action")
    expect_error(table.ask("umpire", {"kind": "rollback", "to_seq": 1, "reason": "x"}),
                 "invalid_action")  # the battle had not begun
    state = table.act("umpire", {"kind": "rollback", "to_seq": to_seq,
                                 "reason": "the charge distance was measured wrong"})
    rollback_seq = table.seq
    for key in ("turn", "phase", "step", "phasing", "awaiting", "units", "charges", "melees",
                "sides", "fought", "pending"):
        check(state[key] == target[key], "%s after the rollback: %r, at seq %d: %r" % (
            key, state[key], to_seq, target[key]))
    check(state["hold"] == "rolled back to seq %d: the charge distance was measured wrong" %
          to_seq, "hold %r" % state["hold"])
    check(state["rolled_back"] == [{"from": len(target["log"]), "to": len(before["log"]),
                                    "seq": rollback_seq, "to_seq": to_seq}],
          "rolled_back %r" % state["rolled_back"])
    check(state["log"][:len(before["log"])] == before["log"] and
          len(state["log"]) == len(before["log"]) + 1, "the log keeps its entries")
    check(state["dice"]["next"] == before["dice"]["next"],
          "dice.next %r, before the rollback %r" % (state["dice"]["next"],
                                                     before["dice"]["next"]))
    table.fresh()
    # The journal: marked, not deleted.
    db = sqlite3.connect(os.path.join(server.tmp, "data", "brigade.sqlite"))
    rows = db.execute("SELECT seq, rolled_back FROM events WHERE game = ? ORDER BY seq, idx",
                      (table.game,)).fetchall()
    db.close()
    check(all(flag == (1 if to_seq < seq < rollback_seq else 0) for seq, flag in rows),
          "rolled_back flags %r" % rows)
    check(max(seq for seq, _ in rows) == rollback_seq, "rows up to the rollback")
    expect_error(table.ask("umpire", {"kind": "rollback", "to_seq": to_seq + 1,
                                      "reason": "x"}), "invalid_action")  # rolled back itself
    actor = state["awaiting"][0]
    expect_error(table.ask(actor, pick_action(state, actor)), "held")
    table.act("umpire", {"kind": "release", "reason": "measured again: 11 inches"})
    # Play on: the next rolls take new numbers.
    state = table.play_until(lambda s: s["dice"]["next"] > before["dice"]["next"])
    rolls = [e for e in state["log"] if e["kind"] == "roll"]
    check(rolls and rolls[-1]["seq"] > rollback_seq, "a roll after the rollback")
    # The journal replayed from seq 0, rolled-back rows and all, gives the
    # live state's snapshot hash; a restart rebuilds the same state.
    check_replayed_and_restarted(server, table)


def replay_hash(server, game):
    """`brigade replay --json`'s hash line of `game` (from seq 0)."""
    import json
    brigade = os.path.join(os.path.dirname(os.path.dirname(server.brigaded)), "client-cli",
                           "brigade")
    replay = subprocess.run([brigade, "replay", "--json", "--data",
                             os.path.join(server.tmp, "data"), "--game", game],
                            capture_output=True, text=True, timeout=30)
    check(replay.returncode == 0, "brigade replay: %s" % replay.stderr)
    return json.loads(replay.stdout.splitlines()[-1])


def live_hash(server, table):
    """The live state's snapshot hash, as `brigade state --json` gives it."""
    import json
    brigade = os.path.join(os.path.dirname(os.path.dirname(server.brigaded)), "client-cli",
                           "brigade")
    live = subprocess.run(
        [brigade, "state", "--json", "--server", "ws://127.0.0.1:%d" % server.port,
         "--game", table.game, "--token", table.seats["A"]],
        capture_output=True, text=True, timeout=30)
    check(live.returncode == 0, "brigade state: %s" % live.stderr)
    lines = [json.loads(line) for line in live.stdout.splitlines() if line.strip()]
    return [m for m in lines if m.get("hash")][-1]["hash"]


def case_umpire_rollback_nested(server, scenarios):
    """Two rollbacks, the second to before the first (PROTOCOL.md §10.2):
    the journal replayed in the order things happened gives the live state
    (brigade replay's hash), and so does a restart that must rebuild from
    seq 0 because the rollbacks' snapshots are gone."""
    import sqlite3
    table = table_with_melee(server, scenarios)
    # The first back to the action before the last, the second back to the
    # battle's first seq (turn 1's Initiative), before the first's.
    movement = table.seq - 1
    charge = 3
    check(charge < movement, "too few actions: %d" % table.seq)
    table.act("umpire", {"kind": "rollback", "to_seq": movement, "reason": "first look"})
    first = table.seq
    table.act("umpire", {"kind": "release", "reason": "go on"})
    table.play_until(lambda s: s["phase"] == "melee" or s["fought"] or s["turn"] > 1, limit=20)
    state = table.act("umpire", {"kind": "rollback", "to_seq": charge, "reason": "again"})
    for key in ("turn", "phase", "step", "units", "charges", "melees"):
        check(state[key] == table.by_seq[charge][key], "%s after the second rollback" % key)
    check(len(state["rolled_back"]) == 1 and state["rolled_back"][0]["to_seq"] == charge and
          state["rolled_back"][0]["from"] == len(table.by_seq[charge]["log"]),
          "the second rollback's range covers the first's: %r" % state["rolled_back"])
    check(any(e.get("ruling") == "rollback" and e["seq"] == first for e in state["log"]),
          "the first rollback is still in the log")
    table.act("umpire", {"kind": "release", "reason": "go on again"})
    table.play_until(lambda s: s["dice"]["next"] > state["dice"]["next"])
    live = table.fresh()
    got = replay_hash(server, table.game)
    check(got == {"type": "hash", "seq": table.seq, "hash": live_hash(server, table)},
          "brigade replay's hash differs from the live state's: %r" % got)
    for client in table.clients.values():
        client.close()
    # Without the rollbacks' snapshots the server rebuilds from seq 0.
    check(server.stop() == 0, "brigaded exit status")
    db = sqlite3.connect(os.path.join(server.tmp, "data", "brigade.sqlite"))
    db.execute("DELETE FROM snapshots WHERE game = ? AND seq >= ?", (table.game, first))
    db.commit()
    db.close()
    server.log = open(server.log_path, "ab")
    server.proc = None
    server.restart_after_stop()
    fresh = Client(server)
    welcome = join(fresh, table.game, table.seats["A"])
    fresh.close()
    check(welcome["seq"] == table.seq and welcome["state"] == live,
          "the state rebuilt from seq 0 differs from the live one")
    check(replay_hash(server, table.game) == got, "replay after the restart")


def case_umpire_end(server, scenarios):
    """The umpire ends the battle (a tournament's time limit, PROTOCOL.md
    §10.2): phase ended, the dice seed revealed in the same action, the log
    saying what each side has left; nothing more is accepted, and the
    export verifies."""
    table = Table(server, scenarios)
    table.play_until(lambda s: s["phase"] == "charge")
    expect_error(table.ask("A", {"kind": "end", "reason": "I win"}), "wrong_seat")
    state = table.act("umpire", {"kind": "end", "reason": "time is up: 3 hours"})
    check(state["phase"] == "ended" and state["awaiting"] == [] and state["hold"] is None,
          "ended: %s %r" % (state["phase"], state["awaiting"]))
    # Why, in the state (PROTOCOL.md §7.1 end): the umpire's reason.
    check(state["end"] == {"cause": "umpire", "reason": "time is up: 3 hours"},
          "end %r" % state.get("end"))
    check(state["dice"]["server_seed"] and len(state["dice"]["server_seed"]) == 64,
          "the seed is revealed: %r" % state["dice"])
    texts = [e["text"] for e in state["log"] if e["seq"] == table.seq]
    check(any("the umpire ends the battle: time is up: 3 hours" in t for t in texts) and
          any(t.startswith("the battle has ended: side A") for t in texts), "log %r" % texts)
    for who, action in (("umpire", {"kind": "note", "reason": "late"}),
                        ("umpire", {"kind": "rollback", "to_seq": 4, "reason": "undo"}),
                        ("A", {"kind": "done"})):
        expect_error(table.ask(who, action), "wrong_phase")
    brigade = os.path.join(os.path.dirname(os.path.dirname(server.brigaded)), "client-cli",
                           "brigade")
    exported = os.path.join(server.tmp, "ended.sqlite")
    for command in ([brigade, "export", "--data", os.path.join(server.tmp, "data"), "--game",
                     table.game, exported], [brigade, "verify", exported]):
        done = subprocess.run(command, capture_output=True, text=True, timeout=30)
        check(done.returncode == 0, "%s: %s %s" % (command[1], done.stdout, done.stderr))
    check(done.stdout.startswith("OK: "), "verify: %s" % done.stdout)


def case_umpire_end_result(server, scenarios):
    """The umpire ends the battle with a result (PROTOCOL.md §11.5): a
    result other than A, B or draw is refused with bad_message; a win for
    B is in state.end.result and said in the end's log entry (which carries
    it too); the journal replays to the live hash, and a restart rebuilds
    the same state."""
    table = Table(server, scenarios)
    table.play_until(lambda s: s["phase"] == "charge")
    expect_error(table.ask("umpire", {"kind": "end", "reason": "loss on time", "result": "C"}),
                 "bad_message")
    expect_error(table.ask("umpire", {"kind": "end", "reason": "loss on time", "result": ""}),
                 "bad_message")
    state = table.act("umpire", {"kind": "end", "reason": "loss on time", "result": "B"})
    check(state["phase"] == "ended", "ended: %s" % state["phase"])
    check(state["end"] == {"cause": "umpire", "reason": "loss on time", "result": "B"},
          "end %r" % state.get("end"))
    entries = [e for e in state["log"] if e["seq"] == table.seq and e["kind"] == "umpire_ruled"]
    check(len(entries) == 1 and
          entries[0]["text"] == "the umpire ends the battle: a win for side B (British) "
                                "(loss on time)" and
          entries[0]["ruling"] == "end" and entries[0]["result"] == "B", "log %r" % entries)
    welcome = check_replayed_and_restarted(server, table)
    check(welcome["state"]["end"]["result"] == "B", "no result after a restart")


def case_spec_frames_joins(server, scenarios):
    """PROTOCOL.md as a client written from it alone reads it (issue 10,
    point 6): a refused frame is answered with request 0 even when its
    request came before the fault (§2, §6.4); a join on a joined connection
    is answered anew for the same seat, refused with bad_message for
    another (§5.2); resumed.seat may be "umpire" (§6.6); a spectator's
    password to a game that has none is refused with bad_token (§5.2)."""
    c = Client(server)
    # {request: 7, type: "create", scenario: 1.0}: request first, then a float.
    c.ws.send(b"\x83\xa7request\x07\xa4type\xa6create\xa8scenario\xcb\x3f\xf0" + b"\x00" * 6)
    expect_error(c.recv(), "bad_frame", 0)
    # A frame that decodes echoes its request, whatever is wrong with it.
    c.ws.send_message({"request": 8, "type": "dance"})
    expect_error(c.recv(), "unknown_type", 8)
    c.ws.send_message({"request": 9, "type": "create", "scenario": "x", "colour": "red"})
    expect_error(c.recv(), "bad_message", 9)
    c.ws.send_message({"request": 0, "type": "dance"})
    expect_error(c.recv(), "unknown_type", 0)
    game, seats = create_game(c, scenarios)
    created = c.ask({"type": "create", "scenario": scenario_text(scenarios, "example_a.json")})
    # No spectator password: one given anyway is refused, for the spectator.
    watcher = Client(server)
    answer = watcher.ask({"type": "join", "game": game, "token": created["spectator"]})
    expect_error(answer, "bad_token")  # another game's spectator id
    spectator = c.ask({"type": "create", "scenario": scenario_text(scenarios, "example_a.json")})
    answer = watcher.ask({"type": "join", "game": spectator["game"],
                          "token": spectator["spectator"], "password": "letmein"})
    expect_error(answer, "bad_token")
    check(answer["message"].startswith("password:"), "the refusal names the password: %r" %
          answer["message"])
    welcome = watcher.ask({"type": "join", "game": spectator["game"],
                           "token": spectator["spectator"]})
    check(welcome.get("type") == "welcome" and welcome["seat"] == "spectator",
          "the spectator without a password: %r" % welcome.get("type"))
    watcher.close()
    # A player's seat ignores a password (§5.2), as before.
    player = Client(server)
    welcome = player.ask({"type": "join", "game": game, "token": seats["A"], "seed": seed(),
                          "password": "letmein"})
    check(welcome.get("type") == "welcome" and welcome["seat"] == "A", "player with a password")
    # The same seat again on the joined connection, with or without last_seq:
    # refused (one welcome a connection), and the connection stays joined.
    expect_error(player.ask({"type": "join", "game": game, "token": seats["A"], "seed": seed()}),
                 "bad_message")
    expect_error(player.ask({"type": "join", "game": game, "token": seats["A"],
                             "last_seq": welcome["seq"]}), "bad_message")
    # Another seat, or another game, on it: bad_message, and it stays joined to A.
    expect_error(player.ask({"type": "join", "game": game, "token": seats["B"], "seed": seed()}),
                 "bad_message")
    expect_error(player.ask({"type": "join", "game": created["game"],
                             "token": created["seats"]["A"], "seed": seed()}), "bad_message")
    # The umpire resumes as seat "umpire" (§6.6), its own deltas after.
    umpire = Client(server)
    welcome = umpire.ask({"type": "join", "game": game, "token": seats["umpire"]})
    check(welcome.get("type") == "welcome" and welcome["seat"] == "umpire", "umpire welcome")
    player.recv()  # the umpire's seating
    umpire.close()
    umpire = Client(server)
    answer = umpire.ask({"type": "join", "game": game, "token": seats["umpire"],
                         "last_seq": welcome["seq"]})
    check(answer.get("type") == "resumed" and answer["seat"] == "umpire" and
          answer["from"] == welcome["seq"] and answer["seq"] == welcome["seq"],
          "the umpire's resumed: %r" % answer)
    umpire.close()
    player.close()
    c.close()


def case_spec_refusals(server, scenarios):
    """The refusals of §5.3 and §6.4 as PROTOCOL.md words them (issue 10,
    point 6): the other side's unit is wrong_seat; a status or formation
    name the rules do not know is bad_message; choose_initiative is the
    whole of its step (a done in step choose is wrong_phase; a done after
    it is the Mandatory moves' own); adjust after the seat's done is
    wrong_seat; in step respond the answer to the seat's last charge ends
    its part (side.done) and a done there is wrong_phase."""
    table = Table(server, scenarios, "village.json")
    state = table.states["A"]
    check(state["phase"] == "initiative" and state["step"] == "choose", "initiative/choose")
    winner = state["awaiting"][0]
    loser = "B" if winner == "A" else "A"
    expect_error(table.ask(winner, {"kind": "done"}), "wrong_phase")
    expect_error(table.ask(loser, {"kind": "choose_initiative", "phasing": "A"}), "wrong_seat")
    state = table.act(winner, {"kind": "choose_initiative", "phasing": "A"})
    check(state["phase"] == "mandatory_moves" and state["step"] == "report" and
          sorted(state["awaiting"]) == ["A", "B"] and
          not state["sides"]["A"]["done"] and not state["sides"]["B"]["done"],
          "choose_initiative ends the Initiative phase: %s/%s %r" % (
              state["phase"], state["step"], state["awaiting"]))
    # Names that are not one of §7.1's: bad_message; a known formation the
    # unit's type may not take stays invalid_action.
    for bad in ({"status": "routed"}, {"status": "Normal"}, {"formation": "blob"}):
        expect_error(table.ask("A", dict({"kind": "adjust", "unit": "ligne_1", "note": "x"},
                                         **bad)), "bad_message")
    expect_error(table.ask("umpire", {"kind": "umpire_adjust", "unit": "ligne_1",
                                      "status": "routed", "reason": "x"}), "bad_message")
    expect_error(table.ask("A", {"kind": "adjust", "unit": "chasseurs", "formation": "square",
                                 "note": "x"}), "invalid_action")
    table.act("A", {"kind": "done"})
    answer = table.ask("A", {"kind": "adjust", "unit": "ligne_1", "figures": 1, "note": "x"})
    expect_error(answer, "wrong_seat")
    table.act("B", {"kind": "done"})
    state = table.states["A"]
    check(state["phase"] == "charge" and state["step"] == "declare" and
          state["awaiting"] == ["A"], "charge/declare for A: %r" % state["awaiting"])
    # The other side's unit: wrong_seat, in a declaration and in an answer.
    expect_error(table.ask("A", {"kind": "declare_charge", "unit": "light_dragoons",
                                 "target": "chasseurs", "facing": "front"}), "wrong_seat")
    table.act("A", {"kind": "declare_charge", "unit": "chasseurs", "target": "square",
                    "facing": "front"})
    table.act("A", {"kind": "done"})
    expect_error(table.ask("B", {"kind": "declare_charge", "unit": "ligne_1",
                                 "target": "square", "facing": "front"}), "wrong_seat")
    table.act("B", {"kind": "declare_charge", "unit": "light_dragoons", "target": "ligne_2",
                    "facing": "front"})
    state = table.act("B", {"kind": "done"})
    check(state["step"] == "respond" and sorted(state["awaiting"]) == ["A", "B"],
          "both sides answer: %s %r" % (state["step"], state["awaiting"]))
    expect_error(table.ask("B", {"kind": "done"}), "wrong_phase")
    expect_error(table.ask("B", {"kind": "respond", "unit": "ligne_2", "response": "stand"}),
                 "wrong_seat")
    state = table.act("B", {"kind": "respond", "unit": "square", "response": "stand"})
    check(state["step"] == "respond" and state["awaiting"] == ["A"] and
          state["sides"]["B"]["done"], "B's last answer ends its part: %r %r" % (
              state["awaiting"], state["sides"]))
    expect_error(table.ask("B", {"kind": "done"}), "wrong_phase")
    expect_error(table.ask("A", {"kind": "done"}), "wrong_phase")
    state = table.act("A", {"kind": "respond", "unit": "ligne_2", "response": "stand"})
    check(state["phase"] != "charge", "the last answer ends the Charge phase: %s" %
          state["phase"])
    table.fresh()


def case_spec_melee_rolls(server, scenarios):
    """§7.1's roll names: a melee fought again in a later turn rolls under
    that turn and its number (melee T1.M1 in turn 2: T2.M1.<unit>), its id
    unchanged. The umpire's draw keeps the melee in contact."""
    table = table_with_melee(server, scenarios)
    fought = table.states["A"]["fought"][0]
    melee = fought["melee"]
    check(re.fullmatch(r"T1\.M\d+", melee), "melee id %r" % melee)
    number = melee.split(".M", 1)[1]
    state = table.act("umpire", {"kind": "overrule", "melee": melee, "result": "draw",
                                 "reason": "both held their ground"})
    check([m["id"] for m in state["melees"]] == [melee], "melees %r" % state["melees"])
    if state["hold"]:
        table.act("umpire", {"kind": "release", "reason": "go on"})
    state = table.play_until(lambda s: s["turn"] == 2 and s["phase"] == "morale", limit=80)
    rolls = [e["name"] for e in state["log"] if e["kind"] == "roll" and e["turn"] == 2]
    # With dice every unit rolls T2.M<n>.<unit>; a round settled without
    # dice (a unit that failed its morale test by 3 retreats, 12.13) rolls
    # only the winners' tests, T2.M<n>.<unit>.pursuit or .reform.
    melee_rolls = [name for name in rolls if ".M" in name]
    check(melee_rolls and all(name.startswith("T2.M%s." % number) for name in melee_rolls),
          "turn 2 rolls %r" % rolls)
    if not any(name.endswith((".pursuit", ".reform")) for name in melee_rolls):
        for unit in fought["units"]:
            check("T2.M%s.%s" % (number, unit) in rolls, "turn 2 rolls %r" % rolls)
    check(not any(name.startswith(melee + ".") for name in rolls), "turn 2 rolls %r" % rolls)
    resolved = [e for e in state["log"] if e["kind"] == "melee_resolved" and e["turn"] == 2]
    check(resolved and all(e["melee"] == melee for e in resolved),
          "the id stays %s: %r" % (melee, resolved))


def dones_until(table, done, limit=40):
    """Ends each step with the awaited seats' done (the winner of the
    initiative lets A move first) until done(state)."""
    for _ in range(limit):
        state = table.states["A"]
        if done(state):
            return state
        awaited = [seat for seat in ("A", "B") if seat in state["awaiting"]]
        check(awaited, "nobody awaited in %s/%s" % (state["phase"], state["step"]))
        if state["step"] == "choose":
            table.act(awaited[0], {"kind": "choose_initiative", "phasing": "A"})
        else:
            table.act(awaited[0], {"kind": "done"})
    raise Failure("not reached in %d actions: %s/%s" % (limit, table.states["A"]["phase"],
                                                        table.states["A"]["step"]))


def case_reports(server, scenarios):
    """The reports of D34-D46 over the wire (PROTOCOL.md §5.3, §7.1): a
    reform contested by the other side waits for the umpire's ruling, in
    step settle once both are done; upheld, the unit is formed when the
    Movement phase ends and state.reports goes away. Refusals on the way."""
    t = Table(server, scenarios)
    dones_until(t, lambda s: s["phase"] == "mandatory_moves" and s["step"] == "report")
    t.act("A", {"kind": "adjust", "unit": "hussars", "formed": False, "note": "crossed a hedge"})
    expect_error(t.ask("A", {"kind": "reform", "unit": "hussars"}), "wrong_phase")
    state = dones_until(t, lambda s: s["phase"] == "movement" and s["step"] == "report")
    check("reports" not in state, "reports before any report: %r" % state.get("reports"))
    expect_error(t.ask("B", {"kind": "reform", "unit": "hussars"}), "wrong_seat")
    expect_error(t.ask("umpire", {"kind": "reform", "unit": "hussars"}), "wrong_seat")
    expect_error(t.ask("A", {"kind": "rule", "report": 1, "upheld": True, "reason": "x"}),
                 "wrong_seat")
    expect_error(t.ask("A", {"kind": "rally", "unit": "hussars"}), "wrong_phase")
    expect_error(t.ask("A", {"kind": "reform", "unit": "nobody"}), "unknown_unit")
    expect_error(t.ask("A", {"kind": "reform", "unit": "hussars", "note": "x"}), "bad_message")
    expect_error(t.ask("B", {"kind": "contest", "report": 0, "reason": "x"}), "bad_message")

    state = t.act("A", {"kind": "reform", "unit": "hussars"})
    check(state.get("reports") == [{"number": 1, "kind": "reform", "side": "A",
                                    "unit": "hussars", "target": None, "facing": "front",
                                    "state": "stands", "contested": False, "contest": None,
                                    "ruling": None}], "reports %r" % state.get("reports"))
    entry = state["log"][-1]
    check(entry["kind"] == "reported" and entry["number"] == 1 and entry["report"] == "reform"
          and entry["unit"] == "hussars" and entry["text"], "reported entry %r" % entry)
    expect_error(t.ask("A", {"kind": "reform", "unit": "hussars"}), "invalid_action")
    expect_error(t.ask("A", {"kind": "contest", "report": 1, "reason": "mine"}),
                 "invalid_action")
    expect_error(t.ask("B", {"kind": "accept", "report": 1}), "invalid_action")
    expect_error(t.ask("umpire", {"kind": "rule", "report": 1, "upheld": True,
                                  "reason": "nothing contested"}), "invalid_action")

    state = t.act("B", {"kind": "contest", "report": 1, "reason": "still in the hedge"})
    report = state["reports"][0]
    check(report["state"] == "awaits_umpire" and report["contested"]
          and report["contest"] == "still in the hedge", "contested report %r" % report)
    entry = state["log"][-1]
    check(entry["kind"] == "report_answered" and entry["contested"]
          and entry["state"] == "awaits_umpire", "contest entry %r" % entry)
    t.act("A", {"kind": "done"})
    state = t.act("B", {"kind": "done"})
    check(state["phase"] == "movement" and state["step"] == "settle" and state["awaiting"] == [],
          "after both done: %s/%s %r" % (state["phase"], state["step"], state["awaiting"]))
    answer = t.ask("A", {"kind": "done"})
    check(answer.get("type") == "error", "done in settle: %r" % answer)
    t.fresh()

    state = t.act("umpire", {"kind": "rule", "report": 1, "upheld": True,
                             "reason": "measured: clear of the hedge"})
    ruled = [e for e in state["log"] if e["kind"] in ("umpire_ruled", "report_answered")][-2:]
    check([e["kind"] for e in ruled] == ["umpire_ruled", "report_answered"]
          and ruled[0]["ruling"] == "rule" and ruled[1]["state"] == "upheld",
          "ruling entries %r" % ruled)
    check(state["hold"] is None, "the umpire's rule held the game: %r" % state["hold"])
    check(state["phase"] == "fire", "after the ruling: %s/%s" % (state["phase"], state["step"]))
    check(state["units"]["hussars"]["formed"], "hussars not reformed: %r"
          % state["units"]["hussars"])
    check("reports" not in state, "reports left after the phase: %r" % state.get("reports"))
    check_state(state, t.game)
    t.fresh()


def case_presence(server, scenarios):
    """PROTOCOL.md §6.8: each seat and the umpire hear who is joined, at
    every join and leave of a seat; a second client on a seat is counted."""
    c = Client(server)
    game, seats = create_game(c, scenarios)
    c.close()
    a = Client(server)
    join(a, game, seats["A"])
    def last(client, count=1):
        deadline = time.time() + 5
        while len(client.ws.presences) < count and time.time() < deadline:
            client.ws.sock.settimeout(max(0.05, deadline - time.time()))
            try:
                client.ws.recv_message()
            except (socket.timeout, TimeoutError):
                break
            finally:
                client.ws.sock.settimeout(10)
        check(len(client.ws.presences) >= count, "%d presence messages, not %d: %r" %
              (len(client.ws.presences), count, client.ws.presences))
        message = client.ws.presences[count - 1]
        check(message["game"] == game and set(message) == {"type", "game", "seats"},
              "presence %r" % message)
        return message["seats"]
    check(last(a, 1) == {"A": 1, "B": 0, "umpire": 0}, "A alone: %r" % a.ws.presences)
    b = Client(server)
    join(b, game, seats["B"])
    check(last(a, 2) == {"A": 1, "B": 1, "umpire": 0}, "B came: %r" % a.ws.presences)
    check(last(b, 1) == {"A": 1, "B": 1, "umpire": 0}, "B's own: %r" % b.ws.presences)
    b.close()
    check(last(a, 3) == {"A": 1, "B": 0, "umpire": 0}, "B dropped: %r" % a.ws.presences)
    again = Client(server)
    join(again, game, seats["A"])
    check(last(a, 4) == {"A": 2, "B": 0, "umpire": 0}, "a second client on A: %r" %
          a.ws.presences)
    umpire = Client(server)
    umpire.ask({"type": "join", "game": game, "token": seats["umpire"]})
    check(last(a, 5)["umpire"] == 1, "the umpire came: %r" % a.ws.presences)
    for client in (a, again, umpire):
        client.close()


CASES = {
    "reports": case_reports,
    "spec_frames_joins": case_spec_frames_joins,
    "spec_refusals": case_spec_refusals,
    "spec_melee_rolls": case_spec_melee_rolls,
    "umpire_end": case_umpire_end,
    "umpire_end_result": case_umpire_end_result,
    "presence": case_presence,
    "umpire_rollback_nested": case_umpire_rollback_nested,
    "umpire_overrule": case_umpire_overrule,
    "umpire_rollback": case_umpire_rollback,
    "umpire_hold": case_umpire_hold,
    "umpire_seat": case_umpire_seat,
    "spectator_delay": case_spectator_delay,
    "spectator_read_only": case_spectator_read_only,
    "garbage": case_garbage,
    "malformed": case_malformed,
    "too_large_error": case_too_large,
    "bad_messages": case_bad_messages,
    "play": case_play,
    "play_village": lambda server, scenarios: case_play(server, scenarios, "village.json"),
    "shutdown_joined": case_shutdown,
}


# Options some cases need: the garbage case sends 1,500 frames at once
# (its subject is the decoder, not the message rate; limits_flow.py tests
# the rates).
SERVER_OPTIONS = {"garbage": ["--rate-messages", "0"]}


def main():
    name, brigaded, scenarios = case_arguments("game_flow.py", CASES)
    server = Server(brigaded, SERVER_OPTIONS.get(name, ()))
    return run_case(name, server, CASES[name], scenarios, log_tail=None,
                    exit_zero=name != "shutdown_joined", counts=True)


if __name__ == "__main__":
    sys.exit(main())
