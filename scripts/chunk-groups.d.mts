/** Types of chunk-groups.mjs (plain JavaScript: scripts/build.mjs runs on Node without a compile step). */

/** What chunkGroups reads of esbuild's metafile: each output file's entry point, inputs and imports. */
export interface Outputs {
  outputs: Record<string, { entryPoint?: string; inputs: Record<string, unknown>; imports: Array<{ path: string; kind: string; external?: boolean }> }>;
}

export interface Groups {
  /** `api` or `cli`, by output file. */
  group: Map<string, string>;
  /** Merged facades: name → [facade, chunk]. */
  merges: Map<string, [string, string]>;
  staticImports(out: string): string[];
  closure(starts: Iterable<string>, stop?: (out: string) => boolean): Set<string>;
}

/** lazyGroups: group name → the source of a lazily imported entry whose static imports it takes (src/cli-program.ts). */
export function chunkGroups(esbuildMeta: Outputs, entryOut: string, isApiCore: (out: string) => boolean, lazyGroups?: Record<string, string>): Groups;
/** Module → chunk name; throws when two chunks would import each other. */
export function acyclicGroups(groups: Groups): Map<string, string>;
export function findCycle(edges: Map<string, Set<string>>): string[] | undefined;
