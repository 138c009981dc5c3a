import { Command } from '@commander-js/extra-typings';
import { commaList } from '../args.js';
import type { Registry } from '../registry.js';

/** `notevox mcp`: registration only; the server, the SDK and zod load when it runs (run.ts). */

export const mcp = () =>
  new Command('mcp')
    .description('run an MCP server on stdio: the whole API as tools for AI agents, read-only unless --allow-writes (docs/mcp.md)')
    .option('--allow-writes', 'also offer the tools that change data (create, update, upload, import)')
    .option('--allow-destructive', 'with --allow-writes: also offer the tools that delete or replace data')
    .option('--tools <glob,...>', 'offer only the tools whose names match, e.g. "notes_*,wm_list"', commaList((v) => v));

export function registerMcp(program: Command, r: Registry): void {
  r.add(program, mcp, () => import('./run.js'), 'mcp', [
    'notevox mcp',
    'notevox mcp --allow-writes --tools "notes_*,folders_*"',
    'notevox mcp --base-url http://127.0.0.1:4010 --allow-writes --allow-destructive',
  ]);
}
