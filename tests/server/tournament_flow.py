#!/usr/bin/env python3
"""tests/server/tournament_flow.py: brigaded's tournaments (PROTOCOL.md §11)
end to end over real websockets.

    tournament_flow.py CASE BRIGADED SCENARIOS_DIR

A 4-player Swiss of the Autumn Cup's kind: created, round 1 paired as
tournament/README.md pairs it by hand (seed 1 v 3, 2 v 4, the higher seed
on side A), each game joined with its player's tournament token and ended
by the umpire, results given, round 2 paired from them, the server killed
with SIGKILL and restarted, the tournament the same (rounds, results,
standings with points and Buchholz computed by hand), the organiser's
correction, the export of each ended game served at /exports/, and the
refusals (bad token, round not over, unknown tournament, a joined
connection). Reuses game_flow.py's server and client.
"""
import hashlib
import os
import sys
import time
import urllib.request

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from game_flow import (Client, Failure, Server, case_arguments, check, expect_error,  # noqa: E402
                       run_case)

PLAYERS = ["Anna Lef\u00e8vre", "Ben Carter", "Chiara Rossi", "Dmitri Orlov"]
DEFINITION = """{
  "name": "Autumn Cup 1809",
  "players": ["Anna Lef\u00e8vre", "Ben Carter", "Chiara Rossi", "Dmitri Orlov"],
  "scenarios": ["example_a.json", "village.json"],
  "format": "swiss",
  "rounds": 3,
  "time_control": { "minutes_per_side": 90, "increment_seconds": 30 },
  "umpires": ["Gustav Berg"]
}"""


def seed(n):
    return hashlib.sha256(b"seed %d" % n).hexdigest()


def scenario_texts(scenarios):
    return {name: open(os.path.join(scenarios, name)).read()
            for name in ("example_a.json", "village.json")}


def state_of(answer):
    check(answer.get("type") == "tournament_state", "expected tournament_state: %r" % answer)
    return answer["tournament"]


def pairs(view, number):
    r = view["pairings"][number - 1]
    return [(t["table"], t["a"], t["b"]) for t in r["tables"]]


def end_game(server, game, umpire_token, tokens, n, result=None):
    """Both players join with their tournament tokens (the battle begins),
    then the umpire ends it (with `result`, PROTOCOL.md §11.5, when given)."""
    players = []
    for i, token in enumerate(tokens):
        c = Client(server)
        answer = c.ask({"type": "join", "game": game, "token": token, "seed": seed(n * 2 + i)})
        check(answer.get("type") == "welcome" and answer["seat"] == "AB"[i],
              "player %d's welcome: %r" % (i, answer))
        players.append(c)
    u = Client(server)
    answer = u.ask({"type": "join", "game": game, "token": umpire_token})
    check(answer.get("type") == "welcome" and answer["seat"] == "umpire", "umpire %r" % answer)
    # The umpire's seating is a delta; then the end.
    action = {"kind": "end", "reason": "time is up"}
    if result:
        action["result"] = result
    answer = u.ask({"type": "act", "action": action})
    while answer.get("type") == "delta":
        answer = u.recv()
    check(answer.get("type") == "ack", "end: %r" % answer)
    for c in players + [u]:
        c.close()


def wait_for(server, tournament, condition, what):
    deadline = time.time() + 10
    while time.time() < deadline:
        c = Client(server)
        view = state_of(c.ask({"type": "tournament_get", "tournament": tournament}))
        c.close()
        if condition(view):
            return view
        time.sleep(0.1)
    raise Failure("timed out waiting for " + what)


def case_swiss(server, scenarios):
    o = Client(server)
    # A bad file: the parser's message (tournaments/README.md).
    expect_error(o.ask({"type": "tournament_create", "tournament": "{\"name\": \"x\"}",
                        "scenarios": scenario_texts(scenarios)}), "bad_message")
    bad = dict(scenario_texts(scenarios))
    bad["village.json"] = "{}"
    answer = o.ask({"type": "tournament_create", "tournament": DEFINITION, "scenarios": bad})
    expect_error(answer, "bad_message")
    check(answer["message"].startswith("scenarios.village.json: "), answer["message"])
    created = o.ask({"type": "tournament_create", "tournament": DEFINITION,
                     "scenarios": scenario_texts(scenarios)})
    check(created.get("type") == "tournament_created", "created %r" % created)
    tid = created["tournament"]
    check(len(tid) == 32 and len(created["organiser"]) == 64, "ids %r" % created)
    check([p["name"] for p in created["players"]] == PLAYERS, "players %r" % created)
    check([u["name"] for u in created["umpires"]] == ["Gustav Berg"], "umpires")
    organiser = created["organiser"]
    player = [p["token"] for p in created["players"]]
    umpire = created["umpires"][0]["token"]
    check(organiser.encode() not in open(server.log_path, "rb").read(), "a token in the log")

    view = state_of(o.ask({"type": "tournament_get", "tournament": tid}))
    check(view["round"] == 0 and view["round_over"] is True and view["pairings"] == [],
          "before round 1: %r" % view)
    check(view["time_control"] == {"minutes_per_side": 90, "increment_seconds": 30}, "clock")
    check([s["points"] for s in view["standings"]] == ["0"] * 4, "standings %r" % view)

    # A watcher hears every change (request 0).
    watcher = Client(server)
    state_of(watcher.ask({"type": "tournament_get", "tournament": tid, "watch": True}))
    expect_error(watcher.ask({"type": "tournament_get", "tournament": tid}), "bad_message")

    # Refusals.
    expect_error(o.ask({"type": "tournament_get", "tournament": "0" * 32}), "unknown_game")
    expect_error(o.ask({"type": "tournament_get", "tournament": tid, "token": "f" * 64}),
                 "bad_token")
    expect_error(o.ask({"type": "tournament_start_round", "tournament": tid,
                        "token": player[0]}), "bad_token")

    # Round 1: one score group of 4, h = 2: 0-2, 1-3, the higher seed on A.
    view = state_of(o.ask({"type": "tournament_start_round", "tournament": tid,
                           "token": organiser}))
    check(view["round"] == 1 and view["round_over"] is False, "round 1 %r" % view)
    check(pairs(view, 1) == [(1, 0, 2), (2, 1, 3)], "round 1 pairings %r" % pairs(view, 1))
    r1 = view["pairings"][0]
    check(r1["scenario"] == "example_a.json" and r1["bye"] is None, "round 1 %r" % r1)
    check(all(t["umpire"] == "Gustav Berg" and t["status"] == "waiting" and
              t["result"] is None and len(t["spectator"]) == 32 for t in r1["tables"]),
          "tables %r" % r1["tables"])
    pushed = watcher.recv()
    check(pushed.get("type") == "tournament_state" and pushed["request"] == 0 and
          pushed["tournament"]["round"] == 1, "watcher %r" % pushed)
    answer = o.ask({"type": "tournament_start_round", "tournament": tid, "token": organiser})
    expect_error(answer, "invalid_action")
    check(answer["message"] == "round 1 is not over: table 1, Anna Lef\u00e8vre \u2013 "
          "Chiara Rossi, has no result", answer["message"])
    answer = o.ask({"type": "tournament_get", "tournament": tid, "token": player[3]})
    check(answer["you"] == {"role": "player", "name": "Dmitri Orlov",
                            "game": r1["tables"][1]["game"], "seat": "B"}, "you %r" % answer)
    answer = o.ask({"type": "tournament_get", "tournament": tid, "token": umpire})
    check(answer["you"] == {"role": "umpire", "name": "Gustav Berg",
                            "game": r1["tables"][0]["game"], "seat": "umpire"}, "you %r" % answer)

    # Each game: joined with the players' tournament tokens, ended by the umpire.
    for n, t in enumerate(r1["tables"]):
        end_game(server, t["game"], umpire, [player[t["a"]], player[t["b"]]], n)
    view = wait_for(server, tid, lambda v: all("export" in t for t in v["pairings"][0]["tables"]),
                    "round 1's exports")
    check(all(t["status"] == "ended" and t["result"] is None for t in view["pairings"][0]["tables"]),
          "ended without result %r" % view)
    for t in view["pairings"][0]["tables"]:
        check(t["export"] == "/exports/%s.sqlite" % t["game"], "export %r" % t)
        body = urllib.request.urlopen("http://127.0.0.1:%d%s" % (server.port, t["export"]),
                                      timeout=10).read()
        check(body.startswith(b"SQLite format 3\0"), "the export is a journal")
    for path in ("/exports/../brigade.sqlite", "/exports/XYZ.sqlite", "/exports/brigade.sqlite"):
        try:
            urllib.request.urlopen("http://127.0.0.1:%d%s" % (server.port, path), timeout=10)
            raise Failure("served " + path)
        except urllib.error.HTTPError as error:
            check(error.code in (404, 400), "%s: %d" % (path, error.code))

    # A joined connection's tournament message.
    joined = Client(server)
    joined.ask({"type": "join", "game": r1["tables"][0]["game"],
                "token": r1["tables"][0]["spectator"]})
    expect_error(joined.ask({"type": "tournament_get", "tournament": tid}), "bad_message")
    joined.close()

    # The organiser gives round 1's results: 0 beats 2, 1-3 drawn.
    for t, result in zip(r1["tables"], ("A", "draw")):
        view = state_of(o.ask({"type": "tournament_result", "tournament": tid,
                               "token": organiser, "game": t["game"], "result": result,
                               "reason": "the umpire's sheet"}))
    check([(t["result"], t["by"]) for t in view["pairings"][0]["tables"]] ==
          [("A", "organiser"), ("draw", "organiser")], "results %r" % view)
    check(view["round_over"] is True, "round 1 over")

    # Round 2 from the results: 0 (1 point) floats onto 1, 3 onto 2 (never a
    # repeat); sides: 0 and 1 both had A: the higher seed; 2 and 3 both had
    # B: the higher seed.
    view = state_of(o.ask({"type": "tournament_start_round", "tournament": tid,
                           "token": organiser}))
    check(pairs(view, 2) == [(1, 0, 1), (2, 2, 3)], "round 2 pairings %r" % pairs(view, 2))
    r2 = view["pairings"][1]
    check(r2["scenario"] == "village.json", "round 2 scenario %r" % r2["scenario"])
    for t, result in zip(r2["tables"], ("B", "A")):
        view = state_of(o.ask({"type": "tournament_result", "tournament": tid,
                               "token": organiser, "game": t["game"], "result": result,
                               "reason": "agreed"}))
    # Round 1 is no longer correctable.
    expect_error(o.ask({"type": "tournament_result", "tournament": tid, "token": organiser,
                        "game": r1["tables"][0]["game"], "result": "B", "reason": "late"}),
                 "invalid_action")
    expect_error(o.ask({"type": "tournament_result", "tournament": tid, "token": player[0],
                        "game": r2["tables"][0]["game"], "result": "A", "reason": "mine"}),
                 "bad_token")
    # A correction: table 2 drawn, then back to A (the organiser's last word).
    state_of(o.ask({"type": "tournament_result", "tournament": tid, "token": organiser,
                    "game": r2["tables"][1]["game"], "result": "draw", "reason": "misread"}))
    before = state_of(o.ask({"type": "tournament_result", "tournament": tid,
                             "token": organiser, "game": r2["tables"][1]["game"],
                             "result": "A", "reason": "the sheet, read again"}))
    check(before["pairings"][1]["tables"][1]["reason"] == "the sheet, read again", "reason")

    # Points (halves) after two rounds: 1: 3, 0: 2, 2: 2, 3: 1. Buchholz:
    # 0: 2 + 3 = 5, 2: 2 + 1 = 3, 1: 1 + 2 = 3, 3: 3 + 2 = 5. So 1, 0, 2, 3.
    want = [(1, "1\u00bd", 3, 3, 5), (0, "1", 2, 5, 4), (2, "1", 2, 3, 2), (3, "\u00bd", 1, 5, 3)]
    got = [(s["player"], s["points"], s["half_points"], s["buchholz"], s["sonneborn_berger"])
           for s in before["standings"]]
    check(got == want, "standings %r" % got)
    check([s["rank"] for s in before["standings"]] == [1, 2, 3, 4], "ranks")
    check((before["standings"][0]["wins"], before["standings"][0]["draws"],
           before["standings"][0]["losses"]) == (1, 1, 0), "Ben's record")
    o.close()
    watcher.close()

    # kill -9 and a restart: the same tournament.
    server.kill_and_restart()
    c = Client(server)
    after = state_of(c.ask({"type": "tournament_get", "tournament": tid}))
    check(after == before, "after the restart:\n%r\nbefore:\n%r" % (after, before))
    answer = c.ask({"type": "tournament_get", "tournament": tid, "token": player[1]})
    check(answer["you"]["name"] == "Ben Carter", "a token after the restart %r" % answer)
    # Round 3 is paired after the restart too, and its games joinable.
    view = state_of(c.ask({"type": "tournament_start_round", "tournament": tid,
                           "token": organiser}))
    check(view["round"] == 3 and len(view["pairings"][2]["tables"]) == 2, "round 3 %r" % view)
    t = view["pairings"][2]["tables"][0]
    j = Client(server)
    answer = j.ask({"type": "join", "game": t["game"], "token": player[t["a"]], "seed": seed(99)})
    check(answer.get("type") == "welcome" and answer["seat"] == "A", "round 3 join %r" % answer)
    j.close()
    c.close()


def expected_standings(results):
    """An oracle independent of tournament/pairing.c: half-points (win 2,
    draw 1) and Buchholz (the opponents' half-points summed) from
    [(a, b, result)], result "A" | "B" | "draw"."""
    points = [0] * len(PLAYERS)
    met = [[] for _ in PLAYERS]
    for a, b, result in results:
        points[a] += {"A": 2, "B": 0, "draw": 1}[result]
        points[b] += {"A": 0, "B": 2, "draw": 1}[result]
        met[a].append(b)
        met[b].append(a)
    buchholz = [sum(points[o] for o in met[p]) for p in range(len(PLAYERS))]
    return points, buchholz


def case_umpired(server, scenarios):
    """Issue 15 point 7: a 4-player, 2-round Swiss; every game joined by its
    two players and ended by the umpire with a result; the server killed
    and restarted between the rounds; the standings checked."""
    definition = DEFINITION.replace('"rounds": 3', '"rounds": 2')
    o = Client(server)
    created = o.ask({"type": "tournament_create", "tournament": definition,
                     "scenarios": scenario_texts(scenarios)})
    check(created.get("type") == "tournament_created", "created %r" % created)
    tid, organiser = created["tournament"], created["organiser"]
    player = [p["token"] for p in created["players"]]
    umpire = created["umpires"][0]["token"]
    results = []
    n = 100
    for number, wanted in ((1, ("A", "draw")), (2, ("B", "A"))):
        view = state_of(o.ask({"type": "tournament_start_round", "tournament": tid,
                               "token": organiser}))
        tables = view["pairings"][number - 1]["tables"]
        check(len(tables) == 2 and view["pairings"][number - 1]["bye"] is None,
              "round %d: %r" % (number, tables))
        if number == 1:
            # Seed 1 v seed 3, seed 2 v seed 4 (tournament/README.md).
            check(pairs(view, 1) == [(1, 0, 2), (2, 1, 3)], "round 1 %r" % pairs(view, 1))
        else:
            # No pairing repeated, every player at one table.
            first = {frozenset((a, b)) for a, b, _ in results}
            check(all(frozenset((t["a"], t["b"])) not in first for t in tables),
                  "round 2 repeats a pairing: %r" % pairs(view, 2))
            check(sorted([t["a"] for t in tables] + [t["b"] for t in tables]) == [0, 1, 2, 3],
                  "round 2 seats %r" % pairs(view, 2))
        for t, result in zip(tables, wanted):
            n += 1
            end_game(server, t["game"], umpire, [player[t["a"]], player[t["b"]]], n, result)
            results.append((t["a"], t["b"], result))
        view = wait_for(server, tid, lambda v, r=number: v["round_over"] and all(
            t["by"] == "umpire" for t in v["pairings"][r - 1]["tables"]), "the umpire's results")
        got = [t["result"] for t in view["pairings"][number - 1]["tables"]]
        check(got == list(wanted), "round %d results %r" % (number, got))
        if number == 1:
            # Between the rounds: kill -9 and a restart; the same tournament.
            o.close()
            server.kill_and_restart()
            o = Client(server)
            after = state_of(o.ask({"type": "tournament_get", "tournament": tid}))
            check(after == view, "after the restart:\n%r\nbefore:\n%r" % (after, view))
    points, buchholz = expected_standings(results)
    standings = view["standings"]
    check(sorted(s["player"] for s in standings) == [0, 1, 2, 3], "standings %r" % standings)
    for s in standings:
        p = s["player"]
        check(s["half_points"] == points[p] and s["buchholz"] == buchholz[p],
              "%s: %r, expected %d half-points, Buchholz %d" %
              (PLAYERS[p], s, points[p], buchholz[p]))
    order = [s["player"] for s in standings]
    check(all(points[order[i]] >= points[order[i + 1]] for i in range(3)),
          "standings not by points: %r" % standings)
    answer = o.ask({"type": "tournament_start_round", "tournament": tid, "token": organiser})
    expect_error(answer, "invalid_action")
    o.close()


CASES = {"swiss": case_swiss, "umpired": case_umpired}


def main():
    name, brigaded, scenarios = case_arguments("tournament_flow.py", CASES)
    return run_case(name, Server(brigaded), CASES[name], scenarios, log_tail=6000, counts=True)


if __name__ == "__main__":
    sys.exit(main())
