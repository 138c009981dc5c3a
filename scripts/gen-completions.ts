// `npm run completions`: regenerate the checked-in shell completion scripts from the command tree.
import { writeFileSync } from 'node:fs';
import { commandTree } from '../src/program.js';
import { COMPLETION_FILES, SHELLS, generateCompletion } from '../src/completion/generate.js';

for (const shell of SHELLS) {
  const file = new URL(`../completions/${COMPLETION_FILES[shell]}`, import.meta.url);
  writeFileSync(file, generateCompletion(commandTree(), shell));
  process.stderr.write(`wrote completions/${COMPLETION_FILES[shell]}\n`);
}
