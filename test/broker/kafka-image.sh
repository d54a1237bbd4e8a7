#!/usr/bin/env bash
# Builds a Kafka image that behaves like the official apache/kafka image (its KAFKA_* settings,
# CLUSTER_ID, /etc/kafka/docker/run) without pulling anything: a root file system made from
# this machine's Java and its shared libraries plus a static busybox from Debian is imported as
# the base, and a Dockerfile adds the Maven-resolved broker jars and the start script.
# Usage: kafka-image.sh <jars folder> <image tag>
# Idempotent: each image carries a label with the hash of what it was built from, and is
# rebuilt only when that changes.
set -euo pipefail
libs=$(realpath "${1:?folder of Kafka broker jars}")
tag=${2:?image tag, e.g. sluice-local/kafka:3.9.1}
here=$(cd "$(dirname "$0")" && pwd)
now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
label() { docker image inspect -f "{{index .Config.Labels \"dev.sluice.input\"}}" "$1" 2>/dev/null || true; }

java_bin=$(readlink -f "$(command -v java)")
java_home=$(dirname "$(dirname "$java_bin")")
base_input=$( { cat "$java_home/release"; cat "$0"; } | sha256sum | cut -c1-16)
base="sluice-local/jre:$base_input"
kafka_input=$( { echo "$base"; ls "$libs" | grep -v "\.jsa$"; cat "$here/kafka-image/"*; } | sha256sum | cut -c1-16)

if [ "$(label "$tag")" = "$kafka_input" ]; then
  echo "kafka image: $tag is up to date"
  exit 0
fi
work=$(mktemp -d -t sluice-kafka-image.XXXXXX)
trap 'rm -rf "$work"' EXIT

if [ "$(label "$base")" != "$base_input" ]; then
  started=$(now)
  root="$work/root"
  mkdir -p "$root"/{bin,tmp,etc,opt/java/openjdk} && chmod 1777 "$root/tmp"
  # The JRE with its symbolic links (into /etc/java-*) resolved; sources and headers left out.
  tar -C "$java_home" -ch --exclude=./jmods --exclude=./include --exclude=./man --exclude=./docs \
      --exclude=./legal --exclude=./lib/src.zip --exclude=./lib/ct.sym . | tar -C "$root/opt/java/openjdk" -x
  # Every shared library the JVM's binaries and libraries link against, at the same paths.
  find "$root/opt/java/openjdk" -type f \( -name '*.so' -o -perm -u+x \) -print0 \
    | xargs -0 ldd 2>/dev/null | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }' | sort -u \
    | while read -r lib; do
        # The JRE's own libraries resolve (through $ORIGIN) inside the new root: already there.
        case $lib in "$root"/*) ;; *) cp -L --parents "$lib" "$root" ;; esac
      done
  # A static busybox gives the start script its shell and tools (sh, sed, tr, mkdir, ...).
  (cd "$work" && apt-get download -q busybox-static >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get download -q busybox-static >/dev/null; })
  dpkg-deb -x "$work"/busybox-static_*.deb "$work/busybox"
  cp "$work/busybox/bin/busybox" "$root/bin/busybox"
  for tool in sh cat cut env echo grep id ls mkdir rm sed sleep sort tr; do ln -s busybox "$root/bin/$tool"; done
  # Without this file glibc asks DNS before /etc/hosts, and the broker's look-up of its own
  # host name waits for DNS time-outs (20 s measured) before it starts.
  echo "hosts: files dns" >"$root/etc/nsswitch.conf"
  echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
  echo "root:x:0:" >"$root/etc/group"
  tar -C "$root" -c . | docker import \
    --change "ENV JAVA_HOME=/opt/java/openjdk" \
    --change "ENV PATH=/opt/java/openjdk/bin:/bin" \
    --change "LABEL dev.sluice.input=$base_input" - "$base" >/dev/null
  echo "kafka image: base $base ($(du -sh "$root" | cut -f1), Java from $java_home) imported in $(took "$started") s"
  # Bases of an earlier Java or script are not needed any more.
  docker images --format '{{.Repository}}:{{.Tag}}' sluice-local/jre | grep -vxF "$base" | xargs -r docker rmi >/dev/null 2>&1 || true
fi

started=$(now)
context="$work/context"
mkdir -p "$context"
cp -r "$libs" "$context/libs"
rm -f "$context/libs"/*.jsa
cp "$here/kafka-image/"* "$context/"
# Host networking: the daemon has no bridge, and the archive step starts a broker.
DOCKER_BUILDKIT=0 docker build -q --network host --build-arg "BASE=$base" --label "dev.sluice.input=$kafka_input" -t "$tag" "$context" >"$work/build.log" 2>&1 \
  || { cat "$work/build.log" >&2; echo "kafka image: docker build of $tag failed" >&2; exit 1; }
# The image this one replaced, left without a tag.
docker image prune -f --filter label=dev.sluice.input >/dev/null 2>&1 || true
echo "kafka image: $tag built in $(took "$started") s"
