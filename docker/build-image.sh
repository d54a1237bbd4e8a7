#!/usr/bin/env bash
# Builds the service image from the Dockerfile at the repository's root, on this machine's
# dockerd (test/broker/container-engine.sh starts one) and without pulling: the base image is
# sluice-local/node:<version> from node-base.sh unless BASE_IMAGE names another.
# Usage: build-image.sh [tag]   (default sluice-local/sluice:dev; prints progress on stderr)
# Env:   BASE_IMAGE   e.g. node:24-slim, on machines with a registry
#        SERVICE      the service `docker run <image>` starts (default orders)
# Idempotent: the image carries a label with the hash of its inputs (base image, Dockerfile,
# package files, lib/, services/) and is rebuilt only when that changes. The build runs with
# host networking (the daemon may have no bridge) so npm reaches the registry as this machine
# does; a proxy or an npm registry other than the default is passed on as a build argument.
set -euo pipefail
tag=${1:-sluice-local/sluice:dev}
repo=$(cd "$(dirname "$0")/.." && pwd)
now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
label() { docker image inspect -f "{{index .Config.Labels \"dev.sluice.input\"}}" "$1" 2>/dev/null || true; }

base=${BASE_IMAGE:-$(bash "$repo/docker/node-base.sh")}
base_id=$(docker image inspect -f '{{.Id}}' "$base" 2>/dev/null || echo "$base (pulled by the build)")
service=${SERVICE:-orders}
context=(package.json package-lock.json tsconfig.json tsconfig.build.json lib services)
input=$( { echo "$base_id $service"; cd "$repo" && cat Dockerfile .dockerignore \
  && find "${context[@]}" -type f -print0 | sort -z | xargs -0 sha256sum; } | sha256sum | cut -c1-16)
if [ "$(label "$tag")" = "$input" ]; then
  echo "service image: $tag is up to date" >&2
  exit 0
fi

args=(--build-arg "BASE_IMAGE=$base" --build-arg "SERVICE=$service")
for proxy in HTTP_PROXY HTTPS_PROXY NO_PROXY http_proxy https_proxy no_proxy; do
  [ -n "${!proxy:-}" ] && args+=(--build-arg "$proxy=${!proxy}")
done
registry=$(cd "$repo" && npm config get registry 2>/dev/null || true)
case $registry in "" | https://registry.npmjs.org | https://registry.npmjs.org/) ;; *) args+=(--build-arg "NPM_CONFIG_REGISTRY=$registry") ;; esac

previous=$(docker image inspect -f '{{.Id}}' "$tag" 2>/dev/null || true)
started=$(now)
log=$(mktemp -t sluice-image-build.XXXXXX.log)
# The classic builder: Debian's docker.io has no buildx. It builds every stage; all are needed.
# --force-rm: a failed step leaves no stopped container behind.
if ! DOCKER_BUILDKIT=0 docker build --force-rm --network host "${args[@]}" --label "dev.sluice.input=$input" -t "$tag" "$repo" >"$log" 2>&1; then
  tail -n 40 "$log" >&2
  echo "service image: docker build of $tag failed (full log: $log)" >&2
  exit 1
fi
rm -f "$log"
# The image this one replaced, if no container uses it. Not `docker image prune`: the build
# stages' untagged images are the layer cache that spares a change to lib/ another npm ci.
current=$(docker image inspect -f '{{.Id}}' "$tag")
[ -n "$previous" ] && [ "$previous" != "$current" ] && docker rmi "$previous" >/dev/null 2>&1 || true
echo "service image: $tag ($(docker image inspect -f '{{.Size}}' "$tag" | awk '{ printf "%.0f MB", $1 / 1e6 }'), base $base) built in $(took "$started") s" >&2
