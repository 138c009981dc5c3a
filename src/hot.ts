/**
 * The entry of the hot bundle (scripts/build.mjs: dist/chunks/hot-<hash>.cjs): the commands of the fast path
 * (fast-path.ts, `notes get <guid>`, `voice upload <file>`) in one CommonJS file with all they may reach, which the launcher loads through
 * node:vm with a V8 code cache made after the command ran (bin/notevox.js). Node's compile cache keeps only the code
 * compiled when a module is compiled, so every function a command runs was compiled again at each start (~5 ms of
 * `notes get`); this cache holds them all. The launcher runs main only for a command line parseFast takes: any other
 * goes to the whole bundle (dist/cli.js), so commander's path (cli-program.ts, program.ts) is left out of this file.
 */
export { main } from './cli.js';
export { FAST_COMMANDS, parseFast } from './fast-path.js';
export { preferBaselineWasm, wasmTierApplied } from './wasm-tier.js';
