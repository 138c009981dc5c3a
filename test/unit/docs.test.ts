import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commandTree } from '../../src/program.js';
import { examplesOf } from '../../src/commands/shared.js';
import { EVENT_SCHEMAS } from '../../src/contract/event-schemas.js';
import { EVENT_TYPES } from '../../src/contract/events.js';
import { openApiText } from '../../src/contract/openapi.js';
import { controlOpenApiText } from '../../src/contract/control-openapi.js';
import { renderTargetsSection } from '../bench/targets.js';
import { exampleEnvelope, renderCommandsDoc, renderEndpointsDoc, renderEventsDoc } from '../../src/docs.js';

const read = (p: string) => readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');

describe('generated docs', () => {
  it('docs/commands.md matches the command tree (run npm run docs when this fails)', () => {
    expect(read('docs/commands.md')).toBe(renderCommandsDoc(commandTree()));
  });
  it('docs/endpoints.md matches the contract (run npm run docs when this fails)', () => {
    expect(read('docs/endpoints.md')).toBe(renderEndpointsDoc());
  });
  it('docs/openapi.json matches the contract (run npm run docs when this fails)', () => {
    expect(read('docs/openapi.json')).toBe(openApiText());
  });
  it('docs/sandbox-control.openapi.json matches the control API of the contract (run npm run docs when this fails)', () => {
    expect(read('docs/sandbox-control.openapi.json')).toBe(controlOpenApiText());
  });
  it('docs/events.md lists the event types of the contract (run npm run docs when this fails)', () => {
    const doc = read('docs/events.md');
    expect(doc).toBe(renderEventsDoc(doc));
    for (const t of EVENT_TYPES) expect(doc).toContain(`#### ${t.type}`);
  });
  it("the README's table of bench targets matches test/bench/targets.ts (run npm run docs when this fails)", () => {
    const readme = read('README.md');
    expect(readme).toBe(renderTargetsSection(readme));
  });
  it('every example envelope of docs/events.md parses with its type’s contract schema', () => {
    for (const t of EVENT_TYPES) {
      const r = EVENT_SCHEMAS[t.type].safeParse(exampleEnvelope(t.type));
      expect(r.success, `${t.type}: ${JSON.stringify(r.error?.issues)}`).toBe(true);
    }
  });
  it('every command, group or leaf, has an example in its --help (issue 29 item 4)', () => {
    const missing: string[] = [];
    const visit = (cmd: ReturnType<typeof commandTree>, path: string) => {
      for (const sub of cmd.commands) {
        const p = `${path} ${sub.name()}`;
        if (sub.commands.length) visit(sub as ReturnType<typeof commandTree>, p);
        if (sub.name() === 'help') continue;
        if (examplesOf(sub).length === 0) missing.push(p);
      }
    };
    visit(commandTree(), 'notevox');
    expect(missing).toEqual([]);
  });
});
