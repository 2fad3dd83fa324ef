#!/usr/bin/env python3
"""Secrets at rest (issue 13 point 5; README "Secrets at rest", PROTOCOL.md
§5.1, §5.2) over real websockets and the real journal file.

usage: secrets_flow.py CASE BRIGADED BRIGADE SCENARIOS_DIR

  password_at_rest  a game with a spectator password: the journal holds its
                    scrypt text (recomputed here with hashlib.scrypt from
                    the salt and parameters it names), never its SHA-256 nor
                    the password; joins missing, wrong, right; the same
                    after a restart (an empty cache); `brigade export` holds
                    no hash of it (the stored text, its salt and hash, raw
                    or hex; the SHA-256, raw or hex), no token hash, no
                    dice seed, and still replays.
  password_legacy   a journal of schema version 4 (the password's unsalted
                    SHA-256): migrated; the wrong password refused, the
                    right one joins and its SHA-256 is replaced by a scrypt
                    text (gone from the file); after a restart the scrypt
                    text verifies.
  password_busy     at most 4 slow checks at once: 12 spectators with 12
                    wrong passwords at once get bad_token or `unavailable`
                    "busy, try again", some of each; 12 with the right one
                    at once (an empty cache) all join, waiting for one
                    check; a second join on a connection whose join is
                    being checked is refused.
  seed_missing      a game whose dice seed was NULLed in the journal (with
                    its commitment at seq 0) is damaged at the next start,
                    marked so in the journal, and a join is told why
                    (unknown_game naming the seed); another game of the
                    same journal still plays, before and after another
                    restart; `brigade replay` lists the damage.
"""
import hashlib
import os
import re
import select
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from game_flow import (Client, Server, check, create_on_own, expect_error, join,  # noqa: E402
                       run_case, scenario_text)

PASSWORD = "a long watch word, été"
STORED = re.compile(r"scrypt\$(\d+)\$(\d+)\$(\d+)\$([0-9a-f]{32})\$([0-9a-f]{64})")


def journal_path(server):
    return os.path.join(server.tmp, "data", "brigade.sqlite")


def journal_row(server, game, columns):
    """The games row's `columns` of `game`, read beside the running server."""
    db = sqlite3.connect("file:%s?mode=ro" % journal_path(server), uri=True)
    try:
        rows = db.execute("SELECT %s FROM games WHERE id = ?" % columns, (game,)).fetchall()
    finally:
        db.close()
    check(len(rows) == 1, "game %s: %d rows" % (game, len(rows)))
    return rows[0]


def journal_bytes(server):
    """The journal file and its WAL, as bytes."""
    data = b""
    for suffix in ("", "-wal"):
        if os.path.exists(journal_path(server) + suffix):
            data += open(journal_path(server) + suffix, "rb").read()
    return data


def check_scrypt(stored, password):
    """The stored text is scrypt of the password with its own salt and
    parameters (recomputed with hashlib): (salt, hash) as bytes."""
    match = STORED.fullmatch(stored or "")
    check(match, "the stored password %r is not scrypt$N$r$p$salt$hash" % stored)
    n, r, p = (int(match.group(i)) for i in (1, 2, 3))
    check((n, r, p) == (16384, 8, 1), "scrypt parameters %r" % ((n, r, p),))
    salt, digest = bytes.fromhex(match.group(4)), bytes.fromhex(match.group(5))
    again = hashlib.scrypt(password.encode(), salt=salt, n=n, r=r, p=p, maxmem=64 << 20,
                           dklen=32)
    check(again == digest, "hashlib.scrypt of the password differs from the stored hash")
    return salt, digest


def create(server, scenarios, password=PASSWORD):
    return create_on_own(server, scenarios,
                         None if password is None else {"spectator_password": password})


def spectator_join(server, created, password=None):
    """A spectator's join on a new connection: (client, answer)."""
    c = Client(server)
    message = {"type": "join", "game": created["game"], "token": created["spectator"]}
    if password is not None:
        message["password"] = password
    return c, c.ask(message)


def check_joins(server, created):
    """Missing and wrong passwords refused with bad_token, the right one
    welcomed."""
    for password in (None, "a wrong one", PASSWORD[:-1]):
        c, answer = spectator_join(server, created, password)
        expect_error(answer, "bad_token")
        c.close()
    c, answer = spectator_join(server, created, PASSWORD)
    check(answer.get("type") == "welcome" and answer["seat"] == "spectator",
          "the right password: %r" % {k: v for k, v in answer.items() if k != "state"})
    c.close()


def run_brigade(brigade, args):
    return subprocess.run([brigade] + args, capture_output=True, text=True, timeout=60)


def case_password_at_rest(server, brigade, scenarios):
    created = create(server, scenarios)
    game = created["game"]
    stored, old = journal_row(server, game, "spectator_password, spectator_password_sha256")
    check(old is None, "a new game keeps no SHA-256 of its password: %r" % old)
    salt, digest = check_scrypt(stored, PASSWORD)
    sha = hashlib.sha256(PASSWORD.encode()).digest()
    check_joins(server, created)
    raw = journal_bytes(server)
    for what, needle in (("the SHA-256", sha), ("its hex", sha.hex().encode()),
                         ("the password", PASSWORD.encode())):
        check(needle not in raw, "the journal holds %s of the password" % what)
    check(stored.encode() in raw, "the journal's bytes hold the stored text (the search works)")

    # A restart: the cache is empty, the scrypt text verifies.
    server.restart()
    check_joins(server, created)

    # The export: no secret.
    players = {}
    for seat in ("A", "B"):
        players[seat] = Client(server)
        join(players[seat], game, created["seats"][seat])
    for client in players.values():
        client.close()
    tokens = journal_row(server, game, "token_a_sha256, token_b_sha256, spectator_sha256, "
                                       "umpire_sha256, dice_seed")
    check(all(isinstance(t, bytes) and len(t) == 32 for t in tokens),
          "the server's journal holds the hashes and the seed")
    exported = os.path.join(server.tmp, "export.sqlite")
    done = run_brigade(brigade, ["export", "--data", os.path.join(server.tmp, "data"),
                                 "--game", game, exported])
    check(done.returncode == 0, "export: %s" % done.stderr)
    data = open(exported, "rb").read()
    needles = {"the stored text": stored.encode(), "its salt (hex)": salt.hex().encode(),
               "its hash (hex)": digest.hex().encode(), "its salt": salt, "its hash": digest,
               "the SHA-256": sha, "the SHA-256 (hex)": sha.hex().encode(),
               "the password": PASSWORD.encode()}
    for name, value in zip(("seat A's token hash", "seat B's token hash",
                            "the spectator id's hash", "the umpire token's hash",
                            "the dice seed"), tokens):
        needles[name] = value
    for name, needle in needles.items():
        check(needle not in data, "the export holds %s" % name)
    db = sqlite3.connect("file:%s?mode=ro" % exported, uri=True)
    try:
        row = db.execute("SELECT spectator_password, spectator_password_sha256, "
                         "spectator_sha256, umpire_sha256, dice_seed, token_a_sha256, "
                         "token_b_sha256 FROM games").fetchall()
    finally:
        db.close()
    check(row == [(None, None, None, None, None, bytes(32), bytes(32))],
          "the export's games row: %r" % row)
    done = run_brigade(brigade, ["replay", "--journal", exported, "--game", game])
    check(done.returncode == 0, "the export replays: %s" % done.stderr)
    log = server.text()
    check(PASSWORD not in log and "a wrong one" not in log, "a password is in the log")


def case_password_legacy(server, brigade, scenarios):
    created = create(server, scenarios)
    game = created["game"]
    check(server.stop() == 0, "brigaded exit status")
    sha = hashlib.sha256(PASSWORD.encode()).digest()
    # As schema version 4 kept it (secure_delete: the test's own rewrites
    # of the row leave no copy of it behind, so that what the file holds
    # after the upgrade is brigaded's doing).
    db = sqlite3.connect(journal_path(server))
    db.execute("PRAGMA secure_delete = ON")
    db.execute("UPDATE games SET spectator_password_sha256 = ? WHERE id = ?", (sha, game))
    db.execute("ALTER TABLE games DROP COLUMN spectator_password")
    for table in ("tournaments", "tournament_people", "tournament_entries"):
        db.execute("DROP TABLE %s" % table)  # version 6's
    db.execute("UPDATE schema_version SET version = 4")
    db.commit()
    db.close()
    check(sha in journal_bytes(server), "the SHA-256 is in the journal file")
    server.log = open(server.log_path, "ab")
    server.restart_after_stop()
    db = sqlite3.connect("file:%s?mode=ro" % journal_path(server), uri=True)
    version = db.execute("SELECT version FROM schema_version").fetchall()
    db.close()
    check(version == [(6,)], "migrated to version 6: %r" % version)
    for password in ("a wrong one", None):
        c, answer = spectator_join(server, created, password)
        expect_error(answer, "bad_token")
        c.close()
    stored, old = journal_row(server, game, "spectator_password, spectator_password_sha256")
    check(stored is None and old == sha, "a wrong join replaces nothing: %r %r" % (stored, old))
    c, answer = spectator_join(server, created, PASSWORD)
    check(answer.get("type") == "welcome", "the right password on the old hash: %r" %
          answer.get("type"))
    c.close()
    deadline = time.time() + 10
    while "stored salted (scrypt) now" not in server.text():
        check(time.time() < deadline, "the old hash is not replaced: " + server.text()[-2000:])
        time.sleep(0.05)
    stored, old = journal_row(server, game, "spectator_password, spectator_password_sha256")
    check(old is None, "the SHA-256 column is cleared: %r" % old)
    check_scrypt(stored, PASSWORD)
    server.restart()  # checkpoints the WAL on the way
    check(sha not in journal_bytes(server), "the old SHA-256's bytes are still in the file")
    check_joins(server, created)


def answers_of(clients, seconds=10):
    """The next message of each client, in any order: {client: message}."""
    got = {}
    deadline = time.time() + seconds
    while len(got) < len(clients):
        check(time.time() < deadline, "%d of %d answered" % (len(got), len(clients)))
        waiting = [c for c in clients if c not in got]
        buffered = [c.ws.sock for c in waiting if c.ws.pending]
        readable = buffered or select.select([c.ws.sock for c in waiting], [], [], 0.1)[0]
        for c in waiting:
            if c.ws.sock in readable:
                got[c] = c.recv()
    return got


def case_password_busy(server, brigade, scenarios):
    created = create(server, scenarios)
    clients = [Client(server) for _ in range(12)]
    for i, c in enumerate(clients):
        c.send({"type": "join", "game": created["game"], "token": created["spectator"],
                "password": "wrong guess %d" % i})
    got = answers_of(clients)
    codes = [m.get("code") for m in got.values()]
    # At most 4 checked at a time: the others are answered busy at once.
    check(all(m.get("type") == "error" for m in got.values()) and
          set(codes) == {"bad_token", "unavailable"},
          "12 wrong passwords at once: %r" % codes)
    print("12 wrong passwords at once: %d bad_token, %d unavailable" %
          (codes.count("bad_token"), codes.count("unavailable")))
    busy = [m for m in got.values() if m.get("code") == "unavailable"]
    check(all(m["message"].startswith("busy, try again") for m in busy), "busy: %r" % busy[0])
    for c in clients:
        c.close()

    # The right password, 12 at once, the cache empty (a restart): one check.
    server.restart()
    clients = [Client(server) for _ in range(12)]
    for c in clients:
        c.send({"type": "join", "game": created["game"], "token": created["spectator"],
                "password": PASSWORD})
    # A second join on the first connection meanwhile.
    second = clients[0].send({"type": "join", "game": created["game"],
                              "token": created["spectator"], "password": PASSWORD})
    got = answers_of(clients)
    # The second join is refused: "waiting for its spectator password" when
    # it is read during the check, "joined ... already" when the check (some
    # 40 ms) was over first; either way the connection has one welcome.
    pair = [got[clients[0]], clients[0].recv()]
    refusal = [m for m in pair if m.get("type") == "error"]
    check(len(refusal) == 1, "the first connection's two answers: %r" %
          [m.get("code", m.get("type")) for m in pair])
    expect_error(refusal[0], "bad_message", second)
    check("waiting for its spectator password" in refusal[0]["message"] or
          "already" in refusal[0]["message"], "%r" % refusal[0])
    got[clients[0]] = next(m for m in pair if m.get("type") != "error")
    types = [m.get("type") for m in got.values()]
    check(types == ["welcome"] * 12, "12 right passwords at once: %r" %
          [m.get("code", m.get("type")) for m in got.values()])
    for c in clients:
        c.close()


def case_seed_missing(server, brigade, scenarios):
    games = []
    for _ in range(2):
        created = create(server, scenarios, password=None)
        for seat in ("A", "B"):
            c = Client(server)
            join(c, created["game"], created["seats"][seat])
            c.close()
        games.append(created)
    lost, kept = games
    check(server.stop() == 0, "brigaded exit status")
    db = sqlite3.connect(journal_path(server))
    db.execute("UPDATE games SET dice_seed = NULL WHERE id = ?", (lost["game"],))
    db.commit()
    db.close()
    for restart in range(2):
        start = len(server.text())
        server.log = open(server.log_path, "ab")
        server.restart_after_stop()
        log = server.text()[start:]
        check(("game %s is damaged in the journal and cannot be played: its secret dice seed "
               "is missing" % lost["game"]) in log, "the damage is reported: " + log)
        check("1 game(s) rebuilt, 1 damaged" in log, "one rebuilt, one damaged: " + log)
        for token in (lost["seats"]["A"], lost["spectator"]):
            c = Client(server)
            answer = c.ask({"type": "join", "game": lost["game"], "token": token})
            expect_error(answer, "unknown_game")
            check("damaged" in answer["message"] and "dice seed is missing" in
                  answer["message"], "the join names the damage: %r" % answer)
            c.close()
        status, damage = journal_row(server, lost["game"], "status, damage")
        check(status == "damaged" and "dice seed is missing" in (damage or ""),
              "the journal marks it damaged: %r %r" % (status, damage))
        # The other game plays on.
        players = {}
        for seat in ("A", "B"):
            players[seat] = Client(server)
            welcome = join(players[seat], kept["game"], kept["seats"][seat])
        state = welcome["state"]
        actor = state["awaiting"][0]
        answer = players[actor].ask({"type": "act", "action": {
            "kind": "choose_initiative", "phasing": "A"}} if restart == 0 else {
            "type": "act", "action": {"kind": "done"}})
        check(answer.get("type") == "ack" or (answer.get("type") == "error" and
                                               answer["code"] != "unknown_game"),
              "the other game answers its actions: %r" % answer)
        if restart == 0:
            check(answer.get("type") == "ack", "the other game's act: %r" % answer)
        for c in players.values():
            c.close()
        check(server.stop() == 0, "brigaded exit status")
    done = run_brigade(brigade, ["replay", "--data", os.path.join(server.tmp, "data")])
    check(done.returncode == 0 and "dice seed is missing" in done.stdout,
          "brigade replay lists the damage: %s %s" % (done.stdout, done.stderr))
    server.log = open(server.log_path, "ab")
    server.restart_after_stop()


CASES = {"password_at_rest": case_password_at_rest, "password_legacy": case_password_legacy,
         "password_busy": case_password_busy, "seed_missing": case_seed_missing}


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in CASES:
        print("usage: secrets_flow.py {%s} BRIGADED BRIGADE SCENARIOS_DIR" % "|".join(CASES))
        return 2
    name, brigaded, brigade, scenarios = sys.argv[1:]
    return run_case(name, Server(brigaded), CASES[name], brigade, scenarios)


if __name__ == "__main__":
    sys.exit(main())
