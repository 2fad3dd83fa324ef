#!/usr/bin/env python3
"""tests/journal/make_v1_fixture.py: (re)makes the old-journal fixtures of
tests/journal/fixtures/v1/ (issue 10 point 4: old journals still replay).
NOT run by ctest: it needs the OLD build, the release whose journals the
fixtures stand for, and writes into the source tree.

    git clone /path/to/brigade /tmp/v1 && cd /tmp/v1 && git checkout <release>
    scripts/build
    python3 <this tree>/tests/journal/make_v1_fixture.py \\
        --brigaded /tmp/v1/build/server/brigaded --brigade /tmp/v1/build/client-cli/brigade \\
        --scenarios /tmp/v1/scenarios --out <this tree>/tests/journal/fixtures/v1 \\
        --made-by "$(git -C /tmp/v1 rev-parse HEAD)"

(fixtures/v2/: the same with the v2 release's build and `--label v2`.)

It starts the old brigaded on an ephemeral loopback port with a --data
folder of its own under /tmp and plays, through the real server and real
`brigade play --json` clients (two players and an umpire):

- example_a: 4 whole turns of scenarios/example_a.json (into turn 5's
  Mandatory moves): the initiative (A chooses, except turn 3: B phasing and
  the dragoons charge), charges and counter-charges (turn 2 and 4: the
  dragoons stand), the morale tests, the melees with their results (the
  loser retreating, the winner pursuing into the next turn), the players'
  adjust reports (rallying in Mandatory moves, fire casualties), the
  umpire's notes and an umpire-adjust, and any D9 event settled;
- village: 2 whole turns of scenarios/village.json (two charges a turn,
  the brigadier leading a battalion into the village, the cavalry
  counter-charging, a square charged), reports, an umpire-adjust, and the
  umpire's end of the battle (an ended game, its server seed revealed).

No rollback: the hash per seq is found by cutting the journal after each
seq (v1_journal.py), which a rollback would make inexact.

Then it stops the server, exports each game (`brigade export`), writes its
SQL dump (.sql), the old build's snapshot hash at every seq (.hashes, by
`brigade replay --json` of the cut journal) and the .json manifest (the
tokens, the hashes the live clients computed after each action, which must
be the replay's, and the final state's summary).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import v1_journal  # noqa: E402
from e2e_support import (Failure, Player, Processes, Server, check, on_table,  # noqa: E402
                         rally_changes)

# The release the fixtures stand for ("v1", "v2"; --label), in every note
# the plan writes; read before the plans below are built.
LABEL = (sys.argv[sys.argv.index("--label") + 1]
         if "--label" in sys.argv[:-1] else "v1")
NOTE = "(%s fixture)" % LABEL


def brigade(args, *argv):
    done = subprocess.run([args.brigade] + list(argv), capture_output=True, text=True,
                          timeout=60)
    check(done.returncode == 0, "brigade %s: exit %d: %s" % (argv[0], done.returncode,
                                                             done.stderr))
    return done.stdout


# ------------------------------------------------------------------ plans

def figures(state, uid, less):
    return max(1, state["units"][uid]["figures"] - less)


EXAMPLE_A = {
    "scenario": "example_a.json",
    "turns": 4,
    "initiative": {3: "B"},
    # turn: [(seat, charge line)]
    "charges": {1: [("A", "charge hussars dragoons front")],
                2: [("A", "charge hussars dragoons front")],
                3: [("B", "charge dragoons hussars front")],
                4: [("A", "charge hussars dragoons front")]},
    # turn: {target: response}
    "responses": {1: {"dragoons": "countercharge"}, 2: {"dragoons": "stand"},
                  3: {"hussars": "countercharge"}, 4: {"dragoons": "stand"}},
    # (turn, phase, seat): [line or function of the state]
    "reports": {
        (2, "fire", "A"): [lambda s: "adjust dragoons figures=%d note=\"carbine fire %s\"" %
                           (figures(s, "dragoons", 1), NOTE)],
        (3, "movement", "B"): [lambda s: "adjust dragoons formed=no note=\"disordered by "
                               "the hedge %s\"" % NOTE],
        (4, "morale", "B"): [lambda s: "adjust hussars figures=%d note=\"stragglers %s\"" %
                             (figures(s, "hussars", 1), NOTE)],
    },
    # (turn, phase): [umpire lines]
    "umpire": {
        (1, "movement"): ["note the hussars' trumpeter sounds the charge late %s" % NOTE],
        (2, "morale"): ["note both colonels agree the ground is firm %s" % NOTE],
        (3, "fire"): [lambda s: "umpire-adjust hussars figures=%d reason=\"a squadron "
                      "rejoins from picket %s\"" % (s["units"]["hussars"]["figures"] + 1, NOTE)],
    },
    "end": None,
}

VILLAGE = {
    "scenario": "village.json",
    "turns": 2,
    "initiative": {},
    "charges": {1: [("A", "charge chasseurs light_dragoons front"),
                    ("A", "charge ligne_1 village front leading")],
                2: [("A", "charge ligne_2 square front"),
                    ("A", "charge chasseurs light_dragoons front")]},
    "responses": {1: {"light_dragoons": "countercharge", "village": "stand"},
                  2: {"square": "stand", "light_dragoons": "countercharge"}},
    "reports": {
        (1, "fire", "A"): [lambda s: "adjust square figures=%d note=\"the battery fires on "
                           "the square %s\"" % (figures(s, "square", 2), NOTE)],
        (1, "fire", "B"): [lambda s: "adjust ligne_2 figures=%d note=\"the square's volley "
                           "%s\"" % (figures(s, "ligne_2", 1), NOTE)],
        (2, "movement", "A"): ["adjust battery formation=limbered note=\"the battery "
                               "limbers to follow %s\"" % NOTE],
    },
    "umpire": {
        (2, "fire"): [lambda s: "umpire-adjust village figures=%d reason=\"the light "
                      "company falls back into the village %s\"" %
                      (s["units"]["village"]["figures"] + 2, NOTE)],
    },
    "end": "end the players agree to stop at dusk %s" % NOTE,
}


# ------------------------------------------------------------------ the table

class Table:
    def __init__(self, args, processes, server, plan):
        self.plan = plan
        path = os.path.join(args.scenarios, plan["scenario"])
        self.created = json.loads(brigade(args, "new", "--json", "--server", server.url, path))
        self.game = self.created["game"]
        tokens = self.created["seats"]
        self.clients = {}
        self.seq = 0
        for seat in ("A", "B", "umpire"):
            client = Player(processes, args.brigade, server.url, self.game, tokens[seat],
                            seat, timeout=30)
            welcome = client.next_of(("welcome",))
            check(welcome["seat"] == seat, "%s joined as %s" % (seat, welcome["seat"]))
            self.seq = max(self.seq, welcome["seq"])
            self.clients[seat] = client
            if seat == "A":
                self.strength = {uid: unit["figures"]
                                 for uid, unit in welcome["state"]["units"].items()}
        self.live = {}            # seq: the hash every client computed
        self.done_lines = set()   # (turn, phase, seat, index) of the plan's lines sent
        self.refused = set()      # (turn, key) refused: not tried again this turn
        self.actions = 0

    def sync(self):
        """Every client at the last acked seq; their hashes agree; A's state."""
        digests = set()
        for client in self.clients.values():
            client.wait("seq=%d" % self.seq)
            answer = client.hash()
            check(answer["seq"] == self.seq, "%s at seq %d, not %d" % (client.name,
                                                                     answer["seq"], self.seq))
            digests.add(answer["hash"])
        check(len(digests) == 1, "the clients' hashes differ at seq %d: %s" % (self.seq,
                                                                            digests))
        self.live[self.seq] = digests.pop()
        return self.clients["A"].state()["state"]

    def act(self, seat, line, key=None, must=True):
        answer = self.clients[seat].act(line)
        if answer.get("type") == "ack":
            self.seq = max(self.seq, answer["seq"])
            self.actions += 1
            return True
        check(not must, "%s: '%s' refused: %s" % (seat, line, answer))
        print("  (refused, as may happen: %s: %s -> %s)" % (seat, line,
                                                          answer.get("message", answer)))
        if key is not None:
            self.refused.add(key)
        return False

    def planned(self, state, key, lines):
        """The first of `lines` (plan entries under `key`) not yet sent."""
        for index, line in enumerate(lines):
            mark = key + (index,)
            if mark in self.done_lines:
                continue
            self.done_lines.add(mark)
            return line(state) if callable(line) else line
        return None

    def rally_line(self, state, seat):
        """Mandatory moves: the side's units back in order (status, formed),
        and made up when they fell below 60% of their strength."""
        turn = state["turn"]
        for uid, unit in sorted(state["units"].items()):
            if not on_table(unit, seat) or (turn, "rally " + uid) in self.refused:
                continue
            changes = rally_changes(unit, self.strength[uid], below=0.6)
            if changes:
                return uid, "adjust %s %s note=\"%s %s\"" % (
                    uid, " ".join(changes),
                    "retreat ended, rallied and reformed" if unit["status"] == "retreating"
                    else "pursuit halted, reformed" if unit["status"] == "pursuing"
                    else "rallied and made up", NOTE)
        return None, None

    def step(self, state):
        check(state["phase"] != "ended", "the game ended early: %s" % state["log"][-3:])
        turn, phase, step = state["turn"], state["phase"], state["step"]
        # The umpire: a D9 event to settle, or the plan's lines for this phase.
        if step == "settle" and not state["awaiting"]:
            event = state["pending"][0]
            self.act("umpire", "settle %s %s the umpire rules the general unhurt and the "
                     "fight fair %s" % (event["unit"], event["event"], NOTE))
            return
        line = self.planned(state, (turn, phase, "umpire"),
                            self.plan["umpire"].get((turn, phase), []))
        if line:
            self.act("umpire", line)
            return
        check(state["awaiting"], "nothing awaited in %s/%s" % (phase, step))
        seat = state["awaiting"][0]
        if step == "choose":
            self.act(seat, "initiative %s" % self.plan["initiative"].get(turn, "A"))
        elif step == "declare":
            for index, (who, line) in enumerate(self.plan["charges"].get(turn, [])):
                key = (turn, "charge %d" % index)
                if who != seat or key in self.refused:
                    continue
                unit = line.split()[1]
                if any(c["unit"] == unit for c in state["charges"]):
                    continue
                self.refused.add(key)  # tried once, either way
                self.act(seat, line, must=False)
                return
            self.act(seat, "done")
        elif step == "respond":
            for charge in state["charges"]:
                target = state["units"][charge["target"]]
                if target["side"] != seat or charge.get("response") not in (None, "none"):
                    continue
                wanted = self.plan["responses"].get(turn, {}).get(charge["target"], "stand")
                if self.act(seat, "respond %s %s" % (charge["target"], wanted), must=False):
                    return
                self.act(seat, "respond %s stand" % charge["target"])
                return
            raise Failure("step respond with no charge to answer: %s" % state["charges"])
        elif step == "reroll":
            for uid, unit in sorted(state["units"].items()):
                if unit["side"] == seat and unit.get("sappers") and \
                        (turn, "reroll " + uid) not in self.refused:
                    if self.act(seat, "reroll %s 0" % uid, key=(turn, "reroll " + uid),
                                must=False):
                        return
            self.act(seat, "reroll ligne_1 decline")
        elif step == "report":
            # From v2 (D46): the other side's reports about this side's
            # units wait for its answer before its done; the table agrees.
            for report in state.get("reports") or []:
                if report["side"] != seat and report["state"] == "awaits_answer":
                    self.act(seat, "accept %d" % report["number"])
                    return
            line = self.planned(state, (turn, phase, seat),
                                self.plan["reports"].get((turn, phase, seat), []))
            if line:
                self.act(seat, line, must=False)
                return
            if phase == "mandatory_moves":
                uid, line = self.rally_line(state, seat)
                if line:
                    self.act(seat, line, key=(turn, "rally " + uid), must=False)
                    return
            self.act(seat, "done")
        else:
            self.act(seat, "done")

    def play(self):
        last = self.plan["turns"]
        for _ in range(400):
            state = self.sync()
            if state["turn"] > last and state["phase"] == "mandatory_moves":
                break
            self.step(state)
        else:
            raise Failure("%s: did not reach turn %d" % (self.plan["scenario"], last + 1))
        if self.plan["end"]:
            self.act("umpire", self.plan["end"])
            state = self.sync()
            check(state["phase"] == "ended", "the umpire's end left phase %s" % state["phase"])
        return state

    def quit(self):
        for client in self.clients.values():
            client.quit()


def summary(state):
    return {"turn": state["turn"], "phase": state["phase"], "step": state["step"],
            "units": {uid: {key: unit[key] for key in ("figures", "status", "formed",
                                                        "formation")}
                      for uid, unit in sorted(state["units"].items())},
            "log_entries": len(state["log"])}


def log_kinds(state):
    kinds = {}
    for entry in state["log"]:
        kinds[entry.get("kind")] = kinds.get(entry.get("kind"), 0) + 1
    return dict(sorted(kinds.items()))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--brigaded", required=True, help="the OLD build's brigaded")
    parser.add_argument("--brigade", required=True, help="the OLD build's brigade")
    parser.add_argument("--scenarios", required=True)
    parser.add_argument("--out", required=True, help="tests/journal/fixtures/v1")
    parser.add_argument("--made-by", required=True, help="the old build's commit")
    parser.add_argument("--label", default="v1",
                        help="the release the fixtures stand for, in the notes (v1, v2)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    processes = Processes()
    made = []
    try:
        # One server and data folder a game: the fixture is that folder's
        # whole journal, the seats' secrets included (from v2 on, `brigade
        # export` leaves them out, and the resume needs them).
        for name, plan in (("example_a", EXAMPLE_A), ("village", VILLAGE)):
            data = tempfile.mkdtemp(prefix="brigade-%s-fixture-data-" % LABEL)
            server = Server(processes, args.brigaded, data)
            table = Table(args, processes, server, plan)
            state = table.play()
            fresh = json.loads(brigade(args, "state", "--json", "--server", server.url,
                                       "--game", table.game, "--token",
                                       table.created["seats"]["A"]))
            check(fresh["seq"] == table.seq and fresh["hash"] == table.live[table.seq],
                  "%s: the server's state (seq %d) is not the clients'" % (name, fresh["seq"]))
            print("%s: game %s, %d actions, seq %d, turn %d %s; log kinds %s" % (
                name, table.game, table.actions, table.seq, state["turn"], state["phase"],
                log_kinds(state)))
            table.quit()
            server.stop()
            made.append((name, table, fresh, data))
        for name, table, fresh, data in made:
            sql = os.path.join(args.out, name + ".sql")
            v1_journal.dump_sqlite(os.path.join(data, "brigade.sqlite"), sql)
            work = os.path.join(processes.folder, name + ".work.sqlite")
            hashes = v1_journal.hashes_per_seq(args.brigade, sql, work, table.game)
            check(max(hashes) == fresh["seq"] and hashes[fresh["seq"]] == fresh["hash"],
                  "%s: the replay's last hash is not the server's" % name)
            for seq, digest in table.live.items():
                check(hashes.get(seq) == digest, "%s: at seq %d the clients had %s, the "
                      "replay of the cut journal %s" % (name, seq, digest, hashes.get(seq)))
            v1_journal.write_hashes(
                os.path.join(args.out, name + ".hashes"), hashes,
                ["The snapshot hash of game %s (%s) after each seq," % (table.game, name),
                 "by `brigade replay --json` of its journal cut after that seq",
                 "(tests/journal/v1_journal.py), with the build of commit %s." % args.made_by,
                 "Written by tests/journal/make_v1_fixture.py; do not edit."])
            manifest = {
                "about": "tests/journal/make_v1_fixture.py made this with the build of "
                         "commit %s; old_journal_test.py checks it" % args.made_by,
                "made_by": args.made_by,
                "scenario": table.plan["scenario"],
                "game": table.game,
                "tokens": table.created["seats"],
                "final": {"seq": fresh["seq"], "hash": fresh["hash"],
                          "state": summary(fresh["state"])},
                "log_kinds": log_kinds(fresh["state"]),
                "live_hashes": {str(seq): table.live[seq] for seq in sorted(table.live)},
            }
            with open(os.path.join(args.out, name + ".json"), "w") as handle:
                json.dump(manifest, handle, indent=1, sort_keys=True)
                handle.write("\n")
            print("%s: %d seqs hashed (%d of them also by the live clients), %s KB of SQL" % (
                name, len(hashes), len(table.live), os.path.getsize(sql) // 1024))
    except Failure as failure:
        print("FAIL: %s" % failure, file=sys.stderr)
        return 1
    finally:
        processes.close()
        for _, _, _, data in made:
            shutil.rmtree(data, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
