// How scripts/build.mjs groups esbuild's output files into chunks before Rollup writes them (manualChunks): its own
// module, so that test/unit/chunk-groups.test.ts can check the groups and the cycle guard on small graphs.

/**
 * The chunk of each module (an output file of esbuild), decided here for every module a group takes, with the
 * static imports of its members: Rollup's manualChunks otherwise pulls a member's static imports into the first
 * group that reaches them, in an order that a change in a dependency's module graph can turn around, and two groups
 * then import each other (commander 15, ES modules only, no longer brought esbuild's CommonJS runtime to start-up:
 * the `read` group took it, which `api` imports: "Circular chunk: read → api → read").
 * - `api` (API_CORE) with everything it imports statically: it then imports no other chunk, so it cannot be part of a cycle;
 * - `cli`: the rest of what the entry loads statically (the entry and what it imports, where Rollup puts them anyway);
 * - each merged facade (see below) with what it imports that neither `api` nor `cli` holds.
 * No two groups import each other (acyclicGroups checks it).
 */
export function chunkGroups(esbuildMeta, entryOut, isApiCore, lazyGroups = {}) {
  const outputs = esbuildMeta.outputs;
  const staticImports = (out) => (outputs[out]?.imports ?? []).filter((i) => i.kind === 'import-statement' && !i.external).map((i) => i.path);
  const closure = (starts, stop = () => false) => {
    const seen = new Set();
    const visit = (out) => {
      if (seen.has(out) || stop(out)) return;
      seen.add(out);
      staticImports(out).forEach(visit);
    };
    starts.forEach(visit);
    return seen;
  };
  const group = new Map();
  for (const out of closure(Object.keys(outputs).filter(isApiCore))) group.set(out, 'api');
  const atStart = closure([entryOut]);
  for (const out of atStart) if (!group.has(out)) group.set(out, 'cli');
  /**
   * Each lazy group (lazyGroups: name → the source of a lazily imported entry, e.g. `program` → src/cli-program.ts,
   * main's commander path) with everything it imports statically that `api` and `cli` do not hold: one file to load
   * where esbuild wrote a facade and the chunks it shares with other lazy entries. It imports only `api`, `cli` and
   * itself, so it cannot be part of a cycle.
   */
  for (const [name, source] of Object.entries(lazyGroups)) {
    const starts = Object.keys(outputs).filter((out) => outputs[out].entryPoint === source);
    for (const out of closure(starts, (o) => group.has(o))) group.set(out, name);
  }
  /**
   * A module imported lazily and also shared (notes/read.ts: by `notes get` and by export, follow, mcp) is, from
   * esbuild, a facade (an entry with no code of its own) re-exporting a chunk that holds the module: two files to
   * load where one does. Such a facade and its chunk become one chunk when nothing else comes with them: the chunk
   * imports only what start-up has already loaded (`api`, `cli`), and no other facade re-exports it.
   */
  const loaded = (out) => group.has(out);
  const facadeOf = new Map();
  for (const [out, o] of Object.entries(outputs)) {
    if (!o.entryPoint || Object.keys(o.inputs).length > 0 || atStart.has(out)) continue;
    const code = staticImports(out).filter((i) => !loaded(i));
    const chunk = code.length === 1 ? outputs[code[0]] : undefined;
    if (!chunk || !(o.entryPoint in chunk.inputs) || !Object.keys(chunk.inputs).every((i) => i.startsWith('src/')) || !staticImports(code[0]).every(loaded)) continue;
    facadeOf.set(code[0], facadeOf.has(code[0]) ? null : out);
  }
  const merges = new Map();
  for (const [chunk, facade] of facadeOf) if (facade) merges.set(facade.replace(/^.*\/|\.js$/g, ''), [facade, chunk]);
  return { group, merges, staticImports, closure };
}

/**
 * Module → chunk name: the groups of chunkGroups, each merge with what it imports statically that no group holds
 * yet. By construction no two groups import each other (`api` imports only itself, `cli` only itself and `api`, a
 * merge what start-up has loaded or itself, and what one merge took the next cannot import back); this checks it on
 * esbuild's graph before Rollup sees it, and fails the build, naming the chunks, rather than leave Rollup to write
 * chunks that import each other.
 */
export function acyclicGroups({ group, merges, staticImports, closure }) {
  const assigned = new Map(group);
  for (const [name, members] of merges) for (const out of closure(members, (o) => group.has(o))) if (!assigned.has(out)) assigned.set(out, name);
  const edges = new Map();
  for (const [out, name] of assigned)
    for (const dep of staticImports(out)) {
      const to = assigned.get(dep);
      if (to && to !== name) (edges.get(name) ?? edges.set(name, new Set()).get(name)).add(to);
    }
  const cycle = findCycle(edges);
  if (cycle) throw new Error(`build: the chunks ${cycle.join(' → ')} would import each other (scripts/chunk-groups.mjs)`);
  return assigned;
}

/** A cycle in a graph of names (`a → b → a`, as a list ending where it starts), or undefined. */
export function findCycle(edges) {
  const state = new Map();
  const path = [];
  const visit = (n) => {
    if (state.get(n) === 'done') return undefined;
    if (state.get(n) === 'open') return [...path.slice(path.indexOf(n)), n];
    state.set(n, 'open');
    path.push(n);
    for (const m of edges.get(n) ?? []) {
      const c = visit(m);
      if (c) return c;
    }
    path.pop();
    state.set(n, 'done');
    return undefined;
  };
  for (const n of edges.keys()) {
    const c = visit(n);
    if (c) return c;
  }
  return undefined;
}
