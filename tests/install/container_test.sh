#!/bin/sh
# tests/install/container_test.sh: the Docker image (issue 17 point 5),
# built and run with the first container runtime that works (docker, else
# podman; BRIGADE_CONTAINER_RUNTIME=... to choose). Exit 77 (ctest: skipped)
# when none works here.
#
#   container_test.sh SOURCE_DIR EXPECTED_FILES VERSION
#
# Builds docker/Dockerfile, then checks: the image's user is not root, its
# HEALTHCHECK runs /healthz, the installed files are expected_files.txt's
# (under /usr; etc/ as /etc), brigaded --version; runs it with a named
# volume and a published loopback port: healthy, / 200, /healthz 200,
# /package.json and /CMakeLists.txt 404, the journal in the volume; a game
# made with the image's `brigade new` is still there, at the same seq and
# state hash, in a new container on the same volume.
#
# The host's CA bundle (BRIGADE_NPM_CA, default
# /etc/ssl/certs/ca-certificates.crt) is given to the build as the secret
# npm_ca when it exists: npm behind a TLS-inspecting proxy needs it.
set -u
source_dir=$1 expected=$2 version=$3
tag=brigade-test:$$ name=brigade-test-$$ volume=brigade-test-data-$$
runtime=""
for candidate in ${BRIGADE_CONTAINER_RUNTIME:-docker podman}; do
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" info >/dev/null 2>&1; then
        runtime=$candidate
        break
    fi
done
if [ -z "$runtime" ]; then
    echo "SKIP: no container runtime works here (docker or podman: '<runtime> info' failed)"
    exit 77
fi
# Limits within any sandbox's own (a runtime's default nofile of 2^20 is
# refused where the caller's hard limit is lower): 4096 descriptors give
# brigaded's default --max-connections 4064.
limits="--ulimit nofile=4096:4096 --ulimit nproc=4096:4096"
failed=0
fail() { echo "FAIL: $*"; failed=1; }
cleanup() {
    "$runtime" rm -f "$name" >/dev/null 2>&1
    "$runtime" volume rm -f "$volume" >/dev/null 2>&1
    "$runtime" rmi -f "$tag" >/dev/null 2>&1
}
trap cleanup EXIT
echo "== $runtime build"
ca=${BRIGADE_NPM_CA:-/etc/ssl/certs/ca-certificates.crt}
if [ -s "$ca" ]; then set -- --secret "id=npm_ca,src=$ca"; else set --; fi
# podman's own image format (OCI) has no HEALTHCHECK: build Docker's.
case "$runtime" in *podman*) set -- "$@" --format docker ;; esac
"$runtime" build "$@" -f "$source_dir/docker/Dockerfile" -t "$tag" "$source_dir" || { echo "FAIL: build"; echo "0 passed, 1 failed"; exit 1; }

user=$("$runtime" image inspect -f '{{.Config.User}}' "$tag")
[ -n "$user" ] && [ "$user" != root ] && [ "$user" != 0 ] || fail "image user '$user'"
health=$("$runtime" image inspect -f '{{json .Config.Healthcheck}}' "$tag" 2>/dev/null)
printf '%s' "$health" | grep -q '/healthz' || fail "no HEALTHCHECK on /healthz: $health"
out=$("$runtime" run --rm $limits "$tag" brigaded --version)
[ "$out" = "brigaded $version (protocol brigade.v1)" ] || fail "--version: '$out'"
uid=$("$runtime" run --rm $limits "$tag" id -u)
[ "$uid" != 0 ] || fail "runs as root"
# The install layout: the same files as cmake --install's, under /usr.
want=$(grep -v '^#' "$expected" | sed -e 's#^etc/#/etc/#' -e '/^\/etc/!s#^#/usr/#' | sort)
got=$("$runtime" run --rm $limits "$tag" sh -c 'find /usr/bin/brigaded /usr/bin/brigade /usr/share/brigade /usr/share/man/man1/brigade.1 /usr/share/man/man1/brigaded.1 /usr/share/doc/brigade /usr/lib/systemd/system/brigaded.service /etc/default/brigaded /etc/brigade/brigaded.conf -type f' | sort)
[ "$want" = "$got" ] || fail "installed files differ: $(printf '%s\n' "$want" > /tmp/want.$$; printf '%s\n' "$got" | diff /tmp/want.$$ - ; rm -f /tmp/want.$$)"
extra=$("$runtime" run --rm $limits "$tag" sh -c 'ls /usr/share/brigade/client-web | grep -E "node_modules|CMakeLists|package" || true')
[ -z "$extra" ] || fail "web root has $extra"

"$runtime" volume create "$volume" >/dev/null
"$runtime" run -d $limits --name "$name" -p 127.0.0.1::7681 -v "$volume:/var/lib/brigade" "$tag" >/dev/null || fail "run"
port=$("$runtime" port "$name" 7681 | head -1 | sed 's/.*://')
status=""
for _ in $(seq 1 60); do
    status=$("$runtime" inspect -f '{{.State.Health.Status}}' "$name" 2>/dev/null || true)
    [ "$status" = healthy ] && break
    # podman runs health checks only when asked (no systemd timers here).
    case "$runtime" in *podman*) "$runtime" healthcheck run "$name" >/dev/null 2>&1 ;; esac
    sleep 1
done
[ "$status" = healthy ] || fail "health '$status'"
code() { curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port$1"; }
[ "$(code /)" = 200 ] || fail "GET / $(code /)"
[ "$(code /healthz)" = 200 ] || fail "GET /healthz $(code /healthz)"
[ "$(code /vendor/msgpack/index.mjs)" = 200 ] || fail "GET /vendor/msgpack/index.mjs"
for path in /package.json /CMakeLists.txt /node_modules/; do
    [ "$(code $path)" = 404 ] || fail "GET $path $(code $path), expected 404"
done
"$runtime" exec "$name" test -f /var/lib/brigade/brigade.sqlite || fail "no journal in the volume"
# A game in the volume, made and read back by the image's own CLI.
created=$("$runtime" exec "$name" brigade new --json /usr/share/brigade/scenarios/example_a.json)
game=$(printf '%s' "$created" | sed -n 's/.*"game" *: *"\([0-9a-f]*\)".*/\1/p')
umpire=$(printf '%s' "$created" | sed -n 's/.*"umpire" *: *"\([0-9a-f]*\)".*/\1/p')
[ -n "$game" ] && [ -n "$umpire" ] || fail "brigade new: '$created'"
state_line() { "$runtime" exec "$name" brigade state --game "$game" --token "$umpire" | grep -E '^(seq|hash)' | tr '\n' ' '; }
before=$(state_line)
[ -n "$before" ] || fail "brigade state before the restart: nothing"
"$runtime" stop -t 10 "$name" >/dev/null
exit_code=$("$runtime" inspect -f '{{.State.ExitCode}}' "$name")
[ "$exit_code" = 0 ] || fail "exit $exit_code after stop"
# A new container on the same volume (an upgrade: rm, run again).
"$runtime" rm -f "$name" >/dev/null
"$runtime" run -d $limits --name "$name" -v "$volume:/var/lib/brigade" "$tag" >/dev/null || fail "run again"
after=""
for _ in $(seq 1 30); do
    after=$(state_line 2>/dev/null)
    [ -n "$after" ] && break
    sleep 1
done
[ -n "$before" ] && [ "$after" = "$before" ] || fail "after a new container: '$after', before: '$before'"
"$runtime" stop -t 10 "$name" >/dev/null
if [ $failed = 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; fi
exit $failed
