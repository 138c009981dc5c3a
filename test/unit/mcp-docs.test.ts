import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mcp } from '../../src/commands/mcp/index.js';
import { allTools } from '../../src/commands/mcp/server.js';

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
