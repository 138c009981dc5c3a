import { createHmac, timingSafeEqual } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { LIMITS } from '../../contract/limits.js';
import { reachesWorkspace } from '../access.js';
import { decodeRow, type Db } from '../db.js';
import type { Principal, SandboxRuntime } from '../types.js';
import type { JobResults } from './results.js';

/** Voice file job rows, their JSON (decisions.md §4.4), who may see them, and the signed upload URL (§4.2). */

export interface JobRow {
  id: string;
  workspace_guid: string;
  key_id: string;
  user_id: number | null;
  organization_id: string;
  status: 'CREATED' | 'UPLOADED' | 'PROCESSING' | 'COMPLETED' | 'FAILED';
  created_at: string;
  file_uploaded_at: string | null;
  process_started_at: string | null;
  process_completed_at: string | null;
  error_message: string | null;
  duration_seconds: number | null;
  transcript_locale_hints: string[];
  translation_locales: string[];
  upload_path: string | null;
  upload_bytes: number | null;
  content_type: string | null;
  transcript: JobResults['transcript'] | null;
  translations: JobResults['translations'] | null;
  summary: JobResults['summary'] | null;
  deleted: boolean;
}

/** The sandbox's own path for signed uploads (outside the service's /v1 API). */
export const UPLOAD_ROUTE = '/sandbox/uploads';

export function getJob(db: Db, id: string): JobRow | undefined {
  if (!LIMITS.uuidPattern.test(id)) return undefined;
  const row = db.get<Record<string, unknown>>('SELECT * FROM voice_jobs WHERE id = ?', [id]);
  return row ? (decodeRow('voice_jobs', row) as unknown as JobRow) : undefined;
}

/** A job is visible to keys that reach its workspace in the organization that created it; deleted jobs to nobody. */
export function jobVisible(db: Db, p: Principal, job: JobRow): boolean {
  return !job.deleted && job.organization_id === p.organizationId && reachesWorkspace(db, p, job.workspace_guid);
}

export function jobJson(j: JobRow) {
  return {
    id: j.id,
    status: j.status,
    workspaceGuid: j.workspace_guid,
    createdAt: j.created_at,
    fileUploadedAt: j.file_uploaded_at,
    processStartedAt: j.process_started_at,
    processCompletedAt: j.process_completed_at,
    errorMessage: j.error_message,
    durationSeconds: j.duration_seconds,
    transcriptLocaleHints: j.transcript_locale_hints,
    translationLocales: j.translation_locales,
  };
}

/** Where a job's uploaded bytes are stored: `<job>.<extension of the sniffed format>`, `<job>.bin` for bytes that are not audio. */
export const uploadFileOf = (rt: SandboxRuntime, jobId: string, extension = 'bin') => join(rt.uploadDir, `${jobId}.${extension}`);

export function removeUpload(job: Pick<JobRow, 'upload_path'>): void {
  if (job.upload_path) rmSync(job.upload_path, { force: true });
}

/** HMAC-SHA-256 over the job id and the expiry (epoch seconds), hex. */
export function uploadSignature(key: Buffer, jobId: string, expires: number): string {
  return createHmac('sha256', key).update(`${jobId}\n${expires}`).digest('hex');
}

export function signedUploadUri(rt: SandboxRuntime, jobId: string, now: Date): { uploadUri: string; uploadUriExpiresAt: string } {
  const expires = Math.floor(now.getTime() / 1000) + LIMITS.uploadUrlTtlSeconds;
  const signature = uploadSignature(rt.signingKey, jobId, expires);
  return {
    uploadUri: `${rt.baseUrl()}${UPLOAD_ROUTE}/${jobId}?expires=${expires}&signature=${signature}`,
    uploadUriExpiresAt: new Date(expires * 1000).toISOString(),
  };
}

/** Why a signed URL is refused, or null when it is valid now. */
export function checkUploadSignature(rt: SandboxRuntime, jobId: string, expires: string | undefined, signature: string | undefined): string | null {
  if (!expires || !signature) return 'the upload URL has no signature: use the uploadUri of the job exactly as returned';
  if (!/^\d+$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature)) return 'the upload URL signature is malformed';
  const expected = Buffer.from(uploadSignature(rt.signingKey, jobId, Number(expires)), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return 'the upload URL signature does not match';
  if (rt.clock.now().getTime() > Number(expires) * 1000) return `the upload URL expired at ${new Date(Number(expires) * 1000).toISOString()}`;
  return null;
}
