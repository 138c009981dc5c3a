import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEMO_NOTES } from '../../src/sandbox/demo-seed.js';
import { BIN } from '../helpers/cli.js';
import { expectNoSecrets, K } from '../helpers/expect.js';
import { startTestSandbox } from '../helpers/sandbox.js';

/** The built `notevox mcp` in its own process, driven by the SDK's stdio client against a real sandbox. */

let sb: Awaited<ReturnType<typeof startTestSandbox>>;
let dir: string;
beforeAll(async () => {
  sb = await startTestSandbox();
  dir = mkdtempSync(join(tmpdir(), 'nvx-mcp-e2e-'));
});
afterAll(async () => {
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('lists notes, reads one and renames it over stdio (--allow-writes)', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--base-url', sb.baseUrl, '--allow-writes'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CI: '1', NO_COLOR: '1', NOTEVOX_CONFIG_DIR: dir, NOTEVOX_API_KEY: K.admin },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  const client = new Client({ name: 'notevox-e2e', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['notes_list', 'notes_get', 'notes_update']));
    const list = await client.callTool({ name: 'notes_list', arguments: { size: 5 } });
    const notes = (list.structuredContent as { content: Array<{ guid: string; title: string }> }).content;
    expect(notes.length).toBe(5);
    const guid = notes.find((n) => n.guid === DEMO_NOTES.roadmapReview)?.guid ?? DEMO_NOTES.roadmapReview;
    const got = await client.callTool({ name: 'notes_get', arguments: { noteGuid: guid } });
    expect(got.isError).toBeFalsy();
    expect((got.structuredContent as { guid: string }).guid).toBe(guid);
    const renamed = await client.callTool({ name: 'notes_update', arguments: { noteGuid: guid, body: { title: 'Renamed over stdio' } } });
    expect(renamed.isError, JSON.stringify(renamed)).toBeFalsy();
    expect((renamed.structuredContent as { title: string }).title).toBe('Renamed over stdio');
    const again = await client.callTool({ name: 'notes_get', arguments: { noteGuid: guid } });
    expect((again.structuredContent as { title: string }).title).toBe('Renamed over stdio');
    expectNoSecrets(JSON.stringify([tools, list, got, renamed, again]), stderr);
  } finally {
    await client.close();
  }
  // Logs go to stderr (stdout carries only the protocol, or the client could not have parsed it).
  expect(stderr).toMatch(/notevox mcp: \d+ tools \(reads and writes\)/);
});

it('stops when the client goes away (stdin closed) or on SIGTERM, printing nothing on stdout', async () => {
  const { spawn } = await import('node:child_process');
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CI: '1', NO_COLOR: '1', NOTEVOX_CONFIG_DIR: dir, NOTEVOX_BASE_URL: sb.baseUrl, NOTEVOX_API_KEY: K.admin };
  const run = (stop: (child: ReturnType<typeof spawn>) => void) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, 'mcp'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (d) => (stdout += d));
      child.stderr!.on('data', (d) => {
        stderr += d;
        if (/on stdio/.test(stderr)) stop(child);
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  const closed = await run((c) => c.stdin!.end());
  expect(closed.code, closed.stderr).toBe(0);
  expect(closed.stdout).toBe('');
  const termed = await run((c) => c.kill('SIGTERM'));
  expect(termed.code, termed.stderr).not.toBeNull();
  expect(termed.stdout).toBe('');
  expectNoSecrets(closed.stderr, termed.stderr);
});
