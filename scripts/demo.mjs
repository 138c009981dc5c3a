#!/usr/bin/env node
// `npm run demo`: start a webhook receiver (`webhooks listen`) and the sandbox on free ports, log in with a
// seeded key into a throw-away config dir, take a short tour of the CLI (a rename delivers one event to the
// receiver), stop both, and leave nothing behind.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'notevox.js');

/** The newest modification time under `path`. */
function newest(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(st.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

// Build only when dist/ is missing or older than what it is built from (the rule of test/global-setup.ts): after
// `npm ci` (whose prepare step builds) a second build would only cost time.
const stamp = join(root, 'build', 'meta.json');
const inputs = ['src', 'bin', 'scripts/build.mjs', 'package.json', 'package-lock.json'].map((p) => join(root, p)).filter((p) => existsSync(p));
if (!existsSync(stamp) || !existsSync(join(root, 'dist', 'cli.js')) || inputs.some((p) => newest(p) > statSync(stamp).mtimeMs)) {
  const b = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' });
  if (b.status !== 0) process.exit(b.status ?? 1);
}
const configDir = mkdtempSync(join(tmpdir(), 'notevox-demo-'));
const env = { ...process.env, NOTEVOX_CONFIG_DIR: configDir, NO_COLOR: '1' };
delete env.NOTEVOX_API_KEY;
delete env.NOTEVOX_BASE_URL;
delete env.NOTEVOX_PROFILE;

// One secret for both ends of the webhook: the sandbox sends it, the receiver checks it (never on a command line).
const webhookSecret = `whsec_demo_${randomBytes(12).toString('hex')}`;
const listener = spawn(process.execPath, [bin, 'webhooks', 'listen', '--port', '0', '-o', 'table'], {
  env: { ...env, NOTEVOX_WEBHOOK_SECRET: webhookSecret },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let heard = '';
let listenerErr = '';
listener.stdout.on('data', (d) => (heard += d));
listener.stderr.on('data', (d) => (listenerErr += d));
let sandbox;
let failed = false;

function cleanup() {
  if (sandbox && sandbox.exitCode === null) sandbox.kill('SIGTERM');
  if (listener.exitCode === null) listener.kill('SIGINT');
  rmSync(configDir, { recursive: true, force: true });
}
process.on('SIGINT', () => {
  cleanup();
  process.exit(130);
});

// The tour's own headings follow the same colour rules as notevox (a terminal, no NO_COLOR, TERM not dumb).
const bold = process.stdout.isTTY && !process.env.NO_COLOR && process.env.TERM !== 'dumb' ? (s) => `\x1b[1m${s}\x1b[0m` : (s) => s;
/** Shown as it would be typed: arguments with spaces or quotes are quoted. */
const shellWord = (a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);

/**
 * One step: its heading, then what the command prints as it prints it (stdout and stderr in the order they come,
 * as in a terminal: progress before the result), with stdout also kept for the tour to read.
 */
async function run(title, args, input) {
  // Written before the command starts (stdout is synchronous on files, pipes and terminals), so nothing of it comes first.
  process.stdout.write(`\n${bold(`$ notevox ${args.map(shellWord).join(' ')}`)}${title ? `   # ${title}` : ''}\n`);
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (d) => {
    stdout += d;
    process.stdout.write(d);
  });
  child.stderr.on('data', (d) => process.stderr.write(d));
  child.stdin.end(input ?? '');
  const status = await new Promise((resolve) => child.on('close', (code) => resolve(code)));
  if (status !== 0) {
    failed = true;
    process.stderr.write(`(exit code ${status})\n`);
  }
  return { status, stdout };
}

/** Resolves when `check()` is true, polling; false after `ms`. */
async function until(check, ms) {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (check()) return true;
  return false;
}

try {
  if (!(await until(() => /receiving webhooks on (\S+?\/) /.test(listenerErr) || listener.exitCode !== null, 20_000)) || listener.exitCode !== null)
    throw new Error(`webhooks listen did not start: ${listenerErr}`);
  const hookUrl = /receiving webhooks on (\S+?\/) /.exec(listenerErr)[1] + 'webhooks';
  sandbox = spawn(process.execPath, [bin, 'sandbox', 'start', '--port', '0', '--json', '--job-seconds', '1', '--webhook', hookUrl], {
    env: { ...env, NOTEVOX_SANDBOX_WEBHOOK_SECRET: webhookSecret },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise((resolve, reject) => {
    const rl = createInterface({ input: sandbox.stdout });
    rl.once('line', (l) => resolve(l));
    sandbox.once('exit', (code) => reject(new Error(`sandbox exited early (code ${code})`)));
  });
  const { baseUrl, keys } = JSON.parse(line);
  const admin = keys.find((k) => k.type === 'USER' && k.scopes.length === 0 && !k.workspaceGuid) ?? keys[0];
  process.stdout.write(`Sandbox running at ${baseUrl} (demo data), delivering its events to \`notevox webhooks listen\` at ${hookUrl}.` + '\n');
  process.stdout.write(`Logging in with the seeded key ${admin.id} (${admin.label ?? admin.type}).` + '\n');

  await run('log in, key read from stdin', ['auth', 'login', '--with-key', '--base-url', baseUrl], admin.key + '\n');
  await run('which key, from where', ['auth', 'status']);
  const list = await run('the newest notes', ['notes', 'list', '--limit', '5']);
  const guid = list.stdout.split('\n').find((l) => l.trim())?.split('\t')[0]?.trim();
  if (guid) {
    await run('one note', ['notes', 'get', guid]);
    await run('rename it: the sandbox sends note.user_content.updated', ['notes', 'rename', guid, 'Renamed by the notevox demo']);
    if (await until(() => heard.trim() !== '', 20_000)) {
      process.stdout.write(`\n${bold('webhooks listen received:')}\n${heard}`);
    } else {
      failed = true;
      process.stderr.write(`the webhook event did not arrive at webhooks listen: ${listenerErr}\n`);
    }
    await run('the event log, with the delivery attempt', ['sandbox', 'events']);
  }
  await run('JSON piped through a JMESPath query', ['notes', 'list', '--limit', '3', '--json', '--query', '[].{guid: guid, title: title}']);
  const sample = join(root, 'samples', 'hello.wav');
  if (!existsSync(sample)) throw new Error(`${sample} is missing: generate it with \`node scripts/make-sample.mjs\``);
  await run('transcribe a recording', ['voice', 'upload', sample, '--locale', 'en_US', '--workspace', 'Product Team']);
} catch (e) {
  failed = true;
  process.stderr.write(`demo failed: ${e.message}` + '\n');
} finally {
  cleanup();
}
process.stdout.write(`${failed ? '\nDemo finished with errors.' : '\nDemo finished; the sandbox is stopped and the temporary config removed.'}\n`);
process.exit(failed ? 1 : 0);
