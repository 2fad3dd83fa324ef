#!/usr/bin/env python3
"""tests/server/clock_flow.py: the games' clocks in brigaded (PROTOCOL.md
§11.2, issue 15 point 3) over real websockets.

    clock_flow.py CASE BRIGADED SCENARIOS_DIR

  restart  a game created with clock {minutes_per_side: 1} is played a few
           actions (the time spent charged to the awaited seats only, each
           delta with clock_now), brigaded is killed (SIGKILL) and started
           again: the state's clock is what was journaled, to the ms, and
           the time the server was down is charged to nobody; a game
           without a clock has no state.clock and no clock_now
  flag     with the test hook BRIGADE_TEST_CLOCK_SCALE=60 (a 1-minute clock
           runs out in 1 s), the awaited side's flag falls: a flag_fell log
           entry "Side A (French): time is up" by the server's own action,
           clock.flags, the clock at 0; the game goes on, and the flag
           survives a restart

Uses game_flow.py's server and client (standard library only).
"""
import os
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from game_flow import (Client, Failure, Server, apply_ops, case_arguments, check, create_on_own,  # noqa: E402
                       run_case, scenario_text, seed)


def next_of(client, kind, timeout=10.0):
    """The next message of `kind` on `client` (presence, watchers skipped)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        message = client.recv()
        if message.get("type") == kind:
            return message
        check(message.get("type") in ("presence", "watchers", "delta", "ack"),
              "unexpected %r while waiting for %s" % (message, kind))
    raise Failure("no %s in %.0f s" % (kind, timeout))


class Table:
    """Two seats of one game, each with its state kept by the deltas."""

    def __init__(self, server, scenarios, clock=None):
        created = create_on_own(server, scenarios, None if clock is None else {"clock": clock})
        self.game, self.seats = created["game"], created["seats"]
        self.clients, self.states, self.clock_now = {}, {}, {}
        self.join(server, {"type": "join", "seed": True})

    def join(self, server, how):
        for seat in ("A", "B"):
            self.clients[seat] = Client(server)
            message = {"type": "join", "game": self.game, "token": self.seats[seat]}
            if how.get("seed"):
                message["seed"] = seed()
            welcome = self.clients[seat].ask(message)
            check(welcome.get("type") == "welcome", "join answered %r" % welcome)
            self.states[seat] = welcome["state"]
            self.clock_now[seat] = welcome.get("clock_now")
        # A joined first: the battle's beginning (B's seed) reaches it as a delta.
        if how.get("seed"):
            delta = next_of(self.clients["A"], "delta")
            self.states["A"] = apply_ops(self.states["A"], delta["ops"])
            self.clock_now["A"] = delta.get("clock_now")
        check(self.states["A"] == self.states["B"], "the seats' states differ")

    def act(self, seat, action):
        """`seat` acts; both seats take the delta. Returns it."""
        client = self.clients[seat]
        answer = client.ask({"type": "act", "action": action})
        check(answer.get("type") == "ack", "%s %r answered %r" % (seat, action, answer))
        delta = None
        for s in ("A", "B"):
            delta = next_of(self.clients[s], "delta")
            check(delta["seq"] == answer["seq"], "delta seq %r, ack %r" % (delta, answer))
            self.states[s] = apply_ops(self.states[s], delta["ops"])
        check(self.states["A"] == self.states["B"], "the seats' states differ")
        return delta

    def close(self):
        for client in self.clients.values():
            client.close()


def case_restart(server, scenarios):
    # A game without a clock: no state.clock, no clock_now.
    plain = Table(server, scenarios)
    check("clock" not in plain.states["A"], "state.clock without a clock: %r" %
          plain.states["A"].get("clock"))
    check(plain.clock_now["B"] is None, "clock_now without a clock")
    plain.close()

    table = Table(server, scenarios, {"minutes_per_side": 1})
    state = table.states["B"]
    clock = state["clock"]
    check(clock == {"minutes_per_side": 1, "increment_seconds": 0, "A": 60000, "B": 60000,
                    "running": state["awaiting"], "flags": []},
          "the clock at the start: %r (awaiting %r)" % (clock, state["awaiting"]))
    winner = state["awaiting"][0]
    other = "B" if winner == "A" else "A"
    now = table.clock_now["B"]
    check(now is not None and now[other] == 60000 and 59000 < now[winner] <= 60000,
          "the welcome's clock_now %r" % now)

    time.sleep(0.4)
    delta = table.act(winner, {"kind": "choose_initiative", "phasing": "A"})
    clock = table.states["A"]["clock"]
    spent = 60000 - clock[winner]
    check(400 <= spent < 3000 and clock[other] == 60000,
          "only the awaited seat %s is charged: %r" % (winner, clock))
    check(delta.get("clock_now") == {"A": clock["A"], "B": clock["B"]},
          "the delta's clock_now %r, clock %r" % (delta.get("clock_now"), clock))
    check(clock["running"] == ["A", "B"], "both run in the Mandatory moves: %r" % clock)

    time.sleep(0.3)
    table.act("A", {"kind": "done"})
    clock = table.states["A"]["clock"]
    both = 60000 - clock[other] if other == "B" else 60000 - clock["A"]
    check(300 <= both < 3000, "both awaited, both charged: %r" % clock)
    check(clock["running"] == ["B"], "A is done: only B runs: %r" % clock)
    journaled = {"A": clock["A"], "B": clock["B"]}
    table.close()

    server.kill_and_restart()
    time.sleep(0.5)  # the time between the restart and the join is charged to B
    table.join(server, {})
    clock = table.states["A"]["clock"]
    check({"A": clock["A"], "B": clock["B"]} == journaled,
          "after the restart the clock is the journaled %r: %r" % (journaled, clock))
    now = table.clock_now["B"]
    check(now["A"] == journaled["A"] and
          journaled["B"] - 3000 < now["B"] <= journaled["B"] - 400,
          "clock_now after the restart %r (journaled %r): only B runs, since the load" %
          (now, journaled))
    # The next action charges B from the restart on, not the time it was down.
    table.act("B", {"kind": "done"})
    clock = table.states["A"]["clock"]
    check(clock["A"] == journaled["A"] and journaled["B"] - 3000 < clock["B"] <= now["B"],
          "B's done after the restart: %r (journaled %r)" % (clock, journaled))
    table.close()


def case_flag(server, scenarios):
    table = Table(server, scenarios, {"minutes_per_side": 1, "increment_seconds": 5})
    winner = table.states["A"]["awaiting"][0]
    # 60 s of clock at 60 times: 1 s. The server's FLAG comes as a delta.
    deltas = {}
    for seat in ("A", "B"):
        delta = next_of(table.clients[seat], "delta", timeout=10)
        table.states[seat] = apply_ops(table.states[seat], delta["ops"])
        deltas[seat] = delta
    state = table.states["A"]
    check(state == table.states["B"], "the seats' states differ")
    clock = state["clock"]
    check(clock[winner] == 0 and clock["flags"] == [winner] and clock["running"] == [],
          "the flag of %s: %r" % (winner, clock))
    entry = state["log"][-1]
    name = state["sides"][winner]["name"]
    check(entry["kind"] == "flag_fell" and entry.get("side") == winner and
          entry["text"] == "Side %s (%s): time is up" % (winner, name),
          "the flag's log entry %r" % entry)
    check(deltas["A"].get("clock_now") == {"A": clock["A"], "B": clock["B"]},
          "the flag's clock_now %r" % deltas["A"].get("clock_now"))
    check(state["phase"] == "initiative" and state["awaiting"] == [winner],
          "the game goes on: %r %r" % (state["phase"], state["awaiting"]))
    # The game goes on: the side whose flag fell still acts, its clock at 0.
    table.act(winner, {"kind": "choose_initiative", "phasing": "A"})
    clock = table.states["A"]["clock"]
    check(clock[winner] == 0 and clock["flags"] == [winner],
          "after the flag: %r" % clock)
    other = "B" if winner == "A" else "A"
    check(clock["running"] == [other], "only %s runs now: %r" % (other, clock))
    # The other side's flag falls too, and both survive a restart.
    for seat in ("A", "B"):
        delta = next_of(table.clients[seat], "delta", timeout=10)
        table.states[seat] = apply_ops(table.states[seat], delta["ops"])
    clock = table.states["A"]["clock"]
    check(clock["A"] == 0 and clock["B"] == 0 and clock["flags"] == [winner, other],
          "both flags, in the order they fell: %r" % clock)
    table.close()
    check(server.text().count("a flag falls") == 2, "two flags in the log")
    server.kill_and_restart()
    table.join(server, {})
    check(table.states["A"]["clock"] == clock, "the flags after a restart: %r" %
          table.states["A"]["clock"])
    table.close()


CASES = {"restart": case_restart, "flag": case_flag}


def main():
    name, brigaded, scenarios = case_arguments("clock_flow.py", CASES)
    if name == "flag":
        os.environ["BRIGADE_TEST_CLOCK_SCALE"] = "60"  # the test hook (server/game.h)
    return run_case(name, Server(brigaded), CASES[name], scenarios, log_tail=4000)


if __name__ == "__main__":
    sys.exit(main())
