import { describe, expect, it } from 'vitest';
import { acyclicGroups, chunkGroups, findCycle, type Outputs } from '../../scripts/chunk-groups.mjs';

/** A metafile of esbuild outputs: `imports` are static unless marked `dyn:`; a name ending in `!` is an entry facade of `<name>.ts`. */
function meta(graph: Record<string, { inputs?: string[]; imports?: string[]; entry?: string }>): Outputs {
  const outputs: Outputs['outputs'] = {};
  for (const [out, o] of Object.entries(graph))
    outputs[out] = {
      ...(o.entry ? { entryPoint: o.entry } : {}),
      inputs: Object.fromEntries((o.inputs ?? []).map((i) => [i, {}])),
      imports: (o.imports ?? []).map((i) => (i.startsWith('dyn:') ? { path: i.slice(4), kind: 'dynamic-import' } : { path: i, kind: 'import-statement' })),
    };
  return { outputs };
}

const apiCore = (m: Outputs) => (out: string) => Object.keys(m.outputs[out].inputs).some((i) => i.startsWith('src/client/'));

describe('chunk groups of the build (scripts/chunk-groups.mjs)', () => {
  // The shape that broke with commander 15: esbuild's runtime (no inputs) is imported by the API core and by the
  // lazily imported read.ts, and start-up reaches it only through the API core.
  const graph = meta({
    'cli.js': { entry: 'src/cli.ts', inputs: ['src/cli.ts'], imports: ['client.js', 'dyn:read.js'] },
    'client.js': { inputs: ['src/client/client.ts'], imports: ['runtime.js'] },
    'runtime.js': {},
    'read.js': { entry: 'src/read.ts', imports: ['read-code.js', 'runtime.js', 'client.js'] },
    'read-code.js': { inputs: ['src/read.ts'], imports: ['runtime.js', 'client.js', 'dyn:follow.js'] },
    'follow.js': { entry: 'src/follow.ts', inputs: ['src/follow.ts'], imports: ['read-code.js'] },
  });

  it('the API core takes what it imports statically, the entry the rest of start-up, a facade its chunk', () => {
    expect(Object.fromEntries(acyclicGroups(chunkGroups(graph, 'cli.js', apiCore(graph))))).toEqual({ 'client.js': 'api', 'runtime.js': 'api', 'cli.js': 'cli', 'read.js': 'read', 'read-code.js': 'read' });
  });

  it('what one merge takes, the next cannot import back: a module both reach stays with the first', () => {
    const m = meta({
      'cli.js': { entry: 'src/cli.ts', inputs: ['src/cli.ts'], imports: ['dyn:a.js', 'dyn:b.js'] },
      'a.js': { entry: 'src/a.ts', imports: ['a-code.js'] },
      'a-code.js': { inputs: ['src/a.ts'], imports: ['b-code.js'] },
      'b.js': { entry: 'src/b.ts', imports: ['b-code.js'] },
      'b-code.js': { inputs: ['src/b.ts'], imports: ['a-code.js'] },
    });
    const groups = chunkGroups(m, 'cli.js', () => false);
    // chunkGroups merges only a facade whose chunk imports what start-up loaded: neither here
    expect(groups.merges.size).toBe(0);
    groups.merges.set('a', ['a.js', 'a-code.js']).set('b', ['b.js', 'b-code.js']);
    expect(Object.fromEntries(acyclicGroups(groups))).toEqual({ 'cli.js': 'cli', 'a.js': 'a', 'a-code.js': 'a', 'b-code.js': 'a', 'b.js': 'b' });
  });

  it('a lazy group takes its entry, its facade\'s chunks and what they import statically that start-up does not hold', () => {
    const m = meta({
      'cli.js': { entry: 'src/cli.ts', inputs: ['src/cli.ts'], imports: ['client.js', 'dyn:program.js', 'dyn:mcp.js'] },
      'client.js': { inputs: ['src/client/client.ts'] },
      'program.js': { entry: 'src/cli-program.ts', imports: ['program-code.js', 'shared.js'] },
      'program-code.js': { inputs: ['src/cli-program.ts'], imports: ['shared.js', 'client.js'] },
      'shared.js': { inputs: ['src/program.ts', 'node_modules/commander/index.js'], imports: ['client.js'] },
      'mcp.js': { entry: 'src/mcp.ts', inputs: ['src/mcp.ts'], imports: ['shared.js'] },
    });
    expect(Object.fromEntries(acyclicGroups(chunkGroups(m, 'cli.js', apiCore(m), { program: 'src/cli-program.ts' })))).toEqual({
      'client.js': 'api',
      'cli.js': 'cli',
      'program.js': 'program',
      'program-code.js': 'program',
      'shared.js': 'program',
    });
  });

  it('a cycle through the groups of start-up fails the build', () => {
    const groups = chunkGroups(graph, 'cli.js', apiCore(graph));
    // as if the API core imported the entry: cli → api → cli
    const staticImports = groups.staticImports;
    groups.staticImports = (out) => (out === 'client.js' ? [...staticImports(out), 'cli.js'] : staticImports(out));
    expect(() => acyclicGroups(groups)).toThrow(/would import each other/);
  });

  it('finds a cycle, or none', () => {
    expect(findCycle(new Map([['a', new Set(['b'])], ['b', new Set(['c'])], ['c', new Set<string>()]]))).toBeUndefined();
    expect(findCycle(new Map([['a', new Set(['b'])], ['b', new Set(['c'])], ['c', new Set(['b'])]]))).toEqual(['b', 'c', 'b']);
  });
});
