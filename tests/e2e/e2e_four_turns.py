#!/usr/bin/env python3
"""tests/e2e/e2e_four_turns.py: four whole turns of scenarios/example_a.json
through the real brigaded and two real `brigade play --json` clients
(scripted through stdin, with `wait`), checking turn by turn in the state
the statuses that decisions D34-D46 give (issue 10 points 2, 3 and 5).

The dice are the server's (verifiable, seeded by the server and both
players): the test cannot choose them, so it plays the way a player would
and, phase by phase, asserts the rule that applies to what the dice gave:

- D34: a unit retreating when a Mandatory-move phase begins is `normal`,
  still unformed, when it ends, with fled_turn = the turn; unless a
  pursuer's contact was accepted in it (D39), then it is still retreating
  (or out of play). A broken unit stays broken and makes its move
  (fled_turn); its player reports `rally` in that turn's Morale phase, and
  it is then normal, unformed.
- D35: a cavalry unit pursuing when the Melee phase begins, in no melee,
  takes its pursuit test `T<n>.<unit>.pursuit` at the start of the Morale
  phase (log entry test_taken), and its status is that test's outcome's
  (pursuit: pursuing; blown: blown; unformed: normal, unformed).
- D36: a unit blown when the Movement phase begins is normal, unformed,
  when it ends.
- D37: `reform UNIT` for an unformed normal unit in no melee; it is formed
  when the Movement phase ends (the first one is contested, D46, and still
  stands: no umpire is seated).
- D38: a pursuer's `charge` while its enemy flees is refused with the
  rule's reason; with no enemy to pursue its `uncontrolled` charge is
  accepted and becomes an uncontrolled charge (or, none in sight, the unit
  is blown when the Charge phase ends).
- D39: `contact PURSUER UNIT` in the Mandatory-move phase waits for the
  other side's answer (its `done` is refused until it answers); the first
  is accepted (the fleeing unit's melee T<n>.M<k> is settled at once, the
  pursuer's test rolled with it), the next one contested (rejected, by the
  umpire when one is seated); after those pursuers report no contact, so
  that pursuits go on into D35 and D38.
- D46: a contest is shown in state.reports (contested, its reason) and in
  the log (report_answered). An `adjust` of the other side's unit in the
  Fire phase is a report (kind adjust) awaiting that side's answer (its
  screen says it in words, its `done` is refused until it answers): the
  first is accepted and carried out, the next contested and not. Every other game seats an umpire (a third
  `brigade play`): a contested report then awaits its ruling, `rule REPORT
  upheld|rejected REASON` (the umpire's help and screen offer it), both
  players see the ruling and nothing holds the game after it; the umpire
  also settles D9's events when a melee raises them. A contested reform is
  ruled once both sides are done, in the Movement phase's step settle: every
  screen says the umpire rules on that report, and the umpire's `settle`
  points to `rule N`.
- The CLI: `help` lists a report command only when the rules allow it for
  the seat (and names the units), a mistyped one is refused before sending
  naming the word at fault, and `brigade state` (text) says what the seat
  is awaited for; a charged unit is offered `countercharge` only where
  core accepts it (the test sends what the screen offers), else `stand`
  with the reason.

A game is four turns (fewer if the battle ends). What the dice deny in one
game (no retreat, no pursuit) is looked for in the next, at most
MAX_GAMES games, until every rule above has been seen applied; the test
fails if one never is, or if any check fails. Each game ends with both
clients and the server holding the same seq and snapshot hash.
"""
import json
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import (Failure, Player, Server, check, new_game, server_state,  # noqa: E402
                         timed_main)

TURNS = 4
MAX_GAMES = 30
OTHER = {"A": "B", "B": "A"}
CAVALRY = {"cuirassiers", "heavy_cavalry", "dragoons", "lancers", "light_cavalry", "cossacks"}
OUT_OF_PLAY = ("removed", "dispersed")

# The rules the test must see applied at least once (in any game).
RULES = {
    "D34 retreat ends": "a retreat ends with its Mandatory-move phase",
    "D35 pursuit test": "a pursuer tests again in the Morale phase",
    "D37 reform": "a reform report makes a unit formed",
    "D38 refused": "a pursuer's charge is refused while its enemy flees",
    "D38 uncontrolled": "a pursuer with no enemy to pursue makes its uncontrolled charge",
    "D39 contact": "a contact during pursuit is accepted and settled",
    "D46 contest": "a contest is shown",
    "D46 ruling": "the umpire rules a contested report",
    "D46 ruling in settle": "a report phase waits in step settle for the umpire's ruling",
    "D46 adjust accepted": "an adjustment of the other side's unit is carried out once accepted",
    "D46 adjust contested": "a contested adjustment of the other side's unit is not carried out",
}
# Seen when the dice allow, not required.
OPTIONAL = {
    "D34 rally": "a broken unit rallies",
    "D36 blown over": "blown cavalry is normal after its Movement phase",
    "D39 contested": "a contested contact is rejected",
    "CLI charge as uncontrolled": "brigade play sends a free pursuer's charge as uncontrolled",
    "CLI stand only": "brigade play offers a charged unit that may not counter-charge stand only",
}


class Seat(Player):
    """A player that can also read its text output (help)."""

    def text_of(self, line):
        """The text lines `line` prints (not JSON), up to the next hash."""
        start = len(self.lines)
        self.send(line)
        self.send("hash")
        self.next_of(("hash",))
        return [m["text"] for m in self.lines[start:] if m.get("type") == "not_json"]


def text_state(args, server, game, token):
    """`brigade state` in text: the view a player sees, with what it is awaited for."""
    done = subprocess.run([args.brigade, "state", "--server", server.url, "--game", game,
                           "--token", token], capture_output=True, encoding="utf-8",
                          timeout=20)
    check(done.returncode == 0, "brigade state failed (%d): %s" % (done.returncode, done.stderr))
    return done.stdout


# ------------------------------------------------------- the wire state

def in_play(unit):
    return unit is not None and unit["status"] not in OUT_OF_PLAY


def in_melee(state, uid):
    return any(uid in melee["units"] for melee in state.get("melees", []))


def own(state, seat):
    return [uid for uid, unit in state["units"].items() if unit["side"] == seat and in_play(unit)]


def enemies(state, seat):
    return own(state, OTHER[seat])


def reports(state):
    return state.get("reports", [])


def pursued(state, uid):
    """The unit `uid` pursues: its `pursuing` member (PROTOCOL.md §7.1, a
    game of rules version 2), else its mandatory-move instruction ("pursue
    'X'"), on the unit or in the log's latest unit_changed of it; None: none
    left; "" unknown."""
    if state["units"][uid].get("pursuing"):
        return state["units"][uid]["pursuing"]
    texts = [state["units"][uid].get("move", "")]
    texts += [entry.get("text", "") for entry in reversed(state["log"])
              if entry.get("kind") == "unit_changed" and entry.get("unit") == uid]
    for text in texts:
        match = re.search(r"pursue '([^']+)'", text or "")
        if match:
            return match.group(1)
        if "no enemy left to pursue" in (text or ""):
            return None
    return ""


def fled(state, unit):
    """D38 as core counts it (brigade_battle_has_enemy_to_pursue)."""
    if not in_play(unit):
        return False
    before_moves = state["phase"] in ("initiative", "mandatory_moves")
    if before_moves and unit.get("fled_turn", 0) != state["turn"]:
        return unit["status"] in ("retreating", "broken")
    return unit.get("fled_turn", 0) == state["turn"]


def has_enemy_to_pursue(state, uid):
    unit = state["units"][uid]
    if unit["status"] != "pursuing":
        return False
    target = pursued(state, uid)
    if target is None:
        return False
    if target:
        return fled(state, state["units"].get(target))
    return any(fled(state, state["units"][other]) for other in enemies(state, unit["side"]))


def new_entries(before, after):
    return after["log"][len(before["log"]):]


# ----------------------------------------------------------- the game

# Each phase's checks written out as a method of their own, in the rules'
# order, so that each reads alone.
class Game:
    def __init__(self, args, processes, server, number, seen, umpired):
        self.args = args
        self.server = server
        self.number = number
        self.seen = seen  # rule -> "game N turn T: what"
        created = new_game(args, server)
        self.game = created["game"]
        self.tokens = created["seats"]
        seats = ("A", "B", "umpire") if umpired else ("A", "B")
        self.players = {seat: Seat(processes, args.brigade, server.url, self.game,
                                   self.tokens[seat], "game %d %s" % (number, seat),
                                   timeout=10)
                        for seat in seats}
        for seat, player in self.players.items():
            welcome = player.next_of(("welcome",))
            check(welcome["seat"] == seat, "%s joined as %s" % (seat, welcome["seat"]))
        self.umpire = self.players.get("umpire")
        self.seq = 0
        self.contests = 0
        self.typos_checked = False
        self.phase_start = {}  # (turn, phase) -> the state when it began
        self.contacted = {}    # turn -> units a pursuer's accepted contact reached (D39)
        self.reformed = {}     # turn -> units whose reform this test reported (D37)
        self.rallied = {}      # turn -> units whose rally this test reported (D34)
        self.adjusted = 0      # adjustments of the other side's units reported (D46)

    def note(self, rule, text):
        if rule not in self.seen:
            self.seen[rule] = "game %d: %s" % (self.number, text)
        print("game %d: %s: %s" % (self.number, rule, text))

    # -- acting

    def sync(self):
        """Both clients hold the server's latest seq (of the last ack)."""
        for player in self.players.values():
            player.wait("seq=%d" % self.seq)

    def act(self, seat, line):
        answer = self.players[seat].act(line)
        if answer.get("type") == "ack":
            self.seq = max(self.seq, answer["seq"])
            self.sync()
        return answer

    def ok(self, seat, line):
        answer = self.act(seat, line)
        check(answer.get("type") == "ack",
              "game %d: %s: '%s' was not accepted: %s" % (self.number, seat, line, answer))
        return answer

    def refused(self, seat, line, code, words):
        answer = self.act(seat, line)
        check(answer.get("type") == "error" and answer.get("code") == code and
              words in answer.get("message", ""),
              "game %d: %s: '%s' should be refused (%s, naming %r), got %s" %
              (self.number, seat, line, code, words, answer))
        return answer

    def typo(self, seat, line, words):
        """A mistyped command: refused before sending, naming the word at fault."""
        answer = self.players[seat].act(line)
        check(answer.get("type") == "input_error" and words in answer.get("message", ""),
              "game %d: %s: '%s' should be a typing error naming %r, got %s" %
              (self.number, seat, line, words, answer))

    def state(self):
        return self.players["A"].state()["state"]

    def awaited_done(self):
        """Every seat the state awaits says done."""
        for seat in self.state()["awaiting"]:
            self.ok(seat, "done")

    def help_of(self, seat):
        return "\n".join(self.players[seat].text_of("help"))

    def check_help(self, seat, command, offered, names=()):
        """`help` lists `command` (its syntax line) only when it is offered, with
        the units or reports it may name now."""
        text = self.help_of(seat)
        listed = re.search(r"^  %s " % re.escape(command), text, re.M) is not None
        check(listed == offered,
              "game %d: %s's help %s '%s' when the rules %s it:\n%s" %
              (self.number, seat, "lists" if listed else "does not list", command,
               "allow" if offered else "do not allow", text))
        for name in names:
            check(re.search(r"allowed now: .*%s %s" % (re.escape(command), re.escape(name)), text),
                  "game %d: %s's help does not name '%s %s' as allowed now:\n%s" %
                  (self.number, seat, command, name, text))

    def check_todo(self, seat, words):
        text = text_state(self.args, self.server, self.game, self.tokens[seat])
        check(words in text, "game %d: %s's screen does not say %r:\n%s" %
              (self.number, seat, words, text))

    # -- the turn

    def play(self):
        while True:
            state = self.state()
            turn, phase, step = state["turn"], state["phase"], state["step"]
            key = (turn, phase)
            if key not in self.phase_start:
                self.phase_begun(state)
                self.phase_start[key] = state
            if phase == "ended" or turn > TURNS:
                return state
            awaiting = state["awaiting"]
            if not awaiting and self.umpire and step == "settle":
                self.settle(state)
                continue
            check(awaiting, "game %d: T%d %s/%s awaits nobody" % (self.number, turn, phase, step))
            if phase == "initiative":
                self.ok(awaiting[0], "initiative A")
            elif phase == "mandatory_moves":
                self.mandatory_moves(state)
            elif phase == "charge":
                self.charge(state)
            elif phase == "movement":
                self.movement(state)
            elif phase == "morale":
                self.morale(state)
            elif phase == "fire" and step == "report":
                self.fire(state)
            else:  # fire (and a melee step, which example A has none of)
                for seat in awaiting:
                    self.ok(seat, "done")

    def phase_begun(self, state):
        """The checks of the phase that just ended, with its start and now."""
        turn, phase = state["turn"], state["phase"]
        if phase == "charge":
            self.check_mandatory_moves(self.phase_start.get((turn, "mandatory_moves")), state)
        elif phase == "movement":
            self.check_charge(self.phase_start.get((turn, "charge")), state)
        elif phase == "fire":
            self.check_movement(self.phase_start.get((turn, "movement")), state)
        elif phase == "morale":
            self.check_morale_begin(self.phase_start.get((turn, "fire")), state)
        elif (phase == "initiative" and turn > 1) or phase == "ended":
            last = max((key for key in self.phase_start if key[1] == "morale"), default=None)
            if last:
                self.check_morale_end(self.phase_start[last], state)

    # The umpire (a game with one): D9's events and the contested reports.
    def settle(self, state):
        if state["phase"] != "melee":
            self.check_ruling_awaited(state)
        for event in state.get("pending", []):
            self.ok("umpire", "settle %s %s the umpire rules it a fair fight (e2e)" %
                    (event["unit"], event["event"]))
        for report in reports(state):
            if report["state"] == "awaits_umpire":
                self.rule(report, report["kind"] != "contact")

    def check_ruling_awaited(self, state):
        """A report phase in step settle (D46): everyone is told the umpire
        rules on the contested report, and the umpire's settle points to
        rule N."""
        waiting = [r for r in reports(state) if r["state"] == "awaits_umpire"]
        check(waiting, "game %d: T%d %s/settle with no report awaiting the umpire: %s" %
              (self.number, state["turn"], state["phase"], reports(state)))
        number = waiting[0]["number"]
        for seat in ("A", "B", "umpire"):
            shown = text_state(self.args, self.server, self.game, self.tokens[seat])
            check("waiting for the umpire to rule on report%s %d (" %
                  ("s" if len(waiting) > 1 else "", number) in shown and
                  "awaiting the umpire" in shown and "melee's events" not in shown and
                  "awaiting nobody" not in shown,
                  "game %d: %s's screen in %s/settle does not say the umpire rules on report "
                  "%d:\n%s" % (self.number, seat, state["phase"], number, shown))
        self.check_todo("umpire", "(you: rule %d upheld|rejected REASON)" % number)
        self.typo("umpire", "settle %s double_six fair" % waiting[0]["unit"],
                  "rule %d upheld|rejected REASON" % number)
        self.note("D46 ruling in settle", "T%d %s report %d" %
                  (state["turn"], state["phase"], number))

    def rule(self, report, upheld):
        """The umpire rules on a contested report: both players see the
        ruling, and nothing holds the game after it."""
        number = report["number"]
        self.check_help("umpire", "rule", True)
        self.check_todo("umpire", "rule %d upheld|rejected REASON" % number)
        reason = "the umpire measured it (e2e)"
        self.ok("umpire", "rule %d %s %s" % (number, "upheld" if upheld else "rejected", reason))
        for seat in ("A", "B"):
            now = self.players[seat].state()["state"]
            ruled = [r for r in reports(now) if r["number"] == number]
            check(now.get("hold") is None,
                  "game %d: a ruling holds the game: %r" % (self.number, now.get("hold")))
            if ruled:  # a ruling that ended the step has cleared the phase's reports
                check(ruled[0]["state"] == ("upheld" if upheld else "rejected") and
                      ruled[0]["ruling"] == reason,
                      "game %d: %s sees report %d after the ruling as %s" %
                      (self.number, seat, number, ruled[0]))
        self.note("D46 ruling", "report %d (%s) %s by the umpire" %
                  (number, report["kind"], "upheld" if upheld else "rejected"))

    # Mandatory moves: contacts (D39), then done.
    def mandatory_moves(self, state):
        turn = state["turn"]
        if not self.typos_checked:
            self.typos_checked = True
            self.typo("A", "reform hussar", "no unit 'hussar'")
            self.typo("B", "contest x the hussars were out of reach", "'x' is not a report number")
            self.typo("A", "accept 99", "no report 99")
            self.typo("B", "uncontrolled dragoons hussars sideways", "facing 'sideways'")
            self.typo("B", "uncontrolled dragoons none front", "'front' after none")
            self.typo("A", "rule 1 upheld fair", "rule is the umpire's")
        for seat in ("A", "B"):
            pursuers = [uid for uid in own(state, seat) if has_enemy_to_pursue(state, uid)]
            self.check_help(seat, "contact", bool(pursuers), pursuers)
            for uid in pursuers:
                # The first contact is accepted, a later one contested; once
                # both have been seen the pursuit goes on without one, so that
                # the pursuer tests again (D35) and charges uncontrolled (D38).
                if "D39 contact" in self.seen and "D39 contested" in self.seen:
                    continue
                target = pursued(state, uid) or enemies(state, seat)[0]
                self.ok(seat, "contact %s %s" % (uid, target))
                now = self.state()
                report = reports(now)[-1]
                check(report["kind"] == "contact" and report["unit"] == uid and
                      report["target"] == target and report["state"] == "awaits_answer" and
                      report["side"] == seat,
                      "game %d: T%d contact report: %s" % (self.number, turn, report))
                other = OTHER[seat]
                number = report["number"]
                check(other in now["awaiting"], "a contact awaits the other side's answer: %s"
                      % now["awaiting"])
                self.check_todo(other, "you (%s): answer report %d (contact %s -> %s): accept "
                                "%d or contest %d REASON" %
                                (other, number, uid, target, number, number))
                self.check_help(other, "accept", True)
                self.refused(other, "done", "invalid_action", "accept %d" % number)
                before = now
                if "D39 contact" not in self.seen:
                    self.ok(other, "accept %d" % number)
                    self.contacted.setdefault(turn, set()).add(target)
                    after = self.state()
                    self.check_contact_accepted(before, after, number, uid, target)
                else:
                    self.ok(other, "contest %d the %s were out of reach of the %s" %
                            (number, target, uid))
                    after = self.state()
                    report = [r for r in reports(after) if r["number"] == number][0]
                    if self.umpire:
                        check(report["state"] == "awaits_umpire" and report["contested"],
                              "game %d: a contested contact awaits the umpire: %s" %
                              (self.number, report))
                        self.rule(report, False)
                    else:
                        check(report["state"] == "rejected" and report["contested"],
                              "game %d: a contested contact with no umpire is rejected: %s" %
                              (self.number, report))
                    self.note("D39 contested", "T%d contact %d rejected" % (turn, number))
        self.awaited_done()

    def check_contact_accepted(self, before, after, number, pursuer, target):
        turn = after["turn"]
        report = [r for r in reports(after) if r["number"] == number][0]
        check(report["state"] == "accepted", "game %d: report %d after accept: %s" %
              (self.number, number, report))
        entries = new_entries(before, after)
        resolved = [e for e in entries if e.get("kind") == "melee_resolved"]
        check(resolved and resolved[0]["melee"].startswith("T%d.M" % turn),
              "game %d: an accepted contact settles the fleeing unit at once as a melee of "
              "turn %d: %s" % (self.number, turn, json.dumps(entries)[:2000]))
        tested = [e for e in entries if e.get("kind") == "melee_unit_result" and
                  e.get("unit") == pursuer and e.get("test")]
        check(tested, "game %d: the pursuer's test is rolled with the contact's melee: %s" %
              (self.number, json.dumps(entries)[:2000]))
        self.note("D39 contact", "T%d %s reached %s: %s; %s's test %s" %
                  (turn, pursuer, target, resolved[0].get("text"), pursuer,
                   tested[0]["test"]["outcome"]))

    def check_mandatory_moves(self, start, now):
        """D34 at the end of the Mandatory-move phase."""
        if start is None:
            return
        turn = now["turn"]
        contacted = self.contacted.get(turn, set())
        for uid, was in start["units"].items():
            unit = now["units"][uid]
            if not in_play(was) or in_melee(start, uid):
                continue
            if was["status"] == "retreating":
                if uid in contacted:
                    check(unit["status"] in ("retreating",) + OUT_OF_PLAY,
                          "game %d: T%d %s, contacted while retreating, is %s (D34: it keeps "
                          "retreating)" % (self.number, turn, uid, unit["status"]))
                    continue
                check(unit["status"] == "normal" and not unit["formed"] and
                      unit.get("fled_turn") == turn,
                      "game %d: T%d %s retreated in the Mandatory moves: now %s, formed %s, "
                      "fled_turn %s (D34: normal, unformed, fled_turn %d)" %
                      (self.number, turn, uid, unit["status"], unit["formed"],
                       unit.get("fled_turn"), turn))
                self.note("D34 retreat ends", "T%d %s retreating -> normal, unformed" % (turn, uid))
            elif was["status"] == "broken":
                check(unit["status"] in ("broken",) + OUT_OF_PLAY and
                      (not in_play(unit) or unit.get("fled_turn") == turn),
                      "game %d: T%d broken %s: now %s, fled_turn %s (D34: broken until it "
                      "rallies, its move made)" %
                      (self.number, turn, uid, unit["status"], unit.get("fled_turn")))

    # Charge: D38, the declarations, the responses.
    def charge(self, state):
        turn, step = state["turn"], state["step"]
        seat = state["awaiting"][0]
        if step == "declare":
            pursuers = [uid for uid in own(state, seat)
                        if state["units"][uid]["status"] == "pursuing"]
            free = [uid for uid in pursuers if not has_enemy_to_pursue(state, uid)]
            self.check_help(seat, "uncontrolled", bool(free), free)
            for uid in pursuers:
                targets = [t for t in enemies(state, seat) if not in_melee(state, t)]
                if has_enemy_to_pursue(state, uid):
                    target = pursued(state, uid) or enemies(state, seat)[0]
                    self.refused(seat, "charge %s %s" % (uid, target), "invalid_action",
                                 "'%s' is pursuing '%s' and may not charge (12.24 f)" %
                                 (state["units"][uid]["name"], state["units"][target]["name"]))
                    self.note("D38 refused", "T%d charge %s %s refused" % (turn, uid, target))
                    continue
                self.check_todo(seat, "pursuing '%s' has no enemy to pursue: uncontrolled %s "
                                "TARGET [FACING], or uncontrolled %s none" % (uid, uid, uid))
                line = ("uncontrolled %s %s front" % (uid, targets[0]) if targets
                        else "uncontrolled %s none" % uid)
                converted = targets and "D38 uncontrolled" in self.seen
                if converted:
                    # The CLI makes a pursuer's charge its uncontrolled one.
                    line = "charge %s %s" % (uid, targets[0])
                    told = len(self.players[seat].errors)
                self.ok(seat, line)
                if converted:
                    time.sleep(0.1)  # stderr is read by a thread of its own
                    notice = "\n".join(self.players[seat].errors[told:])
                    check("sent as its uncontrolled charge, 'uncontrolled %s %s front'" %
                          (uid, targets[0]) in notice,
                          "game %d: the CLI did not say it sent '%s' as the uncontrolled "
                          "charge: %r" % (self.number, line, notice))
                    self.note("CLI charge as uncontrolled", "T%d %s" % (turn, line))
                report = reports(self.state())[-1]
                check(report["kind"] == "uncontrolled" and report["unit"] == uid and
                      report["state"] == "stands" and
                      report["target"] == (targets[0] if targets else None),
                      "game %d: T%d '%s' gave the report %s" % (self.number, turn, line, report))
            for uid in own(state, seat):
                unit = state["units"][uid]
                if unit["status"] != "normal" or not unit["formed"] or in_melee(state, uid):
                    continue
                targets = [t for t in enemies(state, seat) if not in_melee(state, t)]
                if targets:
                    # Whether the rules allow it (D26, turn.md's checks) is the
                    # server's to say; this test looks at what follows.
                    self.act(seat, "charge %s %s front" % (uid, targets[0]))
            self.ok(seat, "done")
        elif step == "respond":
            for charge in state["charges"]:
                uid = charge["target"]
                target = state["units"][uid]
                if target["side"] != seat or charge.get("response") or charge.get("reinforce"):
                    continue
                # The screen offers the counter-charge only where core allows
                # it (its charge_check); core accepts what it offers.
                shown = text_state(self.args, self.server, self.game, self.tokens[seat])
                counter = "respond %s countercharge" % uid in shown
                check(counter or "respond %s stand (it may not counter-charge: " % uid in shown,
                      "game %d: %s's screen offers no answer to the charge on %s:\n%s" %
                      (self.number, seat, uid, shown))
                if not counter:
                    self.note("CLI stand only", "T%d %s: %s" % (
                        turn, uid, shown.split("respond %s stand (" % uid)[1].split("\n")[0][:-1]))
                self.ok(seat, "respond %s %s" % (uid, "countercharge" if counter else "stand"))
                break
        elif step == "occupy":
            chargers = [c["unit"] for c in state["charges"]
                        if state["units"][c["unit"]]["side"] == seat]
            self.ok(seat, "occupy %s" % chargers[0])
            self.ok(seat, "done")
        else:
            raise Failure("game %d: T%d charge step %r awaiting %s" %
                          (self.number, turn, step, state["awaiting"]))

    def check_charge(self, start, now):
        """D38 at the end of the Charge phase: the uncontrolled charges, and the
        pursuers that had no enemy and declared none are blown."""
        if start is None:
            return
        turn = now["turn"]
        for uid, was in start["units"].items():
            if was["status"] != "pursuing" or has_enemy_to_pursue(start, uid) or \
                    in_melee(start, uid):
                continue
            charges = [c for c in now["charges"] if c["unit"] == uid]
            if charges:
                check(charges[0].get("uncontrolled") is True,
                      "game %d: T%d %s's charge should be uncontrolled: %s" %
                      (self.number, turn, uid, charges[0]))
                self.note("D38 uncontrolled", "T%d %s -> %s uncontrolled" %
                          (turn, uid, charges[0]["target"]))
            elif now["units"][uid]["status"] not in OUT_OF_PLAY:
                check(now["units"][uid]["status"] == "blown",
                      "game %d: T%d %s had no enemy to pursue and no charge: %s (12.24 g: "
                      "blown)" % (self.number, turn, uid, now["units"][uid]["status"]))

    # Movement: reform (D37), the first one contested (D46).
    def movement(self, state):
        turn = state["turn"]
        for seat in ("A", "B"):
            ready = [uid for uid in own(state, seat)
                     if state["units"][uid]["status"] == "normal" and
                     not state["units"][uid]["formed"] and not in_melee(state, uid)]
            self.check_help(seat, "reform", bool(ready), ready)
            for uid in ready:
                self.ok(seat, "reform %s" % uid)
                self.reformed.setdefault(turn, []).append(uid)
                now = self.state()
                report = reports(now)[-1]
                check(report["kind"] == "reform" and report["unit"] == uid and
                      report["state"] == "stands",
                      "game %d: T%d reform report %s" % (self.number, turn, report))
                other = OTHER[seat]
                if self.contests == 0:
                    number = report["number"]
                    self.check_help(other, "contest", True)
                    self.check_todo(other, "contest %d REASON" % number)
                    reason = "the %s were still within charge reach" % uid
                    self.ok(other, "contest %d %s" % (number, reason))
                    after = self.state()
                    report = [r for r in reports(after) if r["number"] == number][0]
                    check(report["contested"] and report["contest"] == reason and
                          report["state"] == ("awaits_umpire" if self.umpire else "stands"),
                          "game %d: a contested reform (%s) %s, contest shown: %s" %
                          (self.number, "an umpire seated" if self.umpire else "no umpire",
                           "awaits the umpire" if self.umpire else "stands", report))
                    answered = [e for e in new_entries(now, after)
                                if e.get("kind") == "report_answered"]
                    check(answered and reason in answered[0].get("text", ""),
                          "game %d: the contest is in the log: %s" %
                          (self.number, new_entries(now, after)))
                    shown = text_state(self.args, self.server, self.game, self.tokens[seat])
                    check("contested by side %s: \"%s\"" % (other, reason) in shown,
                          "game %d: %s's screen does not show the contest:\n%s" %
                          (self.number, seat, shown))
                    self.contests += 1
                    self.note("D46 contest", "T%d reform %s contested by %s: %s" %
                              (turn, uid, other, answered[0]["text"]))
                    # With an umpire it is ruled once both sides are done, in
                    # step settle (self.settle): upheld, it stands, formed
                    # when Movement ends.
        self.awaited_done()

    def check_movement(self, start, now):
        """D36 and D37 at the end of the Movement phase."""
        if start is None:
            return
        turn = now["turn"]
        for uid, was in start["units"].items():
            unit = now["units"][uid]
            if not in_play(unit):
                continue
            if was["status"] == "blown":
                check(unit["status"] == "normal" and not unit["formed"],
                      "game %d: T%d %s was blown: after Movement %s, formed %s (D36: normal, "
                      "unformed)" % (self.number, turn, uid, unit["status"], unit["formed"]))
                self.note("D36 blown over", "T%d %s blown -> normal" % (turn, uid))
        for uid in self.reformed.get(turn, []):
            check(now["units"][uid]["formed"],
                  "game %d: T%d %s's reform stood: after Movement formed is %s (D37)" %
                  (self.number, turn, uid, now["units"][uid]["formed"]))
            self.note("D37 reform", "T%d %s formed" % (turn, uid))

    def check_morale_begin(self, fire, now):
        """D35: the pursuers of the Fire phase in no melee test at the Morale
        phase's start."""
        if fire is None:
            return
        turn = now["turn"]
        entries = new_entries(fire, now)
        for uid, was in fire["units"].items():
            # A pursuer that fought this turn (a contact's melee) took its
            # pursuit test there.
            fought = {u for melee in fire.get("fought", []) for u in melee.get("units", [])}
            if (was["status"] != "pursuing" or was["type"] not in CAVALRY or
                    in_melee(fire, uid) or uid in fought or not in_play(now["units"][uid])):
                continue
            name = "T%d.%s.pursuit" % (turn, uid)
            tests = [e for e in entries if e.get("kind") == "test_taken" and
                     name in json.dumps(e)]
            check(tests, "game %d: %s was pursuing in no melee: no %s in the Morale phase's "
                  "log (D35): %s" % (self.number, uid, name, json.dumps(entries)[:3000]))
            test = tests[0]
            outcome = (test.get("test") or {}).get("outcome") or test.get("outcome")
            if outcome is None:
                match = re.search(r": (pursuit|blown|unformed|excellent)\b", test.get("text", ""))
                outcome = match and match.group(1)
            status = now["units"][uid]["status"]
            expected = {"pursuit": ("pursuing",), "blown": ("blown",),
                        "unformed": ("normal",), "excellent": ("normal",)}.get(outcome)
            check(expected and status in expected,
                  "game %d: %s's %s gave %s, its status is %s" %
                  (self.number, uid, name, outcome, status))
            self.note("D35 pursuit test", "%s: %s -> %s" % (name, outcome, status))

    # Fire: an adjustment of the other side's unit is a report (D46): the
    # first one is accepted, the next one contested; then done.
    def fire(self, state):
        turn = state["turn"]
        seat = state.get("phasing") or "A"
        other = OTHER[seat]
        targets = [uid for uid in own(state, other)
                   if state["units"][uid]["figures"] > 1 and not in_melee(state, uid)]
        if self.adjusted < 2 and targets and seat in state["awaiting"] and \
                other in state["awaiting"]:
            uid = targets[0]
            figures = state["units"][uid]["figures"] - 1
            note = "carbine fire (e2e)"
            self.ok(seat, 'adjust %s figures=%d note="%s"' % (uid, figures, note))
            now = self.state()
            report = reports(now)[-1]
            number = report["number"]
            check(report["kind"] == "adjust" and report["unit"] == uid and
                  report["side"] == seat and report["state"] == "awaits_answer" and
                  report.get("figures") == figures and report.get("note") == note and
                  now["units"][uid]["figures"] == figures + 1,
                  "game %d: T%d an adjustment of the other side's %s is a report awaiting its "
                  "answer, the unit unchanged: %s, figures %d" %
                  (self.number, turn, uid, report, now["units"][uid]["figures"]))
            self.check_todo(other, "you (%s): answer report %d, side %s: '%s' %d figures "
                            "\u2014 %s; accept %d or contest %d REASON" %
                            (other, number, seat, uid, figures, note, number, number))
            self.check_help(other, "accept", True, [str(number)])
            self.check_help(other, "contest", True, [str(number)])
            self.check_help(seat, "accept", False)
            self.refused(other, "done", "invalid_action", "accept %d" % number)
            if self.adjusted == 0:
                self.ok(other, "accept %d" % number)
                after = self.state()
                ruled = [r for r in reports(after) if r["number"] == number][0]
                check(ruled["state"] == "accepted" and after["units"][uid]["figures"] == figures,
                      "game %d: T%d accepted adjustment %s: %s, figures %d" %
                      (self.number, turn, number, ruled, after["units"][uid]["figures"]))
                self.note("D46 adjust accepted", "T%d report %d: %s %d figures" %
                          (turn, number, uid, figures))
            else:
                # The other outcome written out as the first is: each reads alone.
                self.ok(other, "contest %d the carbines were out of range (e2e)" % number)
                after = self.state()
                ruled = [r for r in reports(after) if r["number"] == number][0]
                if self.umpire:
                    check(ruled["state"] == "awaits_umpire" and ruled["contested"],
                          "game %d: a contested adjustment awaits the umpire: %s" %
                          (self.number, ruled))
                    self.rule(ruled, False)
                    after = self.state()
                else:
                    check(ruled["state"] == "rejected" and ruled["contested"],
                          "game %d: a contested adjustment with no umpire is rejected: %s" %
                          (self.number, ruled))
                check(after["units"][uid]["figures"] == figures + 1,
                      "game %d: T%d rejected adjustment %d changed %s's figures to %d" %
                      (self.number, turn, number, uid, after["units"][uid]["figures"]))
                self.note("D46 adjust contested", "T%d report %d rejected" % (turn, number))
            self.adjusted += 1
        for seat in self.state()["awaiting"]:
            self.ok(seat, "done")

    # Morale: rally (D34), then done.
    def morale(self, state):
        turn = state["turn"]
        fought = {u for melee in state.get("fought", []) for u in melee.get("units", [])}
        for seat in ("A", "B"):
            ready = [uid for uid in own(state, seat)
                     if state["units"][uid]["status"] == "broken" and
                     state["units"][uid].get("fled_turn") == turn and uid not in fought]
            self.check_help(seat, "rally", bool(ready), ready)
            for uid in ready:
                self.ok(seat, "rally %s" % uid)
                self.rallied.setdefault(turn, []).append(uid)
        self.awaited_done()

    def check_morale_end(self, start, now):
        if start is None:
            return
        turn = start["turn"]
        for uid in self.rallied.get(turn, []):
            unit = now["units"].get(uid)
            if unit and in_play(unit):
                check(unit["status"] == "normal" and not unit["formed"],
                      "game %d: T%d %s rallied: %s, formed %s (D34: normal, unformed)" %
                      (self.number, turn, uid, unit["status"], unit["formed"]))
                self.note("D34 rally", "T%d %s broken -> normal" % (turn, uid))

    # -- the end

    def finish(self):
        hashes = {seat: self.players[seat].hash() for seat in ("A", "B")}
        theirs = server_state(self.args, self.server, self.game, self.tokens["A"])
        for seat, mine in hashes.items():
            check(mine["seq"] == theirs["seq"] and mine["hash"] == theirs["hash"],
                  "game %d: player %s holds seq %d hash %s, the server seq %d hash %s" %
                  (self.number, seat, mine["seq"], mine["hash"], theirs["seq"], theirs["hash"]))
        for seat, player in self.players.items():
            expected = 3 if player.refused else 0
            status = player.quit()
            check(status == expected, "game %d: player %s exited %d, not %d (%d refused); "
                  "stderr: %s" % (self.number, seat, status, expected, player.refused,
                                  player.errors[-3:]))
        return theirs


def play(args, processes):
    server = Server(processes, args.brigaded)
    seen = {}
    games = 0
    four_turns = False
    while games < MAX_GAMES and (not four_turns or any(rule not in seen for rule in RULES)):
        games += 1
        started = time.time()
        # Every other game has an umpire: contests wait for its ruling (D46).
        game = Game(args, processes, server, games, seen, umpired=games % 2 == 0)
        state = game.play()
        final = game.finish()
        four_turns = four_turns or state["turn"] > TURNS
        print("game %d: %s at turn %d, seq %d (%.1f s)" %
              (games, "ended" if state["phase"] == "ended" else "played", state["turn"],
               final["seq"], time.time() - started))
    server.stop()
    for rule, text in sorted(RULES.items()):
        print("%-26s %s" % (rule, seen.get(rule, "NOT SEEN (%s)" % text)))
    for rule, text in sorted(OPTIONAL.items()):
        print("%-26s %s" % (rule, seen.get(rule, "not seen in these games (%s)" % text)))
    check(four_turns, "no game lasted four turns in %d games" % games)
    missing = [rule for rule in RULES if rule not in seen]
    check(not missing, "in %d games the dice never gave: %s" %
          (games, "; ".join("%s (%s)" % (rule, RULES[rule]) for rule in missing)))


def main():
    return timed_main("e2e_four_turns", play)


if __name__ == "__main__":
    sys.exit(main())
