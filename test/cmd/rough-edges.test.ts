import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pickSummary } from '../../src/commands/notes/summaries.js';
import { DEMO_KEYS } from '../../src/sandbox/demo-seed.js';
import { tempConfigDir } from '../helpers/cli.js';
import { expectNoSecrets, K } from '../helpers/expect.js';
import { commandSandbox, runCommand, SANDBOX_URL } from '../helpers/run-command.js';

/**
 * Issue 29 item 3: the messages a new user met on a first walk through the CLI. Each test runs the real program in
 * this process and reads what a user reads: the exit code and stderr.
 */

type Box = Awaited<ReturnType<typeof commandSandbox>>;
let sb: Box;
beforeAll(async () => {
  sb = await commandSandbox();
});
afterAll(() => sb?.close());

describe('unknown commands', () => {
  it('`folders tree` points at `folders list --tree`, not at a similar name', async () => {
    const r = await runCommand(['folders', 'tree']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("unknown command 'tree' for 'notevox folders'");
    expect(r.stderr).toContain('notevox folders list --tree');
    expect(r.stderr).not.toContain('create');
  });
  it('a mistyped sub-command still gets "Did you mean"', async () => {
    const r = await runCommand(['folders', 'lst']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('Did you mean list?');
  });
  it('`notevox nosuch --help` names the unknown command and exits 2 (not the root help, not 0)', async () => {
    for (const argv of [['nosuch', '--help'], ['nosuch', '-h'], ['notes', 'nosuch', '--help']]) {
      const r = await runCommand(argv);
      expect(r.exitCode, argv.join(' ')).toBe(2);
      expect(r.stderr).toContain("unknown command 'nosuch'");
      expect(r.stdout).toBe('');
    }
    const near = await runCommand(['note', '--help']);
    expect(near.stderr).toContain('Did you mean notes?');
    const ok = await runCommand(['notes', 'list', '--help']);
    expect(ok.exitCode).toBe(0);
    expect(ok.stdout).toContain('Usage: notevox notes list');
  });
});

describe('did you mean, for values', () => {
  it('a mistyped event type', async () => {
    const r = await runCommand(['sandbox', 'events', '--type', 'note.endd'], { sandbox: sb });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('Did you mean note.ended?');
    const t = await runCommand(['sandbox', 'trigger', 'note.endd'], { sandbox: sb });
    expect(t.exitCode).toBe(2);
    expect(t.stderr).toContain('Did you mean note.ended?');
  });
  it('a mistyped setting or setting value', async () => {
    const v = await runCommand(['config', 'set', 'output', 'jsno']);
    expect(v.exitCode).toBe(2);
    expect(v.stderr).toContain('Did you mean json?');
    const k = await runCommand(['config', 'set', 'outptu', 'json']);
    expect(k.exitCode).toBe(2);
    expect(k.stderr).toContain('Did you mean output?');
    const o = await runCommand(['notes', 'list', '-o', 'jsno']);
    expect(o.exitCode).toBe(2);
    expect(o.stderr).toContain('Did you mean json?');
  });
});

describe('sandbox events --since', () => {
  it('is checked before any request: exit 2 naming the flag', async () => {
    const r = await runCommand(['sandbox', 'events', '--since', 'bogus'], { sandbox: sb });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--since "bogus"');
    const bad = await runCommand(['sandbox', 'events', '--since', 'evt_short'], { sandbox: sb });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('is not an event id');
    const ok = await runCommand(['sandbox', 'events', '--since', '2020-01-01', '--json'], { sandbox: sb });
    expect(ok.exitCode, ok.stderr).toBe(0);
  });
});

describe('group help (issue 29 item 4)', () => {
  it('shows examples of its commands', async () => {
    for (const group of [['notes'], ['wm'], ['sandbox'], ['notes', 'documents'], ['sandbox', 'live-note']]) {
      const r = await runCommand([...group, '--help']);
      expect(r.exitCode).toBe(0);
      const examples = r.stdout.slice(r.stdout.indexOf('\nExamples:\n'));
      expect(examples, group.join(' ')).toMatch(new RegExp(`\\n  \\$ notevox ${group.join(' ')} \\S`));
    }
  });
});

describe('auth messages', () => {
  const wrong = `${DEMO_KEYS.admin.id}.wrongsecretwrongsecret`;
  it('`auth status --profile nosuch` says there is no such profile and lists the ones there are', async () => {
    const cfg = tempConfigDir();
    try {
      const login = await runCommand(['auth', 'login', '--with-key', '--base-url', SANDBOX_URL, '--profile', 'sandbox'], { sandbox: sb, configDir: cfg.dir, stdin: K.admin });
      expect(login.exitCode, login.stderr).toBe(0);
      const r = await runCommand(['auth', 'status', '--profile', 'sandbx'], { sandbox: sb, configDir: cfg.dir, env: { NOTEVOX_BASE_URL: undefined } });
      expect(r.exitCode).toBe(3);
      expect(r.stderr).toContain('no such profile "sandbx" (--profile)');
      expect(r.stderr).toContain('Did you mean sandbox?');
      expect(r.stderr).toContain('Known profiles: sandbox');
      expect(r.stderr).not.toContain('no API key');
      const env = await runCommand(['auth', 'status'], { sandbox: sb, configDir: cfg.dir, env: { NOTEVOX_PROFILE: 'nosuch', NOTEVOX_BASE_URL: undefined } });
      expect(env.exitCode).toBe(3);
      expect(env.stderr).toContain('no such profile "nosuch" (NOTEVOX_PROFILE)');
    } finally {
      cfg.cleanup();
    }
  });

  it('logging out of the current profile says how to switch to another', async () => {
    const cfg = tempConfigDir();
    try {
      for (const profile of ['ci', 'sandbox'])
        expect((await runCommand(['auth', 'login', '--with-key', '--base-url', SANDBOX_URL, '--profile', profile], { sandbox: sb, configDir: cfg.dir, stdin: K.admin })).exitCode).toBe(0);
      const r = await runCommand(['auth', 'logout'], { sandbox: sb, configDir: cfg.dir });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toContain('Removed the stored key of profile "sandbox"');
      expect(r.stderr).toContain('`notevox auth switch ci`');
      expect(r.stderr).toContain('notevox auth login --profile sandbox');
      const other = await runCommand(['auth', 'logout', '--profile', 'ci'], { sandbox: sb, configDir: cfg.dir });
      expect(other.stderr).not.toContain('auth switch');
    } finally {
      cfg.cleanup();
    }
  });

  it('a mistyped key at the interactive login is asked for again, a bounded number of times', async () => {
    const cfg = tempConfigDir();
    try {
      const again = await runCommand(['auth', 'login', '--base-url', SANDBOX_URL, '--profile', 'typed'], {
        sandbox: sb,
        configDir: cfg.dir,
        tty: true,
        prompts: [
          { kind: 'password', message: 'key', answer: 'not a key' },
          { kind: 'password', message: 'key', answer: wrong },
          { kind: 'password', message: 'key', answer: K.member },
        ],
      });
      expect(again.exitCode, again.stderr).toBe(0);
      expect(again.stderr).toContain('Try again (2 tries left)');
      expect(again.stderr).toContain('Try again (1 try left)');
      expect(again.stderr).toContain('Logged in');
      const give = await runCommand(['auth', 'login', '--base-url', SANDBOX_URL, '--profile', 'never'], {
        sandbox: sb,
        configDir: cfg.dir,
        tty: true,
        prompts: [1, 2, 3].map(() => ({ kind: 'password' as const, message: 'key', answer: wrong })),
      });
      expect(give.exitCode).toBe(3);
      expectNoSecrets(give.stdout, give.stderr);
    } finally {
      cfg.cleanup();
    }
  });
});

describe('sandbox events on a terminal', () => {
  it('never cuts an event id, so it can be copied into --since (120 columns and narrower)', async () => {
    for (let i = 0; i < 2; i++) expect((await runCommand(['sandbox', 'trigger', 'note.ended', '--note', 'nt1LaunchPlan'], { sandbox: sb })).exitCode).toBe(0);
    const ids = (JSON.parse((await runCommand(['sandbox', 'events', '--json'], { sandbox: sb })).stdout) as Array<{ id: string }>).map((e) => e.id);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    for (const columns of [120, 80]) {
      const r = await runCommand(['sandbox', 'events'], { sandbox: sb, tty: true, columns });
      expect(r.exitCode, r.stderr).toBe(0);
      for (const id of ids) expect(r.stdout, `${columns} columns`).toContain(id);
    }
    const since = await runCommand(['sandbox', 'events', '--since', ids[0], '--json'], { sandbox: sb });
    expect(since.exitCode, since.stderr).toBe(0);
  });
});

describe('notes export', () => {
  it('of an English note takes the English summary, not a newer translated one', async () => {
    const r = await runCommand(['notes', 'export', 'nt1LaunchPlan'], { sandbox: sb, key: 'admin' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('The team set the Q1 launch scope');
    expect(r.stdout).not.toContain('요약');
  });
  it('picks the note’s locale, then its language, then the newest of any', () => {
    const s = (id: number, locale: string, createdAt: string) => ({ id, locale, createdAt });
    const all = [s(1, 'en_US', '2026-01-01T00:00:00Z'), s(2, 'ko_KR', '2026-01-02T00:00:00Z'), s(3, 'en_GB', '2026-01-03T00:00:00Z')];
    expect(pickSummary(all, 'en_US')?.id).toBe(1);
    expect(pickSummary(all, 'en_AU')?.id).toBe(3);
    expect(pickSummary(all, 'ko_KR')?.id).toBe(2);
    expect(pickSummary(all, 'de_DE')?.id).toBe(3);
    expect(pickSummary(all, null)?.id).toBe(3);
    expect(pickSummary([], 'en_US')).toBeUndefined();
  });
});

describe('help <command>', () => {
  it('a mistyped command or topic gets "Did you mean"', async () => {
    const r = await runCommand(['help', 'notse']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('unknown command or topic "notse"');
    expect(r.stderr).toContain('Did you mean notes?');
    expect((await runCommand(['help', 'exit-code'])).stderr).toContain('Did you mean exit-codes?');
  });
});
