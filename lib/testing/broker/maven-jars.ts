/**
 * The local broker's classpath, resolved from Maven Central: a pom naming the broker and a
 * logging backend is written to a temporary folder and Maven copies their runtime
 * dependencies into the jars folder. The pom is generated here rather than shipped, since
 * the published package holds only compiled code.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { hasJars, KAFKA_RELEASES, type KafkaLine } from "./broker-config.ts";

interface Artifact {
  groupId: string;
  artifactId: string;
  version: string;
}

/** The broker of each line and the logging backend its logging config is written for (reload4j on 3.9, log4j2 on 4.1). */
export function brokerArtifacts(line: KafkaLine): Artifact[] {
  const broker = { groupId: "org.apache.kafka", artifactId: "kafka_2.13", version: KAFKA_RELEASES[line] };
  if (line === "3.9") {
    return [
      broker,
      { groupId: "org.slf4j", artifactId: "slf4j-reload4j", version: "1.7.36" },
      { groupId: "ch.qos.reload4j", artifactId: "reload4j", version: "1.2.25" },
    ];
  }
  return [
    broker,
    { groupId: "org.apache.logging.log4j", artifactId: "log4j-slf4j-impl", version: "2.24.3" },
    { groupId: "org.apache.logging.log4j", artifactId: "log4j-core", version: "2.24.3" },
  ];
}

export function brokerPom(line: KafkaLine): string {
  const dependency = (a: Artifact) =>
    `    <dependency><groupId>${a.groupId}</groupId><artifactId>${a.artifactId}</artifactId><version>${a.version}</version></dependency>`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<project xmlns="http://maven.apache.org/POM/4.0.0">',
    "  <modelVersion>4.0.0</modelVersion>",
    "  <groupId>dev.sluice</groupId>",
    `  <artifactId>sluice-test-broker-${line}</artifactId>`,
    "  <version>1</version>",
    "  <packaging>pom</packaging>",
    "  <dependencies>",
    ...brokerArtifacts(line).map(dependency),
    "  </dependencies>",
    "  <build><pluginManagement><plugins><plugin>",
    "    <groupId>org.apache.maven.plugins</groupId><artifactId>maven-dependency-plugin</artifactId><version>3.8.1</version>",
    "  </plugin></plugins></pluginManagement></build>",
    "</project>",
  ].join("\n") + "\n";
}

/**
 * Resolves the line's broker jars into `libs` (replacing what is there) with `mvn`, which
 * needs Java and Maven Central (or the mirror in ~/.m2/settings.xml). Returns the jar count.
 */
export async function resolveBrokerJars(line: KafkaLine, libs: string, log: (line: string) => void = console.error): Promise<number> {
  const work = mkdtempSync(join(tmpdir(), "sluice-broker-pom-"));
  // Per process, so two test runs resolving into the same cache cannot write into one folder.
  const partial = `${libs}.${process.pid}.partial`;
  try {
    writeFileSync(join(work, "pom.xml"), brokerPom(line));
    mkdirSync(dirname(libs), { recursive: true });
    rmSync(partial, { recursive: true, force: true });
    log(`Resolving the Kafka ${KAFKA_RELEASES[line]} broker jars from Maven Central into ${libs}`);
    const args = ["-B", "-q", "-f", join(work, "pom.xml"), "dependency:copy-dependencies", "-DincludeScope=runtime", `-DoutputDirectory=${partial}`];
    const result = await new Promise<{ ok: boolean; output: string; missing: boolean }>((done) => {
      execFile("mvn", args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
        const missing = (error as NodeJS.ErrnoException | null)?.code === "ENOENT";
        done({ ok: error === null, output: `${stdout}${stderr}`, missing });
      });
    });
    if (result.missing) {
      throw new Error(
        "Maven (`mvn`) is not installed, and the local Kafka broker's jars come from Maven Central. " +
          "Install it (Debian/Ubuntu: apt-get install maven), or set SLUICE_BROKER_LIBS to a folder of Kafka broker jars.",
      );
    }
    if (!result.ok) {
      throw new Error(
        `Maven could not resolve the Kafka ${KAFKA_RELEASES[line]} broker jars. Check that Maven Central (or your mirror in ` +
          `~/.m2/settings.xml) is reachable.\n${result.output.trim().split("\n").slice(-30).join("\n")}`,
      );
    }
    rmSync(libs, { recursive: true, force: true });
    try {
      renameSync(partial, libs);
    } catch (error) {
      // Another run finished the same resolution first: its jars are as good as ours.
      if (!hasJars(libs)) throw error;
    }
    return readdirSync(libs).filter((f) => f.endsWith(".jar")).length;
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(partial, { recursive: true, force: true });
  }
}
