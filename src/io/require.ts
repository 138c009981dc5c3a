/**
 * node:module's createRequire, with the module taken when it is first called: an import of node:module loads it, and
 * Node's source-map code it loads, at every start (~0.5 M instructions of `notes get -o json`, callgrind), where its
 * users (io/text.ts, io/render.ts) make their require function only when they first load a package.
 */
export const createRequire = (url: string): NodeJS.Require => process.getBuiltinModule('node:module').createRequire(url);

/**
 * node:fs/promises, taken when first called: an import of it loads it at start-up with what it requires (its
 * FileHandle's readLines brings readline and the REPL's history, which brings node:os), ~10 of Node's modules to
 * compile at every `voice upload`, whose preflight reads synchronously and never uses it (audio/, commands/voice/).
 */
export const fsPromises = (): typeof import('node:fs/promises') => process.getBuiltinModule('node:fs/promises');
