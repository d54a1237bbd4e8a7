#!/usr/bin/env bash
# Makes a local container engine answer on /var/run/docker.sock for the testcontainers tests:
# installs Debian's docker.io when dockerd is missing, then starts dockerd unless one already
# answers (a second run reuses it). The project's machines have no bridge networking and no
# registry to pull from, so the daemon runs with --bridge=none --iptables=false and containers
# use host networking. Needs root. Prints how long each step took.
set -euo pipefail
log_dir=${SLUICE_DOCKERD_LOG_DIR:-/var/log/sluice}
now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

answers() { docker info >/dev/null 2>&1; }

if answers; then
  echo "container engine: dockerd already answers ($(docker version -f '{{.Server.Version}}' 2>/dev/null))"
  exit 0
fi
[ "$(id -u)" = 0 ] || { echo "container engine: dockerd is not running and starting it needs root (run as root, or start Docker yourself)" >&2; exit 1; }

if ! command -v dockerd >/dev/null; then
  started=$(now)
  echo "container engine: installing docker.io with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  if ! { apt-get update -q && apt-get install -y -q --no-install-recommends docker.io; } >/tmp/sluice-docker-install.log 2>&1; then
    tail -n 20 /tmp/sluice-docker-install.log >&2
    echo "container engine: apt-get could not install docker.io (full log: /tmp/sluice-docker-install.log)" >&2
    exit 1
  fi
  echo "container engine: docker.io installed in $(took "$started") s"
fi
# The docker.io package brings its own client; a newer one already on PATH talks to it as well.
command -v docker >/dev/null || { echo "container engine: no docker client on PATH after installing docker.io" >&2; exit 1; }

mkdir -p "$log_dir"
# overlay2 is the fast driver; vfs (a full copy per layer) works on any file system.
for driver in overlay2 vfs; do
  started=$(now)
  setsid dockerd --bridge=none --iptables=false --ip6tables=false --storage-driver="$driver" \
    >"$log_dir/dockerd.log" 2>&1 </dev/null &
  pid=$!
  for _ in $(seq 1 150); do
    answers && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if answers; then
    echo "container engine: dockerd $(docker version -f '{{.Server.Version}}') ($driver) started in $(took "$started") s, pid $pid, log $log_dir/dockerd.log"
    exit 0
  fi
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  echo "container engine: dockerd did not start with the $driver storage driver:" >&2
  tail -n 5 "$log_dir/dockerd.log" >&2
done
echo "container engine: dockerd would not start (log: $log_dir/dockerd.log)" >&2
exit 1
