#!/usr/bin/env python3
"""tests/install/install_test.py: the installed layout (issue 17 point 1).

    install_test.py --build BUILD --expected expected_files.txt
        --page tests/browser/install_page.mjs [--node NODE] [--chromium PATH]

`cmake --install BUILD --prefix TMP` into a temporary folder; its files must
be expected_files.txt exactly. Then: both --version lines; the systemd unit's
settings and `systemd-analyze verify` (when the machine has it); the
installed brigaded started with no --web (its default, bin/../share/brigade/
client-web) on an ephemeral port: every installed web file served with its
bytes, /healthz 200, the source tree's other files (CMakeLists.txt,
package.json, node_modules/, the msgpack source maps) 404; and the page in
Chromium (install_page.mjs: every request 200, the scenarios listed).
Prints "1 passed, 0 failed" or the failures.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

PROTOCOL = "brigade.v1"
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


def get(base, path):
    try:
        with urllib.request.urlopen(base + path, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def tree(root):
    found = []
    for folder, _, files in os.walk(root):
        for name in files:
            found.append(os.path.relpath(os.path.join(folder, name), root))
    return sorted(found)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True)
    parser.add_argument("--expected", required=True)
    parser.add_argument("--page", required=True)
    parser.add_argument("--node", default=shutil.which("node") or "node")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--version", required=True, help="the project's version")
    args = parser.parse_args()

    prefix = tempfile.mkdtemp(prefix="brigade-install-")
    server = None
    try:
        done = subprocess.run(["cmake", "--install", args.build, "--prefix", prefix],
                              capture_output=True, text=True)
        if not check(done.returncode == 0, "cmake --install: exit %d\n%s%s" %
                     (done.returncode, done.stdout, done.stderr)):
            return
        with open(args.expected) as f:
            expected = [line.strip() for line in f if line.strip() and not line.startswith("#")]
        installed = tree(prefix)
        check(installed == expected, "installed files differ from %s:\n  missing: %s\n  extra: %s" %
              (args.expected, sorted(set(expected) - set(installed)),
               sorted(set(installed) - set(expected))))
        for program in ("brigaded", "brigade"):
            path = os.path.join(prefix, "bin", program)
            check(os.access(path, os.X_OK), "bin/%s is not executable" % program)
            done = subprocess.run([path, "--version"], capture_output=True, text=True)
            wanted = "%s %s (protocol %s)\n" % (program, args.version, PROTOCOL)
            check(done.returncode == 0 and done.stdout == wanted,
                  "%s --version: exit %d, %r, expected %r" %
                  (program, done.returncode, done.stdout, wanted))

        # The unit, its environment file and the configuration file.
        unit_path = os.path.join(prefix, "lib/systemd/system/brigaded.service")
        with open(unit_path) as f:
            unit = f.read()
        settings = [line for line in unit.splitlines() if line and not line.startswith("#")]
        for wanted in ("DynamicUser=yes", "StateDirectory=brigade", "NoNewPrivileges=yes",
                       "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes",
                       "PrivateDevices=yes", "MemoryDenyWriteExecute=yes",
                       "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX",
                       "SystemCallFilter=@system-service", "LimitNOFILE=65536",
                       "EnvironmentFile=-%s/etc/default/brigaded" % prefix,
                       "ExecStart=%s/bin/brigaded --config %s/etc/brigade/brigaded.conf --data "
                       "/var/lib/brigade $BRIGADED_OPTIONS" % (prefix, prefix)):
            check(wanted in settings, "brigaded.service lacks %r" % wanted)
        with open(os.path.join(prefix, "etc/default/brigaded")) as f:
            defaults = [line for line in f.read().splitlines() if line and not line.startswith("#")]
        check(defaults == ['BRIGADED_OPTIONS=""'],
              "etc/default/brigaded: %r" % defaults)
        analyze = shutil.which("systemd-analyze")
        if analyze:
            done = subprocess.run([analyze, "verify", "--man=no", unit_path],
                                  capture_output=True, text=True)
            check(done.returncode == 0 and done.stderr.strip() == "",
                  "systemd-analyze verify: exit %d\n%s" % (done.returncode, done.stderr))
        else:
            print("systemd-analyze not found: the unit is not verified")
        for page in ("brigaded.1", "brigade.1"):
            done = subprocess.run(["man", "--warnings", "-l", os.path.join(prefix, "share/man/man1", page)],
                                  capture_output=True, text=True,
                                  env=dict(os.environ, MANWIDTH="80", MAN_KEEP_FORMATTING="0"))
            check(done.returncode == 0 and done.stderr.strip() == "" and
                  page.split(".")[0].upper() + "(1)" in done.stdout,
                  "man %s: exit %d\n%s" % (page, done.returncode, done.stderr))

        # The installed server, its web root found by default.
        data = os.path.join(prefix, "data")
        # ... and its packaged configuration file read (every option
        # commented out: the defaults).
        server = subprocess.Popen([os.path.join(prefix, "bin/brigaded"), "--config",
                                   os.path.join(prefix, "etc/brigade/brigaded.conf"),
                                   "--port", "0", "--data", data],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        port = None
        log = []
        for line in server.stderr:
            log.append(line)
            match = re.search(r"listening on http://[^ ]*:(\d+)", line)
            if match:
                port = int(match.group(1))
                break
        if not check(port, "brigaded did not start:\n" + "".join(log)):
            return
        base = "http://127.0.0.1:%d/" % port
        status, body = get(base, "")
        check(status == 200 and b"<title>Brigade</title>" in body, "GET /: %d" % status)
        status, body = get(base, "healthz")
        check(status == 200, "GET /healthz: %d" % status)
        web_root = os.path.join(prefix, "share/brigade/client-web")
        for path in tree(web_root):
            with open(os.path.join(web_root, path), "rb") as f:
                content = f.read()
            status, body = get(base, path)
            check(status == 200 and body == content, "GET /%s: %d (%d bytes, installed %d)" %
                  (path, status, len(body), len(content)))
        for path in ("CMakeLists.txt", "package.json", "package-lock.json",
                     "node_modules/@msgpack/msgpack/package.json",
                     "vendor/msgpack/index.mjs.map", "vendor/msgpack/index.d.ts",
                     "vendor/msgpack/context.mjs", "vendor/msgpack/LICENSE", ".gitignore"):
            status, _ = get(base, path)
            check(status == 404, "GET /%s: %d, expected 404" % (path, status))

        with open(os.path.join(web_root, "scenarios/index.json")) as f:
            titles = [entry["title"] for entry in json.load(f)]
        if check(os.path.exists(args.chromium), "no Chromium at %s" % args.chromium):
            done = subprocess.run([args.node, args.page, "--base", base, "--chromium", args.chromium,
                                   "--scenarios", "|".join(titles)],
                                  capture_output=True, text=True, timeout=90)
            sys.stdout.write(done.stdout)
            check(done.returncode == 0, "install_page.mjs: exit %d\n%s%s" %
                  (done.returncode, done.stdout, done.stderr))

        server.send_signal(signal.SIGTERM)
        code = server.wait(timeout=15)
        rest = server.stderr.read()
        check(code == 0, "brigaded exit %d after SIGTERM:\n%s%s" % (code, "".join(log), rest))
        check(os.path.exists(os.path.join(data, "brigade.sqlite")), "no journal in --data")
        server = None
    finally:
        if server and server.poll() is None:
            server.kill()
            server.wait()
        shutil.rmtree(prefix, ignore_errors=True)


if __name__ == "__main__":
    main()
    for failure in failures:
        print("FAIL: " + failure)
    print("0 passed, 1 failed" if failures else "1 passed, 0 failed")
    sys.exit(1 if failures else 0)
