"""tests/e2e/e2e_moved.py: `brigade` follows a cluster's `moved` answer
(PROTOCOL.md §6.4, "Following `moved`") against a fake host
(tests/e2e/moved_host.py) that moves every join, create and tournament
message to the real brigaded the test starts:

- `brigade new` through the fake creates the game on the real server, with
  one create answered `moved` and nothing said about it;
- side A joins through the fake (side B straight to the real server): its
  welcome is the real game's (its id, the seat, the seq B sees), the
  initiative's choice is acked at the seq the real server then has;
- the real server stops: A's first attempt goes straight to it (the fake
  hears nothing), the next to --server (the fake, which moves it on);
  restarted on its port, A is back on it and resumes;
- a fake that moves to itself: `brigade play`, `brigade new` and `brigade
  tournament` stop after 5 moves of one request (6 answers, one request id)
  with a clear line and exit 1; a moved without url or with an http:// url
  fails at once, exit 1;
- `brigade tournament new` through the fake creates the tournament on the
  real server, whose `standings` then answer.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_support as e2e  # noqa: E402
from moved_host import MovedHost  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "tournaments", "example.json")


def run(argv, timeout=30):
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def requests_of(host, path):
    return [request for (where, _kind, request) in host.answers if where == path]


def body(processes):
    args = e2e.arguments()
    server = e2e.Server(processes, args.brigaded)
    host = MovedHost(server.url + "/").start()
    fake = "ws://127.0.0.1:%d" % host.port
    try:
        check_all(args, processes, server, host, fake)
    finally:
        host.stop()


def check_all(args, processes, server, host, fake):
    # ---- brigade new through the fake: created on the real server.
    done = run([args.brigade, "new", "--json", "--server", fake + "/", args.scenario])
    e2e.check(done.returncode == 0, "brigade new via the fake: exit %d: %s" %
              (done.returncode, done.stderr))
    e2e.check(done.stderr == "", "brigade new said: %r" % done.stderr)
    created = json.loads(done.stdout)
    game = created["game"]
    e2e.check(re.fullmatch(r"[0-9a-f]{16,64}", game), "game id %r" % game)
    e2e.check([kind for (_p, kind, _r) in host.answers] == ["create"],
              "the fake answered %r" % host.answers)
    state = run([args.brigade, "state", "--json", "--server", server.url, "--game", game,
                 "--token", created["seats"]["B"]])
    e2e.check(state.returncode == 0, "the game is not on the real server: %s" % state.stderr)
    e2e.check(json.loads(state.stdout)["state"]["game"] == game, state.stdout)

    # The text form: the links are the host the user named (the page there
    # follows moved too), no line about the move.
    done = run([args.brigade, "new", "--server", fake + "/", args.scenario])
    e2e.check(done.returncode == 0 and done.stderr == "", "brigade new: %r" % done.stderr)
    e2e.check("brigade play --server %s/ --game " % fake in done.stdout, done.stdout)
    e2e.check("http://127.0.0.1:%d/#game=" % host.port in done.stdout, done.stdout)

    # ---- A plays through the fake, B on the real server.
    before = len(host.answers)
    a = e2e.Player(processes, args.brigade, fake + "/", game, created["seats"]["A"], "player A",
                   timeout=15)
    b = e2e.Player(processes, args.brigade, server.url, game, created["seats"]["B"], "player B",
                   timeout=15)
    moved = a.next_of(("error",))
    e2e.check(moved["code"] == "moved" and moved["url"] == server.url + "/", "A got %r" % moved)
    welcome_a = a.next_of(("welcome",))
    welcome_b = b.next_of(("welcome",))
    e2e.check(welcome_a["request"] == moved["request"],
              "the join went again with its request id: %r, moved %r" %
              (welcome_a["request"], moved["request"]))
    e2e.check(welcome_a["game"] == game and welcome_a["seat"] == "A", "A's welcome %r" %
              {k: welcome_a[k] for k in ("game", "seat", "seq")})
    e2e.check(welcome_a["state"]["game"] == game, "A's state is of game %r" %
              welcome_a["state"]["game"])
    e2e.check(len(host.answers) == before + 1 and host.answers[-1][1] == "join",
              "the fake answered %r" % host.answers[before:])
    for player in (a, b):
        player.wait("turn=1 phase=initiative step=choose")
    state_a = a.state()
    state_b = b.state()
    e2e.check(state_a["seq"] == state_b["seq"] and state_a["seq"] >= welcome_a["seq"],
              "A at seq %d, B at seq %d" % (state_a["seq"], state_b["seq"]))
    winner = state_a["state"]["awaiting"][0]
    players = {"A": a, "B": b}
    ack = players[winner].act_ok("initiative A")
    e2e.check(ack["seq"] == state_a["seq"] + 1, "ack at seq %d after %d" %
              (ack["seq"], state_a["seq"]))
    for player in (a, b):
        player.wait("turn=1 phase=mandatory_moves")
    real = json.loads(run([args.brigade, "state", "--json", "--server", server.url, "--game",
                           game, "--token", created["seats"]["B"]]).stdout)
    e2e.check(real["seq"] >= ack["seq"] and a.state()["seq"] == real["seq"],
              "the real server is at seq %d, A at %d" % (real["seq"], a.state()["seq"]))

    # ---- the real server stops: A's first attempt goes straight to it
    # (the fake hears nothing), the second to --server (the fake, which
    # moves it there again); restarted on its port, A is back on it.
    port = server.port
    server.stop()
    notices = [a.next_of(("reconnecting",), timeout=20)]
    notices.append(a.next_of(("reconnecting",), timeout=20))
    e2e.check([n["attempt"] for n in notices] == [1, 2], "A's notices %r" % notices)
    e2e.check(len(host.answers) == before + 1,
              "A's first attempt went to the fake: %r" % host.answers[before + 1:])
    notices.append(a.next_of(("reconnecting",), timeout=20))
    e2e.check(len(host.answers) == before + 2 and host.answers[-1][1] == "join",
              "A's second attempt did not go to --server: %r" % host.answers[before + 1:])
    server = e2e.Server(processes, args.brigaded, server.data, port)
    reconnected = a.next_of(("reconnected",), timeout=30)
    e2e.check(reconnected["seq"] == real["seq"], "A reconnected at %r" % reconnected)
    e2e.check(a.state()["seq"] == real["seq"], "A after the restart")
    for player in (a, b):
        e2e.check(player.quit() == 0, "%s: quit: %s" % (player.name, player.errors[-3:]))
    e2e.check(not any(created["seats"]["A"] in line for line in a.errors), "A's token shown")

    # ---- moved in a loop: 5 followed, the sixth reported; exit 1.
    start = time.time()
    done = run([args.brigade, "play", "--server", fake + "/loop", "--game", game,
                "--token", created["seats"]["A"], "--timeout", "20"])
    loop = requests_of(host, "/loop")
    e2e.check(done.returncode == 1, "play in a loop: exit %d: %s" % (done.returncode, done.stderr))
    e2e.check(len(loop) == 6 and len(set(loop)) == 1, "the loop answered %r" % loop)
    e2e.check(done.stderr.strip() ==
              "brigade play: cannot join game %s: the servers kept sending this request on to "
              "another one (5 times in a row); giving up. The last one said: sent on to the "
              "same host again" % game, "play in a loop said %r" % done.stderr)
    e2e.check(time.time() - start < 10, "the loop took %.1f s" % (time.time() - start))
    e2e.check(created["seats"]["A"] not in done.stderr + done.stdout, "the token shown")

    done = run([args.brigade, "new", "--server", fake + "/loop", args.scenario])
    loop = requests_of(host, "/loop")[6:]
    e2e.check(done.returncode == 1 and len(loop) == 6 and len(set(loop)) == 1,
              "new in a loop: exit %d, answers %r: %s" % (done.returncode, loop, done.stderr))
    e2e.check(done.stderr.startswith("brigade new: cannot create the game: the servers kept "
                                     "sending this request on"), done.stderr)

    done = run([args.brigade, "tournament", "pairings", "0" * 32, "--server", fake + "/loop"])
    loop = requests_of(host, "/loop")[12:]
    e2e.check(done.returncode == 1 and len(loop) == 6 and len(set(loop)) == 1,
              "tournament in a loop: exit %d, answers %r: %s" %
              (done.returncode, loop, done.stderr))
    e2e.check("(5 times in a row); giving up" in done.stderr, done.stderr)

    # ---- a moved that cannot be followed fails at once.
    for path in ("/nourl", "/badurl"):
        start = time.time()
        done = run([args.brigade, "play", "--server", fake + path, "--game", game,
                    "--token", created["seats"]["B"], "--timeout", "20"])
        e2e.check(done.returncode == 1, "%s: exit %d: %s" % (path, done.returncode, done.stderr))
        e2e.check(done.stderr.strip() ==
                  "brigade play: cannot join game %s: the server said another server serves "
                  "this request but gave no ws:// or wss:// address to go to" % game,
                  "%s said %r" % (path, done.stderr))
        e2e.check(time.time() - start < 10, "%s took %.1f s" % (path, time.time() - start))
        e2e.check(len(requests_of(host, path)) == 1, "%s: %r" % (path, host.answers))
        done = run([args.brigade, "new", "--server", fake + path, args.scenario])
        e2e.check(done.returncode == 1 and "gave no ws:// or wss:// address" in done.stderr,
                  "new %s: exit %d: %s" % (path, done.returncode, done.stderr))

    # ---- a tournament created through the fake is on the real server.
    own = os.path.join(processes.folder, "cup")
    os.mkdir(own)
    shutil.copy(EXAMPLE, own)
    shutil.copy(os.path.join(os.path.dirname(args.scenario), "village.json"), own)
    done = run([args.brigade, "tournament", "new", os.path.join(own, "example.json"),
                "--server", fake + "/"])
    e2e.check(done.returncode == 0, "tournament new via the fake: %s" % done.stderr)
    match = re.search(r"^Tournament ([0-9a-f]{32}) created\.$", done.stdout, re.M)
    e2e.check(match, done.stdout)
    e2e.check(host.answers[-1][1] == "tournament_create", "%r" % host.answers[-1:])
    done = run([args.brigade, "tournament", "standings", match.group(1), "--server", server.url])
    e2e.check(done.returncode == 0 and "Autumn Cup 1809: standings" in done.stdout,
              "standings on the real server: %s%s" % (done.stdout, done.stderr))
    server.stop()


if __name__ == "__main__":
    sys.exit(e2e.run_main(body))
