// `npm run docs`: regenerate docs/commands.md (from the command tree) and docs/endpoints.md (from the
// contract), so neither restates anything by hand. A unit test fails when they are stale.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderCommandsDoc, renderEndpointsDoc } from '../src/docs.js';
import { buildProgram } from '../src/cli.js';

const root = fileURLToPath(new URL('..', import.meta.url));
writeFileSync(root + 'docs/commands.md', renderCommandsDoc(buildProgram()));
writeFileSync(root + 'docs/endpoints.md', renderEndpointsDoc());
console.error('wrote docs/commands.md and docs/endpoints.md');
