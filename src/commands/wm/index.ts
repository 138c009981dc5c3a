import { Command, Option, type OptionValues } from '@commander-js/extra-typings';
import { LIMITS } from '../../contract/limits.js';
import { integer } from '../args.js';
import type { Registry } from '../registry.js';
import { listOptions } from '../shared.js';
import { MAX_CONCURRENCY, SCOPE_CHOICES } from './rules.js';

const { min, max } = LIMITS.wordMemoryText;
const bulk = LIMITS.wordMemoryBulkMax;

/** --scope and --workspace, on every wm command. */
const scoped = <A extends unknown[], O extends OptionValues>(cmd: Command<A, O>) =>
  cmd
    .addOption(new Option('--scope <scope>', 'word memories of the user (default), a workspace, or the organization').choices(SCOPE_CHOICES))
    .option('--workspace <ws>', "the workspace (guid or exact name); implies --scope workspace. Without it, --scope workspace means the key's own workspace");

/** Reading CSV: shared by import and sync. */
const csvOptions = <A extends unknown[], O extends OptionValues>(cmd: Command<A, O>) =>
  cmd
    .option('--columns <list>', 'the file has no header: its columns in order, e.g. entry,subEntry or entry,-,subEntry (- ignores a column)')
    .option('--header', 'with --columns: the first row is a header to skip')
    .option('--delimiter <char>', "the character between fields: , (default), ';' as spreadsheets write in many locales, tab, |")
    .option('--skip-invalid', 'send the valid rows even when some are invalid (they are listed, and left out)')
    .option('--rejects <file>', 'write the invalid rows with their reason to this CSV file')
    .option('--concurrency <n>', 'requests in flight (default: chosen from the rate limit the service announces)', integer(1, MAX_CONCURRENCY));

const wmId = integer(0, Number.MAX_SAFE_INTEGER, 'Ids are whole numbers; see `notevox wm list`.');

export const list = () => listOptions(scoped(new Command('list').description('list word memories (stable order, by id)')));
export const get = () => scoped(new Command('get').argument('<id>', 'the word memory id', wmId).description('show one word memory'));
export const add = () =>
  scoped(new Command('add').argument('<entry>', 'the entry').description(`add a word memory (${min}–${max} characters, no whitespace); an existing entry is left as it is`)).option(
    '--sub <subEntry>',
    'an alternate spelling or notation',
  );
export const update = () =>
  scoped(new Command('update').argument('<id>', 'the word memory id', wmId).description('change the entry or subEntry of a word memory'))
    .option('--entry <entry>', 'new entry')
    .option('--sub <subEntry>', 'new subEntry')
    .option('--clear-sub', 'remove the subEntry');
export const remove = () =>
  scoped(new Command('rm').argument('<id...>', 'word memory ids', (v: string, previous: number[] = []) => [...previous, wmId(v)]).description('delete word memories (asks first unless --yes)')).option(
    '-y, --yes',
    'do not ask for confirmation',
  );
export const importCsv = () =>
  csvOptions(
    scoped(new Command('import').argument('<file>', 'a CSV file, or - for standard input').description(`create word memories from a CSV file (- for stdin): checks every row first, then sends batches of up to ${bulk}, resumable`)),
  )
    .addOption(new Option('--batch-size <n>', `rows per request, 1–${bulk}`).argParser(integer(1, bulk)).default(bulk))
    .option('--dry-run', 'check the file and print the plan; send nothing')
    .option('--restart', 'ignore what an interrupted earlier run of the same import already sent');
export const exportScope = () =>
  scoped(new Command('export').description('write every word memory of a scope as CSV (entry,subEntry: the import format), or -o json / -o ndjson')).option(
    '--out <file>',
    'write to this file instead of stdout (it appears only when complete)',
  );
export const sync = () =>
  csvOptions(scoped(new Command('sync').argument('<file>', 'a CSV file, or - for standard input').description('make a scope match a CSV file: create missing entries, update subEntry, and with --prune delete the others')))
    .option('--prune', 'also delete entries the file does not name')
    .option('--dry-run', 'print the plan only')
    .option('-y, --yes', 'apply without asking (needed when not interactive)');

export function registerWordMemories(program: Command, r: Registry): void {
  const wm = program.command('wm').description('word memories (terms that improve transcription) of the user, a workspace or the organization: list, change, import, export, sync');
  if (!r.wants('wm')) return;
  const load = () => import('./run.js');
  r.add(wm, list, load, 'list', ['notevox wm list', 'notevox wm list --scope org --all -o ndjson', 'notevox wm list --workspace "Product Team" --limit 10']);
  r.add(wm, get, load, 'get', ['notevox wm get 42', 'notevox wm get 7 --scope org --json']);
  r.add(wm, add, load, 'add', ['notevox wm add Kubernetes --sub k8s', 'notevox wm add Northwind --scope org']);
  r.add(wm, update, load, 'update', ['notevox wm update 42 --sub K8s', 'notevox wm update 42 --clear-sub']);
  r.add(wm, remove, load, 'remove', ['notevox wm rm 42', 'notevox wm rm 42 43 44 --scope org --yes']);
  r.add(wm, importCsv, () => import('./import.js'), 'importCsv', [
    'notevox wm import terms.csv',
    'notevox wm import terms.csv --scope workspace --workspace "Product Team" --dry-run',
    'notevox wm import terms.csv --skip-invalid --rejects rejected.csv -o json',
    'cut -d, -f2,3 crm-export.csv | notevox wm import - --columns entry,subEntry --scope org',
    "notevox wm import excel-export.csv --delimiter ';'",
    "notevox wm import excel-export.csv --delimiter ';'",
  ]);
  r.add(wm, exportScope, () => import('./export.js'), 'exportScope', ['notevox wm export > terms.csv', 'notevox wm export --scope org --out org-terms.csv', 'notevox wm export -o ndjson | jq .entry']);
  r.add(wm, sync, () => import('./sync.js'), 'sync', ['notevox wm sync terms.csv --dry-run', 'notevox wm sync terms.csv --prune --yes --scope org']);
}
