import { BranchProcessor, PassThroughProcessor } from "../processor/index.ts";
import { TopologyError } from "../errors/index.ts";
import type { Branched } from "./options/branched.ts";
import { KStream } from "./kstream.ts";
import { claimName, type StreamState } from "./stream-node.ts";

/**
 * The result of `split()`. Predicates are tried in the order the branches were added; a
 * record goes to the first that matches, else to the default branch, else nowhere. Finish
 * with `defaultBranch()` or `noDefaultBranch()` to get the branches, keyed
 * `<splitName><branchName>` (unnamed branches are numbered from 1, the default is "0").
 */
export class BranchedKStream<K, V> {
  private readonly parent: StreamState;
  private readonly splitName: string;
  private readonly predicates: Array<(key: K, value: V) => boolean> = [];
  private readonly childNames: string[] = [];
  private readonly branches: Record<string, KStream<K, V>> = {};
  private defaultChild: string | null = null;
  private finished = false;

  /** @internal Made by KStream.split(). */
  constructor(parent: StreamState, splitName: string) {
    this.parent = parent;
    this.splitName = splitName;
    const predicates = this.predicates;
    const childNames = this.childNames;
    // The processor reads the lists when a task starts, after every branch has been added.
    parent.builder.addProcessor(splitName, () => new BranchProcessor(predicates, childNames, this.defaultChild), [parent.nodeName]);
  }

  branch(predicate: (key: K, value: V) => boolean, branched?: Branched<K, V>): this {
    this.ensureOpen("branch");
    const name = this.addChild(branched?.name ?? String(this.predicates.length + 1), branched);
    this.predicates.push(predicate);
    this.childNames.push(name);
    return this;
  }

  defaultBranch(branched?: Branched<K, V>): Record<string, KStream<K, V>> {
    this.ensureOpen("defaultBranch");
    this.defaultChild = this.addChild(branched?.name ?? "0", branched);
    this.finished = true;
    return this.branches;
  }

  noDefaultBranch(): Record<string, KStream<K, V>> {
    this.ensureOpen("noDefaultBranch");
    this.finished = true;
    return this.branches;
  }

  private addChild(branchName: string, branched: Branched<K, V> | undefined): string {
    const name = claimName(this.parent.builder, `${this.splitName}${branchName}`);
    this.parent.builder.addProcessor(name, () => new PassThroughProcessor(), [this.splitName]);
    const branch = new KStream<K, V>({ ...this.parent, nodeName: name });
    const chain = branched?.chain;
    if (!chain) this.branches[name] = branch;
    else if (chain.kind === "function") this.branches[name] = chain.apply(branch);
    else chain.apply(branch);
    return name;
  }

  private ensureOpen(call: string): void {
    if (this.finished) {
      throw new TopologyError(
        `split "${this.splitName}" is already finished; ${call}() must come before defaultBranch()/noDefaultBranch().`,
      );
    }
  }
}
