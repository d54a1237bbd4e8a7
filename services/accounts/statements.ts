import { Consumed, Grouped, Materialized, Named, Produced, Serdes, StreamsBuilder, type Topology } from "../../lib/index.ts";
import { balanceChange, type AccountEvent } from "./model.ts";

/** One calendar month (UTC) of an account. */
export interface MonthStatement {
  month: string;
  openingCents: number;
  inCents: number;
  outCents: number;
  closingCents: number;
  events: number;
}

/** An account's statements, oldest month first, as the `statements` store and topic hold them. */
export interface Statements {
  accountId: string;
  balanceCents: number;
  months: MonthStatement[];
}

export const STATEMENTS_STORE = "statements";

/** "2026-01" for an event time in January 2026 (UTC). */
export function monthOf(at: number): string {
  return new Date(at).toISOString().slice(0, 7);
}

/** Folds one event into an account's statements; events of a month earlier than the newest one are folded into their month and roll forward. */
export function addToStatements(statements: Statements, event: AccountEvent): Statements {
  const change = balanceChange(event);
  const month = monthOf(event.at);
  const months = statements.months.some((m) => m.month === month)
    ? statements.months
    : [...statements.months, { month, openingCents: 0, inCents: 0, outCents: 0, closingCents: 0, events: 0 }].sort((a, b) => (a.month < b.month ? -1 : 1));
  let opening = 0;
  const rolled = months.map((m) => {
    const own = m.month === month ? { inCents: m.inCents + Math.max(change, 0), outCents: m.outCents + Math.max(-change, 0), events: m.events + 1 } : m;
    const next = { month: m.month, openingCents: opening, inCents: own.inCents, outCents: own.outCents, closingCents: opening + own.inCents - own.outCents, events: own.events };
    opening = next.closingCents;
    return next;
  });
  return { accountId: event.accountId, balanceCents: statements.balanceCents + change, months: rolled };
}

/**
 * A second read model of the accounts' event log: monthly statements per account. It is a
 * separate application (its own application id, consumer group and stores) that reads the
 * log from the beginning, so it can be started at any time after the events exist and
 * derives every statement from the whole history (the kappa pattern: reprocess the log
 * rather than migrate a database). Writes each account's statements to `statementsTopic`.
 */
export function statementsTopology(topics: { events: string; statements: string }): Topology {
  const b = new StreamsBuilder();
  b.stream(topics.events, Consumed.with(Serdes.string(), Serdes.json<AccountEvent>()).withOffsetReset("earliest"))
    .filter((account, e): account is string => account !== null && e !== null, Named.as("events"))
    .mapValues((e) => e!, Named.as("event"))
    .groupByKey(Grouped.with(Serdes.string(), Serdes.json<AccountEvent>()))
    .aggregate(
      (): Statements => ({ accountId: "", balanceCents: 0, months: [] }),
      (_, event, statements) => addToStatements(statements, event),
      Named.as("fold-statements"),
      Materialized.as<string, Statements>(STATEMENTS_STORE).withValueSerde(Serdes.json<Statements>()),
    )
    .toStream(Named.as("statement-changes"))
    .to(topics.statements, Produced.with(Serdes.string(), Serdes.json<Statements>()));
  return b.build();
}
