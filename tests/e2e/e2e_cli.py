#!/usr/bin/env python3
"""tests/e2e/e2e_cli.py: the `brigade` network commands' own behaviour
against the real brigaded (python3's standard library only).

    e2e_cli.py script   ...   scripted mode, exit statuses, messages
    e2e_cli.py terminal ...   interactive mode on a pseudo-terminal
"""
import json
import os
import pty
import re
import select
import signal
import socket
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import (Player, Server, arguments, check, run_main)  # noqa: E402


def run(args, argv, stdin_text="", timeout=20, env=None):
    """Runs brigade; BRIGADE_TOKEN is taken out of the environment unless
    `env` (extra variables) sets it."""
    environment = {k: v for k, v in os.environ.items() if k != "BRIGADE_TOKEN"}
    environment.update(env or {})
    return subprocess.run([args.brigade] + argv, input=stdin_text, capture_output=True,
                          encoding="utf-8", timeout=timeout, env=environment)


def new_game(args, server):
    done = run(args, ["new", "--json", "--server", server.url, args.scenario])
    check(done.returncode == 0, "brigade new: %s" % done.stderr)
    return json.loads(done.stdout)


def closed_port():
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return port


def tls_proxy(processes, target_port):
    """A TLS-terminating proxy in front of brigaded (as a wss:// user would
    have), with a self-signed certificate for 127.0.0.1; returns (port,
    certificate file), or None without the openssl program."""
    import ssl
    import threading
    cert = os.path.join(processes.folder, "cert.pem")
    key = os.path.join(processes.folder, "key.pem")
    try:
        made = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                               "-keyout", key, "-out", cert, "-days", "1",
                               "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                              capture_output=True, timeout=30)
    except FileNotFoundError:
        return None
    check(made.returncode == 0, "openssl req: %r" % made.stderr)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def pipe(source, sink):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                try:
                    end.close()
                except OSError:
                    pass

    def serve():
        while True:
            try:
                raw, _ = listener.accept()
            except OSError:
                return
            try:
                secure = context.wrap_socket(raw, server_side=True)
            except (OSError, ssl.SSLError):
                raw.close()  # the client refused our certificate
                continue
            upstream = socket.create_connection(("127.0.0.1", target_port))
            threading.Thread(target=pipe, args=(secure, upstream), daemon=True).start()
            threading.Thread(target=pipe, args=(upstream, secure), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    return listener.getsockname()[1], cert


def options_checks(args, processes, server):
    """--help and -h of every command, --version, the URL forms of --server
    (http://, wss:// through a TLS proxy), the token from --token-file or
    BRIGADE_TOKEN and their precedence."""
    for command in ("melee", "new", "play", "state", "replay", "export", "verify"):
        for flag in ("--help", "-h"):
            done = run(args, [command, flag])
            check(done.returncode == 0 and done.stderr == "" and
                  done.stdout.startswith("usage: brigade %s" % command) and
                  "--help" in done.stdout,
                  "brigade %s %s: exit %d, %r %r" % (command, flag, done.returncode,
                                                     done.stdout[:200], done.stderr))
    done = run(args, ["play", "--game", "g", "--help"])  # anywhere among the options
    check(done.returncode == 0 and done.stdout.startswith("usage: brigade play") and
          "BRIGADE_TOKEN" in done.stdout and "--token-file FILE" in done.stdout,
          "brigade play --game g --help: exit %d, %r" % (done.returncode, done.stdout))
    version = os.environ.get("BRIGADE_VERSION")
    check(version, "ctest should set BRIGADE_VERSION (the project version)")
    done = run(args, ["--version"])
    check(done.returncode == 0 and done.stdout == "brigade %s (protocol brigade.v1)\n" % version,
          "brigade --version: exit %d, %r" % (done.returncode, done.stdout))

    created = new_game(args, server)
    game, token_a = created["game"], created["seats"]["A"]

    def state(server_url, *extra, env=None):
        done = run(args, ["state", "--json", "--server", server_url, "--game", game,
                          "--timeout", "10"] + list(extra), env=env)
        seat = None
        if done.returncode == 0:
            seat = json.loads(done.stdout.splitlines()[-1]).get("seat")
        return done, seat

    # http:// as brigaded prints it, with a path.
    http_url = "http://127.0.0.1:%d/" % server.port
    done, seat = state(http_url, "--token", token_a)
    check(done.returncode == 0 and seat == "A",
          "state --server %s: exit %d, %r" % (http_url, done.returncode, done.stderr))

    # --token-file: the first line without its white space; the token is
    # never shown, also when the file's line is wrong.
    token_file = os.path.join(processes.folder, "token_a")
    with open(token_file, "w") as handle:
        handle.write("  %s \r\nsecond line\n" % token_a)
    done, seat = state(server.url, "--token-file", token_file)
    check(done.returncode == 0 and seat == "A",
          "--token-file: exit %d, %r" % (done.returncode, done.stderr))
    empty = os.path.join(processes.folder, "token_empty")
    with open(empty, "w") as handle:
        handle.write("\n%s\n" % token_a)
    done, _ = state(server.url, "--token-file", empty)
    check(done.returncode == 2 and "first line is empty" in done.stderr and
          token_a not in done.stderr, "--token-file, empty first line: exit %d, %r" %
          (done.returncode, done.stderr))

    # BRIGADE_TOKEN, and --token / --token-file before it.
    done, seat = state(server.url, env={"BRIGADE_TOKEN": token_a})
    check(done.returncode == 0 and seat == "A",
          "BRIGADE_TOKEN: exit %d, %r" % (done.returncode, done.stderr))
    wrong = {"BRIGADE_TOKEN": "not-a-token-%d" % os.getpid()}
    done, seat = state(server.url, "--token", token_a, env=wrong)
    check(done.returncode == 0 and seat == "A",
          "--token before BRIGADE_TOKEN: exit %d, %r" % (done.returncode, done.stderr))
    done, seat = state(server.url, "--token-file", token_file, env=wrong)
    check(done.returncode == 0 and seat == "A",
          "--token-file before BRIGADE_TOKEN: exit %d, %r" % (done.returncode, done.stderr))
    done, _ = state(server.url, env=wrong)
    check(done.returncode == 1 and "bad_token" in done.stderr and
          wrong["BRIGADE_TOKEN"] not in done.stderr,
          "a wrong BRIGADE_TOKEN: exit %d, %r" % (done.returncode, done.stderr))

    # wss:// and https://: TLS to a proxy; its certificate is checked (refused
    # without it among the CAs, accepted with SSL_CERT_FILE naming it).
    proxy = tls_proxy(processes, server.port)
    if proxy is None:
        print("wss:// not checked: no openssl program", file=sys.stderr)
        return
    port, cert = proxy
    wss_url = "wss://127.0.0.1:%d" % port
    done, _ = state(wss_url, "--token", token_a)
    check(done.returncode == 1 and ("cannot connect to %s/" % wss_url) in done.stderr,
          "wss:// with an unknown certificate: exit %d, %r" % (done.returncode, done.stderr))
    for url in (wss_url, "https://127.0.0.1:%d/" % port):
        done, seat = state(url, "--token", token_a, env={"SSL_CERT_FILE": cert})
        check(done.returncode == 0 and seat == "A",
              "state --server %s: exit %d, %r" % (url, done.returncode, done.stderr))


def script(args, processes):
    server = Server(processes, args.brigaded)

    # new: the readable text names both players' join commands and the
    # umpire's (design.md "Roles").
    done = run(args, ["new", "--server", server.url, args.scenario])
    check(done.returncode == 0, "brigade new (text): %s" % done.stderr)
    commands = re.findall(r"brigade play --server (\S+) --game (\S+) --token (\S+)", done.stdout)
    check(len(commands) == 3 and len({c[1] for c in commands}) == 1 and
          len({c[2] for c in commands}) == 3 and "umpire:" in done.stdout,
          "brigade new should print three join commands (A, B, umpire): %s" % done.stdout)

    # A scenario the server refuses: exit 3 (a refused request, README
    # "Exit codes"), not 1 (no server), and the file and reason named.
    bad = os.path.join(processes.folder, "bad_scenario.json")
    with open(bad, "w") as handle:
        handle.write('{"title": "no sides"}\n')
    done = run(args, ["new", "--server", server.url, bad])
    check(done.returncode == 3 and "refused the scenario file" in done.stderr and
          bad in done.stderr and "no game was created" in done.stderr,
          "brigade new, bad scenario: exit %d, %r" % (done.returncode, done.stderr))

    created = new_game(args, server)
    game, token_a, token_b = created["game"], created["seats"]["A"], created["seats"]["B"]
    base = ["--server", server.url, "--game", game]

    # Usage errors: exit 2 with one line.
    for argv, words in ((["play", "--game", game], "--token"),
                        (["new"], "scenario"),
                        (["play", "--timeout", "0", "--game", game, "--token", "x"], "--timeout"),
                        (["state", "--server", "ftp://x", "--game", "g", "--token", "t"],
                         "ws://, http://, wss:// or https://"),
                        (["state", "--game", "g", "--token", "t", "--token-file", "f"],
                         "give one of --token, --token-file and --spectator"),
                        (["play", "--game", "g", "--token-file",
                          os.path.join(processes.folder, "no-such-file")], "no-such-file"),
                        (["play", "--bogus"], "unknown option")):
        done = run(args, argv)
        check(done.returncode == 2 and words in done.stderr and
              len(done.stderr.strip().splitlines()) == 1,
              "brigade %s: exit %d, %r" % (" ".join(argv), done.returncode, done.stderr))

    options_checks(args, processes, server)

    # No server: exit 1 and a clear message.
    done = run(args, ["state", "--server", "ws://127.0.0.1:%d" % closed_port(),
                      "--game", game, "--token", token_a])
    check(done.returncode == 1 and "cannot connect" in done.stderr,
          "no server: exit %d, %r" % (done.returncode, done.stderr))

    # A bad token and an unknown game: exit 1, the code named, no token shown.
    secret = "not-the-token-%d" % os.getpid()
    done = run(args, ["state"] + base + ["--token", secret])
    check(done.returncode == 1 and "bad_token" in done.stderr and secret not in done.stderr +
          done.stdout, "bad token: exit %d, %r" % (done.returncode, done.stderr))
    done = run(args, ["play", "--server", server.url, "--game", "no-such-game",
                      "--token", token_a])
    check(done.returncode == 1 and "unknown_game" in done.stderr and token_a not in
          done.stderr + done.stdout, "unknown game: exit %d, %r" % (done.returncode, done.stderr))

    # state: the snapshot with seq and hash. The battle begins once both
    # seats have joined with their dice seeds (PROTOCOL.md §10.3): A's
    # first join gives its seed, B's the other and turn 1 begins.
    done = run(args, ["state", "--json"] + base + ["--token", token_a])
    check(done.returncode == 0 and json.loads(done.stdout)["state"]["turn"] == 0,
          "brigade state before B's seed: %s %s" % (done.stderr, done.stdout[:200]))
    done = run(args, ["state", "--json"] + base + ["--token", token_b])
    check(done.returncode == 0, "brigade state: %s" % done.stderr)
    state = json.loads(done.stdout)
    check(state["seat"] == "B" and isinstance(state["seq"], int) and
          re.fullmatch(r"[0-9a-f]{64}", state["hash"]) and state["state"]["turn"] == 1,
          "brigade state --json printed %s" % done.stdout[:300])
    check(token_b not in done.stdout, "brigade state printed the token")

    # Scripted, text: typing errors and a refusal are reported and the
    # script goes on; exit 3.
    lines = ["help",                       # 1
             "chrage hussars dragoons",    # 2 unknown command
             "charge hussars",             # 3 a word missing
             "adjust hussars figures=7",   # 4 no note
             "initiative Z",               # 5 not a side
             "wait phase=nonsense",        # 6 not a phase
             "charge hussar dragoons",     # 7 no such unit
             "hash",                       # 8
             "done",                       # 9 refused by the server: wrong_phase
             "state",                      # 10
             "hold a player cannot hold"]  # 11 refused by the server: wrong_seat
    done = run(args, ["play"] + base + ["--token", token_a], "\n".join(lines) + "\n")
    check(done.returncode == 3, "scripted play with errors: exit %d, not 3: %r" %
          (done.returncode, done.stderr))
    for pattern in (r"line 2: unknown command 'chrage'", r"line 3: charge: missing",
                    r"line 4: adjust: say what changed|line 4: adjust: note",
                    r"line 5: initiative: 'Z' is not a side",
                    r"line 6: wait: phase='nonsense' is not a phase",
                    r"line 7: charge: no unit 'hussar' \(the units are: ",
                    r"line 9: refused: .*\[wrong_phase\]",
                    # the words of the code fit the server's reason
                    r"line 11: refused: only the umpire may do that \(not your "
                    r"seat's to do now\) \[wrong_seat\]\n"):
        check(re.search(pattern, done.stderr), "scripted play: no /%s/ in stderr:\n%s" %
              (pattern, done.stderr))
    check("allowed:" in done.stdout and "snapshot hash" in done.stdout and
          "Joined game" in done.stdout, "scripted play stdout:\n%s" % done.stdout)
    check(token_a not in done.stdout + done.stderr, "brigade play printed the token")

    # A spectator (brigade play --spectator ID): joins read-only, every
    # order refused with read_only (exit 3), the snapshot shown.
    spectator = created["spectator"]
    done = run(args, ["play"] + base + ["--spectator", spectator], "state\ndone\nhelp\n")
    check(done.returncode == 3 and "as a spectator, read-only" in done.stdout and
          re.search(r"line 2: refused: .*\[read_only\]", done.stderr),
          "spectator play: exit %d %r %r" % (done.returncode, done.stdout[-300:], done.stderr))
    # Its help lists what a spectator can do, no player's or umpire's order.
    helped = done.stdout[done.stdout.find("You watch as a spectator"):]
    check("You watch as a spectator" in done.stdout and "\n  state\n" in helped and
          not re.search(r"^  (charge|done|initiative|adjust|hold|rollback)\b", helped, re.M),
          "spectator help: %r" % helped)
    done = run(args, ["play"] + base + ["--token", token_a, "--password", "x"], "")
    check(done.returncode == 2 and "--password goes with --spectator" in done.stderr,
          "--password without --spectator: %d %r" % (done.returncode, done.stderr))

    # D46: side A's adjust of side B's unit is a report B answers. B's
    # screen says so in its own words ("you (B): answer report 1 ...") before
    # its done, and again right after the server refuses that done.
    created = new_game(args, server)
    seats = {seat: Player(processes, args.brigade, server.url, created["game"],
                          created["seats"][seat], "adjust %s" % seat) for seat in ("A", "B")}
    for player in seats.values():
        player.next_of(("welcome",))
    seats["A"].wait("turn=1 phase=initiative step=choose")
    chooser = seats["A"].state()["state"]["awaiting"][0]
    seats[chooser].act_ok("initiative A")
    seats["A"].wait("phase=mandatory_moves step=report")
    seats["A"].act_ok('adjust dragoons figures=11 note="carbine fire (e2e)"')
    done = run(args, ["play", "--server", server.url, "--game", created["game"],
                      "--token", created["seats"]["B"]], "done\n")
    answer = ("you (B): answer report 1, side A: 'dragoons' 11 figures \u2014 carbine fire "
              "(e2e); accept 1 or contest 1 REASON (before your done)\n")
    check(done.returncode == 3 and answer in done.stdout and
          re.search(r"line 1: refused: [^\n]*\[invalid_action\][^\n]*\n" + re.escape(answer),
                    done.stderr),
          "B's done with a report to answer: exit %d\nstdout: %s\nstderr: %s" %
          (done.returncode, done.stdout[-1500:], done.stderr))
    for player in seats.values():
        check(player.quit() == 0, "%s: exit status" % player.name)

    # Scripted, all accepted: exit 0 (a file on stdin, not a pipe).
    path = os.path.join(processes.folder, "script.txt")
    with open(path, "w") as handle:
        handle.write("# a comment\n\nhash\nwait turn=1 phase=initiative\nstate\n")
    with open(path) as handle:
        done = subprocess.run([args.brigade, "play", "--json"] + base + ["--token", token_b],
                              stdin=handle, capture_output=True, text=True, timeout=20)
    check(done.returncode == 0, "scripted play, all accepted: exit %d: %r" %
          (done.returncode, done.stderr))
    types = [json.loads(line)["type"] for line in done.stdout.splitlines()]
    check(types == ["welcome", "hash", "wait", "state"], "--json lines: %s" % types)

    # A wait that never comes: exit 1 after --timeout.
    started = time.time()
    done = run(args, ["play", "--timeout", "1"] + base + ["--token", token_b],
               "wait phase=melee\nhash\n")
    check(done.returncode == 1 and "wait phase=melee: not reached within 1 s" in done.stderr
          and time.time() - started < 10,
          "wait timeout: exit %d, %r" % (done.returncode, done.stderr))

    # The server goes away under a waiting player and does not come back:
    # it says so, tries to reconnect with backoff for --timeout seconds,
    # then exits 1 with a clear message (tests/journal/crash_test.py has
    # the server coming back).
    other = Server(processes, args.brigaded)
    created = new_game(args, other)
    player = processes.spawn([args.brigade, "play", "--timeout", "2", "--server", other.url,
                              "--game", created["game"], "--token", created["seats"]["A"]],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    player.stdin.write("wait phase=melee\n")
    player.stdin.flush()
    # Joined first (the server logs it): a server gone before the first
    # join is another case ("the server is gone", no reconnecting).
    deadline = time.time() + 10
    while time.time() < deadline and not any(
            "joined game %s seat A" % created["game"] in line for line in list(other.log)):
        time.sleep(0.05)
    time.sleep(0.2)
    other.process.send_signal(signal.SIGTERM)
    try:
        out, err = player.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        check(False, "brigade play did not notice the server going away")
    check(player.returncode == 1 and "connection lost" in err and "reconnecting" in err
          and "could not reconnect" in err,
          "server gone: exit %d, %r" % (player.returncode, err))
    # One line per state, not per attempt (it made several in 2 s): the
    # loss, the attempts failing for the same reason, giving up.
    lines = [line for line in err.splitlines() if "reconnect" in line]
    check(err.count("cannot reconnect yet") == 1 and len(lines) == 3,
          "server gone: not one line per reconnect state: %r" % lines)


def terminal(args, processes):
    server = Server(processes, args.brigaded)
    created = new_game(args, server)
    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.execv(args.brigade, [args.brigade, "play", "--server", server.url, "--game",
                                    created["game"], "--token", created["seats"]["A"]])
        finally:
            os._exit(127)
    output = bytearray()

    def read_until(pattern, timeout=10):
        deadline = time.time() + timeout
        while not re.search(pattern, output.decode(errors="replace")):
            remaining = deadline - time.time()
            check(remaining > 0, "terminal: no /%s/ within %d s in:\n%s" %
                  (pattern, timeout, output.decode(errors="replace")))
            ready, _, _ = select.select([fd], [], [], min(remaining, 0.2))
            if ready:
                try:
                    output.extend(os.read(fd, 65536))
                except OSError:
                    break

    try:
        # Turn 1 begins when B's first join brings the second dice seed;
        # until then the prompt says whose join is awaited.
        read_until(r"T0 waiting for side B to join \[A\]> ")
        # News comes on a line of its own above the prompt, not after it,
        # and without the "brigade play:" prefix of errors.
        watcher = processes.spawn([args.brigade, "play", "--server", server.url, "--game",
                                   created["game"], "--spectator", created["spectator"]],
                                  stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        read_until(r"1 spectator is watching\r?\n")
        text = output.decode(errors="replace")
        check(re.search(r"(\r\x1b\[K|\n)1 spectator is watching\r?\n", text) and
              "brigade play:" not in text, "terminal: the spectator notice: %r" % text[-300:])
        # who: each seat as the presence said, and the spectators.
        os.write(fd, b"who\r")
        read_until(r"side A \([^)]*you\): connected\r?\nside B( \([^)]*\))?: not connected\r?\n"
                   r"umpire: not seated\r?\nspectators: 1 watching\r?\n")
        watcher.stdin.close()
        watcher.wait(timeout=10)
        done = run(args, ["state", "--server", server.url, "--game", created["game"],
                          "--token", created["seats"]["B"]])
        check(done.returncode == 0, "B's first join: %s" % done.stderr)
        read_until(r"T1 initiative/choose, awaiting [AB].*\[A\]> ")
        check("figures" in output.decode(errors="replace"), "no units table on joining")
        text = output.decode(errors="replace")
        # The seat awaited is told its step's commands in one line; the other is not.
        if re.search(r"T1 initiative/choose, awaiting A \(you\)", text):
            check("your move: initiative A|B" in text, "terminal: no your-move hint: %r" % text)
        else:
            check("your move:" not in text, "terminal: a your-move hint for B's step")
        os.write(fd, b"help\r")
        read_until(r"allowed: .*\n(.|\n)*\[A\]> ")
        os.write(fd, b"initiative Q\r")
        read_until(r"initiative: 'Q' is not a side")
        os.write(fd, b"done\r")
        read_until(r"refused: [^\]]*\[wrong_phase\]")
        # ^C drops the line being typed (a fresh prompt) and does not leave:
        # the next line is the command, without the dropped words.
        os.write(fd, b"charge hussars")
        read_until(r"\[A\]> charge hussars$")
        mark = len(output)
        os.write(fd, b"\x03")
        read_until(r"\^C\r?\n(.|\n)*\[A\]> $")
        check(os.waitpid(pid, os.WNOHANG)[0] == 0, "terminal: brigade play left on ^C")
        os.write(fd, b"hash\r")
        read_until(r"seq \d+, snapshot hash [0-9a-f]{64}")
        after = output[mark:].decode(errors="replace")
        check("charge hussars" not in after.split("^C", 1)[-1] and "unknown command" not in after
              and "refused" not in after, "terminal: the dropped line ran: %r" % after)
        # Play the initiative: the next phase's screen, as every line from
        # the join on (help's too), fits 80 columns; at that phase change only
        # the units that changed are listed, not the whole table again.
        mark = len(output)
        if re.search(r"awaiting A \(you\)", output.decode(errors="replace")):
            os.write(fd, b"initiative A\r")
        else:
            chose = run(args, ["play", "--server", server.url, "--game", created["game"],
                               "--token", created["seats"]["B"]], "initiative A\n")
            check(chose.returncode == 0, "B's initiative: %s" % chose.stderr)
        read_until(r"T1 mandatory_moves/report, awaiting .*\[A\]> ")
        phase_change = output[mark:].decode(errors="replace")
        check("turn 1, mandatory_moves/report" in phase_change and
              ("figures" not in phase_change or "units changed" in phase_change),
              "terminal: the phase change's screen: %r" % phase_change)
        os.write(fd, b"state\r")
        read_until(r"snapshot hash [0-9a-f]{64}(.|\n)*snapshot hash [0-9a-f]{64}")
        check(output[mark:].decode(errors="replace").count("figures") >= 1,
              "terminal: 'state' shows no units table")
        os.write(fd, b"log all\r")
        read_until(r"seq \d+ now\r?\n")
        shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", output.decode(errors="replace"))
        shown = shown.split("Type 'help'", 1)[-1]
        for line in re.split(r"\r?\n", shown):
            line = line.split("\r")[-1]
            if re.fullmatch(r"seq \d+, snapshot hash [0-9a-f]{64}", line):
                continue  # the 64-digit hash is one word, kept whole to copy
            check(len(line) <= 80, "terminal: a line of %d columns: %r" % (len(line), line))
        # The server goes away: a command typed while the connection is
        # down waits, and the player is told so (issue 14 point 3).
        server.process.send_signal(signal.SIGTERM)
        read_until(r"connection lost")
        os.write(fd, b"done\r")
        read_until(r"queued: 'done' is sent when the connection is back")
        os.write(fd, b"\x04")  # ^D on an empty line: leave, even while offline
        deadline = time.time() + 10
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            check(time.time() < deadline, "terminal: brigade play did not leave on ^D")
            try:
                if select.select([fd], [], [], 0.1)[0]:
                    output.extend(os.read(fd, 65536))
            except OSError:
                time.sleep(0.1)
        pid = 0
        check(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0,
              "terminal: exit status %r" % status)
        # ^D left at once, with the connection down, and said what it dropped.
        try:
            while select.select([fd], [], [], 0.2)[0]:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                output.extend(chunk)
        except OSError:
            pass
        check("the queued commands were not sent" in output.decode(errors="replace"),
              "terminal: leaving offline did not say the queued 'done' was dropped: %r" %
              output[-400:].decode(errors="replace"))
        check(created["seats"]["A"].encode() not in output, "the token was shown")
    finally:
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass
        os.close(fd)


def main():
    mode = sys.argv.pop(1) if len(sys.argv) > 1 else ""
    if mode not in ("script", "terminal"):
        print("usage: e2e_cli.py script|terminal --brigaded ... --brigade ... --scenario ...",
              file=sys.stderr)
        return 2
    args = arguments()
    return run_main(lambda processes: (script if mode == "script" else terminal)(args,
                                                                                  processes))


if __name__ == "__main__":
    sys.exit(main())
