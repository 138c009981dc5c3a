import { createHmac, randomBytes, randomUUID } from 'node:crypto';

/** Identifier and secret helpers of the sandbox (formats: decisions.md §1.7). */

/** A source of uniform numbers in [0, 1): `Math.random`-like. Pass a seeded one (faults.ts `seededRandom`) for determinism. */
export type RandomSource = () => number;

/** Cryptographically random numbers in [0, 1) — the default source. */
export const cryptoRandom: RandomSource = () => randomBytes(4).readUInt32BE(0) / 2 ** 32;

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` letters and digits. */
export function randomAlnum(length: number, rand: RandomSource = cryptoRandom): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALNUM[Math.floor(rand() * ALNUM.length)];
  return out;
}

/** A note guid: 13 letters and digits. */
export const newNoteGuid = (rand: RandomSource = cryptoRandom) => randomAlnum(13, rand);

/** A workspace guid: 16 letters and digits. */
export const newWorkspaceGuid = (rand: RandomSource = cryptoRandom) => randomAlnum(16, rand);

/** A UUID v4 (voice job ids, paragraph uuids, mention guids). Without `rand`, node:crypto's. */
export function newUuid(rand?: RandomSource): string {
  if (!rand) return randomUUID();
  const b = Array.from({ length: 16 }, () => Math.floor(rand() * 256));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = b.map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A fresh salt for `hashSecret` (hex). */
export const newSalt = () => randomBytes(16).toString('hex');

/** What the store keeps of a secret (API key secret, share password): hex HMAC-SHA256 keyed by the salt. */
export function hashSecret(secret: string, salt: string): string {
  return createHmac('sha256', salt).update(secret, 'utf8').digest('hex');
}
