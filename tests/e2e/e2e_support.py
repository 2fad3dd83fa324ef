"""tests/e2e/e2e_support.py: what the end-to-end scripts share (python3's
standard library only): starting brigaded on an ephemeral loopback port with
a temporary data folder, `brigade play --json` players as coprocesses, and
cleaning up every process started, also on failure.

Every child is started with PR_SET_PDEATHSIG (SIGKILL), so that even a
driver killed by ctest's timeout leaves nothing behind; and Processes.close()
terminates (then kills) whatever is still running at the end.
"""
import argparse
import ctypes
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

PR_SET_PDEATHSIG = 1


class Failure(Exception):
    """A check failed; the message says which."""


def check(condition, message):
    if not condition:
        raise Failure(message)


def _die_with_parent():
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def arguments(extra=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--brigaded", required=True)
    parser.add_argument("--brigade", required=True)
    parser.add_argument("--scenario", required=True)
    parser.add_argument("--probe")
    if extra:
        extra(parser)
    return parser.parse_args()


class Processes:
    """Owns every child process of a test and a temporary folder."""

    def __init__(self):
        self.children = []
        self.folder = tempfile.mkdtemp(prefix="brigade-e2e-")
        # ctest's timeout sends SIGTERM first on some platforms: unwind.
        signal.signal(signal.SIGTERM, self._terminated)

    def _terminated(self, signum, frame):
        raise SystemExit("terminated by signal %d" % signum)

    def spawn(self, argv, **kwargs):
        kwargs.setdefault("preexec_fn", _die_with_parent)
        child = subprocess.Popen(argv, **kwargs)
        self.children.append(child)
        return child

    def close(self):
        for child in self.children:
            if child.poll() is None:
                try:
                    child.terminate()
                except OSError:
                    pass
        deadline = time.time() + 3
        for child in self.children:
            try:
                child.wait(timeout=max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        for child in self.children:
            for stream in (child.stdin, child.stdout, child.stderr):
                if stream:
                    try:
                        stream.close()
                    except OSError:
                        pass
        shutil.rmtree(self.folder, ignore_errors=True)


class Server:
    """brigaded --port 0 --data <temporary folder>; reads the port it says.
    `data` and `port` given: that folder and port (a restart of a server)."""

    LISTENING = re.compile(r"listening on http://[^ ]*:(\d+)")

    def __init__(self, processes, brigaded, data=None, port=0):
        # A folder of its own: brigaded locks its --data folder, and two
        # servers of one test are two separate installations.
        if data is None:
            data = tempfile.mkdtemp(prefix="data-", dir=processes.folder)
        self.data = data
        self.log = []
        self.process = processes.spawn(
            [brigaded, "--port", str(port), "--listen", "127.0.0.1", "--data", data],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, bufsize=1)
        lines = queue.Queue()

        def read():
            for line in self.process.stdout:
                self.log.append(line.rstrip("\n"))
                lines.put(line)
            lines.put(None)

        threading.Thread(target=read, daemon=True).start()
        self.port = None
        deadline = time.time() + 10
        while self.port is None:
            try:
                line = lines.get(timeout=max(0.1, deadline - time.time()))
            except queue.Empty:
                raise Failure("brigaded did not say its port within 10 s: %r" % self.log)
            if line is None:
                raise Failure("brigaded exited at start: %r" % self.log)
            match = self.LISTENING.search(line)
            if match:
                self.port = int(match.group(1))
        self.url = "ws://127.0.0.1:%d" % self.port

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        """SIGTERM: brigaded shuts down cleanly, exit 0 (under the
        sanitizers, also without a leak or an error report)."""
        self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            raise Failure("brigaded did not stop within 10 s of SIGTERM")
        time.sleep(0.1)  # the reader thread takes the last lines
        check(status == 0, "brigaded exited %d; its log:\n%s" % (status, "\n".join(self.log)))


class Player:
    """One `brigade play --json` coprocess. Every JSON line it prints is kept
    in self.lines; commands are written one line at a time."""

    def __init__(self, processes, brigade, url, game, token, name, timeout=20):
        self.name = name
        self.process = processes.spawn(
            [brigade, "play", "--json", "--server", url, "--game", game, "--token", token,
             "--timeout", str(timeout)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, bufsize=1)
        self.lines = []
        self.errors = []
        self.refused = 0  # commands answered error or input_error
        self.inbox = queue.Queue()
        threading.Thread(target=self._read_out, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read_out(self):
        for line in self.process.stdout:
            line = line.rstrip("\n")
            try:
                message = json.loads(line)
            except ValueError:
                message = {"type": "not_json", "text": line}
            self.lines.append(message)
            self.inbox.put(message)
        self.inbox.put(None)

    def _read_err(self):
        for line in self.process.stderr:
            self.errors.append(line.rstrip("\n"))

    def send(self, line):
        check(self.process.poll() is None,
              "%s: brigade play exited (%s): %s" % (self.name, self.process.returncode,
                                                    self.errors[-3:]))
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def next_of(self, types, timeout=20):
        """The next printed message whose type is in `types`."""
        deadline = time.time() + timeout
        while True:
            try:
                message = self.inbox.get(timeout=max(0.05, deadline - time.time()))
            except queue.Empty:
                raise Failure("%s: no %s within %d s; stderr: %s" %
                              (self.name, "/".join(types), timeout, self.errors[-5:]))
            if message is None:
                self.process.wait()
                raise Failure("%s: brigade play ended (exit %s) while waiting for %s; "
                              "stderr: %s" % (self.name, self.process.returncode,
                                              "/".join(types), self.errors[-5:]))
            if message.get("type") in types:
                return message

    def act(self, line):
        """Sends an action line; returns its ack, error or input_error."""
        self.send(line)
        answer = self.next_of(("ack", "error", "input_error"))
        if answer.get("type") != "ack":
            self.refused += 1
        return answer

    def act_ok(self, line):
        answer = self.act(line)
        check(answer.get("type") == "ack",
              "%s: '%s' was not accepted: %s" % (self.name, line, answer))
        return answer

    def act_refused(self, line, code):
        answer = self.act(line)
        check(answer.get("type") == "error" and answer.get("code") == code,
              "%s: '%s' should be refused with %s, got %s" % (self.name, line, code, answer))
        return answer

    def wait(self, condition):
        self.send("wait " + condition)
        return self.next_of(("wait",))

    def state(self):
        self.send("state")
        return self.next_of(("state",))

    def hash(self):
        self.send("hash")
        return self.next_of(("hash",))

    def quit(self):
        self.send("quit")
        try:
            self.process.stdin.close()
        except OSError:
            pass
        return self.process.wait(timeout=10)


# ------------------------------------------------ shared by the e2e plays

def join_players(processes, brigade, server, created, timeout=10):
    """Players A and B of `created` (`brigade new --json`) joined, each
    welcomed to its seat: ({seat: Player}, {unit: figures} of the welcome,
    the last welcome)."""
    players = {seat: Player(processes, brigade, server.url, created["game"],
                            created["seats"][seat], "player " + seat, timeout=timeout)
               for seat in ("A", "B")}
    for seat, player in players.items():
        welcome = player.next_of(("welcome",))
        check(welcome["seat"] == seat, "player %s joined as %s" % (seat, welcome["seat"]))
    strength = {uid: unit["figures"] for uid, unit in welcome["state"]["units"].items()}
    return players, strength, welcome


def both(players, line):
    for seat in ("A", "B"):
        players[seat].act_ok(line)


def charge_countercharged(players):
    """In the Charge phase's declarations, A phasing: A's hussars charge
    the dragoons, both sides are done and B's dragoons counter-charge."""
    players["A"].act_ok("charge hussars dragoons front")
    players["A"].act_ok("done")
    players["B"].wait("phase=charge step=declare awaiting=B")
    players["B"].act_ok("done")
    players["B"].wait("phase=charge step=respond awaiting=B")
    players["B"].act_ok("respond dragoons countercharge")


def new_game(args, server):
    """`brigade new --json` of args.scenario at `server`: what it printed."""
    done = subprocess.run([args.brigade, "new", "--json", "--server", server.url, args.scenario],
                          capture_output=True, text=True, timeout=20)
    check(done.returncode == 0, "brigade new failed (%d): %s" % (done.returncode, done.stderr))
    return json.loads(done.stdout)


def server_state(args, server, game, token):
    """`brigade state --json` of the game at `server` with this token."""
    done = subprocess.run([args.brigade, "state", "--json", "--server", server.url,
                           "--game", game, "--token", token],
                          capture_output=True, text=True, timeout=20)
    check(done.returncode == 0, "brigade state failed (%d): %s" % (done.returncode, done.stderr))
    return json.loads(done.stdout)


def wait_both(players, condition):
    for seat in ("A", "B"):
        players[seat].wait(condition)


def on_table(unit, seat):
    """The unit is the seat's and still on the table."""
    return unit["side"] == seat and unit["status"] not in ("removed", "dispersed")


def rally_changes(unit, strength, below=1.0):
    """The adjust report's changes that put the unit back in order: status
    normal, formed, and its figures made up to `strength` when fewer than
    `below` of it."""
    changes = []
    if unit["status"] != "normal":
        changes.append("status=normal")
    if not unit["formed"]:
        changes.append("formed=yes")
    if unit["figures"] < below * strength:
        changes.append("figures=%d" % strength)
    return changes


def rally(player, seat, state, strength):
    """Mandatory moves: put the side's units back in order and up to their
    starting strength (the players' free-form report: rallied, reformed,
    made up from the reserve), so that the charge can be made again and no
    side runs out of units while the dice deny a melee."""
    for uid, unit in state["units"].items():
        if not on_table(unit, seat):
            continue
        changes = rally_changes(unit, strength[uid])
        if changes:
            player.act_ok("adjust %s %s note=\"rallied and reformed behind the lines (e2e)\""
                          % (uid, " ".join(changes)))


def run_main(body):
    """Runs body(processes); prints PASS or the failure; exit 0 or 1."""
    processes = Processes()
    try:
        body(processes)
    except Failure as failure:
        print("FAIL: %s" % failure, file=sys.stderr)
        return 1
    finally:
        processes.close()
    print("PASS")
    return 0


def timed_main(name, play):
    """The main of an e2e play: play(args, processes) run by run_main, its
    time printed; the exit status."""
    args = arguments()
    started = time.time()
    status = run_main(lambda processes: play(args, processes))
    print("%s: %.1f s" % (name, time.time() - started))
    return status
