import { Option, type Command } from 'commander';
import { LIMITS } from '../../contract/limits.js';
import { action, examples, listOptions, skipped } from '../shared.js';
import { SCOPE_CHOICES } from './rules.js';

/** --scope and --workspace, on every wm command. */
function scoped(cmd: Command): Command {
  return cmd
    .addOption(new Option('--scope <scope>', 'word memories of the user (default), a workspace, or the organization').choices(SCOPE_CHOICES))
    .option('--workspace <ws>', 'the workspace (guid or exact name); implies --scope workspace. Without it, --scope workspace means the key\'s own workspace');
}

/** Reading CSV: shared by import and sync. */
function csvOptions(cmd: Command): Command {
  return cmd
    .option('--columns <list>', 'the file has no header: its columns in order, e.g. entry,subEntry or entry,-,subEntry (- ignores a column)')
    .option('--header', 'with --columns: the first row is a header to skip')
    .option('--skip-invalid', 'send the valid rows even when some are invalid (they are listed, and left out)')
    .option('--rejects <file>', 'write the invalid rows with their reason to this CSV file')
    .option('--concurrency <n>', 'requests in flight (default: chosen from the rate limit the service announces)');
}

export function registerWordMemories(program: Command): void {
  const wm = program
    .command('wm')
    .description('word memories (terms that improve transcription) of the user, a workspace or the organization: list, change, import, export, sync');
  if (skipped(wm)) return;
  const load = () => import('./run.js');
  const { min, max } = LIMITS.wordMemoryText;
  const bulk = LIMITS.wordMemoryBulkMax;

  examples(listOptions(scoped(wm.command('list').description('list word memories (stable order, by id)'))).action(action(load, 'list')), [
    'notevox wm list',
    'notevox wm list --scope org --all -o ndjson',
    'notevox wm list --workspace "Product Team" --limit 10',
  ]);
  examples(scoped(wm.command('get <id>').description('show one word memory')).action(action(load, 'get')), ['notevox wm get 42', 'notevox wm get 7 --scope org --json']);
  examples(
    scoped(wm.command('add <entry>').description(`add a word memory (${min}–${max} characters, no whitespace); an existing entry is left as it is`))
      .option('--sub <subEntry>', 'an alternate spelling or notation')
      .action(action(load, 'add')),
    ['notevox wm add Kubernetes --sub k8s', 'notevox wm add Northwind --scope org'],
  );
  examples(
    scoped(wm.command('update <id>').description('change the entry or subEntry of a word memory'))
      .option('--entry <entry>', 'new entry')
      .option('--sub <subEntry>', 'new subEntry')
      .option('--clear-sub', 'remove the subEntry')
      .action(action(load, 'update')),
    ['notevox wm update 42 --sub K8s', 'notevox wm update 42 --clear-sub'],
  );
  examples(
    scoped(wm.command('rm <id...>').description('delete word memories (asks first unless --yes)'))
      .option('-y, --yes', 'do not ask for confirmation')
      .action(action(load, 'remove')),
    ['notevox wm rm 42', 'notevox wm rm 42 43 44 --scope org --yes'],
  );

  examples(
    csvOptions(scoped(wm.command('import <file>').description(`create word memories from a CSV file (- for stdin): checks every row first, then sends batches of up to ${bulk}, resumable`)))
      .option('--batch-size <n>', `rows per request, 1–${bulk}`, String(bulk))
      .option('--dry-run', 'check the file and print the plan; send nothing')
      .option('--restart', 'ignore what an interrupted earlier run of the same import already sent')
      .action(action(() => import('./import.js'), 'importCsv')),
    [
      'notevox wm import terms.csv',
      'notevox wm import terms.csv --scope workspace --workspace "Product Team" --dry-run',
      'notevox wm import terms.csv --skip-invalid --rejects rejected.csv -o json',
      'cut -d, -f2,3 crm-export.csv | notevox wm import - --columns entry,subEntry --scope org',
    ],
  );
  examples(
    scoped(wm.command('export').description('write every word memory of a scope as CSV (entry,subEntry: the import format), or -o json / -o ndjson'))
      .option('--out <file>', 'write to this file instead of stdout (it appears only when complete)')
      .action(action(() => import('./export.js'), 'exportScope')),
    ['notevox wm export > terms.csv', 'notevox wm export --scope org --out org-terms.csv', 'notevox wm export -o ndjson | jq .entry'],
  );
  examples(
    csvOptions(scoped(wm.command('sync <file>').description('make a scope match a CSV file: create missing entries, update subEntry, and with --prune delete the others')))
      .option('--prune', 'also delete entries the file does not name')
      .option('--dry-run', 'print the plan only')
      .option('-y, --yes', 'apply without asking (needed when not interactive)')
      .action(action(() => import('./sync.js'), 'sync')),
    ['notevox wm sync terms.csv --dry-run', 'notevox wm sync terms.csv --prune --yes --scope org'],
  );
}
