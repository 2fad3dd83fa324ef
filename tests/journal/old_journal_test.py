#!/usr/bin/env python3
"""tests/journal/old_journal_test.py: old journals still replay (issue 10,
point 4). A game journaled by an earlier release rebuilds, with this build,
to the very snapshot hashes it had.

    old_journal_test.py FIXTURE --brigade B --brigaded D --work DIR

FIXTURE is tests/journal/fixtures/<version>/<name> (v1_journal.py says what
its .sql, .hashes and .json are; make_v1_fixture.py made them with the old
build). Checks, with this build:

1. the journal, rebuilt from the SQL dump, replays from seq 0
   (`brigade replay --json`, exit 0, no warning) to the final seq and hash
   the old server had;
2. cut after each seq, it replays to the hash the old build computed at
   that seq: every line of the .hashes (the first seq that differs is named,
   with the events of that seq as this build describes them);
3. this build's brigaded, given the journal as its --data, resumes the
   game (from the journal's snapshots, as at a restart) to the same seq and
   hash, with the turn, phase, step and units of the old game's final state,
   for each player's token. The fixture is an export, which holds no dice
   seed (journal.h): an unfinished game is first refused as damaged, naming
   its missing seed (a game with a dice commitment is never given another
   seed silently); then the test gives it a seed, as the server's own
   journal holds one, and it resumes;
4. an ended game's dice still verify (`brigade verify`, PROTOCOL.md §10.3).
"""
import argparse
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import v1_journal  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))
from game_flow import Failure, check, pass_or_fail, wait_listening  # noqa: E402


def seq_events(brigade, db, game, seq):
    """This build's description of the events of `seq` (for a failure)."""
    _, lines, _ = v1_journal.replay_json(brigade, db, game)
    return "\n".join("  " + line.get("text", json.dumps(line)) for line in lines
                     if line.get("type") == "event" and line.get("seq") == seq)


def check_replay(args, fixture, manifest, recorded):
    game = manifest["game"]
    db = os.path.join(args.work, "replay.sqlite")
    v1_journal.build_sqlite(fixture + ".sql", db)
    final = manifest["final"]
    check(max(recorded) == final["seq"] and recorded[final["seq"]] == final["hash"],
          "the fixture's .hashes do not end with its final hash")
    got = v1_journal.hashes_per_seq(args.brigade, fixture + ".sql",
                                    os.path.join(args.work, "cut.sqlite"), game)
    check(sorted(got) == sorted(recorded),
          "the journal has seqs %s..%s (%d), the fixture's hashes %s..%s (%d)" %
          (min(got), max(got), len(got), min(recorded), max(recorded), len(recorded)))
    differ = [s for s in sorted(recorded) if got[s] != recorded[s]]
    if differ:
        first = differ[0]
        raise Failure("%d of %d seqs rebuild to another hash than the old build's; the "
                      "first is seq %d (old %s, now %s), whose events this build describes "
                      "as:\n%s\n(all that differ: %s)" %
                      (len(differ), len(recorded), first, recorded[first], got[first],
                       seq_events(args.brigade, db, game, first), differ))
    # The hashes the live clients computed during the old game, too.
    for key, live in manifest["live_hashes"].items():
        check(got[int(key)] == live, "seq %s: the old clients had %s, the replay %s" %
              (key, live, got[int(key)]))
    # The whole journal (not cut), as `brigade replay` shows it.
    seq, digest = v1_journal.replay_hash(args.brigade, db, game)
    check((seq, digest) == (final["seq"], final["hash"]),
          "the whole journal replays to seq %d hash %s; the old server had seq %d hash %s" %
          (seq, digest, final["seq"], final["hash"]))
    print("replay: %d seqs, every hash the old build's; final seq %d %s" %
          (len(got), seq, digest))




def start_server(args, data, log_path):
    """This build's brigaded on `data`: (process, port)."""
    with open(log_path, "w") as log:
        server = subprocess.Popen([args.brigaded, "--port", "0", "--listen", "127.0.0.1",
                                   "--data", data], stdin=subprocess.DEVNULL, stdout=log,
                                  stderr=subprocess.STDOUT)
    try:
        port = wait_listening(server, lambda: open(log_path).read(), seconds=15)
    except Failure:
        server.kill()
        server.wait()
        raise
    return server, port


def stop_server(server, log_path):
    server.send_signal(signal.SIGTERM)
    try:
        status = server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        status = server.wait()
    check(status == 0, "brigaded exited %d: %s" % (status, open(log_path).read()))


def check_export_refused(args, data, manifest):
    """An export's unfinished game has a dice commitment and no seed: this
    build's brigaded reports it damaged and a player's join is told why.
    Then the test gives it a seed (any: the commitment's is not in the
    export), as the server's own journal holds one."""
    log_path = os.path.join(args.work, "brigaded-refused.log")
    server, port = start_server(args, data, log_path)
    try:
        done = subprocess.run([args.brigade, "state", "--json", "--server",
                               "ws://127.0.0.1:%d" % port, "--game", manifest["game"],
                               "--token", manifest["tokens"]["A"]],
                              capture_output=True, text=True, timeout=60)
    finally:
        stop_server(server, log_path)
    check(done.returncode != 0 and "dice seed is missing" in done.stderr,
          "an export's unfinished game (no seed) is refused naming its seed: exit %d: %s" %
          (done.returncode, done.stderr))
    db = sqlite3.connect(os.path.join(data, "brigade.sqlite"))
    try:
        (status, damage), = db.execute("SELECT status, damage FROM games WHERE id = ?",
                                       (manifest["game"],)).fetchall()
        check(status == "damaged" and "dice seed is missing" in damage,
              "the journal marks it damaged: %r %r" % (status, damage))
        db.execute("UPDATE games SET status = 'active', damage = NULL, "
                   "dice_seed = randomblob(32) WHERE id = ?", (manifest["game"],))
        db.commit()
    finally:
        db.close()
    print("server: the export's unfinished game is refused as damaged (no dice seed)")


def check_server(args, fixture, manifest):
    """This build's brigaded resumes the old game from its journal."""
    data = os.path.join(args.work, "data")
    shutil.rmtree(data, ignore_errors=True)
    os.makedirs(data)
    v1_journal.build_sqlite(fixture + ".sql", os.path.join(data, "brigade.sqlite"))
    final = manifest["final"]
    # v1's fixtures are exports (no dice seed: the server refuses them as
    # damaged until given one); from v2 on they are the server's whole
    # journal, seed and seats' secrets included.
    db = sqlite3.connect(os.path.join(data, "brigade.sqlite"))
    try:
        (seed,), = db.execute("SELECT dice_seed FROM games WHERE id = ?",
                              (manifest["game"],)).fetchall()
    finally:
        db.close()
    if final["state"]["phase"] != "ended" and seed is None:
        check_export_refused(args, data, manifest)
    log_path = os.path.join(args.work, "brigaded.log")
    server, port = start_server(args, data, log_path)
    try:
        for seat in ("A", "B"):
            done = subprocess.run([args.brigade, "state", "--json", "--server",
                                   "ws://127.0.0.1:%d" % port, "--game", manifest["game"],
                                   "--token", manifest["tokens"][seat]],
                                  capture_output=True, text=True, timeout=60)
            check(done.returncode == 0, "brigade state (seat %s) exit %d: %s; brigaded: %s" %
                  (seat, done.returncode, done.stderr, open(log_path).read()))
            fresh = json.loads(done.stdout)
            state = fresh["state"]
            summary = {"turn": state["turn"], "phase": state["phase"], "step": state["step"],
                       "units": {uid: {key: unit[key] for key in
                                       ("figures", "status", "formed", "formation")}
                                 for uid, unit in sorted(state["units"].items())},
                       "log_entries": len(state["log"])}
            check(summary == final["state"],
                  "seat %s: the resumed game's state is %s; the old game's was %s" %
                  (seat, json.dumps(summary), json.dumps(final["state"])))
            check((fresh["seq"], fresh["hash"]) == (final["seq"], final["hash"]),
                  "seat %s: the resumed game is at seq %d hash %s; the old server had seq %d "
                  "hash %s" % (seat, fresh["seq"], fresh["hash"], final["seq"],
                               final["hash"]))
    finally:
        stop_server(server, log_path)
    print("server: resumed at seq %d %s, turn %d %s" % (
        final["seq"], final["hash"], final["state"]["turn"], final["state"]["phase"]))


def check_verify(args, fixture, manifest):
    if manifest["final"]["state"]["phase"] != "ended":
        return
    db = os.path.join(args.work, "verify.sqlite")
    v1_journal.build_sqlite(fixture + ".sql", db)
    done = subprocess.run([args.brigade, "verify", db, "--game", manifest["game"]],
                          capture_output=True, text=True, timeout=60)
    check(done.returncode == 0, "brigade verify: exit %d: %s%s" % (done.returncode,
                                                                 done.stdout, done.stderr))
    print("verify: %s" % done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("fixture", help="tests/journal/fixtures/<version>/<name>")
    parser.add_argument("--brigade", required=True)
    parser.add_argument("--brigaded", required=True)
    parser.add_argument("--work", required=True, help="a folder for the rebuilt journals")
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    with open(args.fixture + ".json") as handle:
        manifest = json.load(handle)
    recorded = v1_journal.read_hashes(args.fixture + ".hashes")
    print("%s: game %s of %s, journaled by commit %s" % (
        os.path.basename(args.fixture), manifest["game"], manifest["scenario"],
        manifest["made_by"]))

    def checks():
        check_replay(args, args.fixture, manifest, recorded)
        check_server(args, args.fixture, manifest)
        check_verify(args, args.fixture, manifest)

    return pass_or_fail(checks, (Failure, RuntimeError))


if __name__ == "__main__":
    sys.exit(main())
