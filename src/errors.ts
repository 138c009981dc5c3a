/** Exit codes: the documented contract for scripts (README, `notevox help exit-codes`). */
export const EXIT = {
  OK: 0,
  UNEXPECTED: 1,
  USAGE: 2,
  UNAUTHENTICATED: 3,
  FORBIDDEN: 4,
  NOT_FOUND: 5,
  REJECTED: 6,
  RATE_LIMITED: 7,
  UNAVAILABLE: 8,
  JOB_FAILED: 9,
  INPUT_NEEDED: 10,
  OUTPUT_FAILED: 11,
  WAIT_TIMEOUT: 12,
  CHECK_FAILED: 13,
  INTERRUPTED: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODE_DOCS: ReadonlyArray<[ExitCode, string]> = [
  [EXIT.OK, 'success'],
  [EXIT.UNEXPECTED, 'unexpected error (a bug: please report it), or a success answer not in the documented shape'],
  [EXIT.USAGE, 'usage error or invalid input (bad flag, argument, file or field), or a base URL that redirects'],
  [EXIT.UNAUTHENTICATED, 'not authenticated: no API key, or the service answered 401'],
  [EXIT.FORBIDDEN, 'forbidden: the service answered 403 (scope, key type, permission)'],
  [EXIT.NOT_FOUND, 'not found: the service answered 404'],
  [EXIT.REJECTED, 'rejected: the service answered 409, 413, 422 or another 4xx'],
  [EXIT.RATE_LIMITED, 'rate limited: still 429 after the retries'],
  [EXIT.UNAVAILABLE, 'service or network unavailable after the retries (5xx, connection), or a request over --timeout (not retried)'],
  [EXIT.JOB_FAILED, 'a voice file job ended FAILED'],
  [EXIT.INPUT_NEEDED, 'input was needed but prompting is not allowed (pass the named flag)'],
  [EXIT.OUTPUT_FAILED, 'output could not be written: standard output full (ENOSPC; a reader that went away, EPIPE, ends quietly with 0), or the disk filled up while writing a file'],
  [EXIT.WAIT_TIMEOUT, 'gave up waiting for a voice file job after --wait-timeout: the job keeps running (resume with the printed command)'],
  [EXIT.CHECK_FAILED, 'notevox doctor: at least one check failed (each failed check prints its fix)'],
  [EXIT.INTERRUPTED, 'interrupted (Ctrl-C), or a confirmation declined (answered no, or a typed name that does not match): nothing was changed'],
];

/** An error meant for the user: one line of what happened, one line of what to do. */
export class CliError extends Error {
  readonly exitCode: ExitCode;
  readonly hint: string | undefined;
  /** errorType and code when the error came from the service. */
  readonly errorType: string | undefined;
  readonly code: number | string | undefined;
  constructor(
    message: string,
    opts: { exitCode?: ExitCode; hint?: string; errorType?: string; code?: number | string; cause?: unknown } = {},
  ) {
    super(message, opts.cause !== undefined ? { cause: opts.cause } : undefined);
    this.name = 'CliError';
    this.exitCode = opts.exitCode ?? EXIT.UNEXPECTED;
    this.hint = opts.hint;
    this.errorType = opts.errorType;
    this.code = opts.code;
  }
}

/** Invalid input detected before any request: exit 2. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, { exitCode: EXIT.USAGE, hint });
    this.name = 'UsageError';
  }
}

/** A prompt was needed but prompting is not allowed: exit 10, naming the flag. */
export class InputNeededError extends CliError {
  constructor(what: string, flag: string) {
    super(`${what} is required and prompting is not allowed here`, {
      exitCode: EXIT.INPUT_NEEDED,
      hint: `Pass ${flag}.`,
    });
    this.name = 'InputNeededError';
  }
}

/** Exit code for an HTTP status from the service. */
export function exitCodeForStatus(status: number): ExitCode {
  if (status === 401) return EXIT.UNAUTHENTICATED;
  if (status === 403) return EXIT.FORBIDDEN;
  if (status === 404) return EXIT.NOT_FOUND;
  if (status === 429) return EXIT.RATE_LIMITED;
  if (status >= 500) return EXIT.UNAVAILABLE;
  if (status >= 400) return EXIT.REJECTED;
  return EXIT.UNEXPECTED;
}
