#!/usr/bin/env node
/**
 * `npm run deps:latest [-- options] [-- vitest arguments]`: would the newest published release of every dependency
 * work? Copies the project's tracked files (as `git ls-files` lists them, with uncommitted edits) into a temporary
 * directory, sets every entry of `dependencies` and `devDependencies` to its registry's `latest` (an `npm:` alias
 * to its package's latest; the `node` runtime package is left as pinned: the Node.js lines are .ci/run's to
 * choose), installs them without the lock file, prints what changed, and runs `npm test` there (the build, the
 * static checks and the whole suite). The project itself is not touched. Exit code: npm test's, or 1 if the
 * install failed.
 *
 * Options: --keep (leave the copy, and say where), --no-test (install and build only), --dir DIR (use DIR, which
 * must not exist), --except NAME[,NAME…] (keep these at their pins, e.g. one whose newest release cannot be
 * installed yet). Anything after a second `--` goes to vitest (e.g. a test file).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const split = argv.indexOf('--');
const own = split < 0 ? argv : argv.slice(0, split);
const vitestArgs = split < 0 ? [] : argv.slice(split + 1);
const keep = own.includes('--keep');
const test = !own.includes('--no-test');
const dirAt = own.indexOf('--dir');
const exceptAt = own.indexOf('--except');
const except = new Set(exceptAt >= 0 ? (own[exceptAt + 1] ?? '').split(',').filter(Boolean) : []);
const valueAt = new Set([dirAt + 1, exceptAt + 1].filter((i) => i > 0));
const unknown = own.filter((a, i) => !['--keep', '--no-test', '--dir', '--except'].includes(a) && !valueAt.has(i));
if (unknown.length || (dirAt >= 0 && !own[dirAt + 1]) || (exceptAt >= 0 && except.size === 0)) {
  process.stderr.write(`deps:latest: unknown option ${unknown[0] ?? 'or an option without its value'}\nusage: npm run deps:latest -- [--keep] [--no-test] [--dir DIR] [--except NAME,…] [-- vitest arguments]\n`);
  process.exit(2);
}

const run = (cmd, args, cwd, capture = false) => {
  const r = spawnSync(cmd, args, { cwd, stdio: capture ? ['ignore', 'pipe', 'inherit'] : 'inherit', encoding: 'utf8' });
  if (r.error) throw r.error;
  return r;
};

// The copy: every tracked file as it is in the working tree (deleted ones left out).
let dir;
if (dirAt >= 0) {
  dir = own[dirAt + 1];
  if (existsSync(dir)) {
    process.stderr.write(`deps:latest: ${dir} exists; give a directory that does not\n`);
    process.exit(2);
  }
  mkdirSync(dir, { recursive: true });
} else dir = mkdtempSync(join(tmpdir(), 'notevox-deps-latest-'));
const files = run('git', ['ls-files', '-z'], root, true).stdout.split('\0').filter(Boolean);
for (const f of files) {
  if (!existsSync(join(root, f))) continue;
  mkdirSync(dirname(join(dir, f)), { recursive: true });
  cpSync(join(root, f), join(dir, f));
}

/** `latest` for a plain range, `npm:pkg@latest` for an alias; undefined: leave it (the Node.js runtime, non-registry specs). */
function latestSpec(name, spec) {
  if (name === 'node') return undefined;
  const alias = /^npm:((?:@[^/@]+\/)?[^@]+)@/.exec(spec);
  if (alias) return `npm:${alias[1]}@latest`;
  if (/^(file:|link:|git|https?:|github:)/.test(spec) || spec.includes('/')) return undefined;
  return 'latest';
}

const pkgFile = join(dir, 'package.json');
const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
const pinned = {};
for (const field of ['dependencies', 'devDependencies']) {
  for (const [name, spec] of Object.entries(pkg[field] ?? {})) {
    pinned[name] = spec;
    const next = except.has(name) ? undefined : latestSpec(name, spec);
    if (next) pkg[field][name] = next;
  }
}
writeFileSync(pkgFile, JSON.stringify(pkg, null, 2) + '\n');
rmSync(join(dir, 'package-lock.json'), { force: true });

process.stderr.write(`deps:latest: installing the newest releases in ${dir}\n`);
// `npm install` also runs `prepare`, which builds dist/ with the new esbuild, Rollup, commander, …
const installed = run('npm', ['install', '--no-audit', '--no-fund', '--save-exact'], dir);
let code = installed.status ?? 1;
if (code !== 0) process.stderr.write('deps:latest: the install (or the build it runs) failed\n');
else {
  // What each dependency is now, beside its pin (from the lock file npm just wrote).
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
  const rows = Object.entries(pinned).map(([name, was]) => {
    const now = lock.packages?.[`node_modules/${name}`]?.version ?? '?';
    const wasVersion = was.replace(/^npm:.*@/, '');
    return `  ${name.padEnd(32)} ${wasVersion.padEnd(12)} ${now === wasVersion ? '=' : '→ ' + now}`;
  });
  process.stdout.write(`deps:latest: pinned → newest\n${rows.join('\n')}\n`);
  if (test) {
    code = run('npm', ['test', ...(vitestArgs.length ? ['--', ...vitestArgs] : [])], dir).status ?? 1;
    process.stdout.write(`deps:latest: npm test on the newest releases ${code === 0 ? 'passed' : `failed (exit ${code})`}\n`);
  }
}
if (keep || code !== 0) process.stderr.write(`deps:latest: the copy is in ${dir}\n`);
else rmSync(dir, { recursive: true, force: true });
process.exitCode = code;
