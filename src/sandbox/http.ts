import { ERROR_CODES, errorEnvelope, statusOfCode } from '../contract/errors.js';

/** A failure a handler throws; the app turns it into the error envelope. */
export class ApiFailure extends Error {
  readonly status: number;
  readonly code: number;
  readonly detail: string | null;
  readonly headers: Record<string, string>;
  constructor(code: number, message: string, detail: string | null = null, headers: Record<string, string> = {}) {
    super(message);
    this.code = code;
    this.status = statusOfCode(code);
    this.detail = detail;
    this.headers = headers;
  }
  toBody() {
    return errorEnvelope(this.status, this.code, this.message, this.detail);
  }
}

export const notFound = (what = 'resource') => new ApiFailure(ERROR_CODES.NOT_FOUND, `${what} not found`);
export const badRequest = (message: string, detail: string | null = null) => new ApiFailure(ERROR_CODES.MALFORMED, message, detail);
export const forbidden = (message: string, detail: string | null = null) => new ApiFailure(ERROR_CODES.PERMISSION_DENIED, message, detail);
export const conflict = (message: string) => new ApiFailure(ERROR_CODES.CONFLICT, message);
export const unprocessable = (message: string, detail: string | null = null) => new ApiFailure(ERROR_CODES.UNPROCESSABLE, message, detail);

/** Opaque cursors: base64url JSON (decisions.md §1.1). */
export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
export function decodeCursor<T>(cursor: string | undefined, check: (v: any) => boolean): T | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (check(v)) return v as T;
  } catch {}
  throw badRequest('invalid cursor', 'cursor: pass the nextCursor of the previous response unchanged');
}

/**
 * Keyset paging over rows ordered by a numeric key: fetches size+1 rows after the cursor's key.
 * `fetch(afterKey, limit)` must return rows in ascending key order.
 */
export function keysetPage<R>(opts: {
  cursor: string | undefined;
  size: number;
  keyOf: (row: R) => number;
  fetch: (afterKey: number, limit: number) => R[];
}): { rows: R[]; nextCursor: string | null } {
  const c = decodeCursor<{ k: number }>(opts.cursor, (v) => typeof v?.k === 'number');
  const rows = opts.fetch(c?.k ?? -Infinity, opts.size + 1);
  const more = rows.length > opts.size;
  const page = more ? rows.slice(0, opts.size) : rows;
  return { rows: page, nextCursor: more ? encodeCursor({ k: opts.keyOf(page[page.length - 1]) }) : null };
}

/** Where the sandbox's own control API lives (docs/sandbox.md); never part of the service's contract. */
export { CONTROL_PREFIX } from '../contract/control.js';
