#!/usr/bin/env bash
# tests/server/run.sh: brigaded's end-to-end tests, one case per ctest test.
#
#   run.sh CASE BRIGADED WS_PROBE
#
# Each case starts the real brigaded on an ephemeral port (--port 0; the
# port is read from its "listening on" log line) with a temporary --data and
# --web, talks to it with curl (python3's urllib when curl is missing) and
# ws_probe, and prints "1 passed, 0 failed" or the failure. Every process a
# case starts is killed on exit, whatever happens.
set -u

CASE=${1:?case}
BRIGADED=${2:?brigaded}
PROBE=${3:?ws_probe}
BRIGADE_VERSION=${BRIGADE_VERSION:-?}  # the project version (ctest sets it)
HERE=$(cd "$(dirname "$0")" && pwd)

TMP=$(mktemp -d "${TMPDIR:-/tmp}/brigade-server-test.XXXXXX")
PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
    echo "FAIL: $CASE: $*"
    if [ -f "$TMP/server.log" ]; then
        echo "--- brigaded log:"
        cat "$TMP/server.log"
    fi
    echo "0 passed, 1 failed"
    exit 1
}

pass() {
    # The server must also stop cleanly: SIGTERM, exit 0, no sanitizer report.
    if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill -TERM "$SERVER_PID"
        wait_exit "$SERVER_PID" 10
        [ "$EXIT_STATUS" = 0 ] || fail "brigaded exit $EXIT_STATUS after SIGTERM"
    fi
    if [ -f "$TMP/server.log" ] && grep -q -e 'AddressSanitizer' -e 'LeakSanitizer' \
        -e 'runtime error:' "$TMP/server.log"; then
        fail "sanitizer report in the log"
    fi
    echo "PASS: $CASE"
    echo "1 passed, 0 failed"
    exit 0
}

# A web root with a page, a sub folder, a hidden file and a symlink out.
mkdir -p "$TMP/web/sub" "$TMP/outside"
printf '<!doctype html><title>brigade</title>\n' > "$TMP/web/index.html"
printf 'sub file\n' > "$TMP/web/sub/a.txt"
printf 'hidden\n' > "$TMP/web/.hidden"
printf 'secret\n' > "$TMP/outside/secret.txt"
ln -s "$TMP/outside/secret.txt" "$TMP/web/link.txt"

SERVER_PID=
PORT=
# start_server [extra options...]: starts brigaded, sets SERVER_PID and PORT.
start_server() {
    "$BRIGADED" --port 0 --data "$TMP/data" --web "$TMP/web" "$@" \
        > "$TMP/server.log" 2>&1 &
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    local i
    for i in $(seq 1 100); do
        PORT=$(sed -n 's/^.* info listening on http:\/\/[^ ]*:\([0-9][0-9]*\), data in .*/\1/p' \
            "$TMP/server.log" | head -n 1)
        [ -n "$PORT" ] && return 0
        kill -0 "$SERVER_PID" 2>/dev/null || fail "brigaded exited at start"
        sleep 0.1
    done
    fail "brigaded did not log its port"
}

# wait_exit PID SECONDS: waits for PID to end; its status in EXIT_STATUS.
wait_exit() {
    local pid=$1 limit=$2 i
    for i in $(seq 1 $((limit * 10))); do
        if ! kill -0 "$pid" 2>/dev/null; then
            wait "$pid"
            EXIT_STATUS=$?
            return 0
        fi
        sleep 0.1
    done
    fail "process $pid still running after ${limit}s"
}

# http PATH: sets HTTP_STATUS and HTTP_BODY (the path is sent as is).
http() {
    local url="http://127.0.0.1:$PORT$1"
    if command -v curl > /dev/null; then
        HTTP_STATUS=$(curl -s --path-as-is -o "$TMP/body" -w '%{http_code}' --max-time 10 "$url")
    else
        HTTP_STATUS=$(python3 - "$url" "$TMP/body" <<'EOF'
import sys, urllib.request, urllib.error
try:
    with urllib.request.urlopen(sys.argv[1], timeout=10) as r:
        status, body = r.status, r.read()
except urllib.error.HTTPError as e:
    status, body = e.code, e.read()
open(sys.argv[2], "wb").write(body)
print(status)
EOF
)
    fi
    HTTP_BODY=$(cat "$TMP/body" 2>/dev/null)
}

expect_http() {
    http "$1"
    [ "$HTTP_STATUS" = "$2" ] || fail "GET $1: status $HTTP_STATUS, expected $2"
}

# probe ARGS...: runs ws_probe against the server, output in PROBE_OUT.
probe() {
    PROBE_OUT=$("$PROBE" --port "$PORT" "$@")
    PROBE_STATUS=$?
}

# upgrade [HEADER...]: a websocket upgrade request with these extra headers;
# sets UPGRADE_STATUS (the status code) and UPGRADE_BODY (what followed).
upgrade() {
    local out
    out=$(python3 - "$PORT" "$@" <<'PY'
import socket, sys
port, extra = int(sys.argv[1]), sys.argv[2:]
s = socket.create_connection(("127.0.0.1", port), timeout=5)
lines = ["GET / HTTP/1.1", "Host: 127.0.0.1:%d" % port, "Upgrade: websocket",
         "Connection: Upgrade", "Sec-WebSocket-Version: 13",
         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="] + extra
s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
data = b""
try:
    while True:
        if b"\r\n\r\n" in data:
            head, body = data.split(b"\r\n\r\n", 1)
            if b" 101 " in head.split(b"\r\n")[0] + b" ":
                break
            length = [l.split(b":", 1)[1] for l in head.split(b"\r\n")
                      if l.lower().startswith(b"content-length:")]
            if length and len(body) >= int(length[0]):
                break
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
except socket.timeout:
    pass
head = data.split(b"\r\n")[0].decode(errors="replace")
print(head.split(" ")[1] if " " in head else "none")
print(data.split(b"\r\n\r\n", 1)[1].decode(errors="replace") if b"\r\n\r\n" in data else "")
PY
)
    UPGRADE_STATUS=$(printf '%s\n' "$out" | head -n 1)
    UPGRADE_BODY=$(printf '%s\n' "$out" | tail -n +2)
}

# The log's lines (server/log.h) begin with a time and a level: dropped,
# so that a LINE-PREFIX is the message (option errors have neither).
log_messages() {
    printf '%s\n' "$1" | sed -E 's/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z [a-z]+ //'
}
expect_line() { # TEXT LINE-PREFIX
    log_messages "$1" | grep -q -- "^$2" || fail "expected a line '$2' in: $(printf '%s' "$1" | tr '\n' '|')"
}
expect_no_line() {
    if log_messages "$1" | grep -q -- "^$2"; then
        fail "unexpected line '$2' in: $(printf '%s' "$1" | tr '\n' '|')"
    fi
}

# zero-filled file of N bytes
zeros() { head -c "$1" /dev/zero > "$2"; }

case "$CASE" in
healthz)
    start_server
    expect_http /healthz 200
    [ "$HTTP_BODY" = "ok" ] || fail "healthz body '$HTTP_BODY'"
    log_messages "$(cat "$TMP/server.log")" | grep -q "^listening on http://127.0.0.1:$PORT, data in $TMP/data\$" ||
        fail "start line"
    [ -d "$TMP/data" ] || fail "--data folder not created"
    pass
    ;;

not_found)
    start_server
    expect_http /nope 404
    expect_http /sub/nope.txt 404
    expect_http /healthz/x 404
    expect_http /../outside/secret.txt 404
    expect_http /%2e%2e/outside/secret.txt 404
    expect_http /sub/../../outside/secret.txt 404
    expect_http /link.txt 404       # symlink leading out of --web
    expect_http /.hidden 404
    expect_http /sub/ 404           # a folder without index.html
    pass
    ;;

static_files)
    start_server
    expect_http / 200
    printf '%s' "$HTTP_BODY" | grep -q '<title>brigade</title>' || fail "index.html body"
    expect_http /index.html 200
    expect_http /sub/a.txt 200
    [ "$HTTP_BODY" = "sub file" ] || fail "sub/a.txt body"
    expect_http /sub 301
    pass
    ;;

subprotocol_refused)
    start_server
    probe --timeout 3000
    expect_line "$PROBE_OUT" refused
    expect_no_line "$PROBE_OUT" open
    # No subprotocol: HTTP 400 with the reason.
    upgrade
    [ "$UPGRADE_STATUS" = 400 ] || fail "an upgrade without a subprotocol: $UPGRADE_STATUS"
    printf '%s' "$UPGRADE_BODY" | grep -q "needs the subprotocol brigade.v1" ||
        fail "the 400 does not say why: $UPGRADE_BODY"
    probe --protocol chat --timeout 3000
    expect_line "$PROBE_OUT" refused
    expect_no_line "$PROBE_OUT" open
    # Only subprotocols it does not serve: HTTP 400 naming the one offered.
    upgrade "Sec-WebSocket-Protocol: chat, superchat"
    [ "$UPGRADE_STATUS" = 400 ] || fail "an upgrade for chat: $UPGRADE_STATUS"
    printf '%s' "$UPGRADE_BODY" | grep -q 'subprotocol brigade.v1 only, not "chat"' ||
        fail "the 400 does not say why: $UPGRADE_BODY"
    # brigade.v1 among others is served.
    upgrade "Sec-WebSocket-Protocol: chat, brigade.v1"
    [ "$UPGRADE_STATUS" = 101 ] || fail "an upgrade offering brigade.v1 among others: $UPGRADE_STATUS"
    # A plain HTTP request still goes through as before.
    expect_http /healthz 200
    probe --protocol brigade.v1 --linger 100
    expect_line "$PROBE_OUT" open
    expect_http /healthz 200
    pass
    ;;

allow_origin)
    # Browser origins: the server's own page and the allowlist connect, any
    # other Origin gets 403 with the reason; no Origin (the CLI) connects.
    start_server --allow-origin https://club.example,http://other.example:8080
    P="Sec-WebSocket-Protocol: brigade.v1"
    for origin in "https://club.example" "http://other.example:8080" "http://127.0.0.1:$PORT"; do
        upgrade "$P" "Origin: $origin"
        [ "$UPGRADE_STATUS" = 101 ] || fail "Origin $origin: $UPGRADE_STATUS"
    done
    upgrade "$P"
    [ "$UPGRADE_STATUS" = 101 ] || fail "no Origin: $UPGRADE_STATUS"
    for origin in "https://evil.example" "http://club.example" "https://club.example.evil"; do
        upgrade "$P" "Origin: $origin"
        [ "$UPGRADE_STATUS" = 403 ] || fail "Origin $origin: $UPGRADE_STATUS, not 403"
        printf '%s' "$UPGRADE_BODY" | grep -q -- "--allow-origin" || fail "403 without a reason"
    done
    expect_line "$(cat "$TMP/server.log")" "websocket refused from 127.0.0.1: Origin https://evil.example not allowed"
    expect_http /healthz 200
    # A bad list is refused at start.
    out=$("$BRIGADED" --allow-origin club.example 2>&1); st=$?
    [ $st = 2 ] || fail "--allow-origin club.example: exit $st"
    printf '%s' "$out" | grep -q "is not an origin" || fail "bad origin message: $out"
    pass
    ;;

options)
    out=$("$BRIGADED" --help 2>&1); st=$?
    [ $st = 0 ] || fail "--help exit $st"
    printf '%s' "$out" | grep -q -- '--port N' || fail "--help text"
    printf '%s' "$out" | grep -q -- '--version' || fail "--help lacks --version"
    version=$("$BRIGADED" --version 2>&1); st=$?
    [ $st = 0 ] || fail "--version exit $st"
    [ "$version" = "brigaded $BRIGADE_VERSION (protocol brigade.v1)" ] || fail "--version printed '$version', expected 'brigaded $BRIGADE_VERSION (protocol brigade.v1)'"
    check_bad() { # EXPECTED-WORD ARGS...
        local word=$1
        shift
        local out st
        out=$("$BRIGADED" "$@" 2>&1); st=$?
        [ $st = 2 ] || fail "'$*': exit $st, expected 2 ($out)"
        printf '%s' "$out" | grep -q -- "$word" || fail "'$*': message '$out' does not name $word"
    }
    check_bad --bogus --bogus
    check_bad --port --port
    check_bad --port --port abc
    check_bad --port --port 70000
    check_bad --port --port -1
    check_bad --listen --listen not-an-address
    check_bad --web --web "$TMP/no-such-folder"
    check_bad --data --data ""
    check_bad --ping-interval-s --ping-interval-s 3601
    check_bad --ping-interval-s --ping-interval-s 1s
    printf '%s' "$out" | grep -q -- '--ping-interval-s S' || fail "--help lacks --ping-interval-s"
    # --data is created with its parents; --listen takes IPv6 too.
    "$BRIGADED" --port 0 --listen ::1 --data "$TMP/deep/er/data" --web "$TMP/web" \
        > "$TMP/server.log" 2>&1 &
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    for i in $(seq 1 100); do
        grep -q 'listening on' "$TMP/server.log" && break
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    if grep -q 'listening on http://\[::1\]:' "$TMP/server.log"; then
        [ -d "$TMP/deep/er/data" ] || fail "nested --data not created"
    elif grep -qi 'cannot listen' "$TMP/server.log"; then
        echo "note: no IPv6 loopback here, skipped the ::1 check"
    else
        fail "IPv6 start"
    fi
    kill -TERM "$SERVER_PID" 2>/dev/null
    wait_exit "$SERVER_PID" 10
    pass
    ;;

port_in_use)
    start_server
    "$BRIGADED" --port "$PORT" --data "$TMP/data2" --web "$TMP/web" > "$TMP/second.log" 2>&1 &
    second=$!
    PIDS+=("$second")
    wait_exit "$second" 10
    [ "$EXIT_STATUS" = 1 ] || fail "second server on a used port: exit $EXIT_STATUS, expected 1"
    grep -q "cannot listen on 127.0.0.1 port $PORT: Address already in use" "$TMP/second.log" ||
        fail "message: $(cat "$TMP/second.log")"
    expect_http /healthz 200   # the first one is unharmed
    pass
    ;;

too_large)
    start_server
    zeros 65537 "$TMP/over"
    probe --protocol brigade.v1 --send-file "$TMP/over" --wait-close --timeout 5000
    expect_line "$PROBE_OUT" "close 1009"
    # Exactly at the limit: not closed for its size.
    zeros 65536 "$TMP/limit"
    probe --protocol brigade.v1 --send-file "$TMP/limit" --linger 300
    expect_line "$PROBE_OUT" open
    expect_no_line "$PROBE_OUT" "close 1009"
    expect_line "$PROBE_OUT" closed
    expect_http /healthz 200
    pass
    ;;

fragments)
    start_server
    zeros 70000 "$TMP/over"
    probe --protocol brigade.v1 --send-file "$TMP/over" --fragment 20000 --wait-close
    expect_line "$PROBE_OUT" "close 1009"
    zeros 60000 "$TMP/under"
    probe --protocol brigade.v1 --send-file "$TMP/under" --fragment 7000 --linger 300
    expect_line "$PROBE_OUT" open
    expect_no_line "$PROBE_OUT" "close 1009"
    pass
    ;;

malformed_frame)
    # A frame that is not one msgpack map gets an error (bad_frame, request
    # 0) and the connection keeps working: the next request is answered.
    start_server
    create_hex=$(python3 -B -c '
import sys
sys.path.insert(0, sys.argv[1])
import brigade_wire
print(brigade_wire.pack({"type": "create", "request": 5, "scenario": "{"}).hex())
' "$HERE")
    probe --protocol brigade.v1 --send 01 --send c1 --send "$create_hex" --expect 3
    [ "$PROBE_STATUS" = 0 ] || fail "ws_probe exit $PROBE_STATUS: $PROBE_OUT"
    decoded=$(printf '%s\n' "$PROBE_OUT" | python3 -B -c '
import sys
sys.path.insert(0, sys.argv[1])
import brigade_wire
for line in sys.stdin:
    if line.startswith("message "):
        m = brigade_wire.unpack(bytes.fromhex(line.split()[1]))
        print(m["type"], m["request"], m.get("code"))
' "$HERE")
    expected=$(printf 'error 0 bad_frame\nerror 0 bad_frame\nerror 5 bad_message')
    [ "$decoded" = "$expected" ] || fail "answers: $decoded"
    pass
    ;;

sigterm)
    start_server
    "$PROBE" --port "$PORT" --protocol brigade.v1 --wait-close --timeout 10000 \
        > "$TMP/probe1" 2>&1 &
    p1=$!
    PIDS+=("$p1")
    "$PROBE" --port "$PORT" --protocol brigade.v1 --wait-close --timeout 10000 \
        > "$TMP/probe2" 2>&1 &
    p2=$!
    PIDS+=("$p2")
    for i in $(seq 1 50); do
        grep -q '^open' "$TMP/probe1" && grep -q '^open' "$TMP/probe2" && break
        sleep 0.1
    done
    grep -q '^open' "$TMP/probe1" || fail "probe 1 did not connect"
    grep -q '^open' "$TMP/probe2" || fail "probe 2 did not connect"
    kill -TERM "$SERVER_PID"
    wait_exit "$SERVER_PID" 10
    [ "$EXIT_STATUS" = 0 ] || fail "brigaded exit $EXIT_STATUS after SIGTERM"
    wait_exit "$p1" 10
    wait_exit "$p2" 10
    grep -q '^close 1001' "$TMP/probe1" || fail "probe 1: $(cat "$TMP/probe1")"
    grep -q '^close 1001' "$TMP/probe2" || fail "probe 2: $(cat "$TMP/probe2")"
    grep -q 'SIGTERM' "$TMP/server.log" || fail "no shutdown line in the log"
    # SIGINT does the same.
    start_server
    kill -INT "$SERVER_PID"
    wait_exit "$SERVER_PID" 10
    [ "$EXIT_STATUS" = 0 ] || fail "brigaded exit $EXIT_STATUS after SIGINT"
    pass
    ;;

data_private)
    # Secrets at rest: a new data folder is 0700 and its journal 0600; a
    # folder and journal an older build left readable are made private,
    # each with a line in the log.
    mode() { stat -c %a "$1"; }
    start_server
    [ "$(mode "$TMP/data")" = 700 ] || fail "new data folder mode $(mode "$TMP/data")"
    for f in brigade.sqlite brigaded.lock; do
        [ "$(mode "$TMP/data/$f")" = 600 ] || fail "new $f mode $(mode "$TMP/data/$f")"
    done
    kill -TERM "$SERVER_PID"
    wait_exit "$SERVER_PID" 10
    chmod 755 "$TMP/data"
    chmod 644 "$TMP/data/brigade.sqlite"
    start_server
    [ "$(mode "$TMP/data")" = 700 ] || fail "old data folder mode $(mode "$TMP/data")"
    [ "$(mode "$TMP/data/brigade.sqlite")" = 600 ] || fail "old journal mode"
    expect_line "$(cat "$TMP/server.log")" "--data: $TMP/data was open to other users (mode 755), now 0700"
    expect_line "$(cat "$TMP/server.log")" "--data: $TMP/data/brigade.sqlite was open to other users (mode 644), now 0600"
    for f in brigade.sqlite-wal brigade.sqlite-shm; do
        if [ -e "$TMP/data/$f" ]; then
            [ "$(mode "$TMP/data/$f")" = 600 ] || fail "$f mode $(mode "$TMP/data/$f")"
        fi
    done
    pass
    ;;

*)
    if [ -f "$HERE/game_cases.sh" ]; then
        # shellcheck source=/dev/null
        . "$HERE/game_cases.sh"
    fi
    fail "unknown case"
    ;;
esac
