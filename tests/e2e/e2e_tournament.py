#!/usr/bin/env python3
"""`brigade tournament` against the real brigaded (PROTOCOL.md §11): new
with tournaments/example.json (its scenarios from the shipped folder, and
one from the file's own folder), the tokens and links it prints, standings
before the first round, start-round's pairings, the organiser's results
and a correction, the standings in points, --json, and refusals: a bad
file before anything is sent (exit 2), a wrong token and a round started
too early (exit 3, the server's message)."""

import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_support as e2e  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "tournaments", "example.json")


def body(processes):
    args = e2e.arguments()
    server = e2e.Server(processes, args.brigaded)

    def tournament(*words, status=0):
        run = subprocess.run([args.brigade, "tournament"] + list(words) +
                             ["--server", server.url, "--timeout", "20"],
                             capture_output=True, text=True, timeout=30)
        e2e.check(run.returncode == status,
                  "brigade tournament %s: exit %d, not %d\n%s%s" %
                  (" ".join(words), run.returncode, status, run.stdout, run.stderr))
        return run

    # A bad file is refused before sending, naming the member.
    bad = os.path.join(processes.folder, "bad.json")
    with open(bad, "w") as f:
        json.dump({"name": "X", "players": ["Ann"], "scenarios": ["v.json"],
                   "format": "round_robin"}, f)
    run = tournament("new", bad, status=2)
    e2e.check("players: 1 given: 2..64 are allowed" in run.stderr, run.stderr)

    # The example, with village.json taken from the file's own folder
    # (a copy) and example_a.json from the shipped scenarios.
    own = os.path.join(processes.folder, "cup")
    os.mkdir(own)
    shutil.copy(EXAMPLE, own)
    shutil.copy(os.path.join(os.path.dirname(args.scenario), "village.json"), own)
    run = tournament("new", os.path.join(own, "example.json"))
    out = run.stdout
    match = re.search(r"^Tournament ([0-9a-f]{32}) created\.$", out, re.M)
    e2e.check(match, "no id in:\n" + out)
    tid = match.group(1)
    e2e.check("  http://127.0.0.1:%d/tournament.html#t=%s\n" % (server.port, tid) in out, out)
    tokens = re.findall(r"^    token  ([0-9a-f]{64})$", out, re.M)
    e2e.check(len(tokens) == 1 + 6 + 1, "organiser, 6 players, 1 umpire: %r" % tokens)
    organiser = tokens[0]
    e2e.check("  Ben Carter\n    token  %s\n    link   http://127.0.0.1:%d/tournament.html"
              "#t=%s&token=%s\n" % (tokens[2], server.port, tid, tokens[2]) in out, out)
    e2e.check("shown this once" in out, out)

    run = tournament("standings", tid)
    e2e.check(run.stdout.splitlines()[:2] == [
        "Autumn Cup 1809: standings before the first round",
        "Rank  Player        Points Buchholz Sonneborn-Berger    W-D-L Byes"], run.stdout)

    run = tournament("start-round", tid, "--token", "0" * 64, status=3)
    e2e.check("[bad_token]" in run.stderr, run.stderr)
    run = tournament("start-round", tid, "--token", organiser)
    lines = run.stdout.splitlines()
    e2e.check(lines[0] == "Round 1 started.", run.stdout)
    e2e.check(lines[1] == "Autumn Cup 1809: round 1 of 3 (swiss), scenario example_a.json",
              run.stdout)
    tables = [line for line in lines if line.startswith("Table ")]
    e2e.check(len(tables) == 3 and all(line.endswith(", waiting") for line in tables),
              run.stdout)

    view = json.loads(tournament("pairings", tid, "--json").stdout)
    e2e.check(view["id"] == tid and view["round"] == 1, view)
    games = [table["game"] for table in view["pairings"][0]["tables"]]
    names = view["players"]
    first = view["pairings"][0]["tables"][0]

    run = tournament("start-round", tid, "--token", organiser, status=3)
    e2e.check("round 1 is not over" in run.stderr and "[invalid_action]" in run.stderr,
              run.stderr)

    tournament("result", tid, games[0], "A", "loss on time", "--token", organiser)
    run = tournament("result", tid, games[0], "draw", "agreed draw", "--token", organiser)
    expected = "Table 1: %s (A) – %s (B), ½–½ (organiser: agreed draw)" % (
        names[first["a"]], names[first["b"]])
    e2e.check(expected in run.stdout.splitlines(), run.stdout)
    tournament("result", tid, games[1], "B", "army broken", "--token", organiser)
    tournament("result", tid, games[2], "A", "army broken", "--token", organiser)

    run = tournament("standings", tid)
    lines = run.stdout.splitlines()
    e2e.check(lines[0] == "Autumn Cup 1809: standings after round 1 of 3", run.stdout)
    e2e.check(re.match(r"^   1  \S.* +1 +[0-9½]+ +[0-9¼½¾]+ +1-0-0 +0$", lines[2]), run.stdout)
    e2e.check(any(re.search(r" ½ +½ +¼ +0-1-0 +0$", line) for line in lines), run.stdout)

    run = tournament("pairings", tid, "--round", "2", status=2)
    e2e.check("round 2 has not been started" in run.stderr, run.stderr)
    server.stop()


if __name__ == "__main__":
    sys.exit(e2e.run_main(body))
