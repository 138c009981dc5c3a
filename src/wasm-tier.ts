/**
 * undici parses HTTP with llhttp compiled to WebAssembly; V8's background optimising compile of it blocks the end of
 * a short process for 200-400 ms. Baseline (Liftoff) code is plenty for one command's responses, so the launcher
 * asks for it for every command but the long-running sandbox (which compiles no WebAssembly of its own). The
 * flag is set just before undici loads, not at start: node:v8 is not in Node's start-up snapshot, and most commands
 * never load undici.
 */

let baseline = false;
let applied = false;

/** The launcher: this process runs one command, so WebAssembly compiled later may stay on the baseline tier. */
export function preferBaselineWasm(): void {
  baseline = true;
}

/** Before WebAssembly that a one-shot command compiles (undici's llhttp). */
export function applyWasmTier(): void {
  if (!baseline) return;
  process.getBuiltinModule('node:v8').setFlagsFromString('--liftoff-only');
  applied = true;
}

/** Whether V8's flags changed in this process (applyWasmTier): a code cache made now would not fit the next start's flags. */
export function wasmTierApplied(): boolean {
  return applied;
}
