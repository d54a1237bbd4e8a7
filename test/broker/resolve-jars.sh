#!/usr/bin/env bash
# Resolves the broker's jars from Maven Central into a classpath folder.
# Usage: resolve-jars.sh <3.9|4.1> <output dir>
set -euo pipefail
line=${1:?kafka line (3.9 or 4.1)}
out=$(realpath -m "${2:?output directory}")
here=$(cd "$(dirname "$0")" && pwd)
case "$line" in
  3.9) profile=() ;;
  4.1) profile=(-Dkafka.line=4.1) ;;
  *) echo "KAFKA_VERSION must be 3.9 or 4.1, got '$line'" >&2; exit 1 ;;
esac
command -v java >/dev/null || { echo "Java is not installed: the local Kafka broker needs Java 17 or newer (apt-get install openjdk-17-jre-headless)" >&2; exit 1; }
command -v mvn >/dev/null || { echo "Maven is not installed: the broker's jars come from Maven Central (apt-get install maven)" >&2; exit 1; }
echo "Resolving Kafka $line broker jars from Maven Central into $out"
mkdir -p "$(dirname "$out")"
rm -rf "$out.partial"
if ! mvn -B -q -f "$here/pom.xml" "${profile[@]}" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$out.partial" >"$out.maven.log" 2>&1; then
  tail -n 30 "$out.maven.log" >&2
  echo "Maven could not resolve the Kafka $line broker jars (full log: $out.maven.log). Check that Maven Central is reachable (settings in ~/.m2/settings.xml)." >&2
  exit 1
fi
rm -rf "$out" && mv "$out.partial" "$out"
echo "$(ls "$out" | wc -l) jars in $out"
