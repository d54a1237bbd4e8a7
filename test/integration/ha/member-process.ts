/**
 * One run of static-worker.ts as a child process: its progress lines (state, tasks), the
 * store it printed on SIGTERM, the group joins it logged ("joined the consumer group",
 * with generation and member id) and its exit. A restart is a new MemberProcess with the
 * same name and state directory.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import type { StoreDump } from "../../chaos/support/workers.ts";

const script = resolve(import.meta.dirname, "static-worker.ts");

export interface Join {
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
}

export class MemberProcess {
  readonly child: ChildProcess;
  readonly joins: Join[] = [];
  readonly logLines: string[] = [];
  state = "";
  tasks: string[] = [];
  storeDump: StoreDump | null = null;
  exitCode: number | null | undefined = undefined;
  readonly exited: Promise<number | null>;

  readonly name: string;

  constructor(name: string, env: Record<string, string>) {
    this.name = name;
    this.child = spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    // "close" comes after both streams are read to their end (the store dump, the last log line).
    this.exited = new Promise((done) => this.child.once("close", (code) => done((this.exitCode = code))));
    createInterface({ input: this.child.stdout! }).on("line", (line) => {
      const parsed = parse(line);
      if (!parsed) return;
      if ("store" in parsed || "storeError" in parsed) this.storeDump = parsed as unknown as StoreDump;
      else {
        this.state = String(parsed["state"]);
        this.tasks = parsed["tasks"] as string[];
      }
    });
    createInterface({ input: this.child.stderr! }).on("line", (line) => {
      this.logLines.push(line);
      const parsed = parse(line);
      if (parsed?.["message"] === "joined the consumer group") {
        this.joins.push({ generationId: Number(parsed["generationId"]), memberId: String(parsed["memberId"]), groupInstanceId: (parsed["groupInstanceId"] as string | null) ?? null });
      }
    });
  }

  get alive(): boolean {
    return this.exitCode === undefined;
  }

  get running(): boolean {
    return this.alive && this.state === "RUNNING";
  }

  /** SIGTERM (a clean close); resolves with the exit code. */
  terminate(): Promise<number | null> {
    if (this.alive) this.child.kill("SIGTERM");
    return this.exited;
  }

  kill(): Promise<number | null> {
    if (this.alive) this.child.kill("SIGKILL");
    return this.exited;
  }

  /** The log lines whose `error` field contains `text` (log lines are JSON, so quotes are escaped in the raw text). */
  errorsContaining(text: string): string[] {
    return this.logLines.filter((line) => String(parse(line)?.["error"] ?? "").includes(text));
  }

  log(): string {
    return this.logLines.slice(-20).join("\n");
  }
}

function parse(line: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(line) as unknown;
    return value && typeof value === "object" ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
