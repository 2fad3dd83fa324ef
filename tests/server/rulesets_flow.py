#!/usr/bin/env python3
"""House rulesets over real websockets (issue 19; brigaded --rulesets DIR,
scenarios/README.md "ruleset", PROTOCOL.md §7.1 state.ruleset).

usage: rulesets_flow.py CASE BRIGADED BRIGADE SCENARIOS_DIR

  rulesets_house    brigaded --rulesets HOUSE, whose default.json is a house
                    ruleset (Line 6+, centimetres) and metric.json another
                    (Line 9+): a game of example A naming none gets the
                    house's, its welcome's state.ruleset.differs exactly the
                    house's; played to the hussars' morale test (pass_on 6,
                    not turn.md's 7) and ended by the umpire, exported. A
                    game naming "metric" gets metric's; one naming "nope" is
                    refused naming it and the server's names. brigaded is
                    then restarted with --rulesets OTHER (default Line 8+):
                    the game rejoined keeps the house's ruleset and snapshot
                    hash; `brigade replay --journal EXPORT` prints the house's
                    morale test and the live game's snapshot hash; `brigade
                    verify EXPORT` says OK; a new game gets OTHER's default.
  rulesets_tournament  a tournament's scenario naming "nope" is refused
                    naming it; naming "metric", its round's game is played
                    under metric's ruleset (the player's welcome state).
  rulesets_refused  brigaded does not start (exit 1, the file and member
                    named) on a ruleset file with a pass number of 13, an
                    unknown member, a bad file name; exit 2 when --rulesets
                    is not a folder.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from game_flow import (Client, Failure, Server, apply_ops, check, expect_error,  # noqa: E402
                       run_case, seed)

HOUSE = {"unit": "cm", "morale": {"pass": {"line": 6}},
         "moves": {"retreat": {"light_cavalry": 45}}}
HOUSE_DIFFERS = [
    {"member": "unit", "rule": "Mandatory-move phase",
     "text": "Distances are in centimetres (default inches)"},
    {"member": "morale.pass.line", "rule": "Charge phase, morale tests",
     "text": "Morale test, Line: passes on 6+ (default 7+)"},
    {"member": "moves.retreat.light_cavalry", "rule": "Mandatory-move phase",
     "text": "Retreat or broken move, Light cavalry: 45 cm (default 18\")"},
]
METRIC = {"unit": "cm", "morale": {"pass": {"line": 9}}}
OTHER_DEFAULT = {"morale": {"pass": {"line": 8}}}


def write_rulesets(folder, files):
    os.makedirs(folder, exist_ok=True)
    for name, ruleset in files.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8") as out:
            out.write(ruleset if isinstance(ruleset, str) else json.dumps(ruleset))
    return folder


def run_brigade(brigade, argv):
    return subprocess.run([brigade] + argv, capture_output=True, text=True, timeout=60)


def brigade_state(brigade, port, game, token):
    """`brigade state --json` of the seat: (seq, hash, state)."""
    done = run_brigade(brigade, ["state", "--server", "ws://127.0.0.1:%d" % port,
                                 "--game", game, "--token", token, "--json"])
    check(done.returncode == 0, "brigade state: %s" % done.stderr)
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    return answer["seq"], answer["hash"], answer["state"]


def create(server, scenario):
    client = Client(server)
    answer = client.ask({"type": "create", "scenario": json.dumps(scenario)})
    client.close()
    return answer


class Game:
    """Players A and B (and, at the end, the umpire) at one game, each seat's
    state kept from the deltas."""

    def __init__(self, server, scenario):
        created = create(server, scenario)
        check(created.get("type") == "created", "create answered %r" % created)
        self.game, self.seats = created["game"], created["seats"]
        self.clients, self.states, self.seq = {}, {}, 0
        for seat in ("A", "B"):
            self.clients[seat] = Client(server)
            welcome = self.clients[seat].ask({"type": "join", "game": self.game,
                                              "token": self.seats[seat], "seed": seed()})
            check(welcome.get("type") == "welcome", "join %s: %r" % (seat, welcome))
            self.states[seat], self.seq = welcome["state"], welcome["seq"]
        delta = self.clients["A"].recv()
        check(delta.get("type") == "delta" and delta["seq"] == self.seq, "A's delta %r" % delta)
        self.states["A"] = apply_ops(self.states["A"], delta["ops"])

    def act(self, seat, action):
        answer = self.clients[seat].ask({"type": "act", "action": action})
        check(answer.get("type") == "ack", "%s %r: %r" % (seat, action, answer))
        self.seq = answer["seq"]
        for other in self.clients:
            delta = self.clients[other].recv()
            check(delta.get("type") == "delta" and delta["seq"] == self.seq,
                  "%s: delta %r" % (other, delta))
            self.states[other] = apply_ops(self.states[other], delta["ops"])
        check(self.states["A"] == self.states["B"], "the seats' states differ")
        return self.states["A"]

    def play_to_morale_test(self):
        """A phasing; its hussars charge the dragoons, who stand: the
        charger's morale test (turn.md §Charge 3), its log entry."""
        for _ in range(40):
            state = self.states["A"]
            tests = [e for e in state["log"] if e["kind"] == "morale_tested"]
            if tests:
                return tests[0]
            seat = state["awaiting"][0]
            if state["step"] == "choose":
                action = {"kind": "choose_initiative", "phasing": "A"}
            elif state["step"] == "declare" and seat == "A" and not state["charges"]:
                action = {"kind": "declare_charge", "unit": "hussars", "target": "dragoons",
                          "facing": "front"}
            elif state["step"] == "respond" and seat == "B":
                action = {"kind": "respond", "unit": "dragoons", "response": "stand"}
            else:
                action = {"kind": "done"}
            self.act(seat, action)
        raise Failure("no morale test: %r" % [e["text"] for e in self.states["A"]["log"][-6:]])

    def umpire_end(self, server):
        """The umpire's end (PROTOCOL.md §5.3): the dice seed revealed."""
        umpire = Client(server)
        welcome = umpire.ask({"type": "join", "game": self.game, "token": self.seats["umpire"]})
        check(welcome.get("type") == "welcome", "umpire join %r" % welcome)
        for seat in ("A", "B"):  # the umpire's seat taken: a delta for the players
            delta = self.clients[seat].recv()
            self.states[seat] = apply_ops(self.states[seat], delta["ops"])
        self.clients["umpire"] = umpire
        self.states["umpire"] = self.states["A"]
        return self.act("umpire", {"kind": "end", "reason": "house rules test"})

    def close(self):
        for client in self.clients.values():
            client.close()


def scenario_of(scenarios, ruleset=None):
    scenario = json.load(open(os.path.join(scenarios, "example_a.json"), encoding="utf-8"))
    if ruleset is not None:
        scenario["ruleset"] = ruleset
    return scenario


def case_rulesets_house(server, brigade, scenarios, other_dir):
    # A scenario naming none: the house's default.
    game = Game(server, scenario_of(scenarios))
    ruleset = game.states["A"].get("ruleset")
    check(ruleset == {"unit": "cm", "differs": HOUSE_DIFFERS},
          "welcome's state.ruleset %r" % ruleset)
    test = game.play_to_morale_test()
    print("house morale test: %s" % test["text"])
    check(test["unit"] == "hussars" and test["pass_on"] == 6,
          "the hussars (Line) pass on 6 under the house's rules: %r" % test)
    check("needs 6" in test["text"] and
          (test["total"] >= 6) == (test["effect"] == "passed"), "the test %r" % test)
    state = game.umpire_end(server)
    check(state["phase"] == "ended" and state["log"][-1]["kind"] == "dice_revealed",
          "ended, the seed revealed: %r" % state["log"][-1])
    seq, live_hash, live_state = brigade_state(brigade, server.port, game.game,
                                               game.seats["A"])
    check(seq == game.seq and live_state["ruleset"]["differs"] == HOUSE_DIFFERS,
          "brigade state at %d: %r" % (seq, live_state.get("ruleset")))
    game.close()
    data = os.path.join(server.tmp, "data")
    export = os.path.join(server.tmp, "house.sqlite")
    done = run_brigade(brigade, ["export", "--data", data, "--game", game.game, export])
    check(done.returncode == 0, "export: %s" % done.stderr)

    # A scenario naming another of the folder's rulesets, and an unknown one.
    metric = Game(server, scenario_of(scenarios, "metric"))
    check(metric.states["A"]["ruleset"]["differs"][1]["text"] ==
          "Morale test, Line: passes on 9+ (default 7+)", "metric: %r" %
          metric.states["A"].get("ruleset"))
    metric.close()
    answer = create(server, scenario_of(scenarios, "nope"))
    expect_error(answer, "bad_message")
    check(answer["message"] == 'scenario: ruleset: unknown ruleset "nope"; this server has: '
          "default, metric", "unknown name: %r" % answer["message"])
    answer = create(server, scenario_of(scenarios, {"morale": {"pass": {"line": 13}}}))
    expect_error(answer, "bad_message")
    check(answer["message"] ==
          "scenario: ruleset.morale.pass.line: must be an integer 2..12, got 13",
          "bad inline ruleset: %r" % answer["message"])

    # Restarted with another default: the game keeps its own ruleset.
    server.extra = ["--rulesets", other_dir]
    server.restart()
    seq, hash_again, state_again = brigade_state(brigade, server.port, game.game,
                                                 game.seats["A"])
    check(hash_again == live_hash and state_again["ruleset"]["differs"] == HOUSE_DIFFERS,
          "after the restart: %s %r" % (hash_again, state_again.get("ruleset")))
    done = run_brigade(brigade, ["replay", "--journal", export, "--game", game.game])
    check(done.returncode == 0, "replay: %s" % done.stderr)
    check(test["text"] in done.stdout, "replay lacks %r:\n%s" % (test["text"], done.stdout))
    hashes = re.findall(r"[0-9a-f]{64}", done.stdout)
    check(hashes and hashes[-1] == live_hash,
          "replay's hash %r, the live game's %s" % (hashes[-1:], live_hash))
    done = run_brigade(brigade, ["verify", export])
    print(done.stdout.strip())
    check(done.returncode == 0 and done.stdout.startswith("OK: "),
          "verify: %d %r %r" % (done.returncode, done.stdout, done.stderr))
    fresh = Game(server, scenario_of(scenarios))
    check(fresh.states["A"]["ruleset"] == {"unit": "in", "differs": [
        {"member": "morale.pass.line", "rule": "Charge phase, morale tests",
         "text": "Morale test, Line: passes on 8+ (default 7+)"}]},
        "a new game after the restart: %r" % fresh.states["A"].get("ruleset"))
    fresh.close()


def start_refused(brigaded, folder, status):
    """brigaded --rulesets folder exits `status` at once: its output."""
    tmp = tempfile.mkdtemp(prefix="brigade-rulesets-test.")
    try:
        done = subprocess.run([brigaded, "--port", "0", "--data", os.path.join(tmp, "data"),
                               "--rulesets", folder], capture_output=True, text=True,
                              timeout=20)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    text = done.stdout + done.stderr
    check(done.returncode == status, "exit %d, not %d: %s" % (done.returncode, status, text))
    check("listening on" not in text, "it listened: %s" % text)
    return text


def case_rulesets_refused(server, brigade, scenarios, other_dir):
    brigaded = server.brigaded
    root = tempfile.mkdtemp(prefix="brigade-bad-rulesets.")
    try:
        cases = [
            ("pass13", {"club.json": {"morale": {"pass": {"line": 13}}}},
             "club.json: morale.pass.line: must be an integer 2..12, got 13"),
            ("unknown", {"default.json": {}, "zz.json": {"morale": {"bravery": 1}}},
             "zz.json: morale.bravery: unknown member"),
            ("distance", {"club.json": {"moves": {"retreat": {"dragoons": -6}}}},
             "club.json: moves.retreat.dragoons: must be a distance 0..999.9 to a tenth, "
             "got -6"),
            ("name", {"Club.json": {}}, "Club.json: a ruleset's name is 1..64 of a-z"),
        ]
        for name, files, want in cases:
            folder = write_rulesets(os.path.join(root, name), files)
            text = start_refused(brigaded, folder, 1)
            check(("--rulesets: %s/%s" % (folder, want)) in text,
                  "%s: %r not in %s" % (name, want, text))
            print("%s: %s" % (name, text.strip().splitlines()[-1]))
        text = start_refused(brigaded, os.path.join(root, "missing"), 2)
        check("is not a folder" in text, "no folder: %s" % text)
    finally:
        shutil.rmtree(root, ignore_errors=True)


TOURNAMENT = json.dumps({"name": "House Cup", "players": ["Anna", "Ben"],
                         "scenarios": ["example_a.json"], "format": "swiss", "rounds": 1})


def case_rulesets_tournament(server, brigade, scenarios, other_dir):
    organiser = Client(server)
    named = {"example_a.json": json.dumps(scenario_of(scenarios, "nope"))}
    answer = organiser.ask({"type": "tournament_create", "tournament": TOURNAMENT,
                            "scenarios": named})
    expect_error(answer, "bad_message")
    check(answer["message"] == 'scenarios.example_a.json: ruleset: unknown ruleset "nope"; '
          "this server has: default, metric", "unknown name: %r" % answer["message"])
    named = {"example_a.json": json.dumps(scenario_of(scenarios, "metric"))}
    created = organiser.ask({"type": "tournament_create", "tournament": TOURNAMENT,
                             "scenarios": named})
    check(created.get("type") == "tournament_created", "created %r" % created)
    view = organiser.ask({"type": "tournament_start_round", "tournament": created["tournament"],
                          "token": created["organiser"]})
    check(view.get("type") == "tournament_state", "start round: %r" % view)
    table = view["tournament"]["pairings"][0]["tables"][0]
    token = created["players"][table["a"]]["token"]
    player = Client(server)
    welcome = player.ask({"type": "join", "game": table["game"], "token": token, "seed": seed()})
    check(welcome.get("type") == "welcome", "join: %r" % welcome)
    check(welcome["state"].get("ruleset") == {"unit": "cm", "differs": [
        {"member": "unit", "rule": "Mandatory-move phase",
         "text": "Distances are in centimetres (default inches)"},
        {"member": "morale.pass.line", "rule": "Charge phase, morale tests",
         "text": "Morale test, Line: passes on 9+ (default 7+)"}]},
        "the tournament game's ruleset: %r" % welcome["state"].get("ruleset"))
    player.close()
    organiser.close()


CASES = {"rulesets_house": case_rulesets_house, "rulesets_refused": case_rulesets_refused,
         "rulesets_tournament": case_rulesets_tournament}


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in CASES:
        print("usage: rulesets_flow.py {%s} BRIGADED BRIGADE SCENARIOS_DIR" % "|".join(CASES))
        return 2
    name, brigaded, brigade, scenarios = sys.argv[1:]
    rulesets = tempfile.mkdtemp(prefix="brigade-rulesets.")
    try:
        house = write_rulesets(os.path.join(rulesets, "house"),
                               {"default.json": HOUSE, "metric.json": METRIC,
                                "README.txt": "not a ruleset: ignored"})
        other = write_rulesets(os.path.join(rulesets, "other"), {"default.json": OTHER_DEFAULT})
        server = Server(brigaded, ["--rulesets", house])
        # The house case restarts brigaded itself (another --rulesets).
        return run_case(name, server, CASES[name], brigade, scenarios, other, log_tail=None,
                        counts=True)
    finally:
        shutil.rmtree(rulesets, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
