import { decorateTopic, type SubTopology } from "../../topology/index.ts";
import { ProcessorRuntime, recordContextHolder, SinkRuntime, SourceRuntime, type RuntimeNode, type TaskServices } from "./nodes.ts";

/** A sub-topology's nodes instantiated for one task, wired parent to child. */
export interface TaskGraph {
  sourceFor(topic: string, applicationId: string): SourceRuntime | undefined;
  init(): void;
  close(): void;
}

export function buildRuntimeNodes(subtopology: SubTopology, services: TaskServices): TaskGraph {
  const byName = new Map<string, RuntimeNode>();
  const sources: SourceRuntime[] = [];
  const processors: ProcessorRuntime[] = [];
  const contexts = recordContextHolder(services.position);
  for (const spec of subtopology.nodes) {
    let node: RuntimeNode;
    if (spec.kind === "source") {
      const source = new SourceRuntime(spec);
      sources.push(source);
      node = source;
    } else if (spec.kind === "processor") {
      const processor = new ProcessorRuntime(spec, services, contexts);
      processors.push(processor);
      node = processor;
    } else {
      node = new SinkRuntime(spec, services);
    }
    byName.set(spec.name, node);
  }
  // Children in build order, so forward() visits them in the order the DSL added them.
  for (const spec of subtopology.nodes) {
    if (spec.kind === "source") continue;
    const child = byName.get(spec.name)!;
    for (const parentName of spec.parents) {
      const parent = byName.get(parentName);
      if (parent instanceof SourceRuntime || parent instanceof ProcessorRuntime) parent.addChild(child);
    }
  }

  return {
    sourceFor(topic, applicationId) {
      for (const source of sources) {
        const { spec } = source;
        if (spec.pattern?.test(topic)) return source;
        if (spec.topics.some((t) => (spec.internal ? decorateTopic(applicationId, t) : t) === topic)) return source;
      }
      return undefined;
    },
    init() {
      for (const p of processors) p.init();
    },
    close() {
      let first: unknown = null;
      for (const p of processors) {
        try {
          p.processor.close?.();
        } catch (error) {
          first ??= error;
        }
      }
      if (first !== null) throw first;
    },
  };
}
