#!/usr/bin/env python3
"""tests/server/log_flow.py: brigaded's log lines (issue 17 point 3,
README "Observing brigaded").

    log_flow.py CASE BRIGADED SCENARIOS_DIR

json: --log-format json --log-level debug. A game is created, its umpire
and both players join (with a spectator password), play a few actions, one
request is refused, one websocket never joins (--join-timeout-s 1) and the
players close with 1000. Every line is one JSON object with an ISO 8601
UTC time to the millisecond, a level of the four and a message; the lines
of a connection carry its id and peer address: opened, joined (game and
seat), the refusal (request id and protocol code), closed by the peer
(1000) or by the server (1008 "no join in time"), each with the
connection's id. No seat or umpire token, no password, no dice seed is
anywhere in the log, at debug level.

text: the default format. Every line is "TIME LEVEL MESSAGE", and a
connection's lines read "connection N from ADDRESS: ...".

cli: `brigade new` (the CLI, given as a fourth argument) closes its
websocket with a close frame: the log says "closed by the peer (1000)",
not "lost".

level: --log-level warning writes no info line (no listening, opened,
joined or closed line) while a game is created and joined; a level or a format that does not
exist is refused at start (exit 2, the option named).
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import brigade_wire as wire
from game_flow import (Client, Failure, Server, Table, check, create_game, expect_error,
                       free_port, run_case, scenario_text)

TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"
LEVELS = ("error", "warning", "info", "debug")


def play_a_little(server, scenarios, secrets):
    """A game with its three seats, two actions, a refusal, a websocket
    that never joins and the players' own closes; the secrets used go into
    `secrets`."""
    table = Table(server, scenarios)
    secrets.extend(table.seats.values())
    # The seeds the Table's joins sent are random; these are the ones we see.
    state = table.states["A"]
    check(state["phase"] == "initiative", "the battle starts at the initiative")
    answer = table.ask("A", {"kind": "charge", "unit": "nobody", "target": "nobody"})
    expect_error(answer, answer.get("code"))
    refused_request = table.clients["A"].request
    idle = Client(server)  # never joins: closed by the server after 1 s
    # A game with a spectator password, joined by a spectator with it.
    creator = Client(server)
    password = "log test password 7"
    created = creator.ask({"type": "create", "scenario": scenario_text(scenarios,
                                                                       "example_a.json"),
                           "spectator_password": password})
    check(created.get("type") == "created", "create with a password: %r" % created)
    secrets.extend(created["seats"].values())
    secrets.append(password)
    seed = os.urandom(32).hex()
    secrets.append(seed)
    answer = creator.ask({"type": "join", "game": created["game"],
                          "token": created["seats"]["A"], "seed": seed})
    check(answer.get("type") == "welcome", "join with a known seed: %r" % answer)
    spectator = Client(server)
    answer = spectator.ask({"type": "join", "game": created["game"],
                            "token": created["spectator"], "password": password})
    check(answer.get("type") == "welcome", "spectator with the password: %r" % answer)
    wrong = Client(server)
    expect_error(wrong.ask({"type": "join", "game": created["game"],
                            "token": created["spectator"], "password": "not " + password}),
                 "bad_token")
    deadline = time.time() + 5
    while "no join in time" not in server.text() and time.time() < deadline:
        time.sleep(0.1)
    for client in list(table.clients.values()) + [creator, spectator, wrong]:
        client.close()
    try:
        idle.close()
    except (OSError, wire.Closed):
        pass
    # Every close is logged once the server has seen it: on a loaded machine
    # (CI's two cores) that can take seconds; the wait ends at the fifth.
    deadline = time.time() + 30
    while server.text().count("closed by the peer (1000)") < 5 and time.time() < deadline:
        time.sleep(0.1)
    return table, refused_request


def played_log(server, scenarios):
    """play_a_little, then the server stopped: the table, the refused
    request's id and the whole log, checked free of every secret used."""
    secrets = []
    table, refused = play_a_little(server, scenarios, secrets)
    check(server.stop() == 0, "brigaded exit status")
    text = server.text()
    for secret in secrets:
        check(secret not in text, "a secret is in the log: %s..." % secret[:8])
    return table, refused, text


def case_json(server, scenarios):
    table, refused, text = played_log(server, scenarios)
    lines = [json.loads(line) for line in text.splitlines() if line]
    check(len(lines) >= 20, "only %d lines" % len(lines))
    for line in lines:
        check(isinstance(line, dict), "a line is not an object: %r" % line)
        check({"time", "level", "message"} <= set(line)
              <= {"time", "level", "source", "connection", "peer", "message"},
              "members %r" % sorted(line))
        check(re.fullmatch(TIME, line["time"]), "time %r" % line["time"])
        check(line["level"] in LEVELS, "level %r" % line["level"])
        if "connection" in line:
            check(isinstance(line["connection"], int) and line["connection"] > 0,
                  "connection %r" % line["connection"])
            check(line.get("peer") == "127.0.0.1", "peer %r" % line.get("peer"))
    times = [line["time"] for line in lines]
    check(times == sorted(times), "times out of order")

    def of(pattern, level="info"):
        found = [line for line in lines if re.search(pattern, line["message"])]
        check(found, "no line matches %r" % pattern)
        for line in found:
            check(line["level"] == level, "%r is %s, not %s" % (line["message"],
                                                                line["level"], level))
            check("connection" in line, "%r has no connection" % line["message"])
        return found

    listening = [line for line in lines if line["message"].startswith("listening on http://")]
    check(len(listening) == 1 and listening[0]["level"] == "info"
          and "connection" not in listening[0], "the listening line %r" % listening)
    opened = of(r"^websocket opened \(\d+ open\)$")
    joined = of(r"^joined game %s seat (A|B|umpire)$" % re.escape(table.game))
    check(sorted(re.search(r"seat (\S+)$", line["message"]).group(1) for line in joined)
          == ["A", "B", "umpire"], "joined seats %r" % [line["message"] for line in joined])
    for line in joined:
        check(any(o["connection"] == line["connection"] for o in opened),
              "joined on a connection never opened: %r" % line)
    refusal = of(r"^request %d refused: [a-z_]+: " % refused)
    seat_a = [line["connection"] for line in joined if line["message"].endswith(" seat A")]
    check(any(r["connection"] in seat_a for r in refusal),
          "the refusal is not on seat A's connection: %r" % refusal)
    of(r"^join of game [0-9a-f]+ refused: a wrong spectator password$")
    peer_closed = of(r"^websocket closed by the peer \(1000\) after \d+\.\d s$")
    closed = {line["connection"] for line in peer_closed}
    check({line["connection"] for line in joined} <= closed,
          "the seats' own closes: %r" % [line["message"] for line in peer_closed])
    # The deadline is a second; the line comes when the socket is gone (an
    # idle client that never answers the close frame: lws's close timeout).
    by_server = of(r"^websocket closed by the server \(1008 no join in time\) after "
                   r"\d+\.\d s$")
    check(len(by_server) == 2, "the idle and the refused websockets' closes %r" % by_server)
    check(not {line["connection"] for line in by_server} & closed,
          "a joined connection closed for no join")
    check(lines[-1]["message"] == "stopped", "last line %r" % lines[-1])


def case_text(server, scenarios):
    table, refused, text = played_log(server, scenarios)
    connection_lines = 0
    for line in text.splitlines():
        m = re.fullmatch(r"(%s) (error|warning|info|debug) (.+)" % TIME, line)
        check(m, "line not TIME LEVEL MESSAGE: %r" % line)
        if m.group(3).startswith("connection "):
            check(re.match(r"connection \d+ from 127\.0\.0\.1: \S", m.group(3)),
                  "connection line %r" % line)
            connection_lines += 1
    check(connection_lines >= 15, "%d connection lines" % connection_lines)
    for pattern in (r" info connection (\d+) from 127\.0\.0\.1: joined game %s seat A$"
                    % re.escape(table.game),
                    r" info connection \d+ from 127\.0\.0\.1: request %d refused: " % refused,
                    r" info connection \d+ from 127\.0\.0\.1: websocket closed by the server "
                    r"\(1008 no join in time\)"):
        check(re.search(pattern, text, re.M), "no line matches %r" % pattern)
    # No debug lines at the default level.
    check(" debug " not in text, "a debug line at the default level")


def case_level(brigaded, scenarios):
    tmp = tempfile.mkdtemp(prefix="brigade-log-test.")
    try:
        level_checks(brigaded, scenarios, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def level_checks(brigaded, scenarios, tmp):
    for option, value, name in (("--log-level", "loud", "--log-level"),
                                ("--log-format", "xml", "--log-format")):
        run = subprocess.run([brigaded, "--port", "0", "--data", os.path.join(tmp, "d"),
                              option, value], capture_output=True, timeout=10)
        err = run.stderr.decode()
        check(run.returncode == 2, "%s %s: exit %d" % (option, value, run.returncode))
        check(name in err and value in err, "the refusal does not name %s: %r" % (name, err))
        check(not os.path.exists(os.path.join(tmp, "d")), "a refused start made the data folder")
    port = free_port()
    log_path = os.path.join(tmp, "server.log")
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([brigaded, "--port", str(port), "--data",
                                 os.path.join(tmp, "data"), "--web", tmp, "--log-level",
                                 "warning"],
                                stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                check(time.time() < deadline and proc.poll() is None, "brigaded did not start")
                time.sleep(0.05)

        class At:
            pass
        at = At()
        at.port = port
        client = Client(at)
        game, seats = create_game(client, scenarios)
        answer = client.ask({"type": "join", "game": game, "token": seats["A"],
                             "seed": os.urandom(32).hex()})
        check(answer.get("type") == "welcome", "join %r" % answer)
        client.close()
        time.sleep(0.5)
    finally:
        proc.terminate()
        proc.wait(10)
    text = open(log_path, encoding="utf-8", errors="replace").read()
    for line in text.splitlines():
        check(re.match(r"%s (error|warning) " % TIME, line), "below warning: %r" % line)
    check(proc.returncode == 0, "exit status %r" % proc.returncode)
    for report in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
        check(report not in text, "sanitizer report in the log")


def case_cli(server, scenarios, brigade):
    run = subprocess.run([brigade, "new", "--server", "ws://127.0.0.1:%d" % server.port,
                          "--json", os.path.join(scenarios, "example_a.json")],
                         capture_output=True, timeout=30)
    check(run.returncode == 0, "brigade new: exit %d: %r" % (run.returncode, run.stderr))
    game = json.loads(run.stdout)["game"]
    deadline = time.time() + 5
    while "websocket closed" not in server.text() and "websocket lost" not in server.text() \
            and time.time() < deadline:
        time.sleep(0.05)
    text = server.text()
    check(re.search(r"connection (\d+) from 127\.0\.0\.1: created game %s" % game, text),
          "no created line")
    check(re.search(r"connection \d+ from 127\.0\.0\.1: websocket closed by the peer \(1000\)",
                    text), "the CLI's close: %r" % text[-600:])
    check("websocket lost" not in text, "a connection lost: %r" % text[-600:])


CASES = {"json": case_json, "text": case_text}
SERVER_OPTIONS = {"json": ["--log-format", "json", "--log-level", "debug", "--join-timeout-s",
                           "1"],
                  "text": ["--join-timeout-s", "1"]}


def main():
    if sys.argv[1:2] == ["cli"] and len(sys.argv) == 5:
        return run_case("cli", Server(sys.argv[2]), case_cli, sys.argv[3], sys.argv[4])
    if len(sys.argv) != 4 or sys.argv[1] not in list(CASES) + ["level"]:
        print("usage: log_flow.py {json|text|level} BRIGADED SCENARIOS_DIR\n"
              "       log_flow.py cli BRIGADED SCENARIOS_DIR BRIGADE")
        return 2
    name, brigaded, scenarios = sys.argv[1:]
    if name == "level":
        try:
            case_level(brigaded, scenarios)
        except (Failure, wire.Closed, OSError, ValueError, KeyError,
                subprocess.TimeoutExpired) as error:
            print("FAIL: level: %s: %s" % (type(error).__name__, error))
            return 1
        print("ok: level")
        return 0
    return run_case(name, Server(brigaded, SERVER_OPTIONS[name]), CASES[name], scenarios)


if __name__ == "__main__":
    sys.exit(main())
