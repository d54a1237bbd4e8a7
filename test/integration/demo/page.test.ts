/**
 * `make demo` in a browser: the demo runs as a child process on the test run's broker for a
 * short, finite run (DEMO_PAYMENTS), and headless Chromium loads its page. The page must
 * show charts that grow, answer a card lookup with the card's state, and account for every
 * generated payment; once the generator stops and the service catches up, the equation's
 * terms are checked against the generator's own counts and against the topics in Kafka.
 *
 * DEMO_SCREENSHOT=docs/demo.png writes the screenshot the README shows (otherwise a temp file).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import puppeteer, { type Browser } from "puppeteer-core";
import { afterAll, describe, expect, it } from "vitest";
import { TestKafka } from "../../../lib/testing/index.ts";
import { bootstrap, waitFor } from "../support.ts";

const root = resolve(import.meta.dirname, "../../..");
const CHROMIUM = "/usr/bin/chromium";

interface PageState {
  phase: string;
  traffic: { payments: number; late: number; undecodable: number };
  topics: { payments: string; deadLetters: string };
  accounts: { generated: number; inResults: number; droppedLate: number; deadLettered: number; notYetProcessed: number; lag: number } | null;
}

describe("the demo page", () => {
  let browser: Browser | undefined;
  afterAll(() => browser?.close());

  it("shows growing charts, a card lookup by interactive query and every generated payment accounted for", { timeout: 300_000 }, async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get update && apt-get install -y chromium); make test does`);
    const demo = spawn(process.execPath, [join(root, "services/demo/main.ts")], {
      env: { ...process.env, KAFKA_BOOTSTRAP_SERVERS: bootstrap(), DEMO_PORT: "0", DEMO_PAYMENTS: "3000", DEMO_RATE: "200" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const lines: string[] = [];
    const exited = new Promise<number | null>((r) => demo.once("exit", (code) => r(code)));
    createInterface({ input: demo.stdout! }).on("line", (l) => lines.push(l));
    createInterface({ input: demo.stderr! }).on("line", (l) => lines.push(l));
    try {
      const url = await waitFor("the demo to print its page's URL", () => {
        if (demo.exitCode !== null) throw new Error(`the demo exited with ${demo.exitCode}:\n${lines.join("\n")}`);
        return lines.map((l) => /demo page: (http:\/\/localhost:\d+\/)/.exec(l)?.[1]).find(Boolean);
      }, 180_000);

      browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
      const page = await browser.newPage();
      await page.setViewport({ width: 1400, height: 1000 });
      await page.goto(url);
      const state = () => page.evaluate(async () => (await (await fetch("/api/state")).json()) as unknown) as Promise<PageState>;

      // The charts: the data behind them grows between two reads.
      // (Browser-side code as strings: this project's TypeScript has no DOM types.)
      const points = async (chart: string) => Number(await page.evaluate(`window.demoCharts[${JSON.stringify(chart)}].data[0].length`));
      await page.waitForFunction("window.demoCharts.lag.data[0].length > 2", { timeout: 120_000 });
      const before = { throughput: await points("throughput"), lag: await points("lag") };
      await page.waitForFunction(`window.demoCharts.throughput.data[0].length > ${before.throughput}`, { timeout: 60_000 });
      expect(await points("throughput")).toBeGreaterThan(before.throughput);
      expect(await points("lag")).toBeGreaterThan(before.lag);

      // A card lookup from an alert: the page shows what GET /cards/<id> answers.
      await page.waitForSelector("#alerts a.card-link", { timeout: 120_000 });
      const cardId = await page.$eval("#alerts a.card-link", (a) => (a as unknown as { dataset: Record<string, string> }).dataset["card"]!);
      // The risk state folds the alerts after a repartition: wait for this one to arrive there too.
      await waitFor(`the risk state of ${cardId} to count its alert`, () =>
        page.evaluate(async (id: string) => ((await (await fetch(`/cards/${id}`)).json()) as { risk?: { alerts: number } }).risk?.alerts ?? 0, cardId), 30_000);
      await page.click("#alerts a.card-link");
      await page.waitForSelector(`#card table[data-card="${cardId}"]`, { timeout: 30_000 });
      const shown = await page.$$eval("#card td", (cells) => cells.map((c) => c.textContent ?? ""));
      const answer = await page.evaluate(async (id: string) => (await (await fetch(`/cards/${id}`)).json()) as { cardId: string; card: { customerId: string; homeCountry: string } }, cardId);
      expect(answer.cardId).toBe(cardId);
      const row = (name: string) => shown[shown.indexOf(name) + 1];
      expect(row("customer")).toContain(answer.card.customerId);
      expect(row("home country")).toBe(answer.card.homeCountry);
      expect(row("risk")).toMatch(/^(low|elevated|high) score \d+, [1-9]\d* alerts$/);

      // Every payment accounted for: the generator stops, the service catches up, nothing is left over.
      await waitFor("the generator to finish and the service to process every payment", async () => {
        const s = await state();
        return s.phase === "generator finished" && s.accounts?.notYetProcessed === 0 && s.accounts.generated === s.traffic.payments;
      }, 180_000);
      // The page polls once a second: wait until it shows the final state, not an earlier one.
      const settled = await state();
      await page.waitForFunction(
        `Number(document.querySelector('[data-term="generated"] b')?.textContent?.replace(/,/g, "")) === ${settled.accounts!.generated}` +
          ` && document.querySelector('[data-term="notYetProcessed"] b')?.textContent === "0"`,
        { timeout: 15_000 },
      );
      const terms = await page.$$eval("[data-term]", (els) =>
        Object.fromEntries(els.map((e) => [(e as unknown as { dataset: Record<string, string> }).dataset["term"]!, Number(e.querySelector("b")!.textContent!.replace(/,/g, ""))])),
      );
      expect(terms["generated"]).toBe(terms["inResults"]! + terms["droppedLate"]! + terms["deadLettered"]! + terms["notYetProcessed"]!);
      expect(await page.$eval("#equation-check", (e) => e.textContent)).toContain("adds up");
      const final = await state();
      // The service's counts agree with what the generator sent and with what Kafka holds.
      // Lateness is judged against each partition's own stream time, which can trail the
      // generator's clock: a payment sent as late may still fall within grace there and count
      // in the results instead. Every dropped one was sent as late; the equation above holds.
      expect(terms["droppedLate"], "late payments the windows dropped <= late payments sent").toBeLessThanOrEqual(final.traffic.late);
      expect(terms["deadLettered"], "dead letters = undecodable payments sent").toBe(final.traffic.undecodable);
      expect(terms["droppedLate"]! * terms["deadLettered"]! * terms["inResults"]!).toBeGreaterThan(0);
      const kafka = new TestKafka(bootstrap());
      try {
        // Count the records themselves (read_committed): offsets would also count the control
        // records of transactions. A lost or duplicated payment fails this.
        const generated = terms["generated"]!;
        await waitFor(`payments topic to hold all ${generated} generated payments`, async () => (await kafka.size(final.topics.payments)) >= generated, 30_000).catch(() => undefined);
        const payments = await kafka.read(final.topics.payments, { readCommitted: true });
        expect(payments.length, lines.filter((l) => l.startsWith("generator")).join("\n")).toBe(generated);
        expect((await kafka.read(final.topics.deadLetters, { readCommitted: true })).length).toBe(terms["deadLettered"]);
      } finally {
        await kafka.close();
      }

      const screenshot = process.env["DEMO_SCREENSHOT"] ? resolve(root, process.env["DEMO_SCREENSHOT"]) : join(mkdtempSync(join(tmpdir(), "sluice-demo-page-")), "demo.png");
      await page.screenshot({ path: screenshot as `${string}.png`, fullPage: true });
    } finally {
      if (demo.exitCode === null) demo.kill("SIGTERM");
      expect(await exited, lines.slice(-30).join("\n")).toBe(0);
    }
  });
});
