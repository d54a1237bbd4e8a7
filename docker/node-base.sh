#!/usr/bin/env bash
# Builds sluice-local/node:<version>, the default BASE_IMAGE of the Dockerfile, without pulling
# anything: a root file system made from this machine's Node 24 (the one first on PATH, i.e.
# .tools/node-*), its npm, every shared library `ldd` lists for node, and a static busybox from
# Debian (sh and the few tools npm scripts and the Dockerfile use), imported with `docker import`.
# It follows the official node image's layout: /usr/local/bin/node and npm, user node (1000).
# The machine's CA bundle comes along, and NODE_EXTRA_CA_CERTS adds it to Node's own CAs, so
# npm in the build trusts what the machine trusts (a TLS-inspecting proxy in front of the
# registry, as here) and services trust the same brokers.
# Usage: node-base.sh            prints the image name on stdout
# Idempotent: the image carries a label with the hash of its inputs and is rebuilt only when
# that changes.
set -euo pipefail
now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
label() { docker image inspect -f "{{index .Config.Labels \"dev.sluice.input\"}}" "$1" 2>/dev/null || true; }

node_bin=$(readlink -f "$(command -v node)")
version=$("$node_bin" -p process.versions.node)
[ "${version%%.*}" -ge 24 ] || { echo "node base: node on PATH is $version; enter the project environment first (eval \"\$(make -s env)\")" >&2; exit 1; }
npm_root=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
[ -f "$npm_root/package.json" ] || { echo "node base: no npm next to $(command -v npm)" >&2; exit 1; }
ca_bundle=/etc/ssl/certs/ca-certificates.crt
[ -f "$ca_bundle" ] || { echo "node base: no CA bundle at $ca_bundle (apt-get install ca-certificates)" >&2; exit 1; }
# The node binary by version and size (hashing its 120 MB would slow every up-to-date check).
input=$( { echo "$version $(stat -c %s "$node_bin")"; sha256sum "$ca_bundle"; cat "$npm_root/package.json"; cat "$0"; } | sha256sum | cut -c1-16)
image="sluice-local/node:$version"
if [ "$(label "$image")" = "$input" ]; then echo "$image"; exit 0; fi

started=$(now)
work=$(mktemp -d -t sluice-node-base.XXXXXX)
trap 'rm -rf "$work"' EXIT
root="$work/root"
mkdir -p "$root"/{bin,usr/bin,usr/local/bin,usr/local/lib/node_modules,etc,root,home/node,tmp}
chmod 1777 "$root/tmp" && chmod 700 "$root/root"
cp "$node_bin" "$root/usr/local/bin/node"
cp -r "$npm_root" "$root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
# The C and C++ runtime node links against, at the same paths (glibc 2.34+ resolves DNS
# without separate NSS modules). Native addons built for this glibc, such as better-sqlite3's
# linux-x64 prebuild, load against the same files.
ldd "$node_bin" | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }' | sort -u \
  | while read -r lib; do cp -L --parents "$lib" "$root"; done
# npm runs package scripts with /bin/sh; the Dockerfile uses mkdir, chown and ln.
(cd "$work" && { apt-get download -q busybox-static >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get download -q busybox-static >/dev/null; }; })
dpkg-deb -x "$work"/busybox-static_*.deb "$work/busybox"
cp "$work/busybox/bin/busybox" "$root/bin/busybox"
for tool in sh cat chmod chown cp cut echo env grep id ln ls mkdir mv ps rm sed sleep tr; do ln -s busybox "$root/bin/$tool"; done
ln -s ../../bin/busybox "$root/usr/bin/env"
mkdir -p "$root/etc/ssl/certs" && cp "$ca_bundle" "$root/etc/ssl/certs/ca-certificates.crt"
echo "hosts: files dns" >"$root/etc/nsswitch.conf"
printf 'root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000:node:/home/node:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\nnode:x:1000:\n' >"$root/etc/group"
chown 1000:1000 "$root/home/node"
tar -C "$root" -c . | docker import \
  --change "ENV PATH=/usr/local/bin:/usr/bin:/bin" \
  --change "ENV NODE_VERSION=$version" \
  --change "ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt" \
  --change "LABEL dev.sluice.input=$input" \
  --change 'CMD ["node"]' - "$image" >/dev/null
echo "node base: $image ($(du -sh "$root" | cut -f1), node from $node_bin, npm $("$node_bin" -p "require('$npm_root/package.json').version")) imported in $(took "$started") s" >&2
echo "$image"
