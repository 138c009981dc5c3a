/** errorType values and their HTTP status (decisions.md §1.3). */
export const ERROR_TYPE_BY_STATUS: Record<number, ErrorType> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  406: 'not_acceptable',
  409: 'conflict',
  413: 'payload_too_large',
  422: 'unprocessable_entity',
  429: 'too_many_requests',
  500: 'internal_error',
};

export const ERROR_TYPES = [
  'bad_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'not_acceptable',
  'conflict',
  'payload_too_large',
  'unprocessable_entity',
  'too_many_requests',
  'internal_error',
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

export function errorTypeForStatus(status: number): ErrorType {
  if (status >= 500) return 'internal_error';
  return ERROR_TYPE_BY_STATUS[status] ?? 'bad_request';
}

/** The numeric codes used by the sandbox and recognised by the CLI (decisions.md §1.3). */
export const ERROR_CODES = {
  MALFORMED: 400000,
  UPDATE_MASK: 400001,
  UPDATE_MASK_FIELD_MISSING: 400002,
  PAGE_SIZE: 400003,
  WORKSPACE_REQUIRED: 400004,
  KEYWORD_USER_KEY_ONLY: 400005,
  AUTH_MISSING: 401000,
  AUTH_MALFORMED: 401001,
  AUTH_UNKNOWN: 401002,
  AUTH_INACTIVE: 401003,
  AUTH_UNBOUND_WORKSPACE_KEY: 401004,
  AUTH_LEGACY_EXPIRED: 401005,
  VOICE_NOT_ENABLED: 403000,
  INSUFFICIENT_SCOPE: 403001,
  KEY_TYPE_FORBIDDEN: 403002,
  PERMISSION_DENIED: 403003,
  WIKI_PLAN_REQUIRED: 403004,
  WIKI_NOT_ACTIVATED: 403005,
  UPLOAD_SIGNATURE: 403010,
  VOICE_PERMISSION: 403013,
  NOT_FOUND: 404000,
  NO_ROUTE: 404001,
  NOT_ACCEPTABLE: 406000,
  CONFLICT: 409000,
  TOO_LARGE: 413000,
  UNPROCESSABLE: 422000,
  RATE_LIMITED: 429001,
  INTERNAL: 500000,
  /** 503 from fault injection: the first three digits of a code are its status (service-interface.md, Errors). */
  UNAVAILABLE: 503000,
} as const;

/** The error envelope (service-interface.md, Errors); its zod schema is `errorEnvelopeSchema` in schemas.ts. */
export interface ErrorEnvelope {
  error: { code: number; errorType: ErrorType; message: string; detail?: string | null };
}

export function errorEnvelope(status: number, code: number, message: string, detail: string | null = null): ErrorEnvelope {
  return { error: { code, errorType: errorTypeForStatus(status), message, detail } };
}

/** Status implied by a six-digit code (its first three digits). */
export function statusOfCode(code: number): number {
  return Math.floor(code / 1000);
}
