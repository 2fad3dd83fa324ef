#!/usr/bin/env python3
"""tests/server/cluster_flow.py: game nodes of a cluster (brigaded --redis,
server/README.md "Cluster"): ownership, `moved` (PROTOCOL.md §6.4), what the
owner publishes, and that a game is never played by two nodes at once.

    cluster_flow.py CASE BRIGADED SCENARIOS_DIR

Starts its own redis-server on a free loopback port (no persistence), the
nodes with --port 0 and a short lease (--redis-lease-ms 1500), runs one
case, prints "1 passed, 0 failed" (or the failure) and stops everything.
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import brigade_wire as wire  # noqa: E402
import game_flow as flow  # noqa: E402
from game_flow import Failure, check  # noqa: E402

LEASE_MS = 1500


free_port = flow.free_port


class Redis(flow.RedisServer):
    """A redis-server of the test's own, and a tiny RESP client for it."""

    def ping(self):
        return self.command("PING") == "PONG"

    @property
    def url(self):
        return "redis://127.0.0.1:%d" % self.port

    def command(self, *args):
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
            out = b"*%d\r\n" % len(args)
            for a in args:
                a = a if isinstance(a, bytes) else str(a).encode()
                out += b"$%d\r\n%s\r\n" % (len(a), a)
            s.sendall(out)
            reader = s.makefile("rb")
            return self._reply(reader)

    def _reply(self, reader):
        line = reader.readline()
        if not line:
            raise OSError("redis closed")
        kind, rest = line[:1], line[1:-2]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            raise Failure("redis error: %s" % rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = reader.read(n + 2)[:-2]
            return data
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._reply(reader) for _ in range(n)]
        raise Failure("redis: unexpected %r" % line)


def join_answer(node, game, token):
    """The answer to one join at `node`, on a connection of its own."""
    c = flow.Client(node)
    answer = c.ask({"type": "join", "game": game, "token": token})
    c.close()
    return answer


class Node(flow.Server):
    """A game node: brigaded --redis with the test's lease."""

    def __init__(self, brigaded, redis, data=None, extra=()):
        self.data = data
        super().__init__(brigaded, ["--redis", redis.url, "--redis-lease-ms", str(LEASE_MS)] +
                         list(extra))

    def spawn(self):
        data = self.data or os.path.join(self.tmp, "data")
        return subprocess.Popen(
            [self.brigaded, "--port", "0", "--data", data, "--web", self.tmp] + self.extra,
            stdout=self.log, stderr=subprocess.STDOUT)

    @property
    def url(self):
        return "ws://127.0.0.1:%d/" % self.port

    def stop(self):
        """SIGTERM; the log must be free of sanitizer reports."""
        status = super().stop()
        for report in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
            check(report not in self.text(), "sanitizer report in the log: %s" %
                  self.text()[-3000:])
        return status

    def kill9(self):
        self.proc.kill()
        self.proc.wait()


def ask_until(client_factory, message, accept, seconds, what):
    """Asks `message` on fresh connections until accept(answer) or time is up."""
    deadline = time.time() + seconds
    answer = None
    while time.time() < deadline:
        c = client_factory()
        try:
            answer = c.ask(dict(message))
        finally:
            c.close()
        if accept(answer):
            return answer
        time.sleep(0.1)
    raise Failure("%s: last answer %r" % (what, answer))


def wait_live_seq(redis, game, seq, seconds=5, more=lambda: ""):
    """Waits until the owner's publication in Redis reached `seq`; a failure
    says `more()` too."""
    deadline = time.time() + seconds
    live = None
    while time.time() < deadline:
        live = redis.command("HGET", "brigade:game:%s:spectators" % game, "live_seq")
        if live is not None and int(live) == seq:
            return
        time.sleep(0.05)
    raise Failure("Redis's live_seq %r, the game at %d%s" % (live, seq, more()))


def play(clients, states, seq, steps):
    """`steps` actions by whichever seat is awaited; returns the new seq."""
    for _ in range(steps):
        state = states["A"]
        actor = next((s for s in ("A", "B") if flow.pick_action(state, s)), None)
        if actor is None or state["phase"] == "ended":
            break
        answer = clients[actor].ask({"type": "act", "action": flow.pick_action(state, actor)})
        if answer.get("type") == "error" and answer["code"] in ("invalid_action", "wrong_phase"):
            answer = clients[actor].ask({"type": "act", "action": {"kind": "done"}})
        check(answer.get("type") == "ack", "act answered %r" % answer)
        seq = answer["seq"]
        for seat in ("A", "B"):
            delta = clients[seat].recv()
            check(delta.get("type") == "delta" and delta["seq"] == seq, "delta %r" % delta)
            states[seat] = flow.apply_ops(states[seat], delta["ops"])
    return seq


def start_game(node, scenarios, password=None):
    creator = flow.Client(node)
    create = {"type": "create", "scenario": flow.scenario_text(scenarios, "example_a.json")}
    if password:
        create["spectator_password"] = password
    answer = creator.ask(create)
    check(answer.get("type") == "created", "create %r" % answer)
    creator.close()
    game, seats = answer["game"], answer["seats"]
    clients, states = {}, {}
    for seat in ("A", "B"):
        clients[seat] = flow.Client(node)
        states[seat] = flow.join(clients[seat], game, seats[seat])["state"]
    delta = clients["A"].recv()
    states["A"] = flow.apply_ops(states["A"], delta["ops"])
    return game, seats, answer, clients, states, 2


def case_routing(tmp, brigaded, scenarios):
    """A join at a node that does not own the game is moved to its owner;
    the owner publishes its spectators' view in Redis."""
    redis = Redis(tmp)
    one = Node(brigaded, redis)
    two = Node(brigaded, redis)
    try:
        game, seats, created, clients, states, seq = start_game(one, scenarios)
        seq = play(clients, states, seq, 4)
        # Seat A at node two: moved to node one's URL, nothing done.
        answer = join_answer(two, game, seats["A"])
        check(answer.get("type") == "error" and answer["code"] == "moved" and
              answer["url"] == one.url, "join at node two: %r (node one is %s)" % (answer, one.url))
        # An unknown game is still unknown.
        c = flow.Client(two)
        flow.expect_error(c.ask({"type": "join", "game": "0" * 32, "token": "1" * 64}),
                          "unknown_game")
        c.close()
        # The owner's publication: owner key, the spectators' hash.
        owner = redis.command("GET", "brigade:game:%s:owner" % game).decode()
        check(owner.endswith(" " + one.url) and len(owner.split(" ")[0]) == 32,
              "owner key %r" % owner)
        deadline = time.time() + 3
        while time.time() < deadline:
            live = redis.command("HGET", "brigade:game:%s:spectators" % game, "live_seq")
            if live is not None and int(live) == seq:
                break
            time.sleep(0.05)
        check(live is not None and int(live) == seq, "live_seq %r, game at %d" % (live, seq))
        recent = redis.command("LRANGE", "brigade:game:%s:recent" % game, "0", "-1")
        check(len(recent) == seq, "recent holds %d messages, the game %d seqs" % (len(recent),
                                                                                 seq))
        newest = recent[0]
        check(int.from_bytes(newest[:8], "big") == seq - 1 and
              int.from_bytes(newest[8:16], "big") == seq, "the newest feed message's seqs")
        delta = wire.unpack(newest[16:])
        check(delta["type"] == "delta" and delta["seq"] == seq and delta["game"] == game,
              "the newest feed message's frame %r" % delta)
        # The state published, brought forward by recent, is the players'.
        fields = redis.command("HGETALL", "brigade:game:%s:spectators" % game)
        hashed = dict(zip(fields[0::2], fields[1::2]))
        state = wire.unpack(hashed[b"state"])
        at = int(hashed[b"seq"])
        for message in reversed(recent):
            if int.from_bytes(message[:8], "big") == at:
                state = flow.apply_ops(state, wire.unpack(message[16:])["ops"])
                at += 1
        check(at == seq and state == states["A"], "the published view at %d is not the "
              "players' state at %d" % (at, seq))
        check(hashed[b"delay"] == b"0" and len(hashed[b"spectator"]) == 64 and
              hashed[b"password"] == b"", "admission fields %r" %
              {k: v for k, v in hashed.items() if k != b"state"})
        # Node two accepts node one's page (a page that followed a move),
        # not another site's.
        time.sleep(LEASE_MS / 1000.0)
        try:
            wire.WebSocket(two.port, origin="http://127.0.0.1:%d" % one.port).close()
        except wire.Closed as refused:
            raise Failure("node two refused node one's page: %s; %s" % (refused,
                                                                        two.text()[-800:]))
        try:
            wire.WebSocket(two.port, origin="http://elsewhere.example:%d" % one.port)
            raise Failure("node two accepted another site's page")
        except wire.Closed as refused:
            check("403" in refused.reason, "another site's page: %r" % refused.reason)
        for c in clients.values():
            c.close()
        check(one.stop() == 0 and two.stop() == 0, "exit status")
        # A clean stop gives the node's lease back.
        check(redis.command("KEYS", "brigade:node:*") == [], "node leases left after a stop")
    finally:
        one.cleanup()
        two.cleanup()
        redis.kill()


def case_two_nodes(tmp, brigaded, scenarios):
    """A second process with a copy of the journal never plays the game while
    its owner lives; after the owner is killed it takes over, and the old
    owner restarted is moved to it; an old copy is refused."""
    redis = Redis(tmp)
    one = Node(brigaded, redis)
    try:
        game, seats, created, clients, states, seq = start_game(one, scenarios)
        seq = play(clients, states, seq, 3)
        copy = os.path.join(tmp, "copy")
        shutil.copytree(os.path.join(one.tmp, "data"), copy,
                        ignore=shutil.ignore_patterns("*.lock"))
        two = Node(brigaded, redis, data=copy)
        try:
            time.sleep(LEASE_MS * 2 / 1000.0)
            # At node two, seat A is moved to node one, which still plays.
            answer = join_answer(two, game, seats["A"])
            check(answer.get("code") == "moved" and answer["url"] == one.url,
                  "node two while one lives: %r" % answer)
            seq = play(clients, states, seq, 1)
            # The owner publishes after the commit; what Redis has heard is
            # what the guard knows (an action whose publication a kill cut
            # short is not).
            wait_live_seq(redis, game, seq)
            # Node one dies (kill -9); node two takes the game once the lease
            # lapses, but its copy misses the last action: refused.
            one.kill9()
            for c in clients.values():
                c.ws.sock.close()
            time.sleep(LEASE_MS * 3 / 1000.0)
            answer = join_answer(two, game, seats["A"])
            check(answer.get("type") == "error" and answer["code"] == "unavailable",
                  "a copy behind the cluster's seq must not serve: %r" % answer)
            check("behind" in two.text() or "old copy" in two.text(), "no log of the stale copy")
        finally:
            two.stop()
            two.cleanup()
        # A copy made after the last action (the data folder moved to another
        # host): it takes over, and the old owner, restarted, is moved to it.
        fresh = os.path.join(tmp, "fresh")
        shutil.copytree(os.path.join(one.tmp, "data"), fresh,
                        ignore=shutil.ignore_patterns("*.lock"))
        three = Node(brigaded, redis, data=fresh)
        try:
            welcome = ask_until(lambda: flow.Client(three),
                                {"type": "join", "game": game, "token": seats["B"]},
                                lambda a: a.get("type") == "welcome", 10, "node three's join")
            check(welcome["seq"] == seq and welcome["state"] == states["B"],
                  "node three serves the game at seq %r, expected %d" % (welcome["seq"], seq))
            one.log = open(one.log_path, "ab")
            one.restart_after_stop()
            time.sleep(LEASE_MS * 2 / 1000.0)
            answer = join_answer(one, game, seats["A"])
            check(answer.get("code") == "moved" and answer["url"] == three.url,
                  "the old owner restarted must send its players to the new one: %r" % answer)
            # Nothing was ever played twice: one journal's seq goes on, the
            # other never moved past it.
            c = flow.Client(three)
            flow.join(c, game, seats["A"])
            c.close()
        finally:
            three.stop()
            three.cleanup()
    finally:
        one.cleanup()
        redis.kill()


def case_redis_restart(tmp, brigaded, scenarios):
    """Redis killed and started again: the node reconnects, players keep
    playing within the lease, and the publication comes back."""
    redis = Redis(tmp)
    one = Node(brigaded, redis, extra=["--redis-lease-ms", "10000"])
    try:
        game, seats, created, clients, states, seq = start_game(one, scenarios)
        seq = play(clients, states, seq, 2)
        redis.kill()
        seq = play(clients, states, seq, 1)  # Redis down: still played (lease valid)
        redis.start()
        wait_live_seq(redis, game, seq, 15, lambda: " after Redis came back; log: %s"
                      % one.text()[-1500:])
        check("lost" in one.text() and "again" in one.text(), "no log of the lost link")
        seq = play(clients, states, seq, 1)
        for c in clients.values():
            c.close()
        check(one.stop() == 0, "exit status")
    finally:
        one.cleanup()
        redis.kill()


def case_tournament(tmp, brigaded, scenarios):
    """A tournament is served by the node that made it: its messages at
    another node are moved there, its round's games are that node's."""
    import tournament_flow as tf
    redis = Redis(tmp)
    one = Node(brigaded, redis)
    two = Node(brigaded, redis)
    try:
        o = flow.Client(one)
        created = o.ask({"type": "tournament_create", "tournament": tf.DEFINITION,
                         "scenarios": tf.scenario_texts(scenarios)})
        check(created.get("type") == "tournament_created", "created %r" % created)
        tid, organiser = created["tournament"], created["organiser"]
        # (Its lease is written as it is made, as a table's owner key
        # below: a get at once at another node may still find none.)
        answer = ask_until(lambda: flow.Client(two),
                           {"type": "tournament_get", "tournament": tid},
                           lambda a: a.get("code") != "unknown_game", 3, "the tournament")
        check(answer.get("code") == "moved" and answer["url"] == one.url,
              "tournament_get at node two: %r" % answer)
        c = flow.Client(two)
        answer = c.ask({"type": "tournament_start_round", "tournament": tid,
                        "token": organiser})
        check(answer.get("code") == "moved" and answer["url"] == one.url,
              "tournament_start_round at node two: %r" % answer)
        flow.expect_error(c.ask({"type": "tournament_get", "tournament": "0" * 32}),
                          "unknown_game")
        c.close()
        started = o.ask({"type": "tournament_start_round", "tournament": tid,
                         "token": organiser})
        check(started.get("type") == "tournament_state", "start_round %r" % started)
        table = started["tournament"]["pairings"][0]["tables"][0]
        # (Its owner key is written as the game is made: a join within
        # milliseconds may still find none.)
        answer = ask_until(lambda: flow.Client(two),
                           {"type": "join", "game": table["game"],
                            "token": created["players"][0]["token"]},
                           lambda a: a.get("code") != "unknown_game", 3, "a table's game")
        check(answer.get("code") == "moved" and answer["url"] == one.url,
              "a table's game at node two: %r" % answer)
        o.close()
        check(one.stop() == 0 and two.stop() == 0, "exit status")
    finally:
        one.cleanup()
        two.cleanup()
        redis.kill()


def case_relay(tmp, brigaded, scenarios):
    """A real node and a real relay: a spectator who joins the node is moved
    to the relay; one who joins late (the published state lagging the feed)
    gets the players' state; every delta reaches it as the players'; the
    players' watcher count counts it while it watches at the relay."""
    import relay_flow as rf
    redis = Redis(tmp)
    one = Node(brigaded, redis)
    relay = rf.Relay(brigaded, redis.url, ["--redis-lease-ms", str(LEASE_MS)])
    try:
        game, seats, created, clients, states, seq = start_game(one, scenarios)
        spectator = created["spectator"]
        seq = play(clients, states, seq, 19)  # past 16 changes: the state lags
        check(seq >= 20, "only %d actions" % seq)
        wait_live_seq(redis, game, seq)
        time.sleep(LEASE_MS * 2 / 1000.0)  # the node has seen the relay
        published = int(redis.command("HGET", "brigade:game:%s:spectators" % game, "seq"))
        check(published < seq, "the published state is at %d, the game at %d: this case is "
              "about a state that lags" % (published, seq))
        answer = join_answer(one, game, spectator)
        check(answer.get("code") == "moved" and answer["url"] == relay.url(),
              "a spectator at the node: %r (relay %s)" % (answer, relay.url()))
        # The spectator follows the move.
        watcher = flow.Client(relay)
        welcome = watcher.ask({"type": "join", "game": game, "token": spectator})
        check(welcome.get("type") == "welcome" and welcome["seat"] == "spectator" and
              welcome["seq"] == seq, "the relay's welcome %r" % {
                  k: v for k, v in welcome.items() if k != "state"})
        check(rf.snapshot_hash(welcome["state"]) == rf.snapshot_hash(states["A"]),
              "the relay's state differs from the players'")
        # The players' watcher count includes the relay's spectator (PROTOCOL.md
        # §6.7: the relay tells Redis, the owner reads it each tick).
        for seat in ("A", "B"):
            heard = rf.recv_until(clients[seat], lambda m: m.get("type") == "watchers")
            check(heard["count"] == 1, "seat %s hears %r watching, expected 1" % (seat, heard))
        view = welcome["state"]
        seq = play(clients, states, seq, 5)
        for expected in range(welcome["seq"] + 1, seq + 1):
            delta = rf.recv_until(watcher, lambda m: m.get("type") == "delta")
            check(delta["seq"] == expected, "delta %r, expected seq %d" % (delta["seq"],
                                                                          expected))
            view = flow.apply_ops(view, delta["ops"])
        check(rf.snapshot_hash(view) == rf.snapshot_hash(states["A"]),
              "the spectator's view after the deltas differs from the players'")
        watcher.close()
        for seat in ("A", "B"):
            heard = rf.recv_until(clients[seat], lambda m: m.get("type") == "watchers")
            check(heard["count"] == 0, "seat %s hears %r watching after the spectator left" %
                  (seat, heard))
        for c in clients.values():
            c.close()
        check(one.stop() == 0, "node exit status")
        check(relay.stop() == 0, "relay exit status")
    finally:
        one.cleanup()
        relay.cleanup()
        redis.kill()


CASES = {"relay": case_relay, "routing": case_routing, "two_nodes": case_two_nodes,
         "redis_restart": case_redis_restart, "tournament": case_tournament}


def main():
    name, brigaded, scenarios = sys.argv[1], sys.argv[2], sys.argv[3]
    tmp = tempfile.mkdtemp(prefix="brigade-cluster-test.")
    try:
        CASES[name](tmp, brigaded, scenarios)
    except (Failure, wire.Closed, OSError, ValueError, KeyError) as error:
        print("FAIL: %s: %s: %s" % (name, type(error).__name__, error))
        print("0 passed, 1 failed")
        return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("ok: %s" % name)
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
