#!/usr/bin/env python3
"""tests/server/config_flow.py: brigaded's configuration sources (issue 17
point 2, README.md "Configuration").

    config_flow.py CASE BRIGADED MAN_PAGE_IN CONF_FILE

docs: every option of `brigaded --help` (with its "(env BRIGADED_NAME)"
line and a default) is in the man page with its variable, and every option
of the man page in --help; the packaged configuration file lists every
option (but --config), commented out, and brigaded accepts it.

file: a file with port = 0, log-format = json, max-connections = 7 and
data = TMP/x: the server starts, its lines are JSON objects and its data
folder is TMP/x.

precedence: the environment wins over the file (BRIGADED_LOG_FORMAT,
BRIGADED_DATA), a flag over the environment (--log-format, --data);
BRIGADED_CONFIG names the file.

errors: an unknown key, a bad value, an unknown section, a line that is
not key = value, a file that does not exist and a bad environment value
each exit 2 with a message naming the file:line and key (or the
variable), and no data folder is made.
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def env_of(name):
    return "BRIGADED_" + name.upper().replace("-", "_")


def clean_env(extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("BRIGADED_")}
    env.update(extra or {})
    return env


def help_options(brigaded):
    """{name: the option's help text} of brigaded --help."""
    done = subprocess.run([brigaded, "--help"], capture_output=True, text=True,
                          env=clean_env())
    check(done.returncode == 0, "--help: exit %d" % done.returncode)
    options, current = {}, None
    for line in done.stdout.splitlines():
        m = re.match(r"^  --([a-z][a-z-]*)\b(.*)$", line)
        if m:
            current = m.group(1)
            options[current] = m.group(2)
        elif current and line.startswith(" " * 18):
            options[current] += "\n" + line.strip()
        else:
            current = None
    return options


def case_docs(brigaded, man_in, conf):
    options = help_options(brigaded)
    for name in ("help", "version"):
        check(name in options, "--help lacks --%s" % name)
        del options[name]
    check("config" in options, "--help lacks --config")
    for name, text in options.items():
        check("(env %s)" % env_of(name) in text, "--help: --%s has no (env %s)" %
              (name, env_of(name)))
        check("Default" in text, "--help: --%s shows no default" % name)
    with open(man_in) as f:
        man = f.read()
    section = man.split(".SH OPTIONS", 1)[1].split("\n.SH ", 1)[0]
    entries = re.split(r"\n\.TP\n", section)
    man_options = {}
    for entry in entries:
        m = re.match(r"^\.BI? \\-\\-([a-z\\-]+)", entry.strip())
        if m:
            man_options[m.group(1).replace("\\-", "-")] = entry
    for name in ("help", "version"):
        man_options.pop(name, None)
    check(set(man_options) == set(options),
          "man page and --help differ: only in --help %s, only in the man page %s" %
          (sorted(set(options) - set(man_options)), sorted(set(man_options) - set(options))))
    for name, entry in man_options.items():
        check(env_of(name) in entry.replace("\\-", "-"),
              "man page: --%s does not name %s" % (name, env_of(name)))
        check("Default" in entry or "default" in entry, "man page: --%s shows no default" % name)
    for heading in (".SH CONFIGURATION", ".SH ENVIRONMENT"):
        check(heading in man, "man page lacks %s" % heading)
    with open(conf) as f:
        conf_text = f.read()
    listed = re.findall(r"^#([a-z][a-z-]*) =", conf_text, re.M)
    check(sorted(listed) == sorted(set(options) - {"config"}),
          "%s lists %s, --help has %s" % (conf, sorted(listed), sorted(set(options) - {"config"})))
    with tempfile.TemporaryDirectory() as tmp:
        # The packaged file as it is, and with every line uncommented that
        # has a value: both accepted (a bad option there exits 2).
        values = re.sub(r"^#([a-z][a-z-]*) = (\S.*)$", r"\1 = \2", conf_text, flags=re.M)
        values = values.replace("data = ./data", "data = %s/data" % tmp)
        path = os.path.join(tmp, "values.conf")
        with open(path, "w") as f:
            f.write(values)
        for config in (conf, path):
            server, lines = start(brigaded, ["--config", config, "--port", "0",
                                             "--data", os.path.join(tmp, "d")], clean_env())
            stop(server)


def start(brigaded, args, env):
    """brigaded started and its stderr read up to its "listening on" line:
    (process, lines read)."""
    server = subprocess.Popen([brigaded] + args, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, env=env)
    lines = []
    deadline = time.time() + 20
    while time.time() < deadline:
        line = server.stderr.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if "listening on" in line:
            return server, lines
    server.kill()
    server.wait()
    raise Failure("brigaded %s did not start: exit %s\n%s" % (args, server.returncode,
                                                              "\n".join(lines)))


def stop(server):
    server.send_signal(signal.SIGTERM)
    try:
        server.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()
        server.communicate()
        raise Failure("brigaded did not stop on SIGTERM")
    check(server.returncode == 0, "brigaded exit %d after SIGTERM" % server.returncode)


def listening(lines):
    """(format, data folder) of the listening line."""
    for line in lines:
        if "listening on" not in line:
            continue
        if line.startswith("{"):
            message = json.loads(line)["message"]
            form = "json"
        else:
            check(re.match(r"^\d{4}-\d\d-\d\dT\S+Z info ", line), "not a text line: %r" % line)
            message, form = line, "text"
        m = re.search(r"data in (.*)$", message)
        check(m, "no data folder in %r" % line)
        return form, m.group(1)
    raise Failure("no listening line in %r" % lines)


def case_file(brigaded):
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "x")
        path = os.path.join(tmp, "brigaded.conf")
        with open(path, "w") as f:
            f.write("# a test configuration\n[brigaded]\nport = 0\nlog-format = json ; inline\n"
                    "max-connections = 7\ndata = %s\nrelay = false\n" % data)
        server, lines = start(brigaded, ["--config", path], clean_env())
        stop(server)
        for line in lines:
            check(isinstance(json.loads(line), dict), "not a JSON line: %r" % line)
        check(listening(lines) == ("json", data), "listening: %r" % (listening(lines),))
        check(os.path.isdir(data), "the configured data folder %s was not made" % data)


def case_precedence(brigaded):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "brigaded.conf")
        with open(path, "w") as f:
            f.write("port = 0\nlog-format = json\ndata = %s/file\n" % tmp)
        env = clean_env({"BRIGADED_CONFIG": path})
        server, lines = start(brigaded, [], env)
        stop(server)
        check(listening(lines) == ("json", tmp + "/file"), "file alone: %r" % (listening(lines),))
        env.update({"BRIGADED_LOG_FORMAT": "text", "BRIGADED_DATA": tmp + "/env"})
        server, lines = start(brigaded, [], env)
        stop(server)
        check(listening(lines) == ("text", tmp + "/env"),
              "the environment over the file: %r" % (listening(lines),))
        server, lines = start(brigaded, ["--log-format", "json", "--data", tmp + "/flag"], env)
        stop(server)
        check(listening(lines) == ("json", tmp + "/flag"),
              "flags over the environment: %r" % (listening(lines),))


def case_errors(brigaded):
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "never")
        cases = [
            ("port = 0\nbogus-key = 3\n", {}, r":2: bogus-key: unknown option"),
            ("port = 0\n# comment\n\nmax-connections = lots\n", {},
             r":4: max-connections: 'lots' is not a number"),
            ("port = 0\n[other]\nlisten = ::1\n", {}, r":3: \[other\]: unknown section"),
            ("port = 0\nthis is not a key\n", {}, r":2: not a 'key = value' line"),
            ("port = 0\nrelay = perhaps\n", {}, r":2: relay: 'perhaps' is not true or false"),
            ("port = 0\nconfig = other.conf\n", {}, r":2: config: "),
            ("port = 0\n", {"BRIGADED_PORT": "99999"}, r"^brigaded: BRIGADED_PORT: '99999'"),
            ("port = 0\n", {"BRIGADED_LOG_LEVEL": "loud"}, r"^brigaded: BRIGADED_LOG_LEVEL: 'loud'"),
            ("port = 0\ngame-idle-end = 5q\n",
             {}, r":2: game-idle-end: '5q' is not a time like 90s"),
            ("port = 0\n", {"BRIGADED_GAME_IDLE_END": "7x"},
             r"^brigaded: BRIGADED_GAME_IDLE_END: '7x' is not a time like 90s"),
        ]
        path = os.path.join(tmp, "bad.conf")
        for text, extra, wanted in cases:
            with open(path, "w") as f:
                f.write(text)
            done = subprocess.run([brigaded, "--config", path, "--data", data],
                                  capture_output=True, text=True,
                                  env=clean_env(extra), timeout=20)
            pattern = wanted if wanted.startswith("^") else "^brigaded: " + re.escape(path) + wanted
            check(done.returncode == 2, "%r: exit %d, expected 2" % (text, done.returncode))
            check(re.search(pattern, done.stderr.strip()), "%r: stderr %r, expected /%s/" %
                  (text, done.stderr, pattern))
            check(not os.path.exists(data), "%r: %s was made" % (text, data))
        done = subprocess.run([brigaded, "--game-idle-end", "xyz", "--data", data],
                              capture_output=True, text=True, env=clean_env(), timeout=20)
        check(done.returncode == 2 and done.stderr.startswith(
            "brigaded: --game-idle-end: 'xyz' is not a time like 90s"),
            "a bad duration flag: exit %d, %r" % (done.returncode, done.stderr))
        missing = os.path.join(tmp, "missing.conf")
        for args, env in ((["--config", missing], {}), ([], {"BRIGADED_CONFIG": missing})):
            done = subprocess.run([brigaded, "--data", data] + args, capture_output=True,
                                  text=True, env=clean_env(env), timeout=20)
            check(done.returncode == 2 and done.stderr.startswith("brigaded: %s: " % missing),
                  "a missing file: exit %d, %r" % (done.returncode, done.stderr))
            check(not os.path.exists(data), "a missing file: %s was made" % data)


def main():
    case, brigaded = sys.argv[1], sys.argv[2]
    try:
        if case == "docs":
            case_docs(brigaded, sys.argv[3], sys.argv[4])
        elif case == "file":
            case_file(brigaded)
        elif case == "precedence":
            case_precedence(brigaded)
        elif case == "errors":
            case_errors(brigaded)
        else:
            raise Failure("unknown case %s" % case)
    except Failure as failure:
        print("FAIL %s: %s" % (case, failure))
        return 1
    print("ok %s" % case)
    return 0


if __name__ == "__main__":
    sys.exit(main())
