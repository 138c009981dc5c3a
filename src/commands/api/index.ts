import { Command } from '@commander-js/extra-typings';
import { UsageError } from '../../errors.js';
import { headerPair, keyValue } from '../args.js';
import type { Flags, Registry } from '../registry.js';

/** commander accepts `api`'s request options after `spec` too; `api spec` refuses them rather than ignore them. */
function refuseRequestOptions(o: Flags<typeof api>): void {
  const given = [
    o.rawField.length && '-f',
    o.field.length && '-F',
    o.header.length && '-H',
    o.input !== undefined && '--input',
    o.include && '-i',
    o.paginate && '--paginate',
  ].filter((f): f is string => typeof f === 'string');
  if (given.length) throw new UsageError(`${given.join(', ')}: api spec makes no request`, 'Drop the option, or call a path: notevox api PATH.');
}

export const api = () =>
  new Command('api')
    .description('make an authenticated request to any API path and print the response (like gh api)')
    .argument('<method-or-path>', 'HTTP method (default GET, or POST when fields or --input are given without --paginate), or the path')
    .argument('[path]', 'path relative to /v1/external/ (e.g. notes), or absolute (/v1/api-key-scopes)')
    .option('-f, --raw-field <key=value>', 'add a string field to the JSON body (the query string for GET); key[] appends to a list, key[sub] nests', keyValue, [])
    .option('-F, --field <key=value>', 'add a typed field: true, false, null and numbers as JSON, @file (or @-) reads a file', keyValue, [])
    .option('--input <file>', 'send this JSON file (or - for stdin) as the body; fields then go to the query string')
    .option('-H, --header <key:value>', 'add a request header', headerPair, [])
    .option('-i, --include', 'print the status line and response headers to stderr (also for an error answer)')
    .option('--paginate', 'follow nextCursor and stream every item of content')
    .helpCommand(false);
export const spec = () => new Command('spec').description('print the OpenAPI 3.1 document of the API this build knows (docs/openapi.json), made locally: no key, no request');

export function registerApi(program: Command, r: Registry): void {
  const cmd = api();
  r.add(program, cmd, () => import('./run.js'), 'api', [
    'notevox api auth/me',
    'notevox api GET notes -f size=5 --query "content[].title"',
    'notevox api PATCH "notes/nt0000000001a?updateMask=title" -f title="New title"',
    'notevox api users/me/word-memories --paginate -o ndjson',
    'notevox api POST users/me/word-memories -f "entries[][entry]=Acme" -f "entries[][entry]=Globex"',
    'notevox api DELETE users/me/word-memories -F "ids[]=12" -F "ids[]=13"',
    'notevox api POST users/me/word-memories --input entries.json',
    'notevox api spec > openapi.json',
  ]);
  const specCmd = spec().hook('preAction', () => refuseRequestOptions(cmd.opts()));
  r.add(cmd, specCmd, () => import('./spec.js'), 'apiSpec', ['notevox api spec > openapi.json', "notevox api spec --query 'keys(paths)'", "notevox api spec --query 'components.schemas.Note'"]);
}
