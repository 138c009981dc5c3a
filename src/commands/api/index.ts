import type { Command } from 'commander';
import { action, examples } from '../shared.js';

const collect = (v: string, prev: string[]) => [...prev, v];

export function registerApi(program: Command): void {
  examples(
    program
      .command('api')
      .description('make an authenticated request to any API path and print the response (like gh api)')
      .argument('<method-or-path>', 'HTTP method (default GET, or POST when fields or --input are given without --paginate), or the path')
      .argument('[path]', 'path relative to /v1/external/ (e.g. notes), or absolute (/v1/api-key-scopes)')
      .option('-f, --raw-field <key=value>', 'add a string field to the JSON body (the query string for GET); key[] appends to a list, key[sub] nests', collect, [])
      .option('-F, --field <key=value>', 'add a typed field: true, false, null and numbers as JSON, @file (or @-) reads a file', collect, [])
      .option('--input <file>', 'send this JSON file (or - for stdin) as the body; fields then go to the query string')
      .option('-H, --header <key:value>', 'add a request header', collect, [])
      .option('-i, --include', 'print the status line and response headers to stderr (also for an error answer)')
      .option('--paginate', 'follow nextCursor and stream every item of content')
      .action(action(() => import('./run.js'), 'api')),
    [
      'notevox api auth/me',
      'notevox api GET notes -f size=5 --query "content[].title"',
      'notevox api PATCH "notes/nt0000000001a?updateMask=title" -f title="New title"',
      'notevox api users/me/word-memories --paginate -o ndjson',
      'notevox api POST users/me/word-memories -f "entries[][entry]=Acme" -f "entries[][entry]=Globex"',
      'notevox api DELETE users/me/word-memories -F "ids[]=12" -F "ids[]=13"',
      'notevox api POST users/me/word-memories --input entries.json',
    ],
  );
}
