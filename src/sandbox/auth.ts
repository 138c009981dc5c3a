import { timingSafeEqual } from 'node:crypto';
import { ERROR_CODES } from '../contract/errors.js';
import { LIMITS } from '../contract/limits.js';
import type { KeyType } from '../contract/types.js';
import { StateCache } from './state-cache.js';
import type { Db } from './db.js';
import { hashSecret } from './ids.js';
import { ApiFailure } from './http.js';
import type { Principal } from './types.js';

interface KeyRow {
  id: string;
  secret_salt: string;
  secret_hash: string;
  type: KeyType;
  user_id: number | null;
  workspace_guid: string | null;
  organization_id: string | null;
  scopes: string;
  status: string;
  expires_at: string | null;
  created_at: string;
  voice_permission: number;
  legacy_scope: number;
  user_organization_id: string | null;
  user_org_admin: number | null;
  workspace_organization_id: string | null;
}

/** 401 with the RFC 6750 challenge: none for a missing header, invalid_request when malformed, invalid_token otherwise. */
const unauthorized = (code: number, message: string, detail: string | null = null) => {
  const error = code === ERROR_CODES.AUTH_MISSING ? '' : code === ERROR_CODES.AUTH_MALFORMED ? ' error="invalid_request"' : ' error="invalid_token"';
  return new ApiFailure(code, message, detail, { 'WWW-Authenticate': `Bearer${error}` });
};
/**
 * Stand-ins for an unknown key id, of the same lengths as real ones (newSalt: 16 bytes in hex; HMAC-SHA-256 in
 * hex), so that an unknown id costs the same lookup, HMAC and comparison as a known id with a wrong secret.
 */
const DUMMY_SALT = '00000000000000000000000000000000';
const DUMMY_HASH = hashSecret('not a secret', DUMMY_SALT);

/**
 * The secret's salt and hash, whether or not the id exists: one row of the same shape either way (the stand-ins
 * for an unknown id), so that the database's work does not depend on it either. The rest of the key is read only
 * after the secret matched.
 */
const VERIFY_SQL =
  'SELECT coalesce(k.secret_salt, ?) AS salt, coalesce(k.secret_hash, ?) AS hash, coalesce(k.rowid, 0) AS row ' +
  'FROM (SELECT ? AS wanted) AS w LEFT JOIN api_keys AS k ON k.id = w.wanted';

const KEY_SQL = `SELECT k.*, (SELECT u.organization_id FROM users u WHERE u.id = k.user_id) AS user_organization_id,
    (SELECT u.org_admin FROM users u WHERE u.id = k.user_id) AS user_org_admin,
    (SELECT w.organization_id FROM workspaces w WHERE w.guid = k.workspace_guid) AS workspace_organization_id
  FROM api_keys k WHERE k.rowid = ?`;

/**
 * Secrets that matched, by salt and secret, with the hash they gave: the HMAC of a secret that verified before is
 * not computed again. Only a match is kept, so a wrong secret (known id or not) always costs the HMAC: failing
 * still takes the same time whether the id exists. Bounded; cleared when full.
 */
const verified = new Map<string, string>();
const VERIFIED_MAX = 1024;


/** Keys read by KEY_SQL, by rowid, while the state stays the same: auth reads its key once, not per request. */
const keyRows = new StateCache<number, KeyRow | undefined>();

const keyRow = (db: Db, rowid: number): KeyRow | undefined => keyRows.get(db, rowid, () => db.get<KeyRow>(KEY_SQL, [rowid]));

/** Split a bearer value into id and secret, or say why it is malformed. */
export function splitKey(value: string): { id: string; secret: string } | { error: string } {
  const dot = value.indexOf('.');
  if (dot < 0) return { error: 'only a key id was sent: the bearer value is the whole key {id}.{secret}, dot included' };
  const id = value.slice(0, dot);
  const secret = value.slice(dot + 1);
  if (!id || !secret || secret.includes('.') || /\s/.test(value)) return { error: 'the key must have the form {id}.{secret}' };
  return { id, secret };
}

/**
 * Authorization headers that verified, with their key, while the state stays the same: a client sending the same key
 * again skips the lookup and the HMAC. Only a match is kept (a wrong secret throws, and always costs the whole check);
 * the checks that depend on the time (status, expiry, legacy cut-off) run on every request.
 */
const headerKeys = new StateCache<string, KeyRow>(1024);

/** Authenticate an Authorization header: every 401 case of the spec, in order (decisions.md §1.3). */
export function authenticate(db: Db, header: string | undefined, now: Date): Principal {
  if (!header) throw unauthorized(ERROR_CODES.AUTH_MISSING, 'missing Authorization header', 'send Authorization: Bearer {id}.{secret}');
  return principalOf(headerKeys.get(db, header, () => verifiedKey(db, header)), now);
}

/** The key of a bearer value whose secret verifies, or the 401 that says why not. */
function verifiedKey(db: Db, header: string): KeyRow {
  const m = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!m) throw unauthorized(ERROR_CODES.AUTH_MALFORMED, 'malformed Authorization header', 'use the Bearer scheme: Authorization: Bearer {id}.{secret}');
  const parts = splitKey(m[1].trim());
  if ('error' in parts) throw unauthorized(ERROR_CODES.AUTH_MALFORMED, 'malformed API key', parts.error);

  // Failing takes the same time whether the id exists or not (decisions.md §2.1): the same query, one HMAC and a
  // constant-time comparison either way; an unknown id fails on `row` only after all of it.
  const v = db.get<{ salt: string; hash: string; row: number }>(VERIFY_SQL, [DUMMY_SALT, DUMMY_HASH, parts.id])!;
  const cacheKey = v.salt + '\n' + parts.secret;
  const hash = verified.get(cacheKey) ?? hashSecret(parts.secret, v.salt);
  const computed = Buffer.from(hash, 'hex');
  const stored = Buffer.from(v.hash, 'hex');
  const match = computed.length === stored.length && timingSafeEqual(computed, stored);
  if (match && v.row !== 0) {
    if (verified.size >= VERIFIED_MAX) verified.clear();
    verified.set(cacheKey, hash);
  }
  // Then the key with its user's and its workspace's organization, in one query (subqueries: cheaper than joins in SQLite here).
  const row = match && v.row !== 0 ? keyRow(db, v.row) : undefined;
  if (!row) throw unauthorized(ERROR_CODES.AUTH_UNKNOWN, 'invalid API key');
  return row;
}

/** The scopes of a key row, parsed once per row read (rows are kept while the state stays the same). */
const parsedScopes = new WeakMap<KeyRow, readonly string[]>();

function scopesOf(row: KeyRow): string[] {
  let scopes = parsedScopes.get(row);
  if (!scopes) parsedScopes.set(row, (scopes = JSON.parse(row.scopes) as string[]));
  // A copy: a principal's scopes are its own.
  return [...scopes];
}

/** The principal of a verified key, after the checks that depend on the key's status and the time. */
function principalOf(row: KeyRow, now: Date): Principal {

  if (row.status !== 'active') throw unauthorized(ERROR_CODES.AUTH_INACTIVE, `API key is ${row.status}`);
  if (row.expires_at && Date.parse(row.expires_at) <= now.getTime()) throw unauthorized(ERROR_CODES.AUTH_INACTIVE, 'API key is expired');
  if (row.type === 'WORKSPACE' && !row.workspace_guid)
    throw unauthorized(ERROR_CODES.AUTH_UNBOUND_WORKSPACE_KEY, 'workspace API key is not bound to a workspace');
  if (row.type === 'LEGACY_PERSONAL' && now.getTime() > Date.parse(LIMITS.legacyKeyCutoff))
    throw unauthorized(ERROR_CODES.AUTH_LEGACY_EXPIRED, `legacy personal API keys stopped working on ${LIMITS.legacyKeyCutoff.slice(0, 10)}`, 'create a workspace key or an account key');

  return {
    keyId: row.id,
    keyType: row.type,
    scopes: scopesOf(row),
    userId: row.user_id,
    workspaceGuid: row.workspace_guid,
    organizationId: row.organization_id ?? row.user_organization_id ?? row.workspace_organization_id ?? '',
    orgAdmin: Boolean(row.user_org_admin),
    legacyScope: Boolean(row.legacy_scope),
    voicePermission: Boolean(row.voice_permission),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}
