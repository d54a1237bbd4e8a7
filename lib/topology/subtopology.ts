import { decorateTopic } from "./naming.ts";
import { excludingInternalTopics } from "./patterns.ts";
import type { SinkNode, SourceNode, StoreSpec, TopologyNode } from "./nodes.ts";

/**
 * A connected piece of the graph: the unit a task runs. Sub-topologies talk to each other
 * only through topics (repartition or user topics), never through direct calls.
 */
export class SubTopology {
  readonly id: number;
  /** In build order, so parents come before children. */
  readonly nodes: readonly TopologyNode[];
  readonly stores: readonly StoreSpec[];
  private readonly byName: ReadonlyMap<string, TopologyNode>;
  private readonly childNames: ReadonlyMap<string, readonly string[]>;

  constructor(id: number, nodes: readonly TopologyNode[], stores: readonly StoreSpec[]) {
    this.id = id;
    this.nodes = nodes;
    this.stores = stores;
    this.byName = new Map(nodes.map((n) => [n.name, n]));
    const children = new Map<string, string[]>(nodes.map((n) => [n.name, []]));
    for (const node of nodes) {
      if (node.kind === "source") continue;
      for (const parent of node.parents) children.get(parent)?.push(node.name);
    }
    this.childNames = children;
  }

  node(name: string): TopologyNode | undefined {
    return this.byName.get(name);
  }

  children(name: string): readonly string[] {
    return this.childNames.get(name) ?? [];
  }

  get sources(): SourceNode[] {
    return this.nodes.filter((n): n is SourceNode => n.kind === "source");
  }

  get sinks(): SinkNode[] {
    return this.nodes.filter((n): n is SinkNode => n.kind === "sink");
  }

  /** Exact input topic names at run time (patterns excluded; see `sourcePatterns`). */
  sourceTopics(applicationId: string): string[] {
    return this.sources.flatMap((s) => s.topics.map((t) => (s.internal ? decorateTopic(applicationId, t) : t)));
  }

  /**
   * Pattern subscriptions as this application matches them: whole topic names, never its
   * own internal topics.
   */
  sourcePatterns(applicationId: string): RegExp[] {
    return this.sources.flatMap((s) => (s.pattern ? [excludingInternalTopics(s.pattern, applicationId)] : []));
  }

  /** The source node that reads `topic` (a run-time name), if any. */
  sourceFor(topic: string, applicationId: string): SourceNode | undefined {
    for (const source of this.sources) {
      if (source.pattern && excludingInternalTopics(source.pattern, applicationId).test(topic)) return source;
      for (const t of source.topics) {
        if ((source.internal ? decorateTopic(applicationId, t) : t) === topic) return source;
      }
    }
    return undefined;
  }
}
