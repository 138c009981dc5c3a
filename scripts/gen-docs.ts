// `npm run docs`: regenerate docs/commands.md (from the command tree), docs/endpoints.md, docs/openapi.json,
// docs/sandbox-control.openapi.json (the sandbox's control API) and
// the event types of docs/events.md (from the contract) and the README's table of bench targets, so none restates anything by hand. A unit test fails when
// they are stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderCommandsDoc, renderEndpointsDoc, renderEventsDoc } from '../src/docs.js';
import { commandTree } from '../src/program.js';
import { openApiText } from '../src/contract/openapi.js';
import { controlOpenApiText } from '../src/contract/control-openapi.js';
import { renderTargetsSection } from '../test/bench/targets.js';

const root = fileURLToPath(new URL('..', import.meta.url));
writeFileSync(root + 'docs/commands.md', renderCommandsDoc(commandTree()));
writeFileSync(root + 'docs/endpoints.md', renderEndpointsDoc());
writeFileSync(root + 'docs/openapi.json', openApiText());
writeFileSync(root + 'docs/sandbox-control.openapi.json', controlOpenApiText());
writeFileSync(root + 'docs/events.md', renderEventsDoc(readFileSync(root + 'docs/events.md', 'utf8')));
writeFileSync(root + 'README.md', renderTargetsSection(readFileSync(root + 'README.md', 'utf8')));
console.error('wrote docs/commands.md, docs/endpoints.md, docs/openapi.json, docs/sandbox-control.openapi.json and the generated sections of docs/events.md and README.md (the bench targets)');
