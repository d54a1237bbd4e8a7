import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { Serdes, type StreamsApp, type StreamsBuilder } from "../../../lib/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

// The example under "Your first app" in README.md, taken from the README itself: it must
// type-check as a user's file would (against lib/ in place of the package), and its
// topology must count what it says it counts.

const root = resolve(import.meta.dirname, "../../..");
const work = mkdtempSync(join(tmpdir(), "sluice-readme-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function readmeExample(): string {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.indexOf("## Your first app");
  const code = /```ts\n([\s\S]*?)```/.exec(readme.slice(section));
  if (section < 0 || !code?.[1]) throw new Error('README.md has no ```ts block under "## Your first app"');
  return code[1];
}

/** The example as a file of its own; `lib` makes it import lib/ where a user imports "sluice". */
function writeExample(name: string, code: string, { lib = false } = {}): string {
  const path = join(work, name);
  writeFileSync(path, lib ? code.replaceAll('from "sluice"', `from ${JSON.stringify(join(root, "lib/index.ts"))}`) : code);
  return path;
}

describe("the README example", () => {
  it("type-checks as it stands in the README", () => {
    const file = writeExample("app.mts", readmeExample());
    const { config } = ts.readConfigFile(join(root, "tsconfig.json"), ts.sys.readFile);
    const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
    // "sluice" resolves to lib/index.ts, as the package's types resolve to its declarations.
    const paths = { sluice: [join(root, "lib/index.ts")] };
    const program = ts.createProgram([file], { ...options, noEmit: true, paths, typeRoots: [join(root, "node_modules/@types")] });
    const source = program.getSourceFile(file)!;
    const problems = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) =>
      ts.flattenDiagnosticMessageText(d.messageText, "\n"),
    );
    expect(problems).toEqual([]);
  });

  it("counts page views per page", async () => {
    const code = readmeExample();
    const start = code.indexOf("await app.start()");
    expect(start).toBeGreaterThan(0);
    // Everything before start(): the topology and the app, constructed (its config checked) but not started.
    const file = writeExample("topology.mts", `${code.slice(0, start)}\nexport { builder, app };\n`, { lib: true });
    const example = (await import(file)) as { builder: StreamsBuilder; app: StreamsApp };
    expect(example.app.state).toBe("CREATED");

    const driver = new TopologyTestDriver(example.builder.build());
    try {
      const views = driver.createInputTopic("page-views", Serdes.string(), Serdes.json<{ page: string }>());
      const counts = driver.createOutputTopic("page-view-counts", Serdes.string(), Serdes.int64());
      views.pipeInput("u1", { page: "/pricing" });
      views.pipeInput("u2", { page: "/docs" });
      views.pipeInput("u3", { page: "/pricing" });
      views.pipeInput("u4", null);
      expect(counts.readKeyValuesToList()).toEqual([
        ["/pricing", 1n],
        ["/docs", 1n],
        ["/pricing", 2n],
      ]);
      expect(driver.getKeyValueStore<string, bigint>("views-per-page").get("/pricing")).toBe(2n);
    } finally {
      driver.close();
    }
  });
});
