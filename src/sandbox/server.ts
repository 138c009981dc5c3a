import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo, Socket } from 'node:net';
import { ERROR_CODES, errorEnvelope } from '../contract/errors.js';
import { RATE_LIMIT_SPEC, type RateLimitWindow } from '../contract/limits.js';
import { parseIsoInstant } from '../dates.js';
import { createApp } from './app.js';
import { loadValidation } from './validation-load.js';
import { openDatabase, type Db } from './db.js';
import { builtDemoImage } from './demo-image.js';
import { demoSeed } from './demo-seed.js';
import { FaultInjector, parseFaultSpec } from './faults.js';
import { RateLimiter, parseRateLimit } from './ratelimit.js';
import { EventBus } from './events/bus.js';
import { controlRoutes } from './events/control.js';
import { DeliveryWorker } from './events/delivery.js';
import { displayUrl, isLoopbackHost, listEndpoints, registerFlagEndpoints, webhookHostProblem, webhookUrlProblem, WEBHOOK_SECRET_PATTERN, WEBHOOK_SECRET_RULE, type FlagEndpoint } from './events/endpoints.js';
import { LiveNotes } from './events/live.js';
import { hashSecret } from './ids.js';
import { VERSION } from '../version.js';
import type { SeededKey, SeedSummary } from './seed/load.js';
import type { Clock, SandboxRuntime } from './types.js';

export interface SandboxOptions {
  port?: number;
  host?: string;
  seedFile?: string;
  stateFile?: string;
  /** `N/60s`, or `0` for off. Default: the service's limit (RATE_LIMIT_SPEC). */
  rateLimit?: string;
  /** How requests are counted against the rate limit: `fixed` (default) or `sliding` windows. */
  rateLimitWindow?: RateLimitWindow;
  faults?: string;
  faultSeed?: number;
  /** Start the sandbox clock at this instant (it then advances with real time). */
  now?: string;
  verbose?: boolean;
  log?: (line: string) => void;
  /** Feature options (voice pipeline pace, transcriber command, …). */
  options?: Record<string, unknown>;
  /** `--webhook URL` (repeatable): endpoints for every event of the sandbox. */
  webhooks?: string[];
  /** Their secret (`--webhook-secret-file` / NOTEVOX_SANDBOX_WEBHOOK_SECRET); generated when absent. */
  webhookSecret?: string;
  /** `--webhook-pace F`: multiplies every retry delay and the delivery timeout (default 1). */
  webhookPace?: number;
  /** `--webhook-allow-host HOST` (repeatable): hosts beyond loopback that webhooks may be delivered to. */
  webhookAllowHosts?: string[];
  /** `--control-token-file` / NOTEVOX_SANDBOX_CONTROL_TOKEN: the control API needs it as Bearer value. */
  controlToken?: string;
  /** Where built seed databases are cached by the seed file's content (seed/cache.ts); none: no cache (`--no-seed-cache`). */
  seedCacheDir?: string;
  /** Tests: split a seed at its word memories from this size of their text on (seed/word-memories.ts; default 1 Mi chars). */
  seedSplitMinChars?: number;
  /** Tests: the share of a split seed's word memories built on the start's thread (seed/word-memories.ts, tailShare). */
  seedTailShare?: number;
}

export interface RunningSandbox {
  /** The URL clients use: for a wildcard --host (0.0.0.0, ::), the loopback address, which the CLI accepts. */
  baseUrl: string;
  /** Where it listens, as a URL (differs from baseUrl for a wildcard --host). */
  listenUrl: string;
  host: string;
  port: number;
  /** Keys seeded in this run; for a reloaded state file, only the demo-seed keys it still holds (other secrets are not stored). */
  keys: SeedSummary['keys'];
  /** The state came from the state file (no seed was loaded). */
  reloaded: boolean;
  /** The `--webhook` endpoints, with the secret generated in this run (to print once). */
  webhooks: FlagEndpoint[];
  db: Db;
  rt: SandboxRuntime;
  close(): Promise<void>;
}

export class SandboxConfigError extends Error {}

export function makeClock(nowIso?: string): Clock {
  if (!nowIso) return { now: () => new Date() };
  const start = parseIsoInstant(nowIso)?.getTime();
  if (start === undefined) throw new SandboxConfigError(`--now "${nowIso}" is not an ISO 8601 instant, e.g. 2026-11-01T09:00:00Z`);
  const t0 = Date.now();
  return { now: () => new Date(start + (Date.now() - t0)) };
}

/**
 * The keys of a reloaded state whose secrets are known: the state keeps only salted hashes, but the demo
 * seed's secrets are public, so a demo key that still verifies is printed again. Others are left out.
 */
function knownStoredKeys(db: Db, secrets: Map<string, string> = new Map((demoSeed.apiKeys ?? []).map((k) => [k.id, k.secret]))): SeedSummary['keys'] {
  const demo = secrets;
  const rows = db.all<{ id: string; type: SeededKey['type']; label: string | null; status: SeededKey['status']; workspace_guid: string | null; scopes: string; secret_salt: string; secret_hash: string }>(
    'SELECT id, type, label, status, workspace_guid, scopes, secret_salt, secret_hash FROM api_keys ORDER BY rowid',
  );
  return rows.flatMap((r) => {
    const secret = demo.get(r.id);
    if (secret === undefined || hashSecret(secret, r.secret_salt) !== r.secret_hash) return [];
    return [{ id: r.id, type: r.type, label: r.label ?? undefined, status: r.status, secret, workspaceGuid: r.workspace_guid ?? undefined, scopes: JSON.parse(r.scopes) as string[] }];
  });
}

/** Whether a bind address reaches only this machine. */
export { isLoopbackHost };

function checkEventOptions(opts: SandboxOptions): void {
  for (const url of opts.webhooks ?? []) {
    const problem = webhookUrlProblem(url) ?? webhookHostProblem(url, opts.webhookAllowHosts ?? []);
    if (problem) throw new SandboxConfigError(`--webhook "${url}" ${problem}`);
  }
  for (const host of opts.webhookAllowHosts ?? []) {
    if (!/^(\[[0-9A-Fa-f:.]+\]|[0-9A-Fa-f:.]+|[A-Za-z0-9.-]+)$/.test(host.trim()) || !host.trim())
      throw new SandboxConfigError(`--webhook-allow-host "${host}" is not a host name or address, e.g. --webhook-allow-host hooks.example.test`);
  }
  if (opts.webhookSecret !== undefined && !WEBHOOK_SECRET_PATTERN.test(opts.webhookSecret)) throw new SandboxConfigError(`the webhook secret ${WEBHOOK_SECRET_RULE}`);
  if (opts.webhookPace !== undefined && !(opts.webhookPace > 0 && Number.isFinite(opts.webhookPace)))
    throw new SandboxConfigError(`--webhook-pace "${opts.webhookPace}" must be a number above 0, e.g. 0.001 to run the retry schedule in milliseconds`);
  if (opts.controlToken !== undefined && !WEBHOOK_SECRET_PATTERN.test(opts.controlToken)) throw new SandboxConfigError(`the control token ${WEBHOOK_SECRET_RULE.replace('Bearer value', 'Bearer value of control requests')}`);
}

/**
 * The demo seed as a database image (demo-image.ts): the one the build wrote, or else (running from src/) the first
 * demo-seed database this process loaded. A sandbox without a seed file or a stored state starts as a copy of it (a
 * few ms, where checking and inserting the seed again took 50–400 ms). null: looked for, none yet.
 */
let demoImage: string | Uint8Array | null | undefined;
function demoImageBytes(): string | Uint8Array | undefined {
  if (demoImage === undefined) demoImage = builtDemoImage() ?? null;
  return demoImage ?? undefined;
}

/** Open the state, seed it, and build the runtime and app — without listening (tests use app.request). */
export async function prepareSandbox(opts: SandboxOptions) {
  const log = opts.log ?? ((l: string) => process.stderr.write(l + '\n'));
  checkEventOptions(opts);
  const clock = makeClock(opts.now);
  const rateLimit = parseRateLimit(opts.rateLimit ?? RATE_LIMIT_SPEC, opts.rateLimitWindow);
  const faults = opts.faults ? new FaultInjector(parseFaultSpec(opts.faults), opts.faultSeed ?? Date.now()) : null;
  let keys: SeedSummary['keys'] = [];
  let empty = true;
  // A seed file with a state file that already holds data is refused (in init); otherwise the seed's database
  // comes from the seed cache, or the seed is loaded (and then kept in the cache, if there is one).
  const stateHeld = opts.stateFile !== undefined && existsSync(opts.stateFile) && statSync(opts.stateFile).size > 0;
  // Seed loading (and its zod schema) is imported only when a seed is loaded: the demo seed starts from its image.
  const seeding = () => import('./seed/load.js');
  // A big seed's word memories are built apart (seed/word-memories.ts), on a second core: on one, that only adds the copy.
  const splitMinChars = opts.seedSplitMinChars ?? (availableParallelism() > 1 ? undefined : Number.POSITIVE_INFINITY);
  const cache = opts.seedFile && opts.seedCacheDir && !stateHeld ? await (await import('./seed/cache.js')).seedCache(opts.seedFile, opts.seedCacheDir, { splitMinChars, tailShare: opts.seedTailShare }) : undefined;
  const seedRead = opts.seedFile && !cache ? seeding().then((s) => s.readSeedFile(opts.seedFile!)) : undefined;
  seedRead?.catch(() => {});
  const seedSource = opts.seedFile ? `seed file ${opts.seedFile}` : 'demo seed';
  /** The seed's webhook endpoints must be allowed by this start. */
  const checkSeedEndpoints = (db: Db) => {
    for (const e of listEndpoints(db)) {
      const problem = webhookHostProblem(e.url, opts.webhookAllowHosts ?? []);
      if (problem) throw new SandboxConfigError(`${seedSource}: webhookEndpoints (id "${e.id}"): url "${displayUrl(e.url)}" ${problem}`);
    }
  };
  // A seed not in the cache yet is loaded straight into its cache entry, which is then opened as a cached one.
  let built = false;
  const loading = cache?.seed !== undefined || cache?.split ? await seeding() : undefined;
  const buildWhole = (seed: unknown) =>
    cache!.build((db) => {
      keys = loading!.loadSeed(db, seed, seedSource).keys;
      checkSeedEndpoints(db);
      built = true;
    });
  // A big seed split at its word memories (seed/word-memories.ts); loaded whole when that cannot vouch for it.
  const buildSplit = async (split: NonNullable<typeof cache>['split'] & {}) => {
    try {
      return await cache!.build(async (db) => {
        const loaded = await loading!.loadSplitSeed(db, split.head, split.wordMemories, seedSource);
        keys = loaded.keys;
        checkSeedEndpoints(db);
        built = true;
        return loaded.file;
      });
    } catch (e) {
      if (!(e instanceof loading!.LoadWhole)) throw e;
      if (opts.verbose) log(`sandbox: ${seedSource}: loading it whole (its word memories apart: ${(e as Error).message})`);
      return await buildWhole(split.whole());
    } finally {
      await split.wordMemories.cancel();
    }
  };
  const image = cache?.split && loading ? await buildSplit(cache.split) : cache?.seed !== undefined && loading ? await buildWhole(cache.seed) : cache?.image;
  const db = await openDatabase({
    stateFile: opts.stateFile,
    log,
    image: image ?? (opts.seedFile ? undefined : demoImageBytes()),
    init: async (db, { fromImage }) => {
      // A copy of a built seed: its keys are those whose secrets are known (the demo seed's, or the cached seed file's).
      if (built) return;
      if (fromImage) {
        keys = knownStoredKeys(db, cache?.secrets);
        return;
      }
      empty = (db.get<{ n: number }>('SELECT count(*) AS n FROM organizations')?.n ?? 0) === 0;
      if (empty || opts.seedFile) {
        if (!empty) throw new SandboxConfigError(`--seed was given but the state file ${opts.stateFile} already holds data: remove it or drop --seed`);
        const seed = seedRead ? await seedRead : demoSeed;
        keys = (await seeding()).loadSeed(db, seed, seedSource).keys;
        checkSeedEndpoints(db);
        if (!opts.seedFile) demoImage ||= db.export();
      } else keys = knownStoredKeys(db);
    },
  });
  const uploadDir = mkdtempSync(join(tmpdir(), 'notevox-sandbox-'));
  const timers = new Set<NodeJS.Timeout>();
  let baseUrl = '';
  // Events: the bus records them, the worker delivers them, live notes make them as they go.
  const delivery = new DeliveryWorker({ db, clock, pace: opts.webhookPace ?? 1, log, verbose: opts.verbose, userAgent: `notevox-sandbox/${VERSION}`, allowedHosts: opts.webhookAllowHosts ?? [] });
  const bus = new EventBus(db, clock, () => delivery.wake());
  const live = new LiveNotes(db, clock, bus.emit, log);
  const webhooks = registerFlagEndpoints(db, clock, opts.webhooks ?? [], opts.webhookSecret);
  // Endpoints of a reloaded state that this start does not allow: kept, but their deliveries fail (the worker checks).
  for (const e of listEndpoints(db)) {
    const problem = webhookHostProblem(e.url, opts.webhookAllowHosts ?? []);
    if (problem) log(`sandbox: webhook endpoint ${e.id} ${displayUrl(e.url)}: ${problem}; its deliveries fail until then`);
  }
  const rt: SandboxRuntime = {
    db,
    clock,
    baseUrl: () => baseUrl,
    signingKey: randomBytes(32),
    uploadDir,
    schedule(fn, delayMs) {
      const t = setTimeout(() => {
        timers.delete(t);
        Promise.resolve()
          .then(fn)
          .catch((e) => log(`sandbox: background task failed: ${(e as Error).message}`));
      }, delayMs);
      timers.add(t);
    },
    options: opts.options ?? {},
    emit: bus.emit,
  };
  const app = createApp({
    rt,
    rateLimiter: rateLimit ? new RateLimiter(rateLimit) : null,
    faults,
    accessLog: opts.verbose ? (l) => log(`sandbox: ${l}`) : undefined,
    errorLog: (l) => log(`sandbox: ${l}`),
    routes: [controlRoutes({ db, clock, bus, live, token: opts.controlToken, loopback: isLoopbackHost(opts.host ?? '127.0.0.1'), webhookAllowHosts: opts.webhookAllowHosts ?? [] })],
  });
  live.resume();
  delivery.wake();
  const shutdown = async () => {
    live.stop();
    await delivery.stop();
    for (const t of timers) clearTimeout(t);
    timers.clear();
    await db.close();
    rmSync(uploadDir, { recursive: true, force: true });
  };
  return { app, rt, db, keys, webhooks, reloaded: !empty, delivery, setBaseUrl: (u: string) => (baseUrl = u), shutdown };
}

/** Addresses that mean "every interface". */
export const isWildcardHost = (host: string) => host === '0.0.0.0' || host === '::' || host === '';

/** The envelope of a request refused before the app (400000), and its headers. */
function malformed(detail: string) {
  const body = JSON.stringify(errorEnvelope(400, ERROR_CODES.MALFORMED, 'malformed request', detail));
  return { body, headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(body)), connection: 'close' } };
}

/** The same, as the bytes of a whole HTTP answer, for failures that happen before there is a request at all. */
function malformedBytes(detail: string): string {
  const { body, headers } = malformed(detail);
  return [`HTTP/1.1 400 ${STATUS_CODES[400]}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', body].join('\r\n');
}

/**
 * Node's HTTP parser refuses some requests before any handler sees them (headers over 16 KiB, a request line or
 * header that is not HTTP, a request that takes too long to arrive): answer those with the envelope too, where the
 * socket can still carry an answer (docs/sandbox.md lists what remains).
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const detail =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? 'the request headers are too large (at most 16 KiB)'
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'the request did not arrive in time'
        : `not a valid HTTP/1.1 request (${err.code ?? err.message})`;
  socket.end(malformedBytes(detail));
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  const prepared = await prepareSandbox(opts);
  const { getRequestListener } = await import('@hono/node-server');
  const host = opts.host ?? '127.0.0.1';
  // A Host header that is not a host, or an absolute URL that is not one: the envelope rather than an empty 400.
  const listener = getRequestListener(prepared.app.fetch, {
    hostname: host,
    errorHandler: (e) => {
      const { body, headers } = malformed(`the Host header and the request target do not make a URL (${(e as Error).message})`);
      return new Response(body, { status: 400, headers });
    },
  });
  // Node answers a missing Host itself (an empty 400) unless told not to; HTTP/1.1 requires it, so check it here.
  const server = createServer({ requireHostHeader: false }, (req: IncomingMessage, res: ServerResponse) => {
    if (req.httpVersion === '1.1' && !req.headers.host) {
      const { body, headers } = malformed('HTTP/1.1 requests need a Host header');
      res.writeHead(400, headers).end(body);
      return;
    }
    void listener(req, res);
  });
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 4010, host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch(async (e: unknown) => {
    await prepared.shutdown().catch(() => undefined);
    throw e;
  });
  // The request schemas, built now rather than at the first request (or before listening): see validation-load.ts.
  setImmediate(() => void loadValidation().catch(() => {}));
  const port = (server.address() as AddressInfo).port;
  const urlOf = (h: string) => `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
  const listenUrl = urlOf(host);
  // 0.0.0.0 is no address to connect to (and the CLI sends a key over plain http only to loopback): this machine
  // reaches a wildcard listener on 127.0.0.1.
  const baseUrl = isWildcardHost(host) ? urlOf('127.0.0.1') : listenUrl;
  prepared.setBaseUrl(baseUrl);
  let closed = false;
  return {
    baseUrl,
    listenUrl,
    host,
    port,
    keys: prepared.keys,
    reloaded: prepared.reloaded,
    webhooks: prepared.webhooks,
    db: prepared.db,
    rt: prepared.rt,
    async close() {
      if (closed) return;
      closed = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await prepared.shutdown();
    },
  };
}
