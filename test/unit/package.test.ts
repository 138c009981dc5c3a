import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The published package: what it declares and what it ships. The install itself (npm pack, a global install,
 * notevox run from elsewhere) is test/e2e/install.test.ts.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  private?: boolean;
  license: string;
  engines: { node: string };
  files: string[];
  bin: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  allowScripts?: Record<string, boolean>;
};

interface Metafile {
  inputs: Record<string, unknown>;
  outputs: Record<string, { imports: Array<{ path: string; kind: string; external?: boolean }> }>;
}

const packageOf = (specifier: string) => /^((?:@[^/]+\/)?[^/]+)/.exec(specifier)![1];
const isBuiltin = (specifier: string) => specifier.startsWith('node:');

/** The files under dir (relative paths). */
function walk(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(dir, join(prefix, e.name)) : [join(prefix, e.name)]));
}

/**
 * What dist/ loads from node_modules at run time: the external imports esbuild recorded (static, dynamic and
 * require calls), and the packages the bundled code loads through a `createRequire(import.meta.url)` function,
 * which esbuild cannot see: those are found in the output, where each such function is called with a literal.
 */
function runtimeImports(meta: Metafile): { packages: Set<string>; problems: string[] } {
  const packages = new Set<string>();
  const problems: string[] = [];
  for (const [file, out] of Object.entries(meta.outputs)) {
    for (const imp of out.imports) if (imp.external && !isBuiltin(imp.path)) packages.add(packageOf(imp.path));
    if (!file.endsWith('.js')) continue;
    const code = readFileSync(join(ROOT, file), 'utf8');
    const names = [...code.matchAll(/\b([\w$]+)\s*=\s*createRequire\d*\(import\.meta\.url\)/g)].map((m) => m[1]);
    for (const name of names) {
      const esc = name.replace(/\$/g, '\\$');
      for (const m of code.matchAll(new RegExp(`(?<![\\w$.])${esc}(?:\\.resolve)?\\(([^)]*)\\)`, 'g'))) {
        const literal = /^\s*"([^"]+)"\s*$/.exec(m[1]);
        if (!literal) problems.push(`${file}: ${m[0]} (a createRequire call without a literal: name the package)`);
        else if (!isBuiltin(literal[1]) && !literal[1].startsWith('.')) packages.add(packageOf(literal[1]));
      }
    }
  }
  return { packages, problems };
}

describe('the npm package', () => {
  const meta = JSON.parse(readFileSync(join(ROOT, 'build', 'meta.json'), 'utf8')) as Metafile;

  it('is publishable: not private, MIT with a LICENSE file naming the notevox contributors, Node >= 22.13', () => {
    expect(pkg.private).toBeUndefined();
    expect(pkg.license).toBe('MIT');
    const license = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} notevox contributors\n/);
    expect(license).toContain('THE SOFTWARE IS PROVIDED "AS IS"');
    expect(pkg.engines.node).toBe('>=22.13');
    expect(pkg.bin).toEqual({ notevox: 'bin/notevox.js' });
  });

  it('its runtime dependencies are exactly what dist/ imports at run time (from esbuild’s metafile and the createRequire calls)', () => {
    const { packages, problems } = runtimeImports(meta);
    expect(problems).toEqual([]);
    // Sanity: the lazily imported packages are found (string-width, hono).
    expect(packages.has('string-width')).toBe(true);
    expect(packages.has('hono')).toBe(true);
    expect([...packages].sort()).toEqual(Object.keys(pkg.dependencies).sort());
  });

  it('what the bundle contains is a devDependency, never a runtime dependency', () => {
    const bundled = new Set(Object.keys(meta.inputs).flatMap((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1] ?? []));
    expect([...bundled].sort()).toEqual(['@commander-js/extra-typings', '@modelcontextprotocol/core', '@modelcontextprotocol/server', 'commander', 'undici', 'zod']);
    for (const name of bundled) {
      expect(pkg.devDependencies[name], name).toBeDefined();
      expect(pkg.dependencies[name], name).toBeUndefined();
    }
  });

  it('dist/ holds only what runs: no source maps, no metafile', () => {
    const files = walk(join(ROOT, 'dist'));
    expect(files.filter((f) => f.endsWith('.map') || f.endsWith('meta.json'))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.js')).some((f) => readFileSync(join(ROOT, 'dist', f), 'utf8').includes('sourceMappingURL'))).toBe(false);
    expect(existsSync(join(ROOT, 'dist', 'cli.js'))).toBe(true);
  });

  it('npm pack ships bin, dist, completions, docs, README and LICENSE, and nothing else, under 4 MB unpacked', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const [report] = JSON.parse(out) as Array<{ unpackedSize: number; files: Array<{ path: string }> }>;
    const paths = report.files.map((f) => f.path);
    const top = [...new Set(paths.map((p) => p.split('/')[0]))].sort();
    expect(top).toEqual(['LICENSE', 'README.md', 'bin', 'completions', 'dist', 'docs', 'package.json']);
    expect(paths.filter((p) => /\.map$|meta\.json$|^src\/|^test\/|\.ts$/.test(p))).toEqual([]);
    // Every file of dist/ (the bundle, its chunks, the generated help) and of the other directories is in.
    // …but the single-file executable (`npm run build:exe`), which is 100+ MB and for one platform (package.json's `!dist/exe`).
    const expected = ['bin', 'dist', 'completions', 'docs'].flatMap((d) => walk(join(ROOT, d)).map((f) => `${d}/${f}`)).filter((p) => !p.startsWith('dist/exe/'));
    expect(paths.filter((p) => p.startsWith('dist/exe/'))).toEqual([]);
    expect(paths.filter((p) => p.includes('/')).sort()).toEqual(expected.sort());
    // 4 MB since the MCP server (its SDK bundled, ~0.3 MB) and undici through its public entry point (~0.7 MB, where
    // deep imports of its internals took 0.3 MB) came in; the bound still catches a source map or a stray directory.
    expect(report.unpackedSize).toBeLessThan(4 * 1024 * 1024);
  });

  it('allowScripts approves every locked package with an install script, and nothing else', () => {
    // npm 11 skips the install scripts of dependencies that package.json's allowScripts does not approve (and warns
    // for now): unapproved, the `node` devDependency's pre-install would not fetch its binary, and
    // node_modules/.bin would have no node for `npm ci && npm run demo` on a machine with an older one.
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const withScripts = Object.entries(lock.packages).filter(([, p]) => p.hasInstallScript).map(([path]) => packageOf(path.slice(path.lastIndexOf('node_modules/') + 13)));
    expect(withScripts).toContain('node');
    expect(Object.entries(pkg.allowScripts ?? {}).filter(([, allowed]) => allowed).map(([name]) => name).sort()).toEqual([...new Set(withScripts)].sort());
  });
});

