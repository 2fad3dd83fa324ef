#!/usr/bin/env python3
"""tests/server/relay_flow.py: end-to-end tests of the spectator relay
(brigaded --relay --redis URL; server/README.md "Cluster").

    relay_flow.py CASE BRIGADED SCENARIOS_DIR

Each case starts its own redis-server on a free port (no persistence), a
plain brigaded that plays a real game (two players and a spectator), and
the relay. The test plays the game's owner: it writes the owner's keys
(brigade:game:ID:owner, :spectators, :recent) and PUBLISHes the feed
messages (16-byte header from/to, then the delta frame) exactly as the
README says, with the frames the plain brigaded sent its own spectator,
over a tiny RESP client. Standard library only (brigade_wire.py for the
websocket and msgpack). Prints "1 passed, 0 failed" or the failure.
"""
import hashlib
import os
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import brigade_wire as wire  # noqa: E402
from game_flow import (Client, Failure, RedisServer, Server, apply_ops, case_arguments, check,  # noqa: E402
                       expect_error, free_port, pick_action, scenario_text, seed)

OWNER_URL = "ws://node-a.example:7681/"
NODE_URL = "ws://node-b.example:7681/"
PASSWORD = "pass word"


# ------------------------------------------------------------------ redis

class Resp:
    """A minimal RESP2 client: one command at a time."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.buffer = b""

    def _line(self):
        while b"\r\n" not in self.buffer:
            data = self.sock.recv(65536)
            if not data:
                raise OSError("redis closed the connection")
            self.buffer += data
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line

    def _exactly(self, n):
        while len(self.buffer) < n + 2:
            data = self.sock.recv(65536)
            if not data:
                raise OSError("redis closed the connection")
            self.buffer += data
        data, self.buffer = self.buffer[:n], self.buffer[n + 2:]
        return data

    def reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            raise Failure("redis: " + rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self._exactly(n)
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self.reply() for _ in range(n)]
        raise Failure("redis: unexpected reply %r" % line)

    def command(self, *args):
        out = b"*%d\r\n" % len(args)
        for arg in args:
            if isinstance(arg, str):
                arg = arg.encode()
            elif isinstance(arg, int):
                arg = str(arg).encode()
            out += b"$%d\r\n%s\r\n" % (len(arg), arg)
        self.sock.sendall(out)
        return self.reply()

    def close(self):
        self.sock.close()


class Redis(RedisServer):
    """redis-server on a free port, nothing saved; restartable (empty);
    `client` its connection."""

    def ping(self):
        r = Resp(self.port)
        if r.command("PING") == "PONG":
            self.client = r
            return True
        return False

    def url(self):
        return "redis://127.0.0.1:%d" % self.port

    def kill(self):
        super().kill()
        try:
            self.client.close()
        except (OSError, AttributeError):
            pass


# ------------------------------------------------------------ snapshot hash

def canonical(value):
    """The canonical msgpack of PROTOCOL.md §8: map members sorted by key bytes."""
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda kv: kv[0].encode())
        n = len(items)
        head = bytes([0x80 | n]) if n < 16 else (
            b"\xde" + struct.pack(">H", n) if n <= 0xFFFF else b"\xdf" + struct.pack(">I", n))
        return head + b"".join(wire.pack(k) + canonical(v) for k, v in items)
    if isinstance(value, list):
        n = len(value)
        head = bytes([0x90 | n]) if n < 16 else (
            b"\xdc" + struct.pack(">H", n) if n <= 0xFFFF else b"\xdd" + struct.pack(">I", n))
        return head + b"".join(canonical(v) for v in value)
    return wire.pack(value)


def snapshot_hash(state):
    return hashlib.sha256(canonical(state)).hexdigest()


def stored_password(password):
    """server/password.h's stored text (scrypt, a cheap N for the test)."""
    salt = os.urandom(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=1024, r=8, p=1, dklen=32)
    return "scrypt$1024$8$1$%s$%s" % (salt.hex(), digest.hex())


# ------------------------------------------------------------- processes

class Relay(Server):
    """brigaded --relay on a free port (the start line gives it)."""

    def __init__(self, brigaded, redis_url, extra=(), env=None):
        self.redis_url = redis_url
        self.env = env
        super().__init__(brigaded, extra)

    def spawn(self):
        return subprocess.Popen(
            [self.brigaded, "--relay", "--redis", self.redis_url, "--port", "0",
             "--web", self.tmp, "--redis-lease-ms", "2000"] + self.extra,
            stdout=self.log, stderr=subprocess.STDOUT,
            env=dict(os.environ, **self.env) if self.env else None)

    def url(self):
        return "ws://127.0.0.1:%d/" % self.port


def recv_until(client, want, limit=20):
    """The next message for which want(message) holds; skips the others
    (watchers, presence)."""
    for _ in range(limit):
        message = client.recv()
        if want(message):
            return message
    raise Failure("no awaited message in %d" % limit)


class Source:
    """A real game on a plain brigaded: two players, and a spectator whose
    frames (the view the owner publishes) the test relays."""

    def __init__(self, server, scenarios):
        creator = Client(server)
        answer = creator.ask({"type": "create",
                              "scenario": scenario_text(scenarios, "example_a.json")})
        creator.close()
        check(answer.get("type") == "created" and answer.get("spectator"), "create %r" % answer)
        self.game, self.seats, self.spectator = answer["game"], answer["seats"], answer["spectator"]
        self.players = {}
        for seat in ("A", "B"):
            self.players[seat] = Client(server)
            welcome = self.players[seat].ask({"type": "join", "game": self.game,
                                              "token": self.seats[seat], "seed": seed()})
            check(welcome.get("type") == "welcome", "player join %r" % welcome)
        self.player_state = welcome["state"]  # B's, after both seeds
        recv_until(self.players["A"], lambda m: m.get("type") == "delta")
        self.watch = Client(server)
        welcome = self.watch.ask({"type": "join", "game": self.game, "token": self.spectator})
        check(welcome.get("type") == "welcome" and welcome["seat"] == "spectator",
              "source spectator %r" % welcome)
        self.state, self.seq = welcome["state"], welcome["seq"]
        check(self.seq == 2, "the game starts at seq 2")

    def step(self):
        """One action by whoever is awaited: the spectator's delta frame
        as (from, to, frame bytes)."""
        state = self.player_state
        actor = next((s for s in ("A", "B") if pick_action(state, s)), None)
        check(actor is not None, "nobody is awaited: %r" % state["awaiting"])
        player = self.players[actor]
        for action in (pick_action(state, actor), {"kind": "done"}):
            request = player.send({"type": "act", "action": action})
            answer = recv_until(player, lambda m: m.get("request") == request)
            if answer.get("type") == "ack":
                break
        check(answer.get("type") == "ack", "act answered %r" % answer)
        to = answer["seq"]
        check(to == self.seq + 1, "ack seq %r after %r" % (to, self.seq))
        for seat in ("A", "B"):
            delta = recv_until(self.players[seat],
                               lambda m: m.get("type") == "delta" and m.get("seq") == to)
            if seat == "A":
                self.player_state = apply_ops(self.player_state, delta["ops"])
        frame = self.watch.ws.recv()
        delta = wire.unpack(frame)
        check(delta.get("type") == "delta" and delta["seq"] == to, "spectator's delta %r" % delta)
        self.state = apply_ops(self.state, delta["ops"])
        check(snapshot_hash(self.state) == snapshot_hash(self.player_state),
              "the spectators' view differs from the players' state")
        start, self.seq = self.seq, to
        return start, to, frame

    def close(self):
        for client in list(self.players.values()) + [self.watch]:
            client.close()


class Owner:
    """The game's owner as the README has it, played by the test."""

    def __init__(self, redis, source, password="", state_every=1):
        self.redis, self.source = redis, source
        self.state_every = state_every
        self.prefix = "brigade:game:%s:" % source.game
        self.password = password
        self.publish_all()
        self.redis.client.command("ZADD", "brigade:hosts:node",
                                  int(time.time() * 1000) + 600000, NODE_URL)

    def publish_all(self, recent=()):
        """The owner's keys from scratch (a start, or Redis restarted
        empty): owner, spectators and `recent` (feed messages, oldest first)."""
        r = self.redis.client
        r.command("SET", self.prefix + "owner", "%s %s" % (os.urandom(16).hex(), OWNER_URL))
        r.command("HSET", self.prefix + "spectators", "seq", self.source.seq,
                  "state", wire.pack(self.source.state), "delay", 0,
                  "spectator", hashlib.sha256(self.source.spectator.encode()).hexdigest(),
                  "password", self.password, "live_seq", self.source.seq, "ended", "0")
        for message in recent:
            r.command("LPUSH", self.prefix + "recent", message)

    def step(self, publish=True, keep=True):
        """One action of the game; its feed message into `recent` (keep) and
        the channel (publish), the hash updated. Returns the message."""
        start, to, frame = self.source.step()
        message = struct.pack(">QQ", start, to) + frame
        r = self.redis.client
        check(r.command("MULTI") == "OK", "MULTI")
        if keep:
            r.command("LPUSH", self.prefix + "recent", message)
            r.command("LTRIM", self.prefix + "recent", 0, 63)
        if to % self.state_every == 0:
            r.command("HSET", self.prefix + "spectators", "seq", to,
                      "state", wire.pack(self.source.state), "live_seq", to)
        else:  # the state is written every state_every-th change only (README)
            r.command("HSET", self.prefix + "spectators", "live_seq", to)
        if publish:
            r.command("PUBLISH", self.prefix + "feed", message)
        r.command("EXEC")
        return message


def spectate(relay, source, password=None, last_seq=None):
    client = Client(relay)
    message = {"type": "join", "game": source.game, "token": source.spectator}
    if password is not None:
        message["password"] = password
    if last_seq is not None:
        message["last_seq"] = last_seq
    return client, client.ask(message)


def expect_welcome(answer, source):
    check(answer.get("type") == "welcome" and answer.get("seat") == "spectator",
          "expected a spectator's welcome, got %r" % {k: v for k, v in answer.items()
                                                      if k != "state"})
    check(answer["game"] == source.game and answer["seq"] == source.seq,
          "welcome seq %r, the game's %r" % (answer["seq"], source.seq))
    check(snapshot_hash(answer["state"]) == snapshot_hash(source.player_state),
          "the relay's state hash differs from the players'")
    check("spectator_delay" not in answer, "a live game's welcome has no spectator_delay")


def expect_frames(client, frames):
    """The next messages are exactly these delta frames, byte for byte."""
    for frame in frames:
        got = client.ws.recv()
        check(got == frame, "expected delta %r, got %r" % (
            wire.unpack(frame).get("seq"), wire.unpack(got)))


def expect_closed(client, code):
    try:
        message = client.recv()
    except wire.Closed as closed:
        check(closed.code == code, "closed with %r, expected %r" % (closed.code, code))
        return
    raise Failure("expected a close %d, got %r" % (code, message))


def wait_for(what, condition, seconds=10):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise Failure("timed out waiting for " + what)


def feed_subscribed(redis, source):
    channel = "brigade:game:%s:feed" % source.game
    return redis.client.command("PUBSUB", "NUMSUB", channel)[1] >= 1


# ------------------------------------------------------------------ cases

def case_welcome_resume(world):
    """Welcome's state hash is the players'; live deltas are the owner's
    frames unchanged; a resume by last_seq gets resumed and exactly the
    missed deltas; act is read_only; presence is in brigade:hosts:relay
    until a clean stop."""
    redis, source, owner, relay = world["redis"], world["source"], world["owner"], world["relay"]
    wait_for("the relay's presence", lambda: redis.client.command(
        "ZSCORE", "brigade:hosts:relay", relay.url()) is not None)
    watcher, welcome = spectate(relay, source)
    expect_welcome(welcome, source)
    expect_error(watcher.ask({"type": "act", "action": {"kind": "done"}}), "read_only")
    wait_for("the feed's subscription", lambda: feed_subscribed(redis, source))
    frames = [owner.step() for _ in range(2)]
    expect_frames(watcher, [m[16:] for m in frames])
    last = source.seq
    watcher.close()
    missed = [owner.step() for _ in range(3)]
    again, answer = spectate(relay, source, last_seq=last)
    check(answer == {"type": "resumed", "request": 1, "game": source.game, "seat": "spectator",
                     "from": last, "seq": source.seq}, "resumed %r" % answer)
    expect_frames(again, [m[16:] for m in missed])
    # Nothing more until the next delta, which comes as it is.
    nxt = owner.step()
    expect_frames(again, [nxt[16:]])
    # A last_seq outside the kept feed (ahead of it): a welcome.
    third, answer = spectate(relay, source, last_seq=source.seq + 5)
    expect_welcome(answer, source)
    for client in (again, third):
        client.close()
    check(relay.stop() == 0, "the relay's exit status")
    check(redis.client.command("ZSCORE", "brigade:hosts:relay", relay.url()) is None,
          "a clean stop leaves brigade:hosts:relay")


def case_gaps(world):
    """A gap that `recent` fills is filled (both deltas, in order); one it
    cannot fill closes the spectators with 1012, and the next join gets
    the hash's state."""
    redis, source, owner, relay = world["redis"], world["source"], world["owner"], world["relay"]
    watcher, welcome = spectate(relay, source)
    expect_welcome(welcome, source)
    wait_for("the feed's subscription", lambda: feed_subscribed(redis, source))
    # Garbage on the feed (too short; a header with a frame that is no
    # delta) changes nothing: the next delta comes as it is.
    channel = owner.prefix + "feed"
    redis.client.command("PUBLISH", channel, b"short")
    redis.client.command("PUBLISH", channel,
                         struct.pack(">QQ", source.seq, source.seq + 1) + b"\xc1garbage")
    time.sleep(0.3)
    redis.client.command("PUBLISH", channel, struct.pack(">QQ", source.seq, source.seq + 1) +
                         wire.pack({"type": "delta", "game": source.game, "seq": source.seq + 1,
                                    "ops": [{"op": "remove", "path": ["no such key"]}]}))
    time.sleep(0.3)  # each of them heard (and synced from Redis) alone
    heard = owner.step()
    expect_frames(watcher, [heard[16:]])
    unheard = owner.step(publish=False)       # in recent, never published
    heard = owner.step()
    expect_frames(watcher, [unheard[16:], heard[16:]])
    lost = owner.step(publish=False, keep=False)  # nowhere but the hash
    owner.step()
    expect_closed(watcher, 1012)
    check(lost, "")
    again, answer = spectate(relay, source)
    expect_welcome(answer, source)
    nxt = owner.step()
    expect_frames(again, [nxt[16:]])
    again.close()


def case_refusals(world):
    """Passwords (PROTOCOL.md §5.2), moved for seats and creates,
    unknown_game, not_joined, unavailable without a node."""
    redis, source, owner, relay = world["redis"], world["source"], world["owner"], world["relay"]
    r = redis.client
    r.command("HSET", owner.prefix + "spectators", "password", stored_password(PASSWORD))
    _, answer = spectate(relay, source)
    expect_error(answer, "bad_token")
    check("missing" in answer["message"], "missing password: %r" % answer)
    _, answer = spectate(relay, source, password="wrong")
    expect_error(answer, "bad_token")
    check("wrong" in answer["message"], "wrong password: %r" % answer)
    watcher, answer = spectate(relay, source, password=PASSWORD)
    expect_welcome(answer, source)
    watcher.close()
    # The cache: the good password again.
    watcher, answer = spectate(relay, source, password=PASSWORD)
    expect_welcome(answer, source)
    watcher.close()
    # Bad input: answered, the connection stays usable.
    player = Client(relay)
    for payload, code in ((b"\xc1", "bad_frame"), (wire.pack({"type": "fly"}), "unknown_type"),
                          (wire.pack({"type": "join", "game": 5}), "bad_message")):
        player.ws.send(payload)
        expect_error(player.recv(), code)
    player.ws.send_frame(0x1, b"hello")
    expect_error(player.recv(), "bad_frame")
    # A seat's token: to the owner.
    answer = player.ask({"type": "join", "game": source.game, "token": source.seats["A"],
                         "seed": seed()})
    expect_error(answer, "moved")
    check(answer.get("url") == OWNER_URL, "moved to %r, expected the owner's" % answer)
    expect_error(player.ask({"type": "act", "action": {"kind": "done"}}), "not_joined")
    # No such game.
    answer = player.ask({"type": "join", "game": "nosuchgame", "token": source.spectator})
    expect_error(answer, "unknown_game")
    # create: to a live node; none alive: unavailable with retry_after.
    create = {"type": "create", "scenario": scenario_text(world["scenarios"], "example_a.json")}
    answer = player.ask(create)
    expect_error(answer, "moved")
    check(answer.get("url") == NODE_URL, "create moved to %r" % answer)
    r.command("ZADD", "brigade:hosts:node", int(time.time() * 1000) - 1000, NODE_URL)
    answer = player.ask(create)
    expect_error(answer, "unavailable")
    check(answer.get("retry_after", 0) >= 1, "retry_after %r" % answer)
    answer = player.ask({"type": "tournament_get", "tournament": "0" * 32})
    expect_error(answer, "unavailable")
    player.close()


def case_relay_kill(world):
    """kill -9 of the relay loses nothing: a new relay on the same Redis
    serves the same state (the hash's, written at every 16th change only,
    brought forward from recent) and resumes by last_seq."""
    redis, source, owner, relay = world["redis"], world["source"], world["owner"], world["relay"]
    watcher, welcome = spectate(relay, source)
    expect_welcome(welcome, source)
    wait_for("the feed's subscription", lambda: feed_subscribed(redis, source))
    owner.step()
    last = source.seq
    relay.proc.kill()
    relay.proc.wait()
    watcher.close()
    missed = [owner.step() for _ in range(2)]
    second = Relay(world["brigaded"], redis.url())
    world["relay"] = second
    fresh, answer = spectate(second, source)
    expect_welcome(answer, source)
    resumed, answer = spectate(second, source, last_seq=last)
    check(answer.get("type") == "resumed" and answer["from"] == last and
          answer["seq"] == source.seq, "resumed on the new relay %r" % answer)
    expect_frames(resumed, [m[16:] for m in missed])
    nxt = owner.step()
    expect_frames(fresh, [nxt[16:]])
    expect_frames(resumed, [nxt[16:]])
    fresh.close()
    resumed.close()


def case_redis_restart(world):
    """Redis restarted (empty): joins that need it get unavailable while it
    is down; the relay reconnects, resubscribes and its spectators catch up
    from what the owner republishes, then follow the feed again."""
    redis, source, owner, relay = world["redis"], world["source"], world["owner"], world["relay"]
    watcher, welcome = spectate(relay, source)
    expect_welcome(welcome, source)
    wait_for("the feed's subscription", lambda: feed_subscribed(redis, source))
    redis.kill()
    # Meanwhile the owner commits two deltas (its journal keeps them).
    offline = [source.step() for _ in range(2)]
    messages = [struct.pack(">QQ", f, t) + frame for f, t, frame in offline]
    other = Client(relay)
    answer = other.ask({"type": "join", "game": "othergame", "token": source.spectator})
    expect_error(answer, "unavailable")
    check(answer.get("retry_after") == 1, "retry_after %r" % answer)
    other.close()
    # Down long enough for the relay's reconnection attempts to be refused
    # (a refused attempt must not stall the link: server/redis.c).
    time.sleep(1.5)
    redis.start()
    owner.publish_all(recent=messages)  # the owner republishes on its reconnect
    wait_for("the feed's subscription again", lambda: feed_subscribed(redis, source), 15)
    nxt = owner.step()
    expect_frames(watcher, [m[16:] for m in messages] + [nxt[16:]])
    fresh, answer = spectate(relay, source)
    expect_welcome(answer, source)
    fresh.close()
    watcher.close()
    wait_for("the relay's presence again", lambda: redis.client.command(
        "ZSCORE", "brigade:hosts:relay", relay.url()) is not None)


def fake_game(redis, source, game, delay=0, ended=False):
    """A second game in Redis with the source's state and spectator id."""
    redis.client.command("HSET", "brigade:game:%s:spectators" % game, "seq", source.seq,
                         "state", wire.pack(source.state), "delay", delay,
                         "spectator", hashlib.sha256(source.spectator.encode()).hexdigest(),
                         "password", "", "live_seq", source.seq + 3,
                         "ended", "1" if ended else "0")


def case_password_busy(world):
    """--password-checks 1: while one slow check runs, the other joins get
    unavailable with retry_after 1; the good password is then cached (the
    next join is answered at once)."""
    redis, source, owner, relay = world["redis"], world["source"], world["owner"], world["relay"]
    salt = os.urandom(16)
    digest = hashlib.scrypt(PASSWORD.encode(), salt=salt, n=1 << 16, r=8, p=1, dklen=32,
                            maxmem=128 << 20)
    redis.client.command("HSET", owner.prefix + "spectators", "password",
                         "scrypt$65536$8$1$%s$%s" % (salt.hex(), digest.hex()))
    clients = [Client(relay) for _ in range(3)]
    for client in clients:
        client.send({"type": "join", "game": source.game, "token": source.spectator,
                     "password": PASSWORD})
    answers = [client.recv() for client in clients]
    welcomes = [a for a in answers if a.get("type") == "welcome"]
    busy = [a for a in answers if a.get("type") == "error" and a.get("code") == "unavailable"]
    check(len(welcomes) == 1 and len(busy) == 2, "answers %r" % [
        {k: v for k, v in a.items() if k != "state"} for a in answers])
    check(all(a.get("retry_after") == 1 for a in busy), "retry_after %r" % busy)
    start = time.time()
    again, answer = spectate(relay, source, password=PASSWORD)
    expect_welcome(answer, source)
    check(time.time() - start < 2, "a cached password is not checked again")
    for client in clients + [again]:
        client.close()


def case_limits_delay(world):
    """A delayed, ended game: served from the hash, welcome with
    spectator_delay, a last_seq gets a welcome too (no resume of a delayed
    view); past --max-games followed: unavailable with retry_after."""
    redis, source, relay = world["redis"], world["source"], world["relay"]
    first, answer = spectate(relay, source)
    expect_welcome(answer, source)
    fake_game(redis, source, "delayedgame", delay=2, ended=True)
    for last_seq in (None, source.seq):
        client = Client(relay)
        message = {"type": "join", "game": "delayedgame", "token": source.spectator}
        if last_seq is not None:
            message["last_seq"] = last_seq
        answer = client.ask(message)
        check(answer.get("type") == "welcome" and answer["seat"] == "spectator" and
              answer["seq"] == source.seq and answer.get("spectator_delay") == 2,
              "a delayed game's welcome %r" % {k: v for k, v in answer.items() if k != "state"})
        check(snapshot_hash(answer["state"]) == snapshot_hash(source.state), "delayed state")
        client.close()
    fake_game(redis, source, "thirdgame")
    client = Client(relay)
    answer = client.ask({"type": "join", "game": "thirdgame", "token": source.spectator})
    expect_error(answer, "unavailable")
    check(answer.get("retry_after") == 5, "retry_after %r" % answer)
    client.close()
    first.close()


def case_forget(world):
    """A game nobody watches is unsubscribed and forgotten (test hook
    BRIGADE_TEST_RELAY_FORGET_MS: 300 ms instead of a minute); the next
    join follows it again from Redis, state and all."""
    redis, source, owner, relay = world["redis"], world["source"], world["owner"], world["relay"]
    watcher, answer = spectate(relay, source)
    expect_welcome(answer, source)
    wait_for("the feed's subscription", lambda: feed_subscribed(redis, source))
    watcher.close()
    wait_for("the game forgotten", lambda: not feed_subscribed(redis, source))
    check("nobody watches it: forgotten" in relay.text(), "the relay says it forgot the game")
    owner.step()  # unheard by the relay
    again, answer = spectate(relay, source)
    expect_welcome(answer, source)
    wait_for("the feed's subscription again", lambda: feed_subscribed(redis, source))
    nxt = owner.step()
    expect_frames(again, [nxt[16:]])
    again.close()


def case_limits_rates(world):
    """The rate limits of a game node hold at a relay too (server/rate.h):
    with --rate-failed-joins 3, wrong spectator passwords from one address
    (127.0.0.2, over several connections) spend its tries, then lock it
    out, the right password too, while 127.0.0.1 (a local proxy's, with no
    address limits) still joins; with --rate-messages 5, a connection's
    burst of messages is answered rate_limited with retry_after."""
    redis, source, owner, relay = world["redis"], world["source"], world["owner"], world["relay"]
    redis.client.command("HSET", owner.prefix + "spectators", "password",
                         stored_password(PASSWORD))

    def join_from(address, password):
        ws = wire.WebSocket(relay.port, timeout=10, source=address)
        ws.send_message({"type": "join", "request": 1, "game": source.game,
                         "token": source.spectator, "password": password})
        answer = ws.recv_message()
        return ws, answer

    for attempt in range(4):
        ws, answer = join_from("127.0.0.2", "wrong %d" % attempt)
        expect_error(answer, "bad_token")
        ws.close()
    ws, answer = join_from("127.0.0.2", PASSWORD)
    expect_error(answer, "rate_limited")
    check(answer.get("retry_after", 0) >= 1 and "address" in answer["message"],
          "the address's lockout: %r" % answer)
    ws.close()
    watcher, answer = spectate(relay, source, password=PASSWORD)
    expect_welcome(answer, source)
    watcher.close()
    time.sleep(1.2)  # the first lockout is 1 s
    ws, answer = join_from("127.0.0.2", PASSWORD)
    check(answer.get("type") == "welcome", "after the lockout: %r" % {
        k: v for k, v in answer.items() if k != "state"})
    ws.close()
    # Messages: a burst of 10 (2 s of 5 a second) goes through, then refusals.
    chatty = Client(relay)
    answers = []
    for _ in range(16):
        answers.append(chatty.ask({"type": "act", "action": {"kind": "done"}}))
    codes = [a.get("code") for a in answers]
    check(codes[:10] == ["not_joined"] * 10, "the burst: %r" % codes)
    limited = [a for a in answers if a.get("code") == "rate_limited"]
    check(len(limited) >= 5 and all(a.get("retry_after", 0) >= 1 for a in limited),
          "over the rate: %r" % codes)
    chatty.close()


CASES = {
    "welcome_resume": case_welcome_resume,
    "gaps": case_gaps,
    "refusals": case_refusals,
    "relay_kill": case_relay_kill,
    "redis_restart": case_redis_restart,
    "limits_delay": case_limits_delay,
    "forget": case_forget,
    "password_busy": case_password_busy,
    "limits_rates": case_limits_rates,
}

# brigaded options of a case's relay.
RELAY_OPTIONS = {"limits_delay": ["--max-games", "2"], "password_busy": ["--password-checks", "1"],
                 "limits_rates": ["--rate-failed-joins", "3", "--rate-messages", "5"]}
# The owner writes the hash's state every Nth change only (README "What the
# owner publishes": every 16th); the relay brings it forward from recent.
OWNER_STATE_EVERY = {"welcome_resume": 16, "relay_kill": 16}
# Test hooks of a case's relay (its environment).
RELAY_ENV = {"forget": {"BRIGADE_TEST_RELAY_FORGET_MS": "300"}}


def main():
    name, brigaded, scenarios = case_arguments("relay_flow.py", CASES)
    world = {"brigaded": brigaded, "scenarios": scenarios}
    node = relay = first_relay = redis = None
    status = 1
    try:
        node = Server(brigaded)
        redis = Redis(node.tmp)
        world["redis"] = redis
        world["source"] = source = Source(node, scenarios)
        world["owner"] = Owner(redis, source, state_every=OWNER_STATE_EVERY.get(name, 1))
        world["relay"] = relay = first_relay = Relay(brigaded, redis.url(),
                                                      RELAY_OPTIONS.get(name, ()),
                                                      RELAY_ENV.get(name))
        CASES[name](world)
        relay = world["relay"]
        if relay.proc.poll() is None:
            check(relay.stop() == 0, "the relay's exit status after SIGTERM")
        for server in (relay, node):
            for report in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
                check(report not in server.text(), "sanitizer report in a log")
        source.close()
        if os.environ.get("RELAY_FLOW_VERBOSE"):
            print("--- relay log:\n" + relay.text())
        status = 0
    except (Failure, wire.Closed, OSError, ValueError, KeyError) as error:
        print("FAIL: %s: %s: %s" % (name, type(error).__name__, error))
        for label, server in (("relay", world.get("relay")), ("node", node)):
            if server:
                print("--- %s log (last 4000 bytes):" % label)
                print(server.text()[-4000:])
    finally:
        # The relay a case replaced (relay_kill) is cleaned up too.
        for server in {id(s): s for s in (world.get("relay"), first_relay, node) if s}.values():
            server.cleanup()
        if redis:
            redis.kill()
    print("PASS: %s" % name if status == 0 else "")
    print("1 passed, 0 failed" if status == 0 else "0 passed, 1 failed")
    return status


if __name__ == "__main__":
    sys.exit(main())
