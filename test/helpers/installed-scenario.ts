import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { expect } from 'vitest';
import { spawnSandboxProcess, type SandboxProcess } from './sandbox-process.js';

/** One run of an installed notevox: its exit code and output. */
export type RunInstalled = (args: string[], input?: string) => Promise<{ exitCode?: number; stdout: string; stderr: string }>;

export interface InstalledScenario {
  /** The command as the user types it: `notevox` on PATH, or the executable's path. */
  command: string;
  notevox: RunInstalled;
  /** Where the user runs it (the CSV is written here) and the environment it sees (PATH, HOME, nothing else). */
  cwd: string;
  env: Record<string, string>;
  /** An audio file, relative to `cwd`. */
  wav: string;
  /** bash, by a path that works under `env`. */
  bash: string;
  /** More commands against the same sandbox and login, before it stops. */
  more?: (s: { baseUrl: string; notes: Array<{ guid: string; title: string }> }) => Promise<void>;
}

/**
 * What a new user does with an installed notevox (the npm package, the single executable): start the sandbox,
 * log in with a demo key (config 0600, the key never shown), list notes, upload a voice file, import a CSV of word
 * memories, complete a command in bash; then stop the sandbox (exit 0). Both installs run this one scenario, so
 * they cannot drift apart; what only one of them has (its layout, its doctor line) stays in its own test.
 * The sandbox is killed if a step fails. Returns the sandbox process (its stderr) for checks after it stopped.
 */
export async function runInstalledScenario(s: InstalledScenario): Promise<SandboxProcess> {
  const { notevox, env } = s;
  const sb = await spawnSandboxProcess(s.command, { cwd: s.cwd, env });
  try {
    const { started } = sb;
    expect(started.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // Priya's account key made for the Product Team workspace: notes, voice jobs (in that workspace) and her word memories.
    const key = started.keys.find((k) => k.id === 'nvk_user_bound_product')!.key;

    const login = await notevox(['auth', 'login', '--with-key', '--base-url', started.baseUrl], key + '\n');
    expect(login.exitCode, login.stderr).toBe(0);
    const config = join(env.HOME, '.config', 'notevox', 'config.json');
    expect(login.stderr).toContain(config);
    expect(statSync(config).mode & 0o777).toBe(0o600);
    expect(login.stdout + login.stderr).not.toContain(key.split('.')[1]);

    const listed = await notevox(['notes', 'list', '-o', 'json']);
    expect(listed.exitCode, listed.stderr).toBe(0);
    const notes = JSON.parse(listed.stdout) as Array<{ guid: string; title: string }>;
    expect(notes.length).toBeGreaterThan(0);
    expect(notes.every((n) => typeof n.guid === 'string' && typeof n.title === 'string')).toBe(true);

    const voice = await notevox(['voice', 'upload', s.wav]);
    expect(voice.exitCode, voice.stderr).toBe(0);
    expect(voice.stderr).toMatch(/Uploaded hello\.wav/);
    expect(voice.stderr).toMatch(/COMPLETED/);
    expect(voice.stdout).toContain('[sandbox transcript 00:00:00');

    writeFileSync(join(s.cwd, 'terms.csv'), 'entry,subEntry\nQuillfeather,QF\nNotevoxium,\n');
    const imported = await notevox(['wm', 'import', 'terms.csv', '-o', 'json']);
    expect(imported.exitCode, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ rows: 2, created: 2, failed: 0, rejected: 0 });
    const words = await notevox(['wm', 'list', '--all', '-o', 'json']);
    expect(words.exitCode).toBe(0);
    expect((JSON.parse(words.stdout) as Array<{ entry: string; subEntry: string | null }>).filter((w) => w.entry === 'Quillfeather' || w.entry === 'Notevoxium')).toEqual([
      expect.objectContaining({ entry: 'Quillfeather', subEntry: 'QF' }),
      expect.objectContaining({ entry: 'Notevoxium', subEntry: null }),
    ]);

    await s.more?.({ baseUrl: started.baseUrl, notes });

    // Completions as docs/completions.md installs them for bash (the line for ~/.bashrc), from the installed notevox.
    const line = 'source <(notevox completion bash); COMP_WORDS=(notevox notes li); COMP_CWORD=2; _notevox; printf "%s\\n" "${COMPREPLY[@]}"';
    const completed = await execa(s.bash, ['-c', line], { cwd: s.cwd, env, extendEnv: false, reject: false });
    expect(completed.exitCode, completed.stderr).toBe(0);
    expect(completed.stdout.split('\n')).toEqual(['list']);
  } catch (e) {
    sb.child.kill('SIGKILL');
    throw e;
  }
  sb.child.kill('SIGTERM');
  expect(await sb.exited).toBe(0);
  return sb;
}
