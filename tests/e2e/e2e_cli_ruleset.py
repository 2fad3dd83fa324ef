"""tests/e2e/e2e_cli_ruleset.py: `brigade new --ruleset FILE` (issue 19
point 2) and the rules of this game in `brigade state`.

    e2e_cli_ruleset.py client ARGS   (no brigaded: passes on the client alone)
    e2e_cli_ruleset.py server ARGS   (the real brigaded: needs the server's
                                      scenario `ruleset` and snapshot
                                      `ruleset`, PROTOCOL.md §5.1, §7.1)

client:
- a bad ruleset file (a pass number out of 2..12, not JSON, an unknown
  member, missing): exit 2, exactly one line naming the file and the member,
  and nothing sent (a listener on --server hears no connection);
- --ruleset with play or state: exit 2, it belongs to new;
- a good one: the create a fake host (moved_host.py, /nourl) receives holds
  the scenario with its `ruleset` member the file's object, replacing the
  one the scenario had, every other member as in the file.

server:
- a game created with --ruleset (centimetres, Line passes on 6+): the
  snapshot's `ruleset` says cm and lists morale.pass.line and unit, and
  `brigade state` shows "Rules of this game:" with each differs text;
- a game created without: no `ruleset` member, and "Rules of this game:
  the default ruleset".
"""
import json
import os
import socket
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_support as e2e  # noqa: E402
from moved_host import MovedHost  # noqa: E402

# A house ruleset: metric distances, Line passes its morale on 6+.
HOUSE = {"unit": "cm", "morale": {"pass": {"line": 6}},
         "moves": {"retreat": {"infantry": 30}, "half_charge": {"heavy_cavalry": 7.5}}}


def run(argv, timeout=30):
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def write(processes, name, text):
    path = os.path.join(processes.folder, name)
    with open(path, "w") as f:
        f.write(text)
    return path


class Listener:
    """A TCP listener on loopback that counts the connections made to it."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.running = True
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while self.running:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def stop(self):
        self.running = False
        self.thread.join()
        self.sock.close()


def bad_files(args, processes):
    listener = Listener()
    url = "ws://127.0.0.1:%d" % listener.port
    folder = processes.folder
    cases = [
        ("house.json", json.dumps({"morale": {"pass": {"line": 13}}}),
         "morale.pass.line: must be an integer 2..12, got 13"),
        ("metric.json", '{"unit": "mm"}', 'unit: must be "in" or "cm", got "mm"'),
        ("brave.json", '{"morale": {"bravery": 1}}', "morale.bravery: unknown member"),
        ("cut.json", '{"unit": ', None),
    ]
    try:
        for name, text, said in cases:
            path = write(processes, name, text)
            done = run([args.brigade, "new", "--server", url, "--ruleset", path, args.scenario])
            e2e.check(done.returncode == 2, "%s: exit %d, not 2: %s" % (name, done.returncode, done.stderr))
            e2e.check(done.stdout == "", "%s: printed %r" % (name, done.stdout))
            if said is not None:
                want = "brigade new: %s: %s\n" % (path, said)
                e2e.check(done.stderr == want, "%s: said %r, not %r" % (name, done.stderr, want))
            else:
                e2e.check(done.stderr.startswith("brigade new: %s: " % path) and
                          done.stderr.count("\n") == 1 and "JSON" in done.stderr,
                          "%s: said %r" % (name, done.stderr))
        missing = os.path.join(folder, "missing.json")
        done = run([args.brigade, "new", "--server", url, "--ruleset", missing, args.scenario])
        e2e.check(done.returncode == 2 and
                  done.stderr == "brigade new: %s: No such file or directory\n" % missing,
                  "a missing ruleset: exit %d, %r" % (done.returncode, done.stderr))
        for command in ("play", "state"):
            done = run([args.brigade, command, "--server", url, "--game", "g", "--token", "t",
                        "--ruleset", os.path.join(folder, "house.json")])
            want = ("brigade %s: --ruleset belongs to new (the game's rules are set when it "
                    "is created)\n" % command)
            e2e.check(done.returncode == 2 and done.stderr == want,
                      "%s --ruleset: exit %d, %r" % (command, done.returncode, done.stderr))
    finally:
        listener.stop()
    e2e.check(listener.connections == 0,
              "a bad ruleset or a misplaced --ruleset still connected (%d connections)"
              % listener.connections)


def sent_scenario(args, processes):
    with open(args.scenario) as f:
        scenario = json.load(f)
    # A scenario naming a ruleset of the server's: --ruleset replaces it.
    scenario["ruleset"] = "club"
    scenario_path = write(processes, "scenario.json", json.dumps(scenario, indent=2))
    house_path = write(processes, "house.json", json.dumps(HOUSE, indent=2))
    host = MovedHost("ws://127.0.0.1:1/").start()
    try:
        done = run([args.brigade, "new", "--server", "ws://127.0.0.1:%d/nourl" % host.port,
                    "--ruleset", house_path, scenario_path])
    finally:
        host.stop()
    # The fake answers `moved` without a url: brigade gives up, exit 1.
    e2e.check(done.returncode == 1, "brigade new via the fake: exit %d: %s" % (done.returncode, done.stderr))
    creates = [m for m in host.messages if m.get("type") == "create"]
    e2e.check(len(creates) == 1, "the fake got %d creates: %r" % (len(creates), host.messages))
    sent = json.loads(creates[0]["scenario"])
    e2e.check(sent["ruleset"] == HOUSE, "the scenario's ruleset sent: %r" % sent.get("ruleset"))
    want = dict(scenario, ruleset=HOUSE)
    e2e.check(sent == want, "the scenario sent differs beyond its ruleset: %r" %
              sorted(k for k in set(sent) | set(want) if sent.get(k) != want.get(k)))
    e2e.check(list(sent) == list(want), "the scenario's members came out of order: %r" % list(sent))


def client(args, processes):
    bad_files(args, processes)
    sent_scenario(args, processes)


def server(args, processes):
    srv = e2e.Server(processes, args.brigaded)
    house_path = write(processes, "house.json", json.dumps(HOUSE))
    done = run([args.brigade, "new", "--json", "--server", srv.url, "--ruleset", house_path,
                args.scenario])
    e2e.check(done.returncode == 0, "brigade new --ruleset: exit %d: %s" % (done.returncode, done.stderr))
    created = json.loads(done.stdout)
    for seat in ("A", "spectator"):
        token = created["seats"]["A"] if seat == "A" else created["spectator"]
        who = ["--token", token] if seat == "A" else ["--spectator", token]
        answer = run([args.brigade, "state", "--json", "--server", srv.url, "--game", created["game"]] + who)
        e2e.check(answer.returncode == 0, "%s: brigade state --json: %s" % (seat, answer.stderr))
        ruleset = json.loads(answer.stdout)["state"].get("ruleset")
        e2e.check(isinstance(ruleset, dict) and ruleset.get("unit") == "cm",
                  "%s: the snapshot's ruleset: %r" % (seat, ruleset))
        members = [entry.get("member") for entry in ruleset.get("differs", [])]
        e2e.check("morale.pass.line" in members and "unit" in members,
                  "%s: the ruleset's differs: %r" % (seat, members))
        text = run([args.brigade, "state", "--server", srv.url, "--game", created["game"]] + who)
        e2e.check(text.returncode == 0 and "Rules of this game:\n" in text.stdout,
                  "%s: brigade state shows no rules of this game: %s" % (seat, text.stdout))
        for entry in ruleset["differs"]:
            e2e.check(entry["text"] in text.stdout, "%s: %r not shown" % (seat, entry["text"]))
        e2e.check("morale.pass.line" not in text.stdout, "%s: a member's path shown" % seat)
    plain = e2e.new_game(args, srv)
    state = e2e.server_state(args, srv, plain["game"], plain["seats"]["B"])
    e2e.check("ruleset" not in state["state"], "a default game's snapshot has a ruleset")
    text = run([args.brigade, "state", "--server", srv.url, "--game", plain["game"],
                "--token", plain["seats"]["B"]])
    e2e.check("Rules of this game: the default ruleset\n" in text.stdout,
              "a default game's state: %s" % text.stdout)
    srv.stop()


def main():
    mode = sys.argv.pop(1) if len(sys.argv) > 1 else ""
    body = {"client": client, "server": server}.get(mode)
    if not body:
        print("usage: e2e_cli_ruleset.py client|server ARGS", file=sys.stderr)
        return 2
    args = e2e.arguments()
    return e2e.run_main(lambda processes: body(args, processes))


if __name__ == "__main__":
    sys.exit(main())
