/** Every limit of the service in one place (service-interface.md Limits, decisions.md). */
export const LIMITS = {
  noteTitle: { min: 1, max: 100 },
  folderTitle: { min: 1, max: 50 },
  folderColorPattern: /^#[0-9A-Fa-f]{6}$/,
  folderDefaultColor: '#4A90D9',
  folderDefaultSharing: 'ALL_MEMBER_VIEWER',
  folderMaxDepth: 5,
  workspaceName: { min: 1, max: 100 },
  wordMemoryText: { min: 1, max: 63 },
  wordMemoryBulkMax: 1000,
  deepSearchMaxSize: 30,
  deepSearchDocumentChars: 5000,
  transcriptLocaleHintsMax: 1,
  translationLocalesMax: 5,
  jsonBodyMaxBytes: 2 * 1024 * 1024,
  uploadMaxBytes: 500 * 1000 * 1000,
  uploadUrlTtlSeconds: 3600,
  audioMaxSeconds: 4 * 3600,
  rateLimit: { requests: 600, windowSeconds: 60 },
  legacyKeyCutoff: '2026-06-30T23:59:59.999Z',
  localePattern: /^[a-z]{2}_[A-Z]{2}$/,
  noteGuidPattern: /^[A-Za-z0-9]{13}$/,
  workspaceGuidPattern: /^[A-Za-z0-9]{16}$/,
  /** Folder ids are numeric strings (decisions.md §1.7). */
  folderIdPattern: /^[0-9]+$/,
  uuidPattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
} as const;

/** The rate limit in the `N/Ws` form of `notevox sandbox start --rate-limit`. */
export const RATE_LIMIT_SPEC = `${LIMITS.rateLimit.requests}/${LIMITS.rateLimit.windowSeconds}s`;
/** How a service may count requests against the limit (decisions.md §1.5: sliding or fixed window). */
export const RATE_LIMIT_WINDOWS = ['fixed', 'sliding'] as const;
export type RateLimitWindow = (typeof RATE_LIMIT_WINDOWS)[number];

/** Page-size parameters per list family (decisions.md §1.1). */
export const PAGE_SIZES = {
  notes: { param: 'size', default: 100, min: 1, max: 1000 },
  paragraphs: { param: 'size', default: 100, min: 1, max: 1000 },
  wordMemories: { param: 'size', default: 1000, min: 1, max: 1000 },
  wiki: { param: 'limit', default: 50, min: 1, max: 200 },
} as const;
export type PageSpec = (typeof PAGE_SIZES)[keyof typeof PAGE_SIZES];

/** Locales for which summaries and documents can be made (decisions.md §1.6). */
export const DOCUMENT_LOCALES = [
  'ko_KR', 'en_US', 'de_DE', 'ja_JP', 'es_ES', 'fr_FR', 'id_ID', 'vi_VN', 'tr_TR',
  'uk_UA', 'ru_RU', 'hi_IN', 'it_IT', 'zh_CN', 'ms_MY', 'th_TH', 'sv_SE',
] as const;

/** The audio Content-Types of an upload (decisions.md §4.2); the CLI sends the one of the file's sniffed format. */
export const UPLOAD_CONTENT_TYPES = ['audio/mpeg', 'audio/wav', 'audio/x-wav', 'audio/mp4', 'audio/m4a', 'video/mp4'] as const;
/** Every Content-Type the upload URL stores: the audio ones and `application/octet-stream` (a missing one is stored too, the format sniffed). */
export const UPLOAD_ACCEPTED_CONTENT_TYPES = [...UPLOAD_CONTENT_TYPES, 'application/octet-stream'] as const;

export const API_PREFIX = '/v1/external';

/**
 * The length of a text as the service's limits count it: in characters (Unicode code points), not UTF-16 units, so
 * that 50 emoji are 50 characters. The CLI's checks and the sandbox's schemas both count with it.
 */
export function charCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
