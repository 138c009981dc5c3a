import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mcp } from '../../src/commands/mcp/index.js';
import { allTools } from '../../src/commands/mcp/server.js';

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
