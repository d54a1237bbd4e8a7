import { Branched, Consumed, Grouped, Materialized, Named, Produced, Repartitioned, Serdes, StreamsBuilder, type Topology } from "../../lib/index.ts";
import { ACCOUNT_STATE_STORE, accountStateStore, commandHandler, isEvent, type HandlerOutput } from "./command-handler.ts";
import { balanceChange, defaultAccountsTopics, type AccountEvent, type AccountsTopics, type Balance, type Command, type Reply } from "./model.ts";
import { legFor, transferLegHandler, type TransferLeg } from "./transfer-legs.ts";

/** account id -> balance, the read model folded from the event log. */
export const BALANCES_STORE = "balances";

/**
 * Event-sourced accounts:
 *
 * 1. **Commands** (open, deposit, withdraw, transfer), keyed by account, are validated
 *    against `account-state` and become events on the log, or a "rejected" reply and
 *    nothing on the log.
 * 2. **The event log** is the source of truth. A transfer is written as a debit of the
 *    source only; every committed debit is routed (repartition `transfer-legs`, keyed by
 *    the target) to the target's task, which credits it, or, when the target is not open,
 *    writes a refund for the source that is routed back the same way. So the two accounts
 *    may live on different partitions, and no debit is ever without its one counterpart.
 * 3. **Balances** are a table folded from the log (`balances`).
 *
 * The commands topic and the event log must have the same partition count: the command
 * handler and the transfer legs share the store of each account's partition.
 */
export function accountsTopology(topics: AccountsTopics = defaultAccountsTopics()): Topology {
  const b = new StreamsBuilder();
  const eventSerde = Serdes.json<AccountEvent>();
  b.addStateStore(accountStateStore());

  const handled = b
    .stream(topics.commands, Consumed.with(Serdes.string(), Serdes.json<Command>()))
    .filter((_, c): c is Command => c !== null, Named.as("valid-commands"))
    .process(commandHandler, Named.as("handle-command"), ACCOUNT_STATE_STORE);

  const events = b.stream(topics.events, Consumed.with(Serdes.string(), eventSerde)).filter((_, e): e is AccountEvent => e !== null, Named.as("events"));
  const legs = events
    .flatMap((_, e) => {
      const leg = legFor(e);
      return leg ? [leg] : [];
    }, Named.as("transfer-leg"))
    .repartition(Repartitioned.as<string, TransferLeg>("transfer-legs").withKeySerde(Serdes.string()).withValueSerde(Serdes.json<TransferLeg>()))
    .process(transferLegHandler, Named.as("apply-transfer-leg"), ACCOUNT_STATE_STORE);

  const outputs = handled.merge(legs, Named.as("handler-outputs")).split(Named.as("output-"));
  const routes = outputs.branch((_, v) => isEvent(v), Branched.as("events")).defaultBranch(Branched.as("replies"));
  routes["output-events"]!.mapValues((v: HandlerOutput) => v as AccountEvent, Named.as("as-event")).to(topics.events, Produced.with(Serdes.string(), eventSerde));
  routes["output-replies"]!.mapValues((v: HandlerOutput) => v as Reply, Named.as("as-reply")).to(topics.replies, Produced.with(Serdes.string(), Serdes.json<Reply>()));

  events
    .groupByKey(Grouped.with(Serdes.string(), eventSerde))
    .aggregate(
      (): Balance => ({ balanceCents: 0, events: 0 }),
      (_, e, balance) => ({ balanceCents: balance.balanceCents + balanceChange(e), events: balance.events + 1 }),
      Named.as("fold-balances"),
      Materialized.as<string, Balance>(BALANCES_STORE).withValueSerde(Serdes.json<Balance>()),
    );
  return b.build();
}
