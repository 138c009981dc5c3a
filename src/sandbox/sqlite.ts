import type * as NodeSqlite from 'node:sqlite';

/**
 * node:sqlite, the SQLite that ships inside Node.js (≥ 22.13 without a flag). Loading it emits one
 * ExperimentalWarning ("SQLite is an experimental feature …"); that warning, and no other, is dropped: it is
 * emitted synchronously while the module loads, so process.emitWarning is wrapped only for that moment.
 * Loaded through process.getBuiltinModule so that nothing imports it before the filter is in place.
 */
let loaded: typeof NodeSqlite | undefined;

export function isSqliteWarning(warning: string | Error, type: unknown): boolean {
  const name = typeof warning === 'string' ? (typeof type === 'string' ? type : (type as { type?: string } | undefined)?.type) : warning.name;
  const message = typeof warning === 'string' ? warning : warning.message;
  return name === 'ExperimentalWarning' && /^SQLite is an experimental feature/.test(message);
}

export function nodeSqlite(): typeof NodeSqlite {
  if (loaded) return loaded;
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    if (isSqliteWarning(warning, rest[0])) return;
    return (emitWarning as (...a: unknown[]) => void).call(this, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    loaded = process.getBuiltinModule('node:sqlite') as typeof NodeSqlite | undefined;
  } finally {
    process.emitWarning = emitWarning;
  }
  if (!loaded) throw new Error(`the sandbox needs node:sqlite, which Node.js ${process.version} lacks: use Node.js 22.13 or newer`);
  return loaded;
}
