import { parentsOf, type StoreSpec, type TopologyNode } from "./nodes.ts";
import { SubTopology } from "./subtopology.ts";

/**
 * Sub-topologies are the connected components of the graph, where nodes are connected by
 * parent edges and by sharing a state store. Topics (repartition ones included) are not
 * edges, which is exactly where the graph gets cut. Ids follow build order.
 */
export function splitIntoSubtopologies(
  nodes: readonly TopologyNode[],
  stores: ReadonlyMap<string, StoreSpec>,
  globalStores: ReadonlySet<string> = new Set(),
): SubTopology[] {
  const root = new Map<string, string>(nodes.map((n) => [n.name, n.name]));
  const find = (name: string): string => {
    let r = name;
    while (root.get(r) !== r) r = root.get(r)!;
    root.set(name, r);
    return r;
  };
  const union = (a: string, b: string): void => {
    root.set(find(a), find(b));
  };

  const storeUser = new Map<string, string>();
  for (const node of nodes) {
    for (const parent of parentsOf(node)) union(node.name, parent);
    if (node.kind !== "processor") continue;
    for (const store of node.stores) {
      if (globalStores.has(store)) continue; // every task reads a global store: it ties nothing together
      const other = storeUser.get(store);
      if (other === undefined) storeUser.set(store, node.name);
      else union(node.name, other);
    }
  }

  const groups = new Map<string, TopologyNode[]>();
  for (const node of nodes) {
    const key = find(node.name);
    const group = groups.get(key);
    if (group) group.push(node);
    else groups.set(key, [node]);
  }

  // Map iteration follows insertion, i.e. the build order of each group's first node.
  return [...groups.values()].map((group, id) => {
    const names = new Set(group.flatMap((n) => (n.kind === "processor" ? n.stores : [])));
    const groupStores = [...names].flatMap((name) => {
      const spec = stores.get(name);
      return spec ? [spec] : [];
    });
    return new SubTopology(id, group, groupStores);
  });
}
