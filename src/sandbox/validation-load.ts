/**
 * The request schemas (validation.ts: zod and the contract's schemas), loaded once: by the first request that needs
 * them, or ahead of it by the server right after it listens. They are not built at start: that cost ~35 ms of every
 * `sandbox start`.
 */
type Validation = typeof import('./validation.js');

let validation: Validation | undefined;
let loading: Promise<Validation> | undefined;

export function loadValidation(): Promise<Validation> {
  return (loading ??= import('./validation.js').then((v) => (validation = v)));
}

/** validation.ts when loaded (every route of the API and of the control API has loaded it before its handler runs), else undefined. */
export function validationIfLoaded(): Validation | undefined {
  return validation;
}

/** validation.ts, which every route has loaded before its handler runs. */
export function loadedValidation(): Validation {
  if (!validation) throw new Error('the request schemas are not loaded yet (validation-load.ts loadValidation)');
  return validation;
}
