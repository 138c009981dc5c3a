import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

/** `notevox api spec` from the built bundle: the committed document, made without a key or a request. */
describe('api spec', () => {
  const doc = readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8');
  // A base URL nothing listens on: printing the document must not need the network.
  const offline = { baseUrl: 'http://127.0.0.1:9' };

  it('prints docs/openapi.json byte for byte, and --query filters it', async () => {
    const all = await runCli(['api', 'spec'], offline);
    expect(all.exitCode, all.stderr).toBe(0);
    expect(all.stdout).toBe(doc.replace(/\n$/, '')); // runCli drops the final newline
    const version = await runCli(['api', 'spec', '--query', 'info.version'], offline);
    expect(JSON.parse(version.stdout)).toBe(JSON.parse(doc).info.version);
  });

  it("refuses api's request options (exit 2) instead of ignoring them", async () => {
    const r = await runCli(['api', 'spec', '-f', 'title=x', '--paginate'], offline);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('-f, --paginate: api spec makes no request');
  });
});
