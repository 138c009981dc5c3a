import type { CommandUnknownOpts as Command } from '@commander-js/extra-typings';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';

/** Every command path below `cmd`, e.g. `notes documents get`. */
const paths = (cmd: Command, prefix = ''): string[] => cmd.commands.flatMap((c) => [prefix + c.name(), ...paths(c, `${prefix}${c.name()} `)]);

describe('registering only the groups on the command line (a start-up shortcut)', () => {
  const full = buildProgram().program;

  it('leaves the top-level help exactly as it is with the whole tree', () => {
    expect(buildProgram({ wants: () => false }).program.helpInformation()).toBe(full.helpInformation());
  });

  it('skips the sub-commands of the other groups', () => {
    const onlyNotes = buildProgram({ wants: (g) => g === 'notes' }).program;
    expect(paths(onlyNotes).length).toBeLessThan(paths(full).length);
    expect(onlyNotes.commands.find((c) => c.name() === 'wm')!.commands).toEqual([]);
  });

  it.each(full.commands.map((c) => c.name()))('%s: the group named on the command line has its whole subtree and help', (name) => {
    const program = buildProgram({ wants: (g) => g === name }).program;
    const mine = program.commands.find((c) => c.name() === name)!;
    const theirs = full.commands.find((c) => c.name() === name)!;
    expect(paths(mine)).toEqual(paths(theirs));
    expect(mine.helpInformation()).toBe(theirs.helpInformation());
  });
});

describe('zod stays out of the start-up of commands that do not check an answer (build/meta.json, written by npm run build)', () => {
  type Meta = { outputs: Record<string, { imports: Array<{ path: string; kind: string; external?: boolean }>; inputs: Record<string, unknown> }> };
  const metaFile = fileURLToPath(new URL('../../build/meta.json', import.meta.url));
  const meta = (): Meta => {
    if (!existsSync(metaFile)) throw new Error('build/meta.json is missing: run `npm run build` first (npm test does)');
    return JSON.parse(readFileSync(metaFile, 'utf8')) as Meta;
  };
  /** The output file that bundles `source`. */
  const outputOf = (m: Meta, source: string) => {
    const found = Object.entries(m.outputs).find(([file, o]) => !file.endsWith('.map') && source in o.inputs);
    if (!found) throw new Error(`no output bundles ${source}`);
    return found[0];
  };
  /** Every package whose code is loaded, statically, with `file` (import() not followed). */
  const packagesLoadedWith = (m: Meta, file: string, seen = new Set<string>(), out = new Set<string>()) => {
    if (seen.has(file)) return out;
    seen.add(file);
    const o = m.outputs[file];
    for (const input of Object.keys(o.inputs)) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1];
      if (pkg) out.add(pkg);
    }
    for (const imp of o.imports.filter((i) => i.kind === 'import-statement')) {
      if (imp.external) out.add(imp.path.replace(/^((?:@[^/]+\/)?[^/]+).*$/, '$1'));
      else packagesLoadedWith(m, imp.path, seen, out);
    }
    return out;
  };

  it.each(['src/cli.ts', 'src/context.ts', 'src/client/client.ts', 'src/commands/notes/read.ts', 'src/commands/auth/run.ts', 'src/commands/wm/import.ts'])('%s loads no zod', (source) => {
    const m = meta();
    expect([...packagesLoadedWith(m, outputOf(m, source))]).not.toContain('zod');
  });

  it('the answer check (loaded on the first write) brings zod with it', () => {
    const m = meta();
    expect([...packagesLoadedWith(m, outputOf(m, 'src/contract/answers.ts'))]).toContain('zod');
  });
});
