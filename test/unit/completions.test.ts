import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, Option } from '@commander-js/extra-typings';
import { afterAll, describe, expect, it } from 'vitest';
import { commandTree } from '../../src/program.js';
import { COMPLETION_FILES, SHELLS, generateCompletion, type Shell } from '../../src/completion/generate.js';

const CHECKED_IN = new URL('../../completions/', import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'notevox-completions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The generated script of `shell`, written to a temp file (what the syntax and behaviour checks run). */
function scriptFile(shell: Shell): string {
  const file = join(dir, COMPLETION_FILES[shell]);
  writeFileSync(file, generateCompletion(commandTree(), shell));
  return file;
}

const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

/** Runs only where the shell exists; under CI (which installs zsh and fish) a missing shell is a failure. */
function withShell(shell: string, name: string, fn: () => void) {
  const present = has(shell);
  it.skipIf(!present && !process.env.CI)(name, () => {
    if (!present) throw new Error(`${shell} is not installed (CI must install it: see .ci/run)`);
    fn();
  });
}

function run(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir } });
  expect(r.stderr, `${cmd} ${args.join(' ')}`).toBe('');
  expect(r.status, `${cmd} ${args.join(' ')}`).toBe(0);
  return r.stdout;
}

describe('checked-in completion scripts', () => {
  for (const shell of SHELLS) {
    it(`completions/${COMPLETION_FILES[shell]} is up to date`, () => {
      let checkedIn = '';
      try {
        checkedIn = readFileSync(new URL(COMPLETION_FILES[shell], CHECKED_IN), 'utf8');
      } catch {}
      expect(generateCompletion(commandTree(), shell) === checkedIn, 'completions are stale: run npm run completions').toBe(true);
    });
  }
});

describe('syntax', () => {
  withShell('bash', 'bash -n accepts the bash script', () => run('bash', ['-n', scriptFile('bash')]));
  withShell('zsh', 'zsh -n accepts the zsh script', () => run('zsh', ['-n', scriptFile('zsh')]));
  withShell('fish', 'fish --no-execute accepts the fish script', () => run('fish', ['--no-execute', scriptFile('fish')]));
});

describe('bash behaviour', () => {
  /** COMPREPLY for a command line; the last word is the one being completed. */
  const complete = (file: string, words: string[]) => {
    const line = words.map((w) => `'${w}'`).join(' ');
    const out = run('bash', ['-c', `source '${file}'; COMP_WORDS=(${line}); COMP_CWORD=${words.length - 1}; _notevox; printf '%s\\n' "\${COMPREPLY[@]}"`]);
    return out.split('\n').filter(Boolean);
  };

  withShell('bash', 'completes commands, subcommands, options, option values and positional choices', () => {
    const file = scriptFile('bash');
    expect(complete(file, ['notevox', 'no'])).toContain('notes');
    expect(complete(file, ['notevox', 'notes', ''])).toContain('list');
    expect(complete(file, ['notevox', 'notes', 'list', '--li'])).toEqual(['--limit']);
    expect(complete(file, ['notevox', 'notes', 'list', '--js'])).toEqual(['--json']);
    expect(complete(file, ['notevox', '-o', ''])).toEqual(['csv', 'json', 'ndjson', 'table', 'tsv']);
    expect(complete(file, ['notevox', 'notes', 'list', '--output=nd'])).toEqual(['--output=ndjson']);
    expect(complete(file, ['notevox', '--output', '=', 'ts'])).toEqual(['tsv']);
    expect(complete(file, ['notevox', '--profile', 'notes', 'l'])).toEqual([]);
    expect(complete(file, ['notevox', '--profile', 'work', 'notes', 'l'])).toEqual(['list']);
    expect(complete(file, ['notevox', 'completion', ''])).toEqual(['bash', 'fish', 'zsh']);
    expect(complete(file, ['notevox', 'completion', 'bash', ''])).toEqual([]);
  });

  withShell('bash', 'offers the values of enum options instead of file names (issue 13 item 11)', () => {
    const file = scriptFile('bash');
    expect(complete(file, ['notevox', 'folders', 'create', '--sharing', ''])).toEqual(['ALL_MEMBER_EDITOR', 'ALL_MEMBER_VIEWER', 'LIMITED', 'PRIVATE']);
    expect(complete(file, ['notevox', 'folders', 'update', '12', '--sharing', 'LI'])).toEqual(['LIMITED']);
    expect(complete(file, ['notevox', 'voice', 'upload', 'a.wav', '--format', ''])).toEqual(['json', 'srt', 'text']);
    expect(complete(file, ['notevox', 'notes', 'documents', 'get', 'g', '1', '--format', ''])).toEqual(['html', 'json', 'markdown']);
    expect(complete(file, ['notevox', 'wm', 'list', '--scope', ''])).toEqual(['org', 'user', 'workspace']);
    expect(complete(file, ['notevox', 'sandbox', 'start', '--rate-limit-window', ''])).toEqual(['fixed', 'sliding']);
  });

  withShell('bash', 'offers -o text|srt only to the commands that take them (issue 29 item 3)', () => {
    const file = scriptFile('bash');
    const base = ['csv', 'json', 'ndjson', 'table', 'tsv'];
    expect(complete(file, ['notevox', 'notes', 'list', '-o', ''])).toEqual(base);
    expect(complete(file, ['notevox', 'folders', 'list', '--output', ''])).toEqual(base);
    expect(complete(file, ['notevox', 'voice', 'status', 'j', '-o', ''])).toEqual([...base, 'text'].sort());
    expect(complete(file, ['notevox', 'voice', 'transcribe', 'a.wav', '-o', ''])).toEqual([...base, 'text'].sort());
    for (const cmd of ['upload', 'wait', 'transcript']) expect(complete(file, ['notevox', 'voice', cmd, 'x', '-o', ''])).toEqual([...base, 'srt', 'text'].sort());
    expect(complete(file, ['notevox', 'voice', 'upload', 'a.wav', '--output=s'])).toEqual(['--output=srt']);
  });

  withShell('bash', 'completes the item after the last comma of an event type list, keeping the items before it', () => {
    const file = scriptFile('bash');
    expect(complete(file, ['notevox', 'webhooks', 'listen', '--events', 'note.e'])).toEqual(['note.ended']);
    expect(complete(file, ['notevox', 'webhooks', 'listen', '--events', 'note.ended,note_summary.g'])).toEqual(['note.ended,note_summary.generated']);
    expect(complete(file, ['notevox', 'sandbox', 'events', '--type=note.ended,folder.note.a'])).toEqual(['--type=note.ended,folder.note.added']);
    expect(complete(file, ['notevox', 'sandbox', 'events', '--type', 'note.ended,'])).toHaveLength(14);
  });
});

describe('zsh behaviour', () => {
  /** What a Tab makes of each line in an interactive zsh (driven through zpty) with the generated script on $fpath. */
  const complete = (lines: string[]): string[] => {
    const fpath = mkdtempSync(join(dir, 'fpath-'));
    writeFileSync(join(fpath, COMPLETION_FILES.zsh), generateCompletion(commandTree(), 'zsh'));
    const out = join(fpath, 'lines');
    run('zsh', ['-f', fileURLToPath(new URL('../fixtures/zsh-complete.zsh', import.meta.url)), fpath, out, ...lines]);
    return readFileSync(out, 'utf8').split('\n').slice(0, -1);
  };

  withShell('zsh', 'completes enum values, and the item after the last comma of an event type list', () => {
    expect(
      complete([
        'notevox folders create x --sharing LIM',
        'notevox -o js',
        'notevox webhooks listen --events note.ended,note_summary.g',
        'notevox sandbox events --type=note.ended,folder.note.a',
        'notevox voice upload a.wav -o sr',
        'notevox voice status j -o te',
        'notevox notes list -o te',
      ]),
    ).toEqual([
      'notevox folders create x --sharing LIMITED ',
      'notevox -o json ',
      'notevox webhooks listen --events note.ended,note_summary.generated,',
      'notevox sandbox events --type=note.ended,folder.note.added,',
      'notevox voice upload a.wav -o srt ',
      'notevox voice status j -o text ',
      'notevox notes list -o te',
    ]);
  });
});

describe('fish behaviour', () => {
  withShell('fish', 'completes subcommands by exact command path', () => {
    const file = scriptFile('fish');
    const complete = (line: string) =>
      run('fish', ['-c', `source '${file}'; complete -C '${line}'`])
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]);
    expect(complete('notevox no')).toContain('notes');
    expect(complete('notevox notes ')).toContain('list');
    expect(complete('notevox -o json notes list --li')).toEqual(['--limit']);
    expect(complete('notevox notes list --output ')).toEqual(['csv', 'json', 'ndjson', 'table', 'tsv']);
    // -o text|srt only where the command takes them (issue 29 item 3).
    expect(complete('notevox voice upload a.wav -o ')).toEqual(['csv', 'json', 'ndjson', 'srt', 'table', 'text', 'tsv']);
    expect(complete('notevox voice status j -o ')).toEqual(['csv', 'json', 'ndjson', 'table', 'text', 'tsv']);
    expect(complete('notevox webhooks listen --events note.ended,note_summary.g')).toEqual(['note.ended,note_summary.generated']);
    expect(complete('notevox sandbox events --type=note.ended,folder.note.a')).toEqual(['--type=note.ended,folder.note.added']);
  });
});

describe('generateCompletion', () => {
  const program = () => {
    const p = new Command('notevox').option('--json', 'JSON output').addOption(new Option('-o, --output <format>', 'format').choices(['tsv', 'json']));
    const notes = p.command('notes').alias('n').description('notes');
    notes.command('list').option('--limit <n>', 'limit').addOption(new Option('--secret-flag', 'hidden option').hideHelp());
    notes.command('purge', { hidden: true });
    p.command('zeta').description('z');
    p.command('alpha').description('a');
    return p;
  };

  it('leaves hidden commands and options out, keeps aliases and sorts what has no meaningful order', () => {
    for (const shell of SHELLS) {
      const script = generateCompletion(program(), shell);
      expect(script.endsWith('\n')).toBe(true);
      expect(script).not.toContain('purge');
      expect(script).not.toContain('secret-flag');
      expect(script).toContain('--limit');
      expect(script).toEqual(generateCompletion(program(), shell));
    }
    const bash = generateCompletion(program(), 'bash');
    expect(bash).toContain(`'') __notevox_r='alpha help notes n zeta'`);
    expect(bash).toContain(`__notevox_r='json tsv'`);
  });

  it('refuses names the scripts could not carry', () => {
    const p = new Command('notevox');
    p.command('list').addOption(new Option('--mode <m>', 'mode').choices(['a b']));
    expect(() => generateCompletion(p, 'bash')).toThrow(/choice "a b"/);
  });
});
