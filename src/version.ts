import { readFileSync } from 'node:fs';

declare const __NOTEVOX_VERSION__: string | undefined;
declare const __NOTEVOX_NODE_ENGINES__: string | undefined;

type Manifest = { version: string; engines?: { node?: string } };
let manifest: Manifest | undefined;
const readManifest = (): Manifest => (manifest ??= JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as Manifest);

/** The package version: inlined by the build (esbuild `define`), read from package.json under tsx/vitest. */
export const VERSION: string = typeof __NOTEVOX_VERSION__ === 'string' ? __NOTEVOX_VERSION__ : readManifest().version;

/** package.json's `engines.node` (e.g. `>=22.13`), inlined by the build like VERSION; read when asked (`notevox doctor`). */
export function nodeEngines(): string {
  return typeof __NOTEVOX_NODE_ENGINES__ === 'string' ? __NOTEVOX_NODE_ENGINES__ : (readManifest().engines?.node ?? '');
}
