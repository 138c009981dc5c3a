import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The rooms of the architecture (README, helper brief), held by reading src/: no import cycle, the sandbox reached
 * from the CLI only through its own command, and the process's stdout and environment touched only by src/io and
 * the entry points.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [join(dir, e.name)] : []));
}
const FILES = sources(SRC);
const rel = (file: string) => relative(ROOT, file).split('\\').join('/');
const text = new Map(FILES.map((f) => [f, readFileSync(f, 'utf8')]));

interface Import {
  from: string;
  to: string;
  /** `import type`/`export type`: gone after compilation. */
  typeOnly: boolean;
  /** `import('…')`: loaded when the code runs, not with the module. */
  dynamic: boolean;
}

/** Every relative import of every source file, resolved to the file it names. */
function imports(): Import[] {
  const out: Import[] = [];
  const statics = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"](\.[^'"]+)['"]/gm;
  const dynamics = /import\(\s*['"](\.[^'"]+)['"]\s*\)/g;
  for (const [file, src] of text) {
    const target = (spec: string) => resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
    for (const m of src.matchAll(statics)) out.push({ from: file, to: target(m[3]), typeOnly: Boolean(m[2]), dynamic: false });
    for (const m of src.matchAll(dynamics)) out.push({ from: file, to: target(m[1]), typeOnly: false, dynamic: true });
  }
  return out;
}
const IMPORTS = imports();

describe('architecture', () => {
  it('finds the imports it checks (the parser works)', () => {
    expect(IMPORTS.filter((i) => rel(i.from) === 'src/cli-program.ts' && !i.typeOnly && !i.dynamic).map((i) => rel(i.to))).toContain('src/program.ts');
    expect(IMPORTS.some((i) => i.typeOnly)).toBe(true);
    expect(IMPORTS.some((i) => i.dynamic)).toBe(true);
    for (const i of IMPORTS) expect(text.has(i.to), `${rel(i.from)} imports ${rel(i.to)}, which is not a source file`).toBe(true);
  });

  it('has no import cycle among the modules loaded with each other (static value imports)', () => {
    const edges = new Map<string, string[]>();
    for (const i of IMPORTS) if (!i.typeOnly && !i.dynamic) edges.set(i.from, [...(edges.get(i.from) ?? []), i.to]);
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (f: string) => {
      state.set(f, 'open');
      stack.push(f);
      for (const to of edges.get(f) ?? []) {
        if (state.get(to) === 'open') cycles.push([...stack.slice(stack.indexOf(to)), to].map(rel).join(' → '));
        else if (!state.has(to)) visit(to);
      }
      stack.pop();
      state.set(f, 'done');
    };
    for (const f of FILES) if (!state.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });

  it('reaches src/sandbox from CLI code only through the sandbox command', () => {
    const inSandbox = (f: string) => rel(f).startsWith('src/sandbox/');
    const allowed = (f: string) => inSandbox(f) || rel(f).startsWith('src/commands/sandbox/');
    const bad = IMPORTS.filter((i) => !i.typeOnly && inSandbox(i.to) && !allowed(i.from)).map((i) => `${rel(i.from)} → ${rel(i.to)}`);
    expect(bad).toEqual([]);
  });

  it('keeps each room to its own side: no back-arrows from io or the sandbox into the client, nor from events into handlers', () => {
    // The pieces both sides use live in rooms of their own (src/redact.ts, src/post-json.ts, src/sandbox/note-content.ts).
    const rules: Array<[from: string, to: string]> = [
      ['src/io/', 'src/client/'],
      ['src/io/', 'src/commands/'],
      ['src/sandbox/', 'src/client/'],
      ['src/sandbox/', 'src/commands/'],
      ['src/sandbox/events/', 'src/sandbox/handlers/'],
    ];
    const bad = IMPORTS.filter((i) => rules.some(([from, to]) => rel(i.from).startsWith(from) && rel(i.to).startsWith(to))).map((i) => `${rel(i.from)} → ${rel(i.to)}`);
    expect(bad).toEqual([]);
  });

  it('writes process.stdout and changes process.env only in src/io and the entry points', () => {
    const ENTRIES = new Set(['src/cli.ts', 'src/exe.ts']);
    const writes = /process\.stdout\.write|process\.stdout\.(?:on|once)\(|(?:process\.env(?:\.\w+|\[[^\]]+\]))\s*(?:=(?!=)|\+=)|delete\s+process\.env|Object\.assign\(\s*process\.env/;
    const bad: string[] = [];
    for (const [file, src] of text) {
      const r = rel(file);
      if (r.startsWith('src/io/') || ENTRIES.has(r)) continue;
      src.split('\n').forEach((line, n) => {
        if (writes.test(line)) bad.push(`${r}:${n + 1}: ${line.trim()}`);
      });
    }
    expect(bad).toEqual([]);
  });
});
