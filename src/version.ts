import { readFileSync } from 'node:fs';

declare const __NOTEVOX_VERSION__: string | undefined;

/** The package version: inlined by the build (esbuild `define`), read from package.json under tsx/vitest. */
export const VERSION: string =
  typeof __NOTEVOX_VERSION__ === 'string' ? __NOTEVOX_VERSION__ : (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
