import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mcp } from '../../src/commands/mcp/index.js';
import { allTools } from '../../src/commands/mcp/server.js';
import { fit, fitText } from '../../src/commands/mcp/shape.js';

/** Other commands start without the MCP SDK, the mcp command's work or zod's JSON Schema converter (build/meta.json, written by npm run build). */
describe('registration stays cheap', () => {
  it('loads no part of the SDK or of the server with the CLI, nor with notes get', () => {
    type Meta = { outputs: Record<string, { inputs: Record<string, unknown>; imports: Array<{ path: string; kind: string }> }> };
    const meta = JSON.parse(readFileSync(new URL('../../build/meta.json', import.meta.url), 'utf8')) as Meta;
    const closure = (from: string) => {
      const seen = new Set<string>();
      const walk = (f: string) => {
        if (seen.has(f)) return;
        seen.add(f);
        for (const i of meta.outputs[f]?.imports ?? []) if (i.kind !== 'dynamic-import') walk(i.path);
      };
      walk(from);
      return [...seen].flatMap((f) => Object.keys(meta.outputs[f]?.inputs ?? {}));
    };
    const notesGet = Object.keys(meta.outputs).find((o) => 'src/commands/notes/read.ts' in meta.outputs[o]!.inputs)!;
    for (const entry of ['dist/cli.js', notesGet]) {
      const inputs = closure(entry);
      expect(inputs.filter((i) => i.includes('@modelcontextprotocol') || /src\/commands\/(mcp|tree)\/(?!index\.ts)/.test(i)), entry).toEqual([]);
    }
    const server = Object.keys(meta.outputs).find((o) => 'src/commands/mcp/server.ts' in meta.outputs[o]!.inputs)!;
    expect(closure(server).some((i) => i.includes('@modelcontextprotocol/server'))).toBe(true);
  });
});

/** docs/mcp.md says what the server does: its tool list is the server's, its client configurations parse and name real flags. */

const doc = readFileSync(new URL('../../docs/mcp.md', import.meta.url), 'utf8');

describe('docs/mcp.md', () => {
  it('lists every tool, and no other', () => {
    const listed = [...doc.matchAll(/^\| `([A-Za-z0-9_]+)` \|/gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual(allTools().map((t) => t.name).sort());
  });

  it('has client configurations that parse, start `notevox mcp` and pass only its flags', () => {
    const blocks = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as Record<string, Record<string, { command: string; args: string[] }>>);
    expect(blocks.length).toBe(3);
    const flags = new Set([...mcp().options.map((o) => o.long), '--profile', '--base-url']);
    for (const b of blocks) {
      const server = (b.mcpServers ?? b.servers)!.notevox!;
      expect(server.command).toBe('notevox');
      expect(server.args[0]).toBe('mcp');
      for (const a of server.args.slice(1).filter((x) => x.startsWith('--'))) expect(flags, a).toContain(a);
    }
  });
});

describe('results larger than the context allows', () => {
  it('keeps the first items of a list and says how many', () => {
    const page = { content: Array.from({ length: 500 }, (_, i) => ({ id: i, text: 'x'.repeat(200) })), nextCursor: 'c1' };
    const { value, note } = fit(page, 24_000);
    expect(JSON.stringify(value).length).toBeLessThanOrEqual(24_000);
    expect(value.content[0]).toEqual(page.content[0]);
    expect(value.nextCursor).toBe('c1');
    expect(note).toMatch(new RegExp(`only the first ${value.content.length} of 500 items`));
  });

  it('cuts long texts, saying which and by how much; leaves small answers alone', () => {
    const doc = { id: 1, content: 'y'.repeat(100_000) };
    const { value, note } = fit(doc, 24_000);
    expect(JSON.stringify(value).length).toBeLessThanOrEqual(24_000);
    expect(value.content).toMatch(/… \[cut: \d+ more characters\]$/);
    expect(note).toMatch(/long texts were cut to \d+ characters \(content\)/);
    expect(fit({ a: 1 })).toEqual({ value: { a: 1 } });
    expect(fitText('z'.repeat(30), 'See the file.', 10)).toEqual({ value: 'z'.repeat(10), note: 'Result cut: the first 10 of 30 characters are shown. See the file.' });
  });
});
