#!/usr/bin/env python3
"""tests/server/metrics_flow.py: GET /metrics, /healthz and /readyz
(issue 17 point 4; README "Observing brigaded").

    metrics_flow.py CASE BRIGADED SCENARIOS_DIR

counts: a game with its umpire and both players; three actions acked and
one refused (wrong_seat): the page parses strictly as the Prometheus text
format 0.0.4 (every sample's family has HELP and TYPE, names and labels
valid, histogram buckets cumulative up to +Inf == _count), and says
exactly: 2 players, 1 umpire, 0 unjoined; 1 game playing; 3 actions
committed; refused{code="wrong_seat"} 1 and every other code 0; the deltas
sent equal the deltas the clients received (12); the journal's writes (the
create, the umpire's seat, two seeds, three actions: 7) equal the group sizes' sum, and each
histogram counts every committed group. /readyz is 200.

journal_locked: --journal-busy-ms 200 and another process holding the
journal's write lock (python's sqlite3: BEGIN IMMEDIATE): an act is refused
`unavailable`, /healthz answers 503 with the reason, the page says
brigade_journal_healthy 0; once the lock is gone and an action commits
again, /healthz is 200 "ok".
"""
import math
import os
import re
import socket
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import brigade_wire as wire  # noqa: E402
from game_flow import (Failure, Server, Table, check, expect_error, hold_journal_lock,  # noqa: E402
                       pick_action, run_case)

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*\Z")
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\.)*)"')
TYPES = {"counter", "gauge", "histogram", "summary", "untyped"}


def http_get(port, path):
    """(status, headers dict, body text) of GET path, read to EOF."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                   % path).encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
            head, sep, body = data.partition(b"\r\n\r\n")
            if sep:
                m = re.search(rb"content-length: *(\d+)", head, re.I)
                if m and len(body) >= int(m.group(1)):
                    break
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        key, _, value = line.partition(":")
        headers[key.strip().lower()] = value.strip()
    return status, headers, body.decode()


def parse_exposition(text):
    """The samples {(name, frozenset(labels)): value}, checked strictly
    against the text format 0.0.4; raises Failure."""
    check(text.endswith("\n"), "the page ends with a newline")
    types, helps, samples = {}, {}, {}
    for line in text.split("\n")[:-1]:
        if line.startswith("#"):
            parts = line.split(" ", 3)
            check(len(parts) >= 3 and parts[1] in ("HELP", "TYPE"), "comment %r" % line)
            name = parts[2]
            check(NAME.match(name), "metric name %r" % name)
            if parts[1] == "TYPE":
                check(len(parts) == 4 and parts[3] in TYPES, "TYPE line %r" % line)
                check(name not in types, "a second TYPE of %s" % name)
                check(not any(s[0] == name for s in samples), "TYPE of %s after samples" % name)
                types[name] = parts[3]
            else:
                check(len(parts) == 4 and parts[3], "HELP line %r" % line)
                check(name not in helps, "a second HELP of %s" % name)
                helps[name] = parts[3]
            continue
        m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})? (\S+)\Z", line)
        check(m, "sample line %r" % line)
        name, labels_text, value = m.group(1), m.group(3), m.group(4)
        labels = []
        if labels_text:
            rest = labels_text
            while rest:
                lm = LABEL.match(rest)
                check(lm, "labels %r" % labels_text)
                labels.append((lm.group(1), lm.group(2)))
                rest = rest[lm.end():]
                if rest:
                    check(rest.startswith(","), "labels %r" % labels_text)
                    rest = rest[1:]
        family = name
        for suffix in ("_bucket", "_sum", "_count"):
            if name.endswith(suffix) and types.get(name[:-len(suffix)]) == "histogram":
                family = name[:-len(suffix)]
        check(family in types, "sample %s without a TYPE before it" % name)
        check(family in helps, "sample %s without a HELP" % name)
        if types[family] == "histogram":
            check(family != name, "a histogram's sample %s without a suffix" % name)
            check(name.endswith("_bucket") == any(k == "le" for k, _ in labels),
                  "le on %s" % line)
        key = (name, frozenset(labels))
        check(key not in samples, "a duplicate series %r" % line)
        number = float(value)
        check(not math.isnan(number), "value %r" % line)
        samples[key] = number
    for family, kind in types.items():
        if kind == "histogram":
            buckets = sorted(((float(dict(k[1])["le"]), v) for k, v in samples.items()
                              if k[0] == family + "_bucket"))
            check(buckets and buckets[-1][0] == math.inf, "%s has a +Inf bucket" % family)
            counts = [v for _, v in buckets]
            check(counts == sorted(counts), "%s's buckets are cumulative: %r" % (family, buckets))
            check(samples[(family + "_count", frozenset())] == buckets[-1][1],
                  "%s_count == the +Inf bucket" % family)
            check((family + "_sum", frozenset()) in samples, "%s_sum" % family)
    return samples, types


def metrics(server):
    status, headers, body = http_get(server.port, "/metrics")
    check(status == 200, "/metrics status %d" % status)
    check(headers.get("content-type", "").startswith("text/plain; version=0.0.4"),
          "content type %r" % headers.get("content-type"))
    return parse_exposition(body)


def value(samples, name, **labels):
    key = (name, frozenset(labels.items()))
    check(key in samples, "no sample %s%r" % (name, labels))
    return samples[key]


def wait_value(server, expected, name, **labels):
    """The page once name{labels} == expected (a close reaches the server
    a moment after the client's), else a failure."""
    deadline = time.time() + 5
    while True:
        samples, _ = metrics(server)
        if value(samples, name, **labels) == expected or time.time() > deadline:
            check(value(samples, name, **labels) == expected,
                  "%s%r is %r, expected %r" % (name, labels, value(samples, name, **labels),
                                               expected))
            return samples
        time.sleep(0.05)


class CountingTable(Table):
    """A Table that counts the deltas its clients received."""

    def deltas(self, who, seq):
        self.received = getattr(self, "received", 0) + 1
        super().deltas(who, seq)


def actor(table):
    return table.states["A"]["awaiting"][0]


def case_counts(server, scenarios):
    table = CountingTable(server, scenarios)
    for _ in range(3):
        seat = actor(table)
        table.act(seat, pick_action(table.states["A"], seat))
    seat = actor(table)
    other = "B" if seat == "A" else "A"
    answer = table.ask(other, pick_action(table.states["A"], seat))
    expect_error(answer, "wrong_seat")

    samples = wait_value(server, 0, "brigade_connections", role="unjoined")
    expected = {("brigade_connections", (("role", "player"),)): 2,
                ("brigade_connections", (("role", "umpire"),)): 1,
                ("brigade_connections", (("role", "spectator"),)): 0,
                ("brigade_connections", (("role", "tournament_watcher"),)): 0,
                ("brigade_games", (("status", "playing"),)): 1,
                ("brigade_games", (("status", "waiting"),)): 0,
                ("brigade_games", (("status", "ended"),)): 0,
                ("brigade_games", (("status", "damaged"),)): 0,
                ("brigade_actions_committed_total", ()): 3,
                ("brigade_deltas_sent_total", ()): table.received,
                ("brigade_journal_writes_total", ()): 7,  # create, umpire, 2 seeds, 3 acts
                ("brigade_journal_healthy", ()): 1}
    for (name, labels), want in expected.items():
        got = value(samples, name, **dict(labels))
        check(got == want, "%s%r is %r, expected %r" % (name, dict(labels), got, want))
    check(table.received == 3 + 3 * 3, "the clients received %d deltas" % table.received)
    refused = {dict(k[1])["code"]: v for k, v in samples.items()
               if k[0] == "brigade_requests_refused_total"}
    check(refused["wrong_seat"] == 1, "refused %r" % refused)
    check(all(v == 0 for code, v in refused.items() if code != "wrong_seat"),
          "other refusals %r" % refused)
    check(len(refused) >= 17 and "unavailable" in refused, "every code listed: %r" % refused)
    groups = value(samples, "brigade_journal_group_size_count")
    check(1 <= groups <= 7, "groups %r" % groups)
    check(value(samples, "brigade_journal_group_size_sum") == 7, "group sizes sum to the writes")
    check(value(samples, "brigade_journal_commit_seconds_count") == groups,
          "a latency for each group")
    check(value(samples, "brigade_journal_group_size_bucket", le="1") <= groups, "le 1")
    check(value(samples, "brigade_journal_commit_seconds_sum") > 0, "commit time")
    check(value(samples, "brigade_send_queue_bytes") >= 0, "queue bytes")
    check(abs(value(samples, "brigade_start_time_seconds") - time.time()) < 120, "start time")
    status, _, body = http_get(server.port, "/readyz")
    check(status == 200 and body == "ready", "/readyz %d %r" % (status, body))
    status, _, body = http_get(server.port, "/healthz")
    check(status == 200 and body == "ok", "/healthz %d %r" % (status, body))


def case_journal_locked(server, scenarios):
    table = Table(server, scenarios)
    seat = actor(table)
    action = pick_action(table.states["A"], seat)
    path = os.path.join(server.tmp, "data", "brigade.sqlite")
    check(os.path.exists(path), "the journal at %s" % path)
    release, holder = hold_journal_lock(path, 20, 10, "the lock was not taken")
    try:
        answer = table.ask(seat, action)
        expect_error(answer, "unavailable")
        status, _, body = http_get(server.port, "/healthz")
        check(status == 503 and "commit failed" in body, "/healthz locked: %d %r" % (status, body))
        samples, _ = metrics(server)
        check(value(samples, "brigade_journal_healthy") == 0, "healthy gauge 0")
        check(value(samples, "brigade_requests_refused_total", code="unavailable") == 1,
              "one unavailable")
        check(value(samples, "brigade_actions_committed_total") == 0, "nothing committed")
        status, _, _ = http_get(server.port, "/readyz")
        check(status == 200, "/readyz stays 200 (recovery is done)")
    finally:
        release.set()
        holder.join()
    table.act(seat, action)
    status, _, body = http_get(server.port, "/healthz")
    check(status == 200 and body == "ok", "/healthz after: %d %r" % (status, body))
    samples, _ = metrics(server)
    check(value(samples, "brigade_actions_committed_total") == 1, "one committed")
    check(value(samples, "brigade_journal_healthy") == 1, "healthy gauge 1")


CASES = {"counts": ([], case_counts),
         "journal_locked": (["--journal-busy-ms", "200"], case_journal_locked)}


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in CASES:
        print(__doc__)
        return 2
    name, brigaded, scenarios = sys.argv[1:]
    extra, case = CASES[name]
    return run_case(name, Server(brigaded, extra), case, scenarios)


if __name__ == "__main__":
    sys.exit(main())
