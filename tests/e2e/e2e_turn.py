#!/usr/bin/env python3
"""tests/e2e/e2e_turn.py: two players play scenarios/example_a.json through
brigaded with `brigade play --json`, deciding each action from the state they
see, through a whole turn and into the next turn's Mandatory-move phase.

The French hussars (side A) charge the British dragoons (side B), who
counter-charge (melee.md §12, D12). Whether the charge comes to contact
depends on the server's morale dice (about one turn in four has no melee
fought with dice: both chargers halt, or one fails by 3 or more and the
melee is settled at once without dice); such a turn is played out whole,
the players rally their units in the next Mandatory-move phase (status,
formed and figures back as they started: a free-form report) and the charge
is made again, for at most MAX_TURNS turns.

Checks:
- out of phase and wrong seat: an action in the wrong phase is refused with
  wrong_phase, the initiative loser choosing with wrong_seat;
- a malformed frame (ws_probe, another connection) gets a bad_frame error
  and both players go on;
- the melee: a melee case (cases/README.md) is built from the units as they
  stood before the melee and the rolls the server logged, resolved with
  `brigade melee`, and compared with the server's log and state (winner,
  result, casualties, figures, statuses, formed);
- at the end both clients and the server (`brigade state --json`) hold the
  same seq and the same snapshot hash.
"""
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_support  # noqa: E402
from e2e_support import (Failure, Server, both, charge_countercharged, check,  # noqa: E402
                         join_players, rally, server_state, timed_main, wait_both)

MAX_TURNS = 20
OTHER = {"A": "B", "B": "A"}
CAVALRY = {"cuirassiers", "heavy_cavalry", "dragoons", "lancers", "light_cavalry", "cossacks"}
INFANTRY = {"infantry", "open_order", "skirmishers"}


def new_game(args, server):
    created = e2e_support.new_game(args, server)
    check(set(created) == {"game", "seats", "spectator"} and set(created["seats"]) == {"A", "B", "umpire"},
          "brigade new --json printed %s" % created)
    return created


def malformed_frame(args, server):
    """A frame that is an int, not a map (PROTOCOL.md Appendix A), on a
    connection of its own: the server answers bad_frame and stays up."""
    if not args.probe:
        raise Failure("--probe (tests/server's ws_probe) is needed")
    done = subprocess.run([args.probe, "--port", str(server.port), "--protocol", "brigade.v1",
                           "--send", "01", "--expect", "1", "--timeout", "5000"],
                          capture_output=True, text=True, timeout=20)
    messages = [bytes.fromhex(line.split()[1]) for line in done.stdout.splitlines()
                if line.startswith("message ")]
    check(messages and b"bad_frame" in messages[0],
          "a malformed frame should get a bad_frame error: %r %r" % (done.stdout, done.stderr))
    check(server.alive(), "brigaded died after a malformed frame")


# ------------------------------------------------------------- the melee

def roll_faces(entry):
    for key in ("dice", "faces"):
        faces = entry.get(key)
        if isinstance(faces, list) and len(faces) == 2 and all(isinstance(f, int) for f in faces):
            return faces
    return None


def logged_rolls(entries):
    """{name: [a, b]} of every roll in log entries (and their sub-records)."""
    rolls = {}

    def visit(value):
        if isinstance(value, dict):
            name = value.get("roll") if isinstance(value.get("roll"), str) else value.get("name")
            faces = roll_faces(value)
            if isinstance(name, str) and faces:
                rolls[name] = faces
            for member in value.values():
                visit(member)
        elif isinstance(value, list):
            for member in value:
                visit(member)

    visit(entries)
    return rolls


def morale_passed(charge, role):
    """Whether the charge's morale test of `role` ("charger", or "target"
    for the counter-charge) was taken and passed (PROTOCOL.md §7.1 charge)."""
    morale = charge.get("morale") or {}
    test = morale.get(role)
    return bool(test and test.get("passed"))


def melee_case(before, melee, log_entries):
    """The melee case (cases/README.md) of `melee` as the units stood in
    `before`, the state just before it was fought, with the dice of the
    rolls in `log_entries` (the log entries of the fight)."""
    round_ = melee["round"]
    charges = before["charges"]
    case_units = []
    for uid in melee["units"]:
        unit = before["units"][uid]
        case_unit = {"id": uid, "side": unit["side"], "type": unit["type"],
                     "class": unit["class"], "figures": unit["figures"],
                     "formation": unit["formation"], "formed": unit["formed"],
                     "wavering": unit["wavering"], "status": unit["status"]}
        if unit.get("nation"):
            case_unit["nation"] = unit["nation"]
        if unit.get("defending", "none") != "none":
            case_unit["defending"] = unit["defending"]
        charging = leading = reinforcing = flank_or_rear = False
        if round_ == 1:
            for charge in charges:
                if charge["unit"] == uid and morale_passed(charge, "charger"):
                    charging = True
                    leading = leading or charge.get("leading", False)
                    reinforcing = reinforcing or charge.get("reinforce", False)
                if charge["target"] == uid:
                    if charge.get("facing", "front") != "front":
                        flank_or_rear = True
                    if (charge.get("response") == "countercharge" and
                            morale_passed(charge, "target")):
                        charging = True
        case_unit["charging"] = charging
        case_unit["reinforcing"] = reinforcing
        case_unit["flank_or_rear"] = flank_or_rear
        if unit.get("general"):
            case_unit["general"] = {"role": unit["general"]["role"],
                                    "rating": unit["general"]["rating"],
                                    "leading": leading}
        if unit["type"] in CAVALRY and unit.get("ranks", 0) > 0:
            case_unit["ranks"] = unit["ranks"]
        if unit["type"] in INFANTRY and unit.get("sappers"):
            case_unit["sappers"] = True
        case_units.append(case_unit)
    # The server names a melee's rolls by this turn and the melee's number
    # ("T2.M1.hussars" for melee T1.M1 fought again in turn 2).
    prefix = "T%d.M%s." % (before["turn"], melee["id"].split(".M", 1)[1])
    dice = {name[len(prefix):]: faces for name, faces in logged_rolls(log_entries).items()
            if name.startswith(prefix)}
    return {"title": "e2e: melee %s as the server fought it" % melee["id"],
            "melee": {"terrain": melee["terrain"], "round": round_, "units": case_units},
            "dice": dice}


def melee_outcome_entry(entries, melee_id):
    """The log entry with the melee's result (kind melee_resolved)."""
    for entry in entries:
        if entry.get("kind") == "melee_resolved" and entry.get("melee") == melee_id:
            return entry
    raise Failure("no melee_resolved log entry for melee %s: %s" %
                  (melee_id, json.dumps(entries)[:2000]))


def check_melee(args, processes, before, after, melee):
    new_entries = after["log"][len(before["log"]):]
    case = melee_case(before, melee, new_entries)
    path = os.path.join(processes.folder, "melee_%s.json" % melee["id"].replace(".", "_"))
    with open(path, "w") as handle:
        json.dump(case, handle, indent=2)
    done = subprocess.run([args.brigade, "melee", path], capture_output=True, text=True,
                          timeout=20)
    check(done.returncode == 0, "brigade melee refused the case built from the server's "
          "melee (%s): %s\n%s" % (done.returncode, done.stderr, json.dumps(case, indent=2)))
    result = json.loads(done.stdout)
    outcome = melee_outcome_entry(new_entries, melee["id"])
    check((outcome["winner"] or "none") == result["winner"],
          "melee %s: the server says winner %s, brigade melee %s" %
          (melee["id"], outcome["winner"], result["winner"]))
    check(outcome["result"] == result["result"],
          "melee %s: the server says result %s, brigade melee %s" %
          (melee["id"], outcome["result"], result["result"]))
    for uid, unit in result["units"].items():
        was = before["units"][uid]
        now = after["units"][uid]
        check(was["figures"] - now["figures"] == unit["casualties"],
              "melee %s: %s lost %d figures on the server, brigade melee says %d" %
              (melee["id"], uid, was["figures"] - now["figures"], unit["casualties"]))
        check(now["figures"] == unit["figures"],
              "melee %s: %s has %d figures on the server, brigade melee says %d" %
              (melee["id"], uid, now["figures"], unit["figures"]))
        check(now["status"] == unit["status"],
              "melee %s: %s is %s on the server, brigade melee says %s" %
              (melee["id"], uid, now["status"], unit["status"]))
        check(now["formed"] == unit["formed"],
              "melee %s: %s formed=%s on the server, brigade melee says %s" %
              (melee["id"], uid, now["formed"], unit["formed"]))
    return case, result


# ------------------------------------------------------------- the game

def play(args, processes):
    server = Server(processes, args.brigaded)
    created = new_game(args, server)
    game = created["game"]
    # The clients give up a wait after 10 s (exit 1 with the state they
    # hold), before the driver's own 20 s.
    players, strength, _ = join_players(processes, args.brigade, server, created)

    refusals_checked = False
    malformed_checked = False
    fought = None  # (turn, case, result)
    for turn in range(1, MAX_TURNS + 1):
        wait_both(players, "turn=%d phase=initiative step=choose" % turn)
        state = players["A"].state()["state"]
        check(len(state["awaiting"]) == 1, "initiative awaits %s" % state["awaiting"])
        winner = state["awaiting"][0]
        loser = OTHER[winner]
        if not refusals_checked:
            # Out of phase: no charge is declared in the Initiative phase.
            players["A"].act_refused("charge hussars dragoons front", "wrong_phase")
            # Wrong seat: the loser of the initiative does not choose.
            players[loser].act_refused("initiative A", "wrong_seat")
            refusals_checked = True
        # The winner lets the French (A) move first: the hussars charge.
        players[winner].act_ok("initiative A")

        wait_both(players, "turn=%d phase=mandatory_moves" % turn)
        if fought:
            break  # the next turn's Mandatory-move phase: the end of the game played
        if not malformed_checked:
            malformed_frame(args, server)
            malformed_checked = True
        state = players["A"].state()["state"]
        for seat in ("A", "B"):
            rally(players[seat], seat, state, strength)
        both(players, "done")

        wait_both(players, "turn=%d phase=charge step=declare awaiting=A" % turn)
        turn_log_start = len(players["A"].state()["state"]["log"])
        charge_countercharged(players)

        # Morale tests and contact happen at once; then Movement and Fire.
        wait_both(players, "turn=%d phase=movement" % turn)
        both(players, "done")
        wait_both(players, "turn=%d phase=fire" % turn)
        before = players["A"].state()["state"]
        both(players, "done")
        # The melees are fought when Fire ends; the Morale phase follows.
        wait_both(players, "turn=%d phase=morale" % turn)
        after = players["A"].state()["state"]
        for melee in before["melees"]:
            case, result = check_melee(args, processes, before, after, melee)
            fought = (turn, case, result)
        print("turn %d: %s" % (turn, "; ".join(
            entry["text"] for entry in after["log"][turn_log_start:]
            if entry.get("kind") in ("morale_tested", "melee_resolved"))))
        both(players, "done")

    check(fought, "no melee was fought in %d turns" % MAX_TURNS)
    check(refusals_checked and malformed_checked, "the refusals were not all checked")

    # Everyone holds the same snapshot.
    hashes = {seat: players[seat].hash() for seat in ("A", "B")}
    theirs = server_state(args, server, game, created["seats"]["A"])
    for seat, mine in hashes.items():
        check(mine["seq"] == theirs["seq"] and mine["hash"] == theirs["hash"],
              "player %s holds seq %d hash %s, the server seq %d hash %s" %
              (seat, mine["seq"], mine["hash"], theirs["seq"], theirs["hash"]))
    for seat in ("A", "B"):
        # Exit 3 when a command of the script was refused (the deliberate ones).
        expected = 3 if players[seat].refused else 0
        status = players[seat].quit()
        check(status == expected, "player %s: brigade play exited %d at the end, not %d "
              "(%d commands refused); stderr: %s" %
              (seat, status, expected, players[seat].refused, players[seat].errors[-3:]))
    server.stop()
    print("melee of turn %d: %s won (%s); seq %d, hash %s" %
          (fought[0], fought[2]["winner"], fought[2]["result"], theirs["seq"], theirs["hash"]))


def main():
    return timed_main("e2e_turn", play)


if __name__ == "__main__":
    sys.exit(main())
