#!/usr/bin/env python3
"""Verifiable dice (design.md "Dice", PROTOCOL.md §10.3) over real websockets.

usage: verify_flow.py CASE BRIGADED BRIGADE SCENARIOS_DIR

  verify_export   a game played to its end: the server seed is revealed in
                  the last event; `brigade verify` on its export says OK;
                  on a copy with one die changed (the row's checksum made
                  again, as a forger would) it lists the mismatch and
                  exits 1; on a game not ended it says so and exits 1.
  verify_restart  the dice counter survives a restart of brigaded exactly:
                  rolls before and after it all verify.
  verify_seeds    a player cannot influence its own rolls: the commitment
                  is in the state before either seed is accepted; a first
                  join without a seed is refused; nothing is rolled (an act
                  is refused) before both seeds; a second join with another
                  seed changes nothing; this file's own implementation of
                  §10.3 recomputes every die from the revealed seed (the
                  same seeds give the same dice) and another player seed
                  gives other dice.
  ping_cli        `brigade play` answers the server's pings (brigaded
                  --ping-interval-s 1): idle 4.5 s, it is still served.

usage: verify_flow.py journal_dice EXPORT [GAME]

  recomputes every die of an ended game from its export's rows alone
  (journal_dice below: the events table in (seq, idx) order, the rows the
  umpire rolled back included, PROTOCOL.md §10.2 and §10.3); prints "OK: N
  rolls ..." (exit 0) or each mismatch (exit 1). tests/journal's
  rollback test runs it on a game with a rollback.
"""
import hashlib
import hmac
import json
import os
import re
import shutil
import sqlite3
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import brigade_wire as wire  # noqa: E402
from game_flow import (Client, Failure, Server, apply_ops, check, create_game,  # noqa: E402
                       expect_error, run_case, seed, wait_listening)


# ---- PROTOCOL.md §10.3, written from the text ---------------------------------

def die_face(server_seed, seed_a, seed_b, number):
    for k in range(256):
        message = (b"brigade.v1 die" + seed_a + seed_b + struct.pack(">Q", number) +
                   bytes([k]))
        block = hmac.new(server_seed, message, hashlib.sha256).digest()
        for byte in block:
            if byte < 252:
                return byte % 6 + 1
    raise Failure("no face in 256 blocks")


def recompute(state, seed_a=None):
    """Every roll of the state's log recomputed: [(name, expected, logged)]."""
    dice = state["dice"]
    server_seed = bytes.fromhex(dice["server_seed"])
    a = bytes.fromhex(seed_a or dice["seeds"]["A"])
    b = bytes.fromhex(dice["seeds"]["B"])
    out = []
    number = 0
    for entry in state["log"]:
        if entry["kind"] != "roll":
            continue
        expected = [die_face(server_seed, a, b, number), die_face(server_seed, a, b, number + 1)]
        out.append((entry["name"], expected, list(entry["dice"])))
        number += 2
    return out


def journal_dice(path, game=None):
    """§10.3 from an export's rows alone: the commitment (seq 0), the
    players' seeds, the server seed revealed by the last event, and every
    `roll` row of the events table in (seq, idx) order, rolled back or not
    (§10.2 "Rollback": the k-th roll row takes dice 2k and 2k + 1 whatever
    its rolled_back). Returns (commitment_ok, [(name, seq, rolled_back,
    expected, journaled)]). A journal whose rolled_back are all 0 (or an
    older one without the column) reads the same way."""
    db = sqlite3.connect(path)
    try:
        if game is None:
            ids = [row[0] for row in db.execute("SELECT id FROM games")]
            check(len(ids) == 1, "%s holds %d games: name one" % (path, len(ids)))
            game = ids[0]
        columns = [row[1] for row in db.execute("PRAGMA table_info(events)")]
        flag = "rolled_back" if "rolled_back" in columns else "0"
        rows = db.execute("SELECT seq, idx, body, %s FROM events WHERE game = ? "
                          "ORDER BY seq, idx" % flag, (game,)).fetchall()
    finally:
        db.close()
    events = [(seq, bool(rolled_back), wire.unpack(body)) for seq, _, body, rolled_back in rows]
    commitment = server_seed = None
    seeds = {}
    for _, _, event in events:
        kind = event.get("kind")
        if kind == "dice_committed":
            commitment = event["hex"]
        elif kind == "dice_seed_added":
            seeds.setdefault(event["side"], bytes.fromhex(event["hex"]))
        elif kind == "dice_revealed":
            server_seed = bytes.fromhex(event["hex"])
    check(commitment and server_seed and set(seeds) == {"A", "B"},
          "%s: no commitment, revealed seed or players' seeds" % path)
    out = []
    number = 0
    for seq, rolled_back, event in events:
        if event.get("kind") != "roll":
            continue
        expected = [die_face(server_seed, seeds["A"], seeds["B"], number),
                    die_face(server_seed, seeds["A"], seeds["B"], number + 1)]
        out.append((event["name"], seq, rolled_back, expected, list(event["faces"])))
        number += 2
    return hashlib.sha256(server_seed).hexdigest() == commitment, out


def journal_dice_main(argv):
    """verify_flow.py journal_dice EXPORT [GAME]: 0 when every die matches."""
    try:
        commitment_ok, rolls = journal_dice(argv[0], argv[1] if len(argv) > 1 else None)
    except (Failure, sqlite3.Error, ValueError, KeyError) as error:
        print("journal_dice: %s" % error)
        return 1
    bad = [r for r in rolls if r[3] != r[4]]
    if not commitment_ok:
        print("mismatch: the revealed server seed does not match the commitment")
    for name, seq, rolled_back, expected, journaled in bad:
        print("mismatch: %s (seq %d%s): expected %r, journaled %r" %
              (name, seq, ", rolled back" if rolled_back else "", expected, journaled))
    if bad or not commitment_ok:
        return 1
    print("OK: %d rolls (%d dice), %d of them rolled back, recomputed from the rows" %
          (len(rolls), 2 * len(rolls), sum(1 for r in rolls if r[2])))
    return 0


# ---- a game played to its end ----------------------------------------------

class Table:
    def __init__(self, server, scenarios):
        self.server = server
        creator = Client(server)
        self.game, self.seats = create_game(creator, scenarios)
        creator.close()
        self.clients = {}
        self.states = {}
        self.seq = 0

    def join_both(self):
        for seat in ("A", "B"):
            self.clients[seat] = Client(self.server)
            welcome = self.clients[seat].ask({"type": "join", "game": self.game,
                                              "token": self.seats[seat], "seed": seed()})
            check(welcome.get("type") == "welcome", "join %s: %r" % (seat, welcome))
            self.states[seat] = welcome["state"]
            self.seq = welcome["seq"]
        delta = self.clients["A"].recv()
        check(delta.get("type") == "delta" and delta["seq"] == self.seq, "A's delta %r" % delta)
        self.states["A"] = apply_ops(self.states["A"], delta["ops"])

    def act(self, seat, action):
        answer = self.clients[seat].ask({"type": "act", "action": action})
        if answer.get("type") != "ack":
            return answer
        self.seq = answer["seq"]
        for s in ("A", "B"):
            delta = self.clients[s].recv()
            check(delta.get("type") == "delta" and delta["seq"] == self.seq,
                  "seat %s: delta %r" % (s, delta))
            self.states[s] = apply_ops(self.states[s], delta["ops"])
        return answer

    def play_to_end(self, remove_in_turn=1, until=None):
        """A removes its hussars in the first report step of turn
        `remove_in_turn`, everyone is done otherwise: the battle ends at the
        start of the next turn. With `until`, stops at the first state for
        which until(state) holds."""
        removed = False
        for step in range(120):
            state = self.states["A"]
            if state["phase"] == "ended" or (until and until(state)):
                return state
            seat = state["awaiting"][0]
            if state["step"] == "choose":
                action = {"kind": "choose_initiative", "phasing": "A"}
            elif state["step"] == "report" and not removed and state["turn"] == remove_in_turn:
                action = {"kind": "adjust", "unit": "hussars", "figures": 0,
                          "note": "verify test: the hussars leave the table"}
                removed = True
            else:
                action = {"kind": "done"}
            answer = self.act(seat, action)
            check(answer.get("type") == "ack", "step %d %r: %r" % (step, action, answer))
        raise Failure("the battle did not end: %r" % self.states["A"]["phase"])

    def close(self):
        for client in self.clients.values():
            client.close()


def run_brigade(brigade, argv):
    return subprocess.run([brigade] + argv, capture_output=True, text=True, timeout=60)


def forge_one_die(path, game):
    """Changes the first face of the first roll in the export and makes the
    row's checksum again (journal/journal.h: SHA-256 over the row's place and
    bytes): only the dice can tell."""
    db = sqlite3.connect(path)
    rows = db.execute("SELECT seq, idx, seat, body FROM events WHERE game = ? ORDER BY seq, idx",
                      (game,)).fetchall()
    for seq, idx, seat, body in rows:
        event = wire.unpack(body)
        if event.get("kind") != "roll":
            continue
        before = list(event["faces"])
        event["faces"] = [before[0] % 6 + 1, before[1]]
        new_body = wire.pack(event)
        place = struct.pack(">QI", seq, idx) + (seat or "\0").encode()
        digest = hashlib.sha256(game.encode() + b"\0" + place + new_body).digest()
        db.execute("UPDATE events SET body = ?, sha256 = ? WHERE game = ? AND seq = ? AND idx = ?",
                   (new_body, digest, game, seq, idx))
        db.commit()
        db.close()
        return event["name"], before, event["faces"]
    raise Failure("no roll in the export")


def case_verify_export(server, brigade, scenarios):
    table = Table(server, scenarios)
    table.join_both()
    # A second game, left unfinished, for the "not ended" answer.
    other = Table(server, scenarios)
    other.join_both()
    other.close()
    state = table.play_to_end()
    table.close()
    check(state["dice"]["server_seed"] and state["log"][-1]["kind"] == "dice_revealed",
          "the last event reveals the seed: %r" % state["log"][-1])
    check(hashlib.sha256(bytes.fromhex(state["dice"]["server_seed"])).hexdigest() ==
          state["dice"]["commitment"], "the revealed seed matches the commitment")
    data = os.path.join(server.tmp, "data")
    honest = os.path.join(server.tmp, "honest.sqlite")
    done = run_brigade(brigade, ["export", "--data", data, "--game", table.game, honest])
    check(done.returncode == 0, "export: %s" % done.stderr)
    exported = sqlite3.connect(honest)
    check(exported.execute("SELECT dice_seed FROM games").fetchall() == [(None,)],
          "the export holds no secret dice seed column value")
    exported.close()
    done = run_brigade(brigade, ["verify", honest])
    print(done.stdout.strip())
    check(done.returncode == 0 and done.stdout.startswith("OK: "),
          "verify honest: %d %r %r" % (done.returncode, done.stdout, done.stderr))
    # The same from the export's rows, by this file's own §10.3.
    commitment_ok, rows = journal_dice(honest)
    logged = [entry for entry in state["log"] if entry["kind"] == "roll"]
    check(commitment_ok and rows and all(r[3] == r[4] for r in rows) and
          not any(r[2] for r in rows) and len(rows) == len(logged) and
          [r[0] for r in rows] == [entry["name"] for entry in logged],
          "the export's rows recomputed: %r" % [r for r in rows if r[3] != r[4]])

    forged = os.path.join(server.tmp, "forged.sqlite")
    shutil.copyfile(honest, forged)
    name, before, after = forge_one_die(forged, table.game)
    done = run_brigade(brigade, ["verify", forged, "--game", table.game])
    print(done.stdout.strip())
    want = "mismatch: %s " % name
    check(done.returncode == 1 and want in done.stdout and
          ("expected %d, %d; journaled %d, %d" % (before[0], before[1], after[0], after[1]))
          in done.stdout and done.stdout.count("mismatch:") == 1,
          "verify forged: %d %r %r" % (done.returncode, done.stdout, done.stderr))
    _, rows = journal_dice(forged, table.game)
    check([r[0] for r in rows if r[3] != r[4]] == [name],
          "the forged die found by the rows' recomputation: %r" % [r for r in rows if r[3] != r[4]])

    unfinished = os.path.join(server.tmp, "unfinished.sqlite")
    done = run_brigade(brigade, ["export", "--data", data, "--game", other.game, unfinished])
    check(done.returncode == 0, "export: %s" % done.stderr)
    done = run_brigade(brigade, ["verify", unfinished])
    print(done.stderr.strip())
    check(done.returncode == 1 and "has not ended" in done.stderr,
          "verify unfinished: %d %r" % (done.returncode, done.stderr))
    done = run_brigade(brigade, ["verify"])
    check(done.returncode == 2, "verify without a file: %d" % done.returncode)


def case_verify_seeds(server, brigade, scenarios):
    table = Table(server, scenarios)
    a = Client(server)
    # The commitment is public before any seed: a first join without a
    # seed is refused and changes nothing.
    expect_error(a.ask({"type": "join", "game": table.game, "token": table.seats["A"]}),
                 "bad_message")
    seed_a = seed()
    welcome = a.ask({"type": "join", "game": table.game, "token": table.seats["A"],
                     "seed": seed_a})
    check(welcome.get("type") == "welcome" and welcome["seq"] == 1, "A's join: %r" % welcome)
    state = welcome["state"]
    check(state["log"][0]["kind"] == "dice_committed" and
          len(state["dice"]["commitment"]) == 64, "the commitment first: %r" % state["log"][0])
    check(state["dice"]["seeds"] == {"A": seed_a, "B": None} and state["turn"] == 0 and
          state["dice"]["next"] == 0, "waiting for B's seed: %r" % state["dice"])
    commitment = state["dice"]["commitment"]
    # Nothing is rolled before both seeds are in.
    expect_error(a.ask({"type": "act", "action": {"kind": "done"}}), "wrong_phase")
    # A's seed cannot change: a join (on another connection: one join a
    # connection, PROTOCOL.md §5.2) with another seed keeps the first.
    other = Client(server)
    again = other.ask({"type": "join", "game": table.game, "token": table.seats["A"],
                       "seed": seed()})
    check(again.get("type") == "welcome" and again["seq"] == 1 and
          again["state"]["dice"]["seeds"]["A"] == seed_a, "a second seed: %r" % again)
    other.close()
    table.clients["A"] = a
    table.clients["B"] = Client(server)
    welcome = table.clients["B"].ask({"type": "join", "game": table.game,
                                      "token": table.seats["B"], "seed": seed()})
    check(welcome.get("type") == "welcome" and welcome["seq"] == 2 and
          welcome["state"]["turn"] == 1 and welcome["state"]["dice"]["commitment"] == commitment,
          "B's join begins the battle: %r" % welcome.get("state", welcome).get("turn"))
    table.states["B"] = welcome["state"]
    delta = a.recv()
    check(delta.get("type") == "delta" and delta["seq"] == 2, "A's delta: %r" % delta)
    table.states["A"] = apply_ops(again["state"], delta["ops"])
    table.seq = 2
    # A refused act consumes no dice numbers.
    before = table.states["A"]["dice"]["next"]
    wrong = "B" if table.states["A"]["awaiting"] == ["A"] else "A"
    expect_error(table.clients[wrong].ask({"type": "act", "action": {
        "kind": "choose_initiative", "phasing": "A"}}), "wrong_seat")
    state = table.play_to_end()
    table.close()
    check(before >= 4, "turn 1's initiative took dice 0.. : next %d" % before)
    rolls = recompute(state)
    check(rolls and all(expected == logged for _, expected, logged in rolls),
          "recomputed dice differ: %r" % [r for r in rolls if r[1] != r[2]])
    check(state["dice"]["next"] == 2 * len(rolls), "dice numbers 0..%d, no gap" %
          state["dice"]["next"])
    # The dice depend on both players' seeds: another seed of A gives
    # other dice (32 dice: equal by chance once in 6^32).
    server_seed = bytes.fromhex(state["dice"]["server_seed"])
    seed_b = bytes.fromhex(state["dice"]["seeds"]["B"])
    ours = [die_face(server_seed, bytes.fromhex(seed_a), seed_b, n) for n in range(32)]
    theirs = [die_face(server_seed, os.urandom(32), seed_b, n) for n in range(32)]
    check(ours != theirs, "another seed of A gives the same dice")
    print("verify_seeds: %d rolls recomputed from the revealed seed" % len(rolls))


class RestartedServer(Server):
    """brigaded started again on the data folder of `first` (stopped)."""

    def __init__(self, brigaded, first):
        self.tmp = first.tmp
        self.log_path = os.path.join(self.tmp, "server-2.log")
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [brigaded, "--port", "0", "--data", os.path.join(self.tmp, "data"),
             "--web", self.tmp],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.port = wait_listening(self.proc, self.text, what="start again")


def case_verify_restart(server, brigade, scenarios, brigaded):
    """The dice counter survives a restart exactly: turn 1's rolls before
    it, turn 2's after it, and every die of the export verifies."""
    table = Table(server, scenarios)
    table.join_both()
    state = table.play_to_end(remove_in_turn=2,
                              until=lambda s: s["turn"] == 1 and s["phase"] == "movement")
    before = state["dice"]["next"]
    check(before >= 4, "turn 1 rolled: next %d" % before)
    table.close()
    check(server.stop() == 0, "brigaded stopped")
    again = RestartedServer(brigaded, server)
    try:
        table.server = again
        for seat in ("A", "B"):
            table.clients[seat] = Client(again)
            welcome = table.clients[seat].ask({"type": "join", "game": table.game,
                                               "token": table.seats[seat], "seed": seed()})
            check(welcome.get("type") == "welcome" and
                  welcome["state"]["dice"]["next"] == before and
                  welcome["state"]["dice"]["commitment"] == state["dice"]["commitment"],
                  "after the restart: %r" % welcome.get("state", welcome).get("dice"))
            table.states[seat] = welcome["state"]
        state = table.play_to_end(remove_in_turn=2)
        table.close()
        check(state["dice"]["next"] > before, "rolls after the restart: next %d" %
              state["dice"]["next"])
        rolls = recompute(state)
        check(all(expected == logged for _, expected, logged in rolls),
              "recomputed dice differ: %r" % [r for r in rolls if r[1] != r[2]])
        data = os.path.join(server.tmp, "data")
        out = os.path.join(server.tmp, "restarted.sqlite")
        done = run_brigade(brigade, ["export", "--data", data, "--game", table.game, out])
        check(done.returncode == 0, "export: %s" % done.stderr)
        done = run_brigade(brigade, ["verify", out])
        print(done.stdout.strip())
        check(done.returncode == 0 and done.stdout.startswith("OK: "),
              "verify after a restart: %d %r %r" % (done.returncode, done.stdout, done.stderr))
        commitment_ok, rows = journal_dice(out)
        check(commitment_ok and len(rows) == len(rolls) and all(r[3] == r[4] for r in rows),
              "the export's rows recomputed after a restart: %r" %
              [r for r in rows if r[3] != r[4]])
        log = again.text()
        for report in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
            check(report not in log, "sanitizer report in the second log")
    finally:
        status = again.stop()
    check(status == 0, "the restarted brigaded exit status %r" % status)


def case_spectator_delay_restart(server, brigade, scenarios, brigaded):
    """A delayed spectator's view survives a restart of brigaded: the views
    are rebuilt from the journal, never the live state."""
    creator = Client(server)
    created = creator.ask({"type": "create", "scenario": open(
        os.path.join(scenarios, "example_a.json"), encoding="utf-8").read(),
        "spectator_delay": 2})
    creator.close()
    table = Table.__new__(Table)
    table.server, table.game, table.seats = server, created["game"], created["seats"]
    table.clients, table.states, table.seq = {}, {}, 0
    table.join_both()
    table.play_to_end(remove_in_turn=2, until=lambda s: s["phase"] == "fire")
    table.close()
    watcher = Client(server)
    before = watcher.ask({"type": "join", "game": table.game, "token": created["spectator"]})
    watcher.close()
    check(before.get("type") == "welcome" and before["seq"] < table.seq and
          before["state"]["phase"] != "fire", "delayed: %r" %
          {k: v for k, v in before.items() if k != "state"})
    check(server.stop() == 0, "brigaded stopped")
    again = RestartedServer(brigaded, server)
    try:
        watcher = Client(again)
        after = watcher.ask({"type": "join", "game": table.game, "token": created["spectator"]})
        watcher.close()
        check(after.get("type") == "welcome" and after["seq"] == before["seq"] and
              after["state"] == before["state"], "after the restart: seq %r, not %r" %
              (after.get("seq"), before["seq"]))
        print("spectator_delay_restart: the view at seq %d, the game at seq %d, kept" %
              (after["seq"], table.seq))
        # Once the battle ends, the spectator sees the final state.
        watcher = Client(again)
        view = watcher.ask({"type": "join", "game": table.game,
                            "token": created["spectator"]})["state"]
        table.server = again
        for seat in ("A", "B"):
            table.clients[seat] = Client(again)
            welcome = table.clients[seat].ask({"type": "join", "game": table.game,
                                               "token": table.seats[seat], "seed": seed()})
            table.states[seat] = welcome["state"]
        final = table.play_to_end(remove_in_turn=2)
        table.close()
        while True:
            message = watcher.recv()
            if message.get("type") != "delta":
                continue
            view = apply_ops(view, message["ops"])
            if view["phase"] == "ended":
                break
        watcher.close()
        check(view == final, "the ended game's spectator view is the final state")
    finally:
        status = again.stop()
    check(status == 0, "the restarted brigaded exit status %r" % status)


def brigade_state(brigade, server, game, token):
    """`brigade state --json` of the seat: (seq, hash, state)."""
    done = run_brigade(brigade, ["state", "--server", "ws://127.0.0.1:%d" % server.port,
                                 "--game", game, "--token", token, "--json"])
    check(done.returncode == 0, "brigade state: %s" % done.stderr)
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    return answer["seq"], answer["hash"], answer["state"]


def case_umpire_cli_restart(server, brigade, scenarios, brigaded):
    """The umpire from the CLI (`brigade play --token UMPIRE`): hold and
    umpire-adjust reach both players as deltas; `brigade state` of A and B
    gives the seq and hash the umpire's `hash` printed; a player's order is
    refused while held (held) and a player's hold with wrong_seat (exit 3);
    after a restart of brigaded (the umpire's actions journaled under seat
    'U') the state, its hash and the hold are the same, and release lets
    the player act."""
    table = Table(server, scenarios)
    table.join_both()
    url = "ws://127.0.0.1:%d" % server.port
    unit = sorted(table.states["A"]["units"])[0]
    figures = table.states["A"]["units"][unit]["figures"]
    script = ('hold "a dispute over the wood"\n'
              'umpire-adjust %s figures=%d reason="a stand was missed"\nhash\nquit\n'
              % (unit, figures - 1))
    done = subprocess.run([brigade, "play", "--server", url, "--game", table.game, "--token",
                           table.seats["umpire"]], input=script, capture_output=True,
                          text=True, timeout=60)
    check(done.returncode == 0, "the umpire's script (%d): %s %s" % (done.returncode,
                                                                    done.stdout, done.stderr))
    check("as the umpire" in done.stdout, "the umpire seat named: %s" % done.stdout)
    m = re.search(r"seq (\d+), snapshot hash ([0-9a-f]{64})", done.stdout)
    check(m, "the umpire's hash: %s" % done.stdout)
    seq, digest = int(m.group(1)), m.group(2)
    # The umpire's first join takes a seq ("seated", PROTOCOL.md §5.2),
    # then its hold and its adjustment.
    check(seq == table.seq + 3, "three umpire actions: seq %d after %d" % (seq, table.seq))
    for _ in range(3):
        table.seq += 1
        for s in ("A", "B"):
            delta = table.clients[s].recv()
            check(delta.get("type") == "delta" and delta["seq"] == table.seq,
                  "seat %s: delta %r" % (s, delta))
            table.states[s] = apply_ops(table.states[s], delta["ops"])
    for s in ("A", "B"):
        got_seq, got_hash, state = brigade_state(brigade, server, table.game, table.seats[s])
        check((got_seq, got_hash) == (seq, digest), "seat %s: brigade state %r, umpire %r" %
              (s, (got_seq, got_hash), (seq, digest)))
        check(state == table.states[s], "seat %s: the deltas' state differs" % s)
        check(state["units"][unit]["figures"] == figures - 1 and
              state["hold"] == "a dispute over the wood", "seat %s: %r" % (s, state["hold"]))
    actor = table.states["A"]["awaiting"][0]
    expect_error(table.clients[actor].ask({"type": "act", "action": {
        "kind": "choose_initiative", "phasing": "A"}}), "held")
    done = subprocess.run([brigade, "play", "--server", url, "--game", table.game, "--token",
                           table.seats["A"]], input="hold mine\nquit\n", capture_output=True,
                          text=True, timeout=60)
    check(done.returncode == 3 and "wrong_seat" in done.stderr,
          "a player's hold (%d): %s" % (done.returncode, done.stderr))
    table.close()
    server.stop()
    again = RestartedServer(brigaded, server)
    try:
        got_seq, got_hash, state = brigade_state(brigade, again, table.game, table.seats["B"])
        check((got_seq, got_hash) == (seq, digest), "after the restart: %r, before %r" %
              ((got_seq, got_hash), (seq, digest)))
        umpire = Client(again)
        welcome = umpire.ask({"type": "join", "game": table.game, "token": table.seats["umpire"]})
        check(welcome.get("type") == "welcome" and welcome["seat"] == "umpire",
              "umpire after the restart: %r" % welcome.get("type"))
        answer = umpire.ask({"type": "act", "action": {"kind": "release", "reason": "agreed"}})
        check(answer.get("type") == "ack" and answer["seq"] == seq + 1, "release %r" % answer)
        player = Client(again)
        player.ask({"type": "join", "game": table.game, "token": table.seats[actor]})
        answer = player.ask({"type": "act", "action": {"kind": "choose_initiative",
                                                       "phasing": "A"}})
        check(answer.get("type") == "ack" and answer["seq"] == seq + 2,
              "the player's act after the release: %r" % answer)
        log = again.text() + server.text()
        check(all(token not in log for token in table.seats.values()), "a token is in the log")
    finally:
        status = again.stop()
    check(status == 0, "the restarted brigaded exit status %r" % status)


def case_ping_cli(server, brigade, scenarios):
    """brigaded --ping-interval-s 1: `brigade play`, idle for 4.5 s (the
    server pings it after 1 s and would close it after 2 unanswered),
    answers the pings itself (libwebsockets does), so that its `hash` 4.5 s
    later is answered and nothing was closed for want of a pong."""
    creator = Client(server)
    game, seats = create_game(creator, scenarios)
    creator.close()
    url = "ws://127.0.0.1:%d" % server.port
    player = subprocess.Popen([brigade, "play", "--server", url, "--game", game, "--token",
                               seats["A"]], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(4.5)
        out, err = player.communicate("hash\nquit\n", timeout=30)
    finally:
        if player.poll() is None:
            player.kill()
            player.wait()
    check(player.returncode == 0 and re.search(r"seq \d+, snapshot hash [0-9a-f]{64}", out),
          "brigade play after 4.5 s idle (%d): %s %s" % (player.returncode, out[-300:], err))
    check("joined game %s seat A" % game in server.text(), "the CLI joined")
    check("no answer to a ping" not in server.text(), "a connection went unanswered")


CASES = {"verify_export": case_verify_export, "verify_seeds": case_verify_seeds,
         "ping_cli": case_ping_cli,
         "umpire_cli_restart": case_umpire_cli_restart,
         "spectator_delay_restart": case_spectator_delay_restart,
         "verify_restart": case_verify_restart}


def main():
    if len(sys.argv) in (3, 4) and sys.argv[1] == "journal_dice":
        return journal_dice_main(sys.argv[2:])
    if len(sys.argv) != 5 or sys.argv[1] not in CASES:
        print("usage: verify_flow.py {%s} BRIGADED BRIGADE SCENARIOS_DIR" % "|".join(CASES))
        return 2
    name, brigaded, brigade, scenarios = sys.argv[1:]
    server = Server(brigaded, ["--ping-interval-s", "1"] if name == "ping_cli" else [])
    # The restart cases stop and start brigaded themselves: the exit status
    # of the last one is not theirs to check.
    restarts = name in ("verify_restart", "spectator_delay_restart", "umpire_cli_restart")
    args = (brigade, scenarios, brigaded) if restarts else (brigade, scenarios)
    return run_case(name, server, CASES[name], *args, log_tail=None, exit_zero=not restarts,
                    counts=True)


if __name__ == "__main__":
    sys.exit(main())
