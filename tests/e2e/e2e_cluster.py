"""tests/e2e/e2e_cluster.py: a whole cluster on loopback (issue 16), started
by scripts/cluster (Redis, two game nodes, two spectator relays), a game
played on node 1 by two players while many spectators (tests/e2e's
cluster_watch, one C process on one epoll loop) watch it through the two
relays, and at the end every spectator's snapshot hash (PROTOCOL.md §8)
against the players'.

  e2e_cluster.py CASE --cluster scripts/cluster --brigaded PATH --watch PATH
                 --scenario FILE [--spectators N]

relay_kill     half the spectators on each relay; relay 1 killed (SIGKILL)
               mid-game: its spectators connect to relay 2 and resume by
               last_seq; the game goes on through several phases.
redis_restart  Redis killed and started again on its port mid-game
               (scripts/cluster's SIGUSR1): the nodes and relays reconnect
               with their backoff, the players' actions are acked during and
               after, the spectators catch up.

Every wait is bounded; the cluster is stopped (SIGTERM, then the pids it
listed are killed) whatever happens.
"""
import argparse
import contextlib
import ctypes
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))
import brigade_wire as wire  # noqa: E402
import game_flow as flow  # noqa: E402
from game_flow import Failure, check  # noqa: E402


def die_with_parent():
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Port:
    def __init__(self, port):
        self.port = port


class Cluster:
    """scripts/cluster in a folder of the test's own."""

    def __init__(self, script, brigaded, folder):
        self.folder = folder
        self.log = open(os.path.join(folder, "cluster.out"), "w+")
        self.proc = subprocess.Popen(
            ["bash", script, "--dir", os.path.join(folder, "cluster"), "--brigaded", brigaded],
            stdout=self.log, stderr=subprocess.STDOUT, preexec_fn=die_with_parent)
        self.redis = None
        self.nodes, self.relays = {}, {}
        deadline = time.time() + 60
        while time.time() < deadline:
            text = self.text()
            if "\nready" in text:
                break
            check(self.proc.poll() is None, "scripts/cluster exited: %s" % text[-2000:])
            time.sleep(0.1)
        text = self.text()
        check("\nready" in text, "scripts/cluster not ready in 60 s: %s" % text[-2000:])
        for kind, number, url, pid in re.findall(
                r"^(node|relay) (\d+) (ws://127\.0\.0\.1:\d+/) (\d+)$", text, re.M):
            port = int(re.search(r":(\d+)/", url).group(1))
            (self.nodes if kind == "node" else self.relays)[int(number)] = (port, int(pid))
        m = re.search(r"^redis redis://127\.0\.0\.1:(\d+) (\d+)$", text, re.M)
        check(m is not None, "no redis line: %s" % text)
        self.redis = int(m.group(1))
        check(len(self.nodes) == 2 and len(self.relays) == 2,
              "nodes %r relays %r" % (self.nodes, self.relays))

    def text(self):
        self.log.flush()
        with open(self.log.name) as f:
            return f.read()

    def brigaded_log(self, kind, number):
        with open(os.path.join(self.folder, "cluster", "%s%d" % (kind, number),
                               "brigaded.log")) as f:
            return f.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for port, pid in list(self.nodes.values()) + list(self.relays.values()):
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        status = self.proc.returncode
        self.log.close()
        for kind, hosts in (("node", self.nodes), ("relay", self.relays)):
            for number in hosts:
                text = self.brigaded_log(kind, number)
                for report in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
                    check(report not in text, "sanitizer report in %s %d's log: %s"
                          % (kind, number, text[-3000:]))
        return status


class Player(flow.Client):
    """A seat's connection that skips watchers and presence."""

    def recv(self):
        while True:
            m = self.ws.recv_message()
            if m.get("type") not in ("watchers", "presence"):
                return m


class Game:
    def __init__(self, node_port, scenario):
        creator = Player(Port(node_port))
        created = creator.ask({"type": "create",
                               "scenario": open(scenario, encoding="utf-8").read()})
        check(created.get("type") == "created", "create answered %r" % created)
        creator.close()
        self.game = created["game"]
        seats = created["seats"]
        self.spectator = created.get("spectator") or seats.get("spectator")
        check(isinstance(self.spectator, str) and self.spectator, "no spectator id: %r" % created)
        self.players, self.states = {}, {}
        for seat in ("A", "B"):
            self.players[seat] = Player(Port(node_port))
            welcome = flow.join(self.players[seat], self.game, seats[seat])
            self.states[seat] = welcome["state"]
            self.seq = welcome["seq"]
        delta = self.players["A"].recv()  # B's seed: the battle begins
        check(delta.get("type") == "delta", "the battle's start: %r" % delta)
        self.states["A"] = flow.apply_ops(self.states["A"], delta["ops"])
        self.seq = delta["seq"]
        self.phases = [self.states["A"]["phase"]]
        self.acks = 0

    def act(self, steps, pause=0.0):
        """`steps` actions by whichever seat is awaited (the game's phases
        as they come); each must be acked and reach both seats."""
        for _ in range(steps):
            state = self.states["A"]
            if state["phase"] == "ended":
                return
            actor = next((s for s in ("A", "B") if flow.pick_action(state, s)), None)
            check(actor is not None, "no seat awaited in %s/%s" % (state["phase"], state["step"]))
            answer = self.players[actor].ask({"type": "act",
                                              "action": flow.pick_action(state, actor)})
            if answer.get("type") == "error" and answer["code"] in ("invalid_action",
                                                                    "wrong_phase"):
                answer = self.players[actor].ask({"type": "act", "action": {"kind": "done"}})
            check(answer.get("type") == "ack", "act answered %r (%s/%s)"
                  % (answer, state["phase"], state["step"]))
            self.acks += 1
            self.seq = answer["seq"]
            for seat in ("A", "B"):
                delta = self.players[seat].recv()
                check(delta.get("type") == "delta" and delta["seq"] == self.seq,
                      "delta %r, seq %d awaited" % (delta, self.seq))
                self.states[seat] = flow.apply_ops(self.states[seat], delta["ops"])
            check(self.states["A"] == self.states["B"], "the seats' states differ")
            if self.states["A"]["phase"] != self.phases[-1]:
                self.phases.append(self.states["A"]["phase"])
            if pause:
                time.sleep(pause)

    def close(self):
        for c in self.players.values():
            c.close()


class Watch:
    """cluster_watch: the spectators."""

    def __init__(self, path, folder, game, ports, count):
        self.err = open(os.path.join(folder, "watch.err"), "w+")
        self.proc = subprocess.Popen(
            [path, "--game", game.game, "--spectator", game.spectator, "--count", str(count),
             "--ports", ",".join(str(p) for p in ports), "--timeout", "60"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err, text=True,
            preexec_fn=die_with_parent)

    def line(self, what):
        line = self.proc.stdout.readline().strip()
        check(line != "", "cluster_watch ended (%s): %s" % (what, self.stderr()[-3000:]))
        check(not line.startswith("timeout"), "cluster_watch: %s: %s" % (line,
                                                                          self.stderr()[-3000:]))
        return line

    def stderr(self):
        self.err.flush()
        with open(self.err.name) as f:
            return f.read()

    def joined(self):
        line = self.line("joined")
        check(line.startswith("joined "), "cluster_watch said %r" % line)
        return float(line.split()[2])

    def command(self, text):
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def end(self, seq, state_file):
        self.command("end %d %s" % (seq, state_file))
        line = self.line("end")
        check(line.startswith("result "), "cluster_watch said %r" % line)
        fields = dict(f.split("=", 1) for f in line.split()[1:])
        status = self.proc.wait(timeout=30)
        return status, fields, line

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.err.close()


def finish(game, watch, folder, count):
    path = os.path.join(folder, "players.msgpack")
    with open(path, "wb") as f:
        f.write(wire.pack(game.states["A"]))
    status, fields, line = watch.end(game.seq, path)
    print(line)
    check(int(fields["spectators"]) == count, line)
    check(int(fields["equal"]) == count,
          "%s of %d spectators' hashes equal the players': %s; %s"
          % (fields["equal"], count, line, watch.stderr()[-3000:]))
    check(int(fields["anomalies"]) == 0, "anomalies: %s; %s" % (line, watch.stderr()[-3000:]))
    check(status == 0, "cluster_watch exit status %d" % status)
    return fields


@contextlib.contextmanager
def watched_game(args, folder, acts):
    """scripts/cluster started, a game on node 1 that has made `acts` acts
    and args.spectators spectators of it over both relays: yields (cluster,
    game, watch); after, the spectators killed and the cluster stopped (its
    exit status 0)."""
    cluster = Cluster(args.cluster, args.brigaded, folder)
    watch = None
    try:
        game = Game(cluster.nodes[1][0], args.scenario)
        game.act(acts)
        relays = [cluster.relays[1][0], cluster.relays[2][0]]
        watch = Watch(args.watch, folder, game, relays, args.spectators)
        yield cluster, game, watch
    finally:
        if watch:
            watch.kill()
        status = cluster.stop()
    check(status == 0, "scripts/cluster exit status %r" % status)


def case_relay_kill(args, folder):
    t0 = time.time()
    with watched_game(args, folder, 3) as (cluster, game, watch):
        joined = watch.joined()
        print("%d spectators joined over 2 relays in %.2f s" % (args.spectators, joined))
        game.act(6)
        os.kill(cluster.relays[1][1], signal.SIGKILL)
        print("relay 1 killed at seq %d" % game.seq)
        game.act(4)  # while relay 1's spectators reconnect
        watch.command("wait %d" % (args.spectators // 2))  # relay 1's, all reconnected
        again = watch.joined()
        print("every spectator joined again %.2f s after the wait began" % again)
        game.act(12)
        check(len(game.phases) >= 3, "the game went through phases %r only" % game.phases)
        fields = finish(game, watch, folder, args.spectators)
        check(int(fields["reconnects"]) >= args.spectators // 2,
              "only %s reconnects for relay 1's %d spectators" % (fields["reconnects"],
                                                                    args.spectators // 2))
        check(int(fields["resumed"]) + int(fields["welcomes"]) >= args.spectators * 3 // 2,
              "joins %s" % fields)
        print("phases %s, seq %d, %d acks, %.1f s" % (" ".join(game.phases), game.seq, game.acks,
                                                      time.time() - t0))
        game.close()
        check("relay 1" in cluster.text() and "ended" in cluster.text(),
              "scripts/cluster did not say relay 1 ended: %s" % cluster.text())


def case_redis_restart(args, folder):
    with watched_game(args, folder, 2) as (cluster, game, watch):
        watch.joined()
        game.act(4)
        before = game.acks
        cluster.proc.send_signal(signal.SIGUSR1)  # Redis killed and started again
        deadline = time.time() + 15
        while "redis again" not in cluster.text():
            check(time.time() < deadline, "Redis not restarted: %s" % cluster.text())
            game.act(1)  # acked while Redis is down or coming back
            time.sleep(0.05)
        print("Redis restarted; %d acks meanwhile" % (game.acks - before))
        during = game.acks - before
        check(during >= 1, "no act during the restart")
        deadline = time.time() + 20
        for node in (1, 2):
            while "again" not in cluster.brigaded_log("node", node):
                check(time.time() < deadline, "node %d did not reconnect: %s"
                      % (node, cluster.brigaded_log("node", node)[-1500:]))
                time.sleep(0.1)
        game.act(10)
        check(len(game.phases) >= 2, "phases %r" % game.phases)
        watch.command("wait")
        watch.joined()
        finish(game, watch, folder, args.spectators)
        print("phases %s, seq %d, %d acks" % (" ".join(game.phases), game.seq, game.acks))
        game.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("case", choices=["relay_kill", "redis_restart"])
    parser.add_argument("--cluster", required=True)
    parser.add_argument("--brigaded", required=True)
    parser.add_argument("--watch", required=True)
    parser.add_argument("--scenario", required=True)
    parser.add_argument("--spectators", type=int, default=2000)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="brigade-e2e-cluster-")
    ok = False
    try:
        {"relay_kill": case_relay_kill, "redis_restart": case_redis_restart}[args.case](args,
                                                                                       folder)
        ok = True
        print("ok")
    except (Failure, OSError, wire.Closed, subprocess.TimeoutExpired) as e:
        print("FAIL: %s" % e)
        for kind, n in (("node", 1), ("relay", 1), ("relay", 2)):
            try:
                with open(os.path.join(folder, "cluster", "%s%d" % (kind, n),
                                       "brigaded.log")) as f:
                    print("--- %s %d log (end):\n%s" % (kind, n, f.read()[-1500:]))
            except OSError:
                pass
    finally:
        if ok and not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
        else:
            print("kept %s" % folder)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
