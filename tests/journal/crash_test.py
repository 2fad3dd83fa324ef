#!/usr/bin/env python3
"""tests/journal/crash_test.py: durable games end to end (issue 4): the real
brigaded with a --data folder that outlives it, real `brigade play --json`
players that reconnect by themselves, and kill -9.

    crash_test.py CASE --brigaded B --brigade C --scenarios DIR --wire DIR

Cases:
  charge        kill -9 in the Charge phase, right after a declaration was
                acked; restart; both players reconnect and play on.
  melee         kill -9 in the Melee phase, while the sappers' re-roll
                (12.10) is awaited; restart; the owner re-rolls.
  after_commit  the server kills itself (test hook BRIGADE_TEST_CRASH=
                after-commit:N) between the commit of a charge and its ack
                and delta; restart; the charging player sends the charge
                again with its request id and gets the first answer; the
                charge is in the game once.
  sigterm       SIGTERM: exit 0, the players see 1001, nothing committed is
                lost; restart; the players resume.
  damaged       a corrupted event row and a truncated journal file: the
                server reports them at start, the damaged game cannot be
                joined (unknown_game, "damaged"), every other game still
                loads; `brigade replay` reports the damage.
  resume        the wire (tests/server/brigade_wire.py, no CLI): a join
                with last_seq gets `resumed` and exactly the deltas missed;
                an act repeated after the reconnection gets its first ack
                and no second delta; the same request id with another
                action is refused with bad_message.

Every crash case ends with the same checks: nothing lost, nothing doubled
(the server's seq is the number of actions acked, each charge acked is in
the log once) and one state everywhere (both players, a fresh `brigade
state`, and `brigade replay` of the journal after the server stopped hold
the same seq and snapshot hash).
"""
import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from e2e_support import (Failure, Processes, check, join_players, on_table,  # noqa: E402
                         rally_changes)
sys.path.insert(0, os.path.join(HERE, "..", "server"))
import game_flow as flow  # noqa: E402

MAX_TURNS = 20

SAPPERS_SCENARIO = {
    "title": "Sappers at the church (crash test)",
    "sides": {"A": {"name": "French"}, "B": {"name": "Austrians"}},
    "units": [
        {"id": "col", "side": "A", "name": "Column", "type": "infantry", "class": "line",
         "figures": 24, "formation": "column", "sappers": True},
        {"id": "church", "side": "B", "name": "Church", "type": "infantry", "class": "line",
         "figures": 18, "terrain": "bua", "defending": "fortified"},
    ],
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """brigaded on a fixed port with a --data folder that outlives it, so
    that it can be killed and started again where the players look."""

    def __init__(self, processes, brigaded):
        self.processes = processes
        self.brigaded = brigaded
        self.port = free_port()
        self.url = "ws://127.0.0.1:%d" % self.port
        self.data = os.path.join(processes.folder, "data")
        self.process = None
        self.runs = 0
        self.logs = []

    def start(self, env_extra=None):
        self.runs += 1
        log_path = os.path.join(self.processes.folder, "server-%d.log" % self.runs)
        self.logs.append(log_path)
        env = dict(os.environ)
        env.pop("BRIGADE_TEST_CRASH", None)
        env.update(env_extra or {})
        log = open(log_path, "wb")
        deadline = time.time() + 10
        while True:
            self.process = self.processes.spawn(
                [self.brigaded, "--port", str(self.port), "--listen", "127.0.0.1",
                 "--data", self.data], stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT, env=env)
            while time.time() < deadline:
                if re.search(r"listening on http://", self.log()):
                    log.close()
                    return
                if self.process.poll() is not None:
                    break
                time.sleep(0.05)
            if "in use" in self.log() and time.time() < deadline:
                time.sleep(0.2)  # the killed server's port, not free yet
                continue
            log.close()
            raise Failure("brigaded did not start: %s" % self.log())

    def log(self, run=None):
        path = self.logs[-1 if run is None else run - 1]
        with open(path, "rb") as handle:
            return handle.read().decode(errors="replace")

    def kill9(self):
        self.process.kill()
        self.process.wait()

    def wait_death(self, timeout=20):
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise Failure("brigaded did not kill itself: %s" % self.log())

    def stop(self):
        self.process.terminate()
        try:
            status = self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            raise Failure("brigaded did not stop within 15 s of SIGTERM")
        check(status == 0, "brigaded exited %d after SIGTERM: %s" % (status, self.log()))


def brigade(args, *argv, expect=0):
    done = subprocess.run([args.brigade] + list(argv), capture_output=True, text=True,
                          timeout=60)
    if expect is not None:
        check(done.returncode == expect, "brigade %s: exit %d (expected %d): %s" %
              (" ".join(argv[:1]), done.returncode, expect, done.stderr))
    return done


def new_game(args, server, scenario_path):
    done = brigade(args, "new", "--json", "--server", server.url, scenario_path)
    return json.loads(done.stdout)


def scenario_file(args, processes, name):
    if name == "sappers":
        path = os.path.join(processes.folder, "sappers.json")
        with open(path, "w") as handle:
            json.dump(SAPPERS_SCENARIO, handle)
        return path
    return os.path.join(args.scenarios, name)


# ------------------------------------------------------------- the players

class Table:
    """Two players of one game and what the driver has seen acked."""

    def __init__(self, args, processes, server, created, charger, target, sappers=False):
        self.game = created["game"]
        self.tokens = created["seats"]
        self.players, self.strength, welcome = join_players(processes, args.brigade, server,
                                                            created, timeout=30)
        self.charger, self.target, self.sappers = charger, target, sappers
        self.acked = set()        # every seq an ack named
        self.charges_acked = 0    # charge commands acked
        self.seq = welcome["seq"]
        self.refused_this_turn = set()
        self.turn = 0

    def sync(self):
        """Both players hold the server's last acked seq; A's state."""
        for player in self.players.values():
            player.wait("seq=%d" % self.seq)
        return self.players["A"].state()["state"]

    def act(self, seat, line):
        answer = self.players[seat].act(line)
        if answer.get("type") == "ack":
            self.acked.add(answer["seq"])
            self.seq = max(self.seq, answer["seq"])
            if line.startswith("charge "):
                self.charges_acked += 1
        return answer

    def rally_line(self, state, seat):
        for uid, unit in sorted(state["units"].items()):
            if not on_table(unit, seat) or uid in self.refused_this_turn:
                continue
            changes = rally_changes(unit, self.strength[uid])
            if changes:
                return uid, "adjust %s %s note=\"rallied (crash test)\"" % (uid, " ".join(changes))
        return None, None

    def step(self, state):
        """One action of the awaited seat, chosen from the state."""
        check(state["phase"] != "ended", "the game ended: %s" % state["log"][-3:])
        check(state["awaiting"], "nothing awaited in %s/%s" % (state["phase"], state["step"]))
        if state["turn"] != self.turn:
            self.turn = state["turn"]
            self.refused_this_turn = set()
        seat = state["awaiting"][0]
        phase, step = state["phase"], state["step"]
        if step == "choose":
            line = "initiative A"
        elif step == "report" and phase == "mandatory_moves":
            uid, line = self.rally_line(state, seat)
            if line:
                if self.act(seat, line).get("type") != "ack":
                    self.refused_this_turn.add(uid)
                return
            line = "done"
        elif step == "declare":
            charged = any(c["unit"] == self.charger for c in state["charges"])
            if seat == "A" and not charged and "charge" not in self.refused_this_turn:
                line = "charge %s %s front%s" % (self.charger, self.target,
                                                 " sappers" if self.sappers else "")
                if self.act(seat, line).get("type") != "ack":
                    self.refused_this_turn.add("charge")
                return
            line = "done"
        elif step == "respond":
            line = "respond %s stand" % self.target
        elif step == "reroll":
            line = "reroll %s 0" % self.charger
        else:
            line = "done"
        answer = self.act(seat, line)
        check(answer.get("type") == "ack", "%s: '%s' refused: %s" % (seat, line, answer))

    def play_until(self, condition, what):
        state = None
        for _ in range(MAX_TURNS * 40):
            state = self.sync()
            if condition(state):
                return state
            if state["turn"] > MAX_TURNS:
                break
            self.step(state)
        raise Failure("never reached: %s; at turn %s %s/%s, units %s, last log: %s" % (
            what, state["turn"], state["phase"], state["step"], state["units"],
            [e.get("text") for e in state["log"][-12:]]))

    def reconnected(self, seats=("A", "B")):
        for seat in seats:
            notice = self.players[seat].next_of(("reconnected",), timeout=30)
            check(notice["seq"] >= 0, "reconnected: %s" % notice)

    def check_one_state(self, args, server):
        """Nothing lost, nothing doubled, one state everywhere (see the top)."""
        state = self.sync()
        # seqs 1 and 2 are the players' dice seeds (their first joins).
        check(self.seq == len(self.acked) + 2 and self.acked == set(range(3, self.seq + 1)),
              "acked seqs %s for %d actions" % (sorted(self.acked), self.seq))
        declared = [e for e in state["log"] if e.get("kind") == "charge_declared"]
        check(len(declared) == self.charges_acked,
              "%d charges acked, %d in the log" % (self.charges_acked, len(declared)))
        hashes = {seat: player.hash() for seat, player in self.players.items()}
        for seat, answer in hashes.items():
            check(answer["seq"] == self.seq, "player %s at seq %d, not %d" %
                  (seat, answer["seq"], self.seq))
        check(hashes["A"]["hash"] == hashes["B"]["hash"], "the players' hashes differ")
        fresh = json.loads(brigade(args, "state", "--json", "--server", server.url, "--game",
                                   self.game, "--token", self.tokens["A"]).stdout)
        check(fresh["seq"] == self.seq and fresh["hash"] == hashes["A"]["hash"],
              "the server's state (seq %d, %s) is not the players' (seq %d, %s)" %
              (fresh["seq"], fresh["hash"], self.seq, hashes["A"]["hash"]))
        return hashes["A"]["hash"]

    def quit(self):
        for seat, player in self.players.items():
            status = player.quit()
            check(status == 0, "player %s exited %d: %s" % (seat, status, player.errors[-5:]))


def check_replay(args, server, game, seq, digest):
    """The journal replayed from seq 0 gives the live state's hash."""
    done = brigade(args, "replay", "--json", "--data", server.data, "--game", game)
    last = json.loads(done.stdout.splitlines()[-1])
    check(last == {"type": "hash", "seq": seq, "hash": digest},
          "replay ends with %s, the game is at seq %d %s" % (last, seq, digest))
    text = brigade(args, "replay", "--data", server.data, "--game", game).stdout
    check("seq %d, snapshot hash %s" % (seq, digest) in text, "replay text: %s" % text[-300:])
    return text


def at_next_turn(turn):
    return lambda s: s["turn"] > turn and s["phase"] == "mandatory_moves"


def charge_declared_by_a(s):
    return s["phase"] == "charge" and s["step"] == "declare" and s["awaiting"] == ["A"]


def example_a_table(args, processes):
    """A server started and a game of example A at its table (the hussars
    charge the dragoons): (server, created, table)."""
    server = Server(processes, args.brigaded)
    server.start()
    created = new_game(args, server, scenario_file(args, processes, "example_a.json"))
    return server, created, Table(args, processes, server, created, "hussars", "dragoons")


def play_on_and_replay(args, server, table, turn):
    """Plays into the turn after `turn`, checks the one state, stops the
    server and replays the journal to the table's seq."""
    table.play_until(at_next_turn(turn), "the next turn")
    digest = table.check_one_state(args, server)
    table.quit()
    server.stop()
    check_replay(args, server, table.game, table.seq, digest)


# ------------------------------------------------------------------ cases

def case_charge(args, processes):
    server, created, table = example_a_table(args, processes)
    state = table.play_until(charge_declared_by_a, "the Charge phase")
    table.step(state)  # the declaration
    check(table.charges_acked == 1, "the charge was not acked")
    state = table.sync()
    check(state["phase"] == "charge", "not in the Charge phase: %s" % state["phase"])
    server.kill9()
    server.start()
    check(re.search(r"1 game\(s\) rebuilt, 0 damaged", server.log()), server.log())
    table.reconnected()
    turn = state["turn"]
    play_on_and_replay(args, server, table, turn)


def case_melee(args, processes):
    server = Server(processes, args.brigaded)
    server.start()
    # The sappers' choice is asked only when the charge comes to a melee
    # fought with dice; a game in which the column lost its sappers
    # without being asked (a melee settled without dice) is left for a new
    # one.
    for attempt in range(10):
        created = new_game(args, server, scenario_file(args, processes, "sappers"))
        table = Table(args, processes, server, created, "col", "church", sappers=True)
        state = table.play_until(
            lambda s: (s["phase"] == "melee" and s["step"] == "reroll")
            or not s["units"]["col"]["sappers"],
            "the Melee phase awaiting the sappers' choice")
        if state["phase"] == "melee":
            break
        table.quit()
    else:
        raise Failure("no game of 10 came to the sappers' choice")
    server.kill9()
    server.start()
    table.reconnected()
    state = table.sync()
    check(state["phase"] == "melee" and state["step"] == "reroll",
          "after the restart: %s/%s" % (state["phase"], state["step"]))
    table.step(state)  # the re-roll: the melee is fought
    table.play_until(at_next_turn(state["turn"]), "the next turn")
    digest = table.check_one_state(args, server)
    rolls = [e for e in table.sync()["log"] if e.get("kind") == "roll"
             and str(e.get("name", e.get("roll", ""))).endswith("col.reroll")]
    check(len(rolls) == 1, "the sappers' re-roll should be rolled once: %s" % rolls)
    table.quit()
    server.stop()
    text = check_replay(args, server, table.game, table.seq, digest)
    check(".col.reroll" in text, "the replay shows the re-roll")


def case_after_commit(args, processes):
    server, created, table = example_a_table(args, processes)
    state = table.play_until(charge_declared_by_a, "the Charge phase")
    # A server that dies after committing its next action: the charge.
    seq_before = table.seq
    table.quit()
    server.stop()
    server.start({"BRIGADE_TEST_CRASH": "after-commit:1"})
    table = Table(args, processes, server, created, "hussars", "dragoons")
    table.seq = seq_before
    table.acked = set(range(3, seq_before + 1))  # 1, 2: the dice seeds
    table.players["A"].send("charge hussars dragoons front")
    status = server.wait_death()
    check(status != 0 and "SIGKILL after commit 1" in server.log(),
          "the test hook did not fire: %d %s" % (status, server.log()))
    server.start()
    table.reconnected()
    answer = table.players["A"].next_of(("ack", "error"), timeout=30)
    check(answer.get("type") == "ack" and answer["seq"] == seq_before + 1,
          "the repeated charge should get its first ack (seq %d): %s" % (seq_before + 1, answer))
    check("repeated, answered again" in server.log(), "server log: %s" % server.log())
    table.acked.add(answer["seq"])
    table.seq = answer["seq"]
    table.charges_acked = 1
    play_on_and_replay(args, server, table, state["turn"])


def case_sigterm(args, processes):
    server, created, table = example_a_table(args, processes)
    table.play_until(lambda s: s["phase"] == "charge", "the Charge phase")
    server.stop()
    for seat, player in table.players.items():
        notice = player.next_of(("reconnecting",), timeout=20)
        check("1001" in notice["reason"], "player %s: %s" % (seat, notice))
    check("stopped" in server.log(), server.log())
    server.start()
    table.reconnected()
    play_on_and_replay(args, server, table, 1)


def case_damaged(args, processes):
    server = Server(processes, args.brigaded)
    server.start()
    path = scenario_file(args, processes, "example_a.json")
    games = [new_game(args, server, path) for _ in range(3)]
    # One action in each: the initiative winner chooses.
    for created in games:
        for seat in ("A", "B"):
            done = subprocess.run([args.brigade, "play", "--json", "--server", server.url,
                                   "--game", created["game"], "--token",
                                   created["seats"][seat]],
                                  input="initiative A\n", capture_output=True, text=True,
                                  timeout=30)
            if done.returncode == 0:
                break
    server.stop()
    bad = games[1]["game"]
    db = sqlite3.connect(os.path.join(server.data, "brigade.sqlite"))
    row = db.execute("SELECT body FROM events WHERE game = ? AND seq = 1 AND idx = 0",
                     (bad,)).fetchone()
    body = bytearray(row[0])
    body[2] ^= 0x55
    db.execute("UPDATE events SET body = ? WHERE game = ? AND seq = 1 AND idx = 0",
               (bytes(body), bad))
    db.commit()
    db.close()

    server.start()
    log = server.log()
    check("game %s is damaged in the journal" % bad in log and "checksum mismatch" in log, log)
    check("2 game(s) rebuilt, 1 damaged" in log, log)
    refused = brigade(args, "state", "--server", server.url, "--game", bad, "--token",
                      games[1]["seats"]["A"], expect=1)
    check("damaged" in refused.stderr, "joining the damaged game: %s" % refused.stderr)
    for created in (games[0], games[2]):
        brigade(args, "state", "--server", server.url, "--game", created["game"], "--token",
                created["seats"]["A"])
    replay = brigade(args, "replay", "--data", server.data, "--game", bad, expect=1)
    check("damaged" in replay.stderr and "checksum" in replay.stderr, replay.stderr)
    listing = brigade(args, "replay", "--data", server.data).stdout
    check(bad in listing and "damaged" in listing, listing)
    server.stop()

    # The file cut short: detected at start, moved aside, what is readable
    # recovered; the server runs and every game is loaded or reported.
    db_path = os.path.join(server.data, "brigade.sqlite")
    size = os.path.getsize(db_path)
    with open(db_path, "r+b") as handle:
        handle.truncate(size - 4096)
    server.start()
    log = server.log()
    check("the journal file was damaged" in log and "moved to" in log, log)
    check(any(name.startswith("brigade.sqlite.damaged-") for name in os.listdir(server.data)),
          "the damaged file was not kept: %s" % os.listdir(server.data))
    for created in games:
        done = brigade(args, "state", "--server", server.url, "--game", created["game"],
                       "--token", created["seats"]["A"], expect=None)
        check(done.returncode == 0 or (done.returncode == 1 and
                                       ("damaged" in done.stderr or "no game" in done.stderr)),
              "after the truncation, game %s: exit %d %s" % (created["game"], done.returncode,
                                                            done.stderr))
    server.stop()


def case_resume(args, processes):
    server = Server(processes, args.brigaded)
    server.start()
    with open(scenario_file(args, processes, "example_a.json")) as handle:
        scenario = handle.read()

    def connect(first_request):
        return flow.Client(server, first_request)

    maker = connect(0)
    maker.send({"type": "create", "scenario": scenario})
    created = maker.recv()
    check(created["type"] == "created", "create: %r" % created)
    game, seats = created["game"], created["seats"]
    maker.ws.close()

    conns = {}
    for seat in ("A", "B"):
        conns[seat] = connect(100)
        conns[seat].send({"type": "join", "game": game, "token": seats[seat],
                         "seed": os.urandom(32).hex()})
        welcome = conns[seat].recv()
        # Seqs 1 and 2: A's and B's dice seeds; B's begins the battle.
        check(welcome["type"] == "welcome" and welcome["seq"] == (1 if seat == "A" else 2),
              "join: %r" % welcome)
    started = conns["A"].recv()
    check(started["type"] == "delta" and started["seq"] == 2, "the start: %r" % started)
    winner = welcome["state"]["awaiting"][0]

    def act(seat, action, request=None):
        message = {"type": "act", "action": action}
        if request is not None:
            message["request"] = request
        request = conns[seat].send(message)
        answer = conns[seat].recv()
        check(answer.get("request") == request, "answer %r to %d" % (answer, request))
        return answer

    deltas = {}  # seq -> the delta seat A received

    def take_delta(seat, seq):
        delta = conns[seat].recv()
        check(delta["type"] == "delta" and delta["seq"] == seq, "delta %d: %r" % (seq, delta))
        if seat == "A":
            deltas[seq] = delta
        return delta

    answer = act(winner, {"kind": "choose_initiative", "phasing": "A"})
    check(answer == {"type": "ack", "request": answer["request"], "seq": 3}, "%r" % answer)
    for seat in ("A", "B"):
        take_delta(seat, 3)

    # B drops; A reports and is done (two actions); B comes back with
    # last_seq 1: resumed, then exactly the deltas of seq 2 and 3, the
    # same as A got.
    conns["B"].ws.close()
    actions = [{"kind": "adjust", "unit": "hussars", "formed": True, "note": "resume test"},
               {"kind": "done"}]
    for seq, action in zip((4, 5), actions):
        answer = act("A", action)
        check(answer.get("seq") == seq, "A's action %r: %r" % (action, answer))
        take_delta("A", seq)
    conns["B"] = connect(200)
    request = conns["B"].send({"type": "join", "game": game, "token": seats["B"],
                               "last_seq": 3, "seed": os.urandom(32).hex()})
    resumed = conns["B"].recv()
    check(resumed == {"type": "resumed", "request": request, "game": game, "seat": "B",
                      "from": 3, "seq": 5}, "resumed: %r" % resumed)
    for seq in (4, 5):
        check(take_delta("B", seq) == deltas[seq], "the resumed delta %d differs" % seq)
    conns["B"].quiet()

    # B's done (seq 4) is acked but B's connection drops before it reads
    # the ack. B joins again from seq 3 and sends the same
    # request: the first ack again, no second delta, applied once.
    request = conns["B"].send({"type": "act", "action": {"kind": "done"}})
    conns["B"].ws.close()
    take_delta("A", 6)
    conns["B"] = connect(300)
    conns["B"].send({"type": "join", "game": game, "token": seats["B"], "last_seq": 5,
                     "seed": os.urandom(32).hex()})
    resumed = conns["B"].recv()
    check(resumed["type"] == "resumed" and resumed["from"] == 5 and resumed["seq"] == 6,
          "resumed: %r" % resumed)
    take_delta("B", 6)
    conns["B"].ws.send_message({"type": "act", "request": request, "action": {"kind": "done"}})
    again = conns["B"].recv()
    check(again == {"type": "ack", "request": request, "seq": 6}, "the repeat: %r" % again)
    conns["B"].quiet()
    conns["A"].quiet()
    # The same request id with another action: refused, nothing changes.
    conns["B"].ws.send_message({"type": "act", "request": request,
                                "action": {"kind": "choose_initiative", "phasing": "B"}})
    refused = conns["B"].recv()
    check(refused.get("type") == "error" and refused.get("code") == "bad_message"
          and "another action" in refused.get("message", ""), "reused id: %r" % refused)
    # A client further behind than the server keeps deltas, or after a
    # restart, gets a whole snapshot.
    for conn in conns.values():
        conn.ws.close()
    server.stop()
    server.start()
    late = connect(400)
    late.send({"type": "join", "game": game, "token": seats["A"], "last_seq": 4,
               "seed": os.urandom(32).hex()})
    welcome = late.recv()
    check(welcome["type"] == "welcome" and welcome["seq"] == 6, "after a restart: %r" % welcome)
    late.ws.close()
    server.stop()


CASES = {
    "charge": case_charge,
    "melee": case_melee,
    "after_commit": case_after_commit,
    "sigterm": case_sigterm,
    "damaged": case_damaged,
    "resume": case_resume,
}


def main():
    parser = flow.case_parser(CASES)
    parser.add_argument("--verbose", action="store_true", help="print the servers' logs")
    args = parser.parse_args()
    processes = Processes()

    def print_logs():
        for name in sorted(os.listdir(processes.folder)):
            if name.startswith("server-"):
                with open(os.path.join(processes.folder, name), "rb") as handle:
                    print("--- %s\n%s" % (name, handle.read().decode(errors="replace")[-3000:]),
                          file=sys.stderr)

    def run():
        CASES[args.case](args, processes)
        if args.verbose:
            print_logs()

    try:
        status = flow.pass_or_fail(run, (Failure, flow.Failure))
        if status != 0:
            print_logs()
        return status
    finally:
        processes.close()


if __name__ == "__main__":
    sys.exit(main())
