import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../lib/observability/index.ts";
import { Lifecycle, responseToUncaughtError, type AppState } from "../../../lib/runtime/lifecycle.ts";

describe("app lifecycle", () => {
  it("walks the normal path and tells listeners each step", () => {
    const lifecycle = new Lifecycle();
    const seen: string[] = [];
    lifecycle.onChange((next, previous) => seen.push(`${previous}->${next}`));
    for (const s of ["REBALANCING", "RUNNING", "REBALANCING", "RUNNING", "PENDING_SHUTDOWN", "NOT_RUNNING"] as AppState[]) lifecycle.moveTo(s);
    expect(seen).toEqual([
      "CREATED->REBALANCING", "REBALANCING->RUNNING", "RUNNING->REBALANCING",
      "REBALANCING->RUNNING", "RUNNING->PENDING_SHUTDOWN", "PENDING_SHUTDOWN->NOT_RUNNING",
    ]);
  });

  it("refuses an illegal transition naming both states", () => {
    const lifecycle = new Lifecycle();
    expect(() => lifecycle.moveTo("RUNNING")).toThrow(/illegal state transition CREATED -> RUNNING/);
    lifecycle.moveTo("PENDING_SHUTDOWN");
    lifecycle.moveTo("NOT_RUNNING");
    expect(() => lifecycle.moveTo("REBALANCING")).toThrow(/from NOT_RUNNING only nothing is allowed/);
  });

  it("reaches ERROR only through PENDING_ERROR", () => {
    const lifecycle = new Lifecycle();
    expect(() => lifecycle.moveTo("ERROR")).toThrow();
    lifecycle.moveTo("PENDING_ERROR");
    lifecycle.moveTo("ERROR");
    expect(lifecycle.state).toBe("ERROR");
    expect(lifecycle.tryMoveTo("PENDING_SHUTDOWN")).toBe(false);
  });

  it("exits the process after an unrecoverable error unless a handler answers SHUTDOWN_CLIENT", () => {
    const error = new Error("poison");
    const errors: string[] = [];
    const logger = { ...silentLogger, error: (message: string) => errors.push(message) };
    expect(responseToUncaughtError(null, error, logger)).toBe("EXIT_PROCESS");
    const seen: Error[] = [];
    expect(responseToUncaughtError((e) => (seen.push(e), "SHUTDOWN_CLIENT"), error, logger)).toBe("SHUTDOWN_CLIENT");
    expect(seen).toEqual([error]);
    expect(responseToUncaughtError(() => "EXIT_PROCESS", error, logger)).toBe("EXIT_PROCESS");
    expect(errors).toEqual([]);
    // A handler that throws or answers nonsense cannot keep a broken instance's process alive.
    expect(responseToUncaughtError(() => { throw new Error("handler bug"); }, error, logger)).toBe("EXIT_PROCESS");
    expect(responseToUncaughtError(() => "REPLACE_THREAD" as never, error, logger)).toBe("EXIT_PROCESS");
    expect(errors).toEqual(["uncaughtExceptionHandler threw; exiting the process", 'uncaughtExceptionHandler returned "REPLACE_THREAD", not "EXIT_PROCESS" or "SHUTDOWN_CLIENT"; exiting the process']);
  });
});
