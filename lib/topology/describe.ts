import type { TopologyNode } from "./nodes.ts";
import { patternSource } from "./patterns.ts";
import type { SubTopology } from "./subtopology.ts";

function list(items: readonly string[]): string {
  return `[${items.join(", ")}]`;
}

function nodeLine(node: TopologyNode): string {
  switch (node.kind) {
    case "source":
      return node.pattern
        ? `Source: ${node.name} (topic pattern: ${patternSource(node.pattern)})`
        : `Source: ${node.name} (topics: ${list(node.topics)})`;
    case "processor":
      return `Processor: ${node.name} (stores: ${list(node.stores)})`;
    case "sink":
      return node.topic !== null ? `Sink: ${node.name} (topic: ${node.topic})` : `Sink: ${node.name} (topic extractor)`;
  }
}

/** Text in the layout of Kafka Streams' TopologyDescription; internal topics appear without the application id. */
export function describeAsText(subtopologies: readonly SubTopology[]): string {
  const lines = ["Topologies:"];
  for (const sub of subtopologies) {
    lines.push(`   Sub-topology: ${sub.id}`);
    for (const node of sub.nodes) {
      lines.push(`    ${nodeLine(node)}`);
      if (node.kind !== "sink") {
        const children = sub.children(node.name);
        lines.push(`      --> ${children.length > 0 ? children.join(", ") : "none"}`);
      }
      if (node.kind !== "source") lines.push(`      <-- ${node.parents.join(", ")}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

function label(text: string): string {
  return `"${text.replaceAll('"', "#quot;")}"`;
}

/** A Mermaid flowchart: nodes inside one subgraph per sub-topology, topics as parallelograms, stores as cylinders. */
export function describeAsMermaid(subtopologies: readonly SubTopology[]): string {
  const lines = ["flowchart TD"];
  const nodeIds = new Map<string, string>();
  const topicIds = new Map<string, string>();
  const storeIds = new Map<string, string>();
  const edges: string[] = [];
  const topicId = (topic: string): string => {
    let id = topicIds.get(topic);
    if (id === undefined) {
      id = `t${topicIds.size}`;
      topicIds.set(topic, id);
      lines.push(`  ${id}[/${label(topic)}/]`);
    }
    return id;
  };

  for (const sub of subtopologies) {
    lines.push(`  subgraph sub${sub.id}[${label(`Sub-topology: ${sub.id}`)}]`);
    for (const node of sub.nodes) {
      const id = `n${nodeIds.size}`;
      nodeIds.set(node.name, id);
      lines.push(`    ${id}[${label(node.name)}]`);
    }
    lines.push("  end");
    for (const node of sub.nodes) {
      const id = nodeIds.get(node.name)!;
      if (node.kind === "source") {
        const topics = node.pattern ? [`/${patternSource(node.pattern)}/`] : node.topics;
        for (const topic of topics) edges.push(`  ${topicId(topic)} --> ${id}`);
        continue;
      }
      for (const parent of node.parents) edges.push(`  ${nodeIds.get(parent)} --> ${id}`);
      if (node.kind === "sink") edges.push(`  ${id} --> ${topicId(node.topic ?? "(topic extractor)")}`);
      else {
        for (const store of node.stores) {
          let storeId = storeIds.get(store);
          if (storeId === undefined) {
            storeId = `s${storeIds.size}`;
            storeIds.set(store, storeId);
            lines.push(`  ${storeId}[(${label(store)})]`);
          }
          edges.push(`  ${id} --- ${storeId}`);
        }
      }
    }
  }
  return `${[...lines, ...edges].join("\n")}\n`;
}
