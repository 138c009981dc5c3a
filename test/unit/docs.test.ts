import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { examplesOf } from '../../src/commands/shared.js';
import { openApiText } from '../../src/contract/openapi.js';
import { renderCommandsDoc, renderEndpointsDoc } from '../../src/docs.js';

const read = (p: string) => readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');

describe('generated docs', () => {
  it('docs/commands.md matches the command tree (run npm run docs when this fails)', () => {
    expect(read('docs/commands.md')).toBe(renderCommandsDoc(buildProgram()));
  });
  it('docs/endpoints.md matches the contract (run npm run docs when this fails)', () => {
    expect(read('docs/endpoints.md')).toBe(renderEndpointsDoc());
  });
  it('docs/openapi.json matches the contract (run npm run docs when this fails)', () => {
    expect(read('docs/openapi.json')).toBe(openApiText());
  });
  it('every leaf command has an example in its --help', () => {
    const missing: string[] = [];
    const visit = (cmd: ReturnType<typeof buildProgram>, path: string) => {
      for (const sub of cmd.commands) {
        const p = `${path} ${sub.name()}`;
        if (sub.commands.length) visit(sub, p);
        else if (examplesOf(sub).length === 0 && sub.name() !== 'help') missing.push(p);
      }
    };
    visit(buildProgram(), 'notevox');
    expect(missing).toEqual([]);
  });
});
