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
# /package.json and /CMakeLists.txt 404, the journal in the volume.
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
failed=0
fail() { echo "FAIL: $*"; failed=1; }
cleanup() {
    "$runtime" rm -f "$name" >/dev/null 2>&1
    "$runtime" volume rm -f "$volume" >/dev/null 2>&1
    "$runtime" rmi -f "$tag" >/dev/null 2>&1
}
trap cleanup EXIT
echo "== $runtime build"
"$runtime" build -f "$source_dir/docker/Dockerfile" -t "$tag" "$source_dir" || { echo "FAIL: build"; echo "0 passed, 1 failed"; exit 1; }

user=$("$runtime" image inspect -f '{{.Config.User}}' "$tag")
[ -n "$user" ] && [ "$user" != root ] && [ "$user" != 0 ] || fail "image user '$user'"
health=$("$runtime" image inspect -f '{{json .Config.Healthcheck}}' "$tag" 2>/dev/null)
printf '%s' "$health" | grep -q '/healthz' || fail "no HEALTHCHECK on /healthz: $health"
out=$("$runtime" run --rm "$tag" brigaded --version)
[ "$out" = "brigaded $version (protocol brigade.v1)" ] || fail "--version: '$out'"
uid=$("$runtime" run --rm "$tag" id -u)
[ "$uid" != 0 ] || fail "runs as root"
# The install layout: the same files as cmake --install's, under /usr.
want=$(grep -v '^#' "$expected" | sed -e 's#^etc/#/etc/#' -e '/^\/etc/!s#^#/usr/#' | sort)
got=$("$runtime" run --rm "$tag" sh -c 'find /usr/bin/brigaded /usr/bin/brigade /usr/share/brigade /usr/share/man/man1/brigade.1 /usr/share/man/man1/brigaded.1 /usr/share/doc/brigade /usr/lib/systemd/system/brigaded.service /etc/default/brigaded /etc/brigade/brigaded.conf -type f' | sort)
[ "$want" = "$got" ] || fail "installed files differ: $(printf '%s\n' "$want" > /tmp/want.$$; printf '%s\n' "$got" | diff /tmp/want.$$ - ; rm -f /tmp/want.$$)"
extra=$("$runtime" run --rm "$tag" sh -c 'ls /usr/share/brigade/client-web | grep -E "node_modules|CMakeLists|package" || true')
[ -z "$extra" ] || fail "web root has $extra"

"$runtime" volume create "$volume" >/dev/null
"$runtime" run -d --name "$name" -p 127.0.0.1::7681 -v "$volume:/var/lib/brigade" "$tag" >/dev/null || fail "run"
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
"$runtime" stop -t 10 "$name" >/dev/null
exit_code=$("$runtime" inspect -f '{{.State.ExitCode}}' "$name")
[ "$exit_code" = 0 ] || fail "exit $exit_code after stop"
if [ $failed = 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; fi
exit $failed
