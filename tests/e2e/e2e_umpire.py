#!/usr/bin/env python3
"""tests/e2e/e2e_umpire.py: the umpire's rulings from the CLI (PROTOCOL.md
§5.3 settle, overrule, rollback; §7.1 state.umpire, pending, fought,
rolled_back; §10.2), with real `brigade play --json` processes in scripted
mode: two players and an umpire, and brigaded on an ephemeral port.

The players play scenarios/example_a.json as tests/e2e/e2e_turn.py does
(the hussars charge, the dragoons counter-charge) until a melee has been
fought; the umpire settles any D9 event the melee raises (step settle),
then:

- typing errors of the umpire's commands are refused locally (input_error,
  nothing sent): an unknown melee, a result without its winner, a draw with
  one, a settle with nothing pending, a rollback to a seq not yet reached,
  a player's command;
- overrule MELEE RESULT [A|B] REASON: both players' `state --json` show the
  figures, status and formed of the new result: each unit's figures move by
  the difference between the casualties of the melee_unit_result entries
  of the fight and of the overrule, its status and formed are the new
  entry's; the melee_overruled entry names the new result and winner;
- rollback SEQ REASON to the seq at which the players stood in the Fire
  phase, before the melee: both players hold the turn, phase, step,
  awaiting, units, charges and melees they held at that seq; the log keeps
  every entry and state.rolled_back names the rolled-back ones ({from, to,
  seq}); the dice count never goes back; the game is held ("rolled back to
  seq N: ...") and a player's action is refused with held; release lets the
  game go on (a player's done is accepted);
- `log` lists the entries with their seq (--json: each with index and
  rolled_back); a spectator's text view marks them "(rolled back)";
- end result=B REASON (§11.5): both players' states end with the result,
  and the end's log entry says it.
"""
import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import (Failure, Player, Server, both, charge_countercharged,  # noqa: E402
                         check, join_players, new_game, rally, timed_main, wait_both)

MAX_TURNS = 20
OTHER = {"A": "B", "B": "A"}
# What the rollback must give back exactly (the log only grows, the dice
# count never goes back, hold and rolled_back say what the umpire did).
RESTORED = ("turn", "phase", "step", "phasing", "awaiting", "sides", "units", "charges",
            "melees", "fought", "pending")


def log_of(player, count=""):
    """The `log` command's answer (--json): {type, seq, rolled_back, entries}."""
    player.send(("log %s" % count).strip())
    return player.next_of(("log",))


def input_error(player, line, words):
    """A typing error: answered input_error naming `words`, nothing sent."""
    answer = player.act(line)
    check(answer.get("type") == "input_error" and words in answer.get("message", ""),
          "%s: '%s' should be a typing error naming %r, got %s" %
          (player.name, line, words, answer))


def settle_or_morale(umpire, turn, deadline_seconds=20):
    """After the melees: the umpire settles every D9 event while the Melee
    phase waits in step settle, until the Morale phase (or the next turn, when
    the melee ended the battle's fighting). Returns the events settled."""
    settled = []
    deadline = time.time() + deadline_seconds
    while time.time() < deadline:
        state = umpire.state()["state"]
        if state["phase"] in ("morale", "ended") or state["turn"] > turn:
            return settled
        if state["step"] == "settle":
            check(state["awaiting"] == [], "step settle awaits %s" % state["awaiting"])
            check(state["pending"], "step settle with nothing pending")
            event = state["pending"][0]
            umpire.act_ok("settle %s %s the umpire rules it a fair fight (e2e)" %
                          (event["unit"], event["event"]))
            settled.append(event)
            continue
        time.sleep(0.05)
    raise Failure("turn %d: the Morale phase did not come within %d s" %
                  (turn, deadline_seconds))


def unit_results(entries, melee_id):
    """{unit: entry}: the last melee_unit_result entry of each unit of
    `melee_id` in `entries` (the fight's, or an overrule's)."""
    found = {}
    for entry in entries:
        if entry.get("kind") == "melee_unit_result" and entry.get("melee") == melee_id:
            found[entry["unit"]] = entry
    return found


TEST_OUTCOMES = {"reform": ("pass", "fail"),
                 "pursuit": ("excellent", "unformed", "blown", "pursuit")}


def overrule_once(players, umpire, melee, line, expect):
    """Sends the umpire's `line` (an overrule of `melee`) and checks what both
    players see: an umpire_ruled overrule entry, a melee_overruled entry with
    expect["result"] and expect["winner"] (when given), new melee_unit_result
    entries (with expect["test"] = (unit, outcome) that unit's test outcome),
    each unit's figures moved by the difference between the casualties of
    the entries in force before and of the new ones, its status and formed
    the new entry's. Returns whether a unit changed."""
    melee_id = melee["melee"]
    before = {seat: players[seat].state() for seat in ("A", "B")}
    check(before["A"]["hash"] == before["B"]["hash"], "the players differ before the overrule")
    old = unit_results(before["A"]["state"]["log"], melee_id)
    check(set(old) == set(melee["units"]),
          "the melee_unit_result entries name %s, the melee %s" % (sorted(old), melee["units"]))
    seq = umpire.act_ok(line)["seq"]
    wait_both(players, "seq=%d" % seq)
    changed = False
    for seat in ("A", "B"):
        after = players[seat].state()
        check(after["seq"] == seq, "player %s at seq %d after the overrule's %d" %
              (seat, after["seq"], seq))
        state = after["state"]
        new_entries = state["log"][len(before[seat]["state"]["log"]):]
        ruled = [e for e in new_entries if e.get("kind") == "umpire_ruled"]
        check(ruled and ruled[0].get("ruling") == "overrule",
              "player %s: no umpire_ruled overrule entry: %s" % (seat, new_entries))
        overruled = [e for e in new_entries if e.get("kind") == "melee_overruled"]
        check(len(overruled) == 1, "player %s: %d melee_overruled entries" %
              (seat, len(overruled)))
        for key in ("result", "winner"):
            if key in expect:
                check(overruled[0].get(key) == expect[key],
                      "player %s: the melee_overruled entry's %s is %r, not %r" %
                      (seat, key, overruled[0].get(key), expect[key]))
        new = unit_results(new_entries, melee_id)
        check(set(new) == set(melee["units"]),
              "player %s: the overrule's melee_unit_result entries name %s" %
              (seat, sorted(new)))
        if "test" in expect:
            uid, outcome = expect["test"]
            got = (new[uid].get("test") or {}).get("outcome")
            check(got == outcome, "player %s: %s's test outcome is %r after the overrule, not "
                  "%r" % (seat, uid, got, outcome))
        for uid in melee["units"]:
            was = before[seat]["state"]["units"][uid]
            now = state["units"][uid]
            expected = max(0, was["figures"] + old[uid]["casualties"] - new[uid]["casualties"])
            check(now["figures"] == expected,
                  "player %s: %s has %d figures after the overrule; %d before, casualties "
                  "%d before and %d as overruled give %d" %
                  (seat, uid, now["figures"], was["figures"], old[uid]["casualties"],
                   new[uid]["casualties"], expected))
            check(now["status"] == new[uid]["status"] and now["formed"] == new[uid]["formed"],
                  "player %s: %s is %s/formed=%s, the overrule's entry says %s/formed=%s" %
                  (seat, uid, now["status"], now["formed"], new[uid]["status"],
                   new[uid]["formed"]))
            if (now["figures"], now["status"], now["formed"]) != (
                    was["figures"], was["status"], was["formed"]):
                changed = True
            if seat == "A":
                print("overrule: %s %d -> %d figures, %s -> %s, formed %s -> %s" %
                      (uid, was["figures"], now["figures"], was["status"], now["status"],
                       was["formed"], now["formed"]))
    theirs = [players[seat].hash()["hash"] for seat in ("A", "B")]
    mine = umpire.hash()
    check(theirs[0] == theirs[1] == mine["hash"], "after the overrule the hashes differ: %s %s" %
          (theirs, mine))
    return changed


def overrule_checks(players, umpire, melee):
    """Overrules a test outcome of `melee` (an entry of state.fought) when a
    unit took a test, then its result, and checks what both players see."""
    melee_id = melee["melee"]
    # Typing errors: refused before anything is sent.
    input_error(umpire, "overrule T99.M9 draw no such melee", "not a melee fought this turn")
    input_error(umpire, "overrule %s retreat the winner is missing" % melee_id, "winner")
    input_error(umpire, "overrule %s draw A a draw has no winner" % melee_id, "no winner")
    input_error(umpire, "overrule %s stalemate what" % melee_id, "neither a result")
    input_error(umpire, "overrule %s draw" % melee_id, "reason")
    input_error(umpire, "overrule %s hussars routed why" % melee_id, "not a test outcome")

    fought_entries = unit_results(players["A"].state()["state"]["log"], melee_id)
    tested = sorted((uid, entry["test"]) for uid, entry in fought_entries.items()
                    if isinstance(entry.get("test"), dict))
    if tested:
        uid, test = tested[0]
        outcome = [o for o in TEST_OUTCOMES[test["kind"]] if o != test["outcome"]][0]
        print("overrule %s's %s test: %s -> %s" % (uid, test["kind"], test["outcome"], outcome))
        overrule_once(players, umpire, melee,
                      "overrule %s %s %s the %s test was taken too early (e2e)" %
                      (melee_id, uid, outcome, test["kind"]),
                      dict({"test": (uid, outcome)},
                           **({} if melee["result"] == "auto" else
                              {"result": melee["result"], "winner": melee["winner"]})))

    if melee["result"] != "draw":
        expect = {"result": "draw", "winner": None}
        line = "overrule %s draw" % melee_id
    else:
        expect = {"result": "retreat", "winner": "A"}
        line = "overrule %s retreat A" % melee_id
    changed = overrule_once(players, umpire, melee,
                            line + " the dragoons' flank was covered by a wood (e2e)", expect)
    check(changed, "the overrule from %s to %s changed no unit" %
          (melee["result"], expect["result"]))
    # What the rules give (12.18, D14): in a draw of like arms (cavalry
    # against cavalry here) both sides unform and the melee goes on, in
    # contact; in a retreat the loser (B's dragoons) retreats.
    for seat in ("A", "B"):
        state = players[seat].state()["state"]
        if expect["result"] == "draw":
            for uid in melee["units"]:
                check(state["units"][uid]["formed"] is False,
                      "player %s: %s is formed after a draw of cavalry" % (seat, uid))
            check(melee_id in [m["id"] for m in state["melees"]],
                  "player %s: melee %s is not in contact after a draw: %s" %
                  (seat, melee_id, state["melees"]))
        else:
            check(state["units"]["dragoons"]["status"] == "retreating",
                  "player %s: the dragoons are %s after losing with retreat" %
                  (seat, state["units"]["dragoons"]["status"]))


def rollback_checks(args, players, umpire, spectator, checkpoint):
    """Rolls back to the checkpoint (the players' states at a seq before the
    melee) and checks what both players see, the hold and the release."""
    to_seq = checkpoint["A"]["seq"]
    current = umpire.hash()["seq"]
    # The range suggested is the battle's: from the first seq of turn 1
    # (the log's seqs and turns show it) to the one before the game's.
    log = umpire.state()["state"]["log"]
    first = min(entry["seq"] for entry in log if entry["turn"] >= 1)
    check(first > 1, "the battle began at seq %d: no seq of turn 0 to try" % first)
    input_error(umpire, "rollback %d too far ahead" % (current + 5),
                "not before the game's seq %d (go back to %d..%d)" % (current, first, current - 1))
    input_error(umpire, "rollback 1 before the battle",
                "had not begun at seq 1 (turn 0; it began at seq %d): go back to %d..%d" %
                (first, first, current - 1))
    input_error(umpire, "rollback %d" % to_seq, "reason")
    input_error(umpire, "rollback soon a seq is a number", "not a seq")
    log_before = players["A"].state()["state"]["log"]
    dice_before = players["A"].state()["state"]["dice"]["next"]
    ack = umpire.act_ok("rollback %d the charge was measured from the wrong base (e2e)" % to_seq)
    seq = ack["seq"]
    wait_both(players, "seq=%d held=yes" % seq)
    for seat in ("A", "B"):
        was = checkpoint[seat]["state"]
        now = players[seat].state()
        check(now["seq"] == seq, "player %s at seq %d after the rollback's %d" %
              (seat, now["seq"], seq))
        state = now["state"]
        for key in RESTORED:
            check(state.get(key) == was.get(key),
                  "player %s: after the rollback to seq %d, %s is %s; at seq %d it was %s" %
                  (seat, to_seq, key, json.dumps(state.get(key))[:600], to_seq,
                   json.dumps(was.get(key))[:600]))
        check(state["hold"] == ("rolled back to seq %d: the charge was measured from the wrong "
                                "base (e2e)" % to_seq),
              "player %s: the hold after the rollback is %r" % (seat, state["hold"]))
        check(state["log"][:len(log_before)] == log_before,
              "player %s: the log lost or changed entries in the rollback" % seat)
        ranges = state["rolled_back"]
        # (members beyond {from, to, seq} are the server's to add, §9)
        check(len(ranges) == 1 and {key: ranges[0].get(key) for key in ("from", "to", "seq")} ==
              {"from": len(was["log"]), "to": len(log_before), "seq": seq},
              "player %s: rolled_back is %s; expected from %d (the log at seq %d) to %d, "
              "by seq %d" % (seat, ranges, len(was["log"]), to_seq, len(log_before), seq))
        check(all(entry["seq"] > to_seq for entry in state["log"][len(was["log"]):]),
              "player %s: a rolled-back entry has a seq at or before %d" % (seat, to_seq))
        check(state["dice"]["next"] >= dice_before,
              "player %s: the dice count went back from %d to %d" %
              (seat, dice_before, state["dice"]["next"]))
        rolled = [e for e in state["log"][len(log_before):] if e.get("kind") == "umpire_ruled"]
        check(rolled and rolled[0].get("ruling") == "rollback",
              "player %s: no umpire_ruled rollback entry" % seat)
    print("rollback to seq %d at seq %d: log entries %d..%d rolled back" %
          (to_seq, seq, len(checkpoint["A"]["state"]["log"]), len(log_before) - 1))

    # The umpire's log: every entry with its seq, the rolled-back ones marked.
    listed = log_of(umpire, "all")
    check(listed["seq"] == seq and len(listed["entries"]) == len(state["log"]) and
          all(isinstance(entry["seq"], int) for entry in listed["entries"]),
          "the umpire's log all: %s" % json.dumps(listed)[:600])
    marked = [entry["index"] for entry in listed["entries"] if entry["rolled_back"]]
    check(marked == list(range(len(checkpoint["A"]["state"]["log"]), len(log_before))),
          "the umpire's log marks %s rolled back" % marked)
    first_rolled = state["log"][marked[0]]["seq"]
    input_error(umpire, "rollback %d again" % first_rolled, "itself rolled back")

    # Held: a player's action is refused until the umpire's release.
    phase = checkpoint["A"]["state"]["phase"]
    check(phase == "fire", "the checkpoint is in phase %s" % phase)
    players["A"].act_refused("done", "held")
    umpire.act_ok("release the measure is agreed (e2e)")
    wait_both(players, "held=no")
    for seat in ("A", "B"):
        check(players[seat].state()["state"]["hold"] is None, "player %s: still held" % seat)
    players["A"].act_ok("done")

    # A spectator's text view: the rolled-back entries are marked.
    done = subprocess.run([args.brigade, "play", "--server", spectator["url"], "--game",
                           spectator["game"], "--spectator", spectator["id"]],
                          input="log all\nquit\n", capture_output=True, text=True, timeout=30)
    check(done.returncode == 0, "the spectator's log (%d): %s" % (done.returncode, done.stderr))
    lines = [line for line in done.stdout.splitlines() if line.startswith("* seq ")]
    rolled_lines = [line for line in lines if line.endswith("(rolled back)")]
    check(len(rolled_lines) == len(marked),
          "the spectator's log marks %d entries rolled back, not %d:\n%s" %
          (len(rolled_lines), len(marked), done.stdout[-3000:]))


def play(args, processes):
    server = Server(processes, args.brigaded)
    created = new_game(args, server)
    game = created["game"]
    players, strength, _ = join_players(processes, args.brigade, server, created)
    umpire = Player(processes, args.brigade, server.url, game, created["seats"]["umpire"],
                    "umpire", timeout=10)
    welcome = umpire.next_of(("welcome",))
    check(welcome["seat"] == "umpire", "the umpire joined as %s" % welcome["seat"])
    # Its first join seats it (an umpire_ruled "seated" entry, PROTOCOL.md
    # §5.2): both players see state.umpire true at that seq.
    seated = umpire.state()
    check(seated["state"]["umpire"] is True, "the umpire's state: umpire %s" %
          seated["state"].get("umpire"))
    for seat in ("A", "B"):
        players[seat].wait("seq=%d" % seated["seq"])
        check(players[seat].state()["state"]["umpire"] is True,
              "player %s: state.umpire is not true once the umpire joined" % seat)
    # The umpire's seat is the umpire's: a player's command is refused at
    # once with the command to use instead.
    input_error(umpire, "adjust hussars figures=7 note=\"x\"", "umpire-adjust")
    input_error(umpire, "done", "player's command")
    input_error(umpire, "settle hussars double_six no melee yet", "no event awaits")
    input_error(umpire, "umpire-adjust hussars formation=square reason=\"x\"",
                "cannot take formation square")

    checkpoint = None
    fought = None
    settled = []
    for turn in range(1, MAX_TURNS + 1):
        wait_both(players, "turn=%d phase=initiative step=choose" % turn)
        state = players["A"].state()["state"]
        winner = state["awaiting"][0]
        players[winner].act_ok("initiative A")
        wait_both(players, "turn=%d phase=mandatory_moves" % turn)
        state = players["A"].state()["state"]
        for seat in ("A", "B"):
            rally(players[seat], seat, state, strength)
        both(players, "done")
        wait_both(players, "turn=%d phase=charge step=declare awaiting=A" % turn)
        charge_countercharged(players)
        wait_both(players, "turn=%d phase=movement" % turn)
        both(players, "done")
        wait_both(players, "turn=%d phase=fire" % turn)
        # The rollback's target: both players' states here, before the melee.
        checkpoint = {seat: players[seat].state() for seat in ("A", "B")}
        check(checkpoint["A"]["seq"] == checkpoint["B"]["seq"] and
              checkpoint["A"]["hash"] == checkpoint["B"]["hash"],
              "the players differ in the Fire phase")
        both(players, "done")
        settled += settle_or_morale(umpire, turn)
        state = umpire.state()["state"]
        if state["fought"]:
            fought = state["fought"][0]
            break
        both(players, "done")
    check(fought, "no melee was fought in %d turns" % MAX_TURNS)
    print("turn %d: melee %s of %s: %s, winner %s; D9 events settled: %s" %
          (state["turn"], fought["melee"], ", ".join(fought["units"]), fought["result"],
           fought["winner"], settled or "none"))
    check(state["umpire"] is True and state["pending"] == [], "the umpire's state: umpire %s, "
          "pending %s" % (state["umpire"], state["pending"]))

    overrule_checks(players, umpire, fought)
    rollback_checks(args, players, umpire,
                    {"url": server.url, "game": game, "id": created["spectator"]}, checkpoint)

    # The umpire ends the battle with a result (PROTOCOL.md §11.5): both
    # players' states hold it, and the log says it in words.
    umpire.act_ok("end result=B loss on time")
    wait_both(players, "phase=ended")
    for seat in ("A", "B"):
        state = players[seat].state()["state"]
        check(state["end"] == {"cause": "umpire", "reason": "loss on time", "result": "B"},
              "%s: state.end %r" % (seat, state.get("end")))
        check(any(e["kind"] == "umpire_ruled" and e.get("result") == "B" and
                  e["text"] == "the umpire ends the battle: a win for side B (British) "
                               "(loss on time)" for e in state["log"]),
              "%s: no end entry with the result" % seat)

    # Every deliberate typing error made the umpire's script exit 3; the
    # players' own refusals (held) too.
    for name, player in (("umpire", umpire), ("A", players["A"]), ("B", players["B"])):
        expected = 3 if player.refused else 0
        status = player.quit()
        check(status == expected, "%s: brigade play exited %d, not %d; stderr: %s" %
              (name, status, expected, player.errors[-3:]))
    server.stop()


def main():
    return timed_main("e2e_umpire", play)


if __name__ == "__main__":
    sys.exit(main())
