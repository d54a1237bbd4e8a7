import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { sluice } from "../../integration/cli/run-cli.ts";

// Each case starts a node process, which takes a while on a busy machine.
const processTimeout = 60_000;

const ordersModule = resolve(import.meta.dirname, "../../../services/orders/topology.ts");

describe("the sluice command", () => {
  it("--help lists the commands and the module convention of each command's help, exit 0", async () => {
    const help = await sluice(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^ {2}describe /m);
    expect(help.stdout).toMatch(/^ {2}reset /m);
    for (const command of ["reset", "describe"]) {
      const commandHelp = await sluice([command, "--help"]);
      expect(commandHelp.code).toBe(0);
      expect(commandHelp.stdout).toContain(`usage: sluice ${command}`);
      expect(commandHelp.stdout).toContain("sluice IMPORTS the module");
    }
  }, processTimeout);

  it("refuses unknown commands, unknown options and missing arguments with exit 2, naming them", async () => {
    const [noCommand, unknown, badOption, noId, noModule] = await Promise.all([
      sluice([]),
      sluice(["rest"]),
      sluice(["reset", "--application-id", "a", "--force"]),
      sluice(["reset"]),
      sluice(["describe"]),
    ]);
    expect([noCommand.code, noCommand.stderr]).toEqual([2, expect.stringContaining("no command given")]);
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining('unknown command "rest"')]);
    expect([badOption.code, badOption.stderr]).toEqual([2, expect.stringContaining("'--force'")]);
    expect(badOption.stderr).toContain("sluice reset --help");
    expect([noId.code, noId.stderr]).toEqual([2, expect.stringContaining("--application-id")]);
    expect([noModule.code, noModule.stderr]).toEqual([2, expect.stringContaining("MODULE")]);
  }, processTimeout);

  it("describe imports a module and prints its topology; a module without one is an error naming its exports", async () => {
    const described = await sluice(["describe", ordersModule]);
    expect(described.code, described.stderr).toBe(0);
    expect(described.stdout).toContain("(topics: [orders])");
    const notTopology = await sluice(["describe", resolve(import.meta.dirname, "../../integration/cli/run-cli.ts")]);
    expect(notTopology.code).toBe(1);
    expect(notTopology.stderr).toContain("exports no topology (its exports: sluice)");
    const missing = await sluice(["describe", "no-such-module.js"]);
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining("no-such-module.js does not exist")]);
  }, processTimeout);
});
