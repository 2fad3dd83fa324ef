"""tests/journal/v1_journal.py: what make_v1_fixture.py (run by hand with
an old build) and old_journal_test.py (ctest, the current build) share, so
that both compute "the snapshot hash at seq N" the same way (python3's
standard library only).

A fixture is a game journal written by an earlier release of brigaded and
exported with its `brigade export`, kept in the source tree as text:

  fixtures/<version>/<name>.sql     the export's SQL dump (sqlite3 iterdump)
  fixtures/<version>/<name>.hashes  "seq hash" lines: the snapshot hash of
                                    the game rebuilt up to each seq, by
                                    that release's `brigade replay --json`
  fixtures/<version>/<name>.json    the game id, the seats' tokens, the
                                    hashes the live game had (what the
                                    players' clients computed) and the
                                    final state's turn, phase and units

The hash at seq N is what `brigade replay --json` prints for a copy of the
journal cut after seq N: the events, snapshots and answers of later seqs
deleted, games.seq set to N and the status back to active (the game was
active at N). `brigade replay` rebuilds from seq 0, so the cut is exactly
the game as it stood after the action of seq N. (Cutting is only right for
a game without an umpire's rollback: a rollback marks earlier rows
rolled_back, which a cut before it would have to undo. The fixtures have
none; journal_rollback covers rollbacks.)
"""
import json
import os
import sqlite3
import subprocess


def build_sqlite(sql_path, db_path):
    """A fresh sqlite file at db_path from the dump at sql_path."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(db_path + suffix):
            os.remove(db_path + suffix)
    with open(sql_path, encoding="utf-8") as handle:
        script = handle.read()
    db = sqlite3.connect(db_path)
    try:
        db.executescript(script)
        db.commit()
    finally:
        db.close()


def dump_sqlite(db_path, sql_path):
    """The SQL dump of db_path (sqlite3's iterdump), one statement a line."""
    db = sqlite3.connect(db_path)
    try:
        lines = list(db.iterdump())
    finally:
        db.close()
    with open(sql_path, "w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(line + "\n")


def game_seqs(db_path, game):
    """Every seq of the game's events, ascending."""
    db = sqlite3.connect(db_path)
    try:
        return [row[0] for row in db.execute(
            "SELECT DISTINCT seq FROM events WHERE game = ? ORDER BY seq", (game,))]
    finally:
        db.close()


def rolled_back_rows(db_path, game):
    db = sqlite3.connect(db_path)
    try:
        return db.execute("SELECT COUNT(*) FROM events WHERE game = ? AND rolled_back <> 0",
                          (game,)).fetchone()[0]
    finally:
        db.close()


def cut_after(db_path, game, seq):
    """Deletes what the game journaled after `seq`: the game as it was then."""
    db = sqlite3.connect(db_path)
    try:
        db.execute("DELETE FROM events WHERE game = ? AND seq > ?", (game, seq))
        db.execute("DELETE FROM snapshots WHERE game = ? AND seq > ?", (game, seq))
        db.execute("DELETE FROM answers WHERE game = ? AND seq > ?", (game, seq))
        db.execute("UPDATE games SET seq = ?, status = 'active', damage = NULL WHERE id = ? "
                   "AND seq > ?", (seq, game, seq))
        db.commit()
    finally:
        db.close()


def replay_json(brigade, db_path, game):
    """`brigade replay --json --journal db_path --game game`: (exit status,
    the JSON lines, stderr)."""
    done = subprocess.run([brigade, "replay", "--json", "--journal", db_path, "--game", game],
                          capture_output=True, text=True, timeout=60)
    lines = []
    for line in done.stdout.splitlines():
        try:
            lines.append(json.loads(line))
        except ValueError:
            lines.append({"type": "not_json", "text": line})
    return done.returncode, lines, done.stderr


def replay_hash(brigade, db_path, game):
    """(seq, hash) of the replay's last line, or raises RuntimeError."""
    status, lines, err = replay_json(brigade, db_path, game)
    if status != 0 or not lines or lines[-1].get("type") != "hash":
        raise RuntimeError("brigade replay --journal %s --game %s: exit %d, stderr %r, last "
                           "line %r" % (db_path, game, status, err.strip(),
                                        lines[-1] if lines else None))
    if "warning" in err:
        raise RuntimeError("brigade replay --journal %s --game %s: %s" % (db_path, game,
                                                                         err.strip()))
    return lines[-1]["seq"], lines[-1]["hash"]


def hashes_per_seq(brigade, sql_path, work_db, game):
    """{seq: hash} for every seq of the game, rebuilding work_db from the
    dump and cutting it down one seq at a time (the last seq first)."""
    build_sqlite(sql_path, work_db)
    if rolled_back_rows(work_db, game):
        raise RuntimeError("%s: the game has rolled-back rows; cutting it is not exact" %
                           sql_path)
    hashes = {}
    for seq in reversed(game_seqs(work_db, game)):
        cut_after(work_db, game, seq)
        got_seq, digest = replay_hash(brigade, work_db, game)
        if got_seq != seq:
            raise RuntimeError("cut after seq %d, the replay ends at seq %d" % (seq, got_seq))
        hashes[seq] = digest
    return hashes


def read_hashes(path):
    hashes = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            seq, digest = line.split()
            hashes[int(seq)] = digest
    return hashes


def write_hashes(path, hashes, header):
    with open(path, "w", encoding="utf-8") as handle:
        for line in header:
            handle.write("# %s\n" % line)
        for seq in sorted(hashes):
            handle.write("%d %s\n" % (seq, hashes[seq]))
