import type { RateLimit } from '../../sandbox/ratelimit.js';
import { UsageError } from '../../errors.js';
import type { Flags } from '../registry.js';
import type { Context } from '../types.js';
import type * as cmd from './index.js';

/**
 * The warning for a sandbox reachable from other machines: its demo keys are public values, and it speaks plain
 * http, which notevox sends a key over only to loopback addresses. Says which base URL works, and how to reach it
 * from elsewhere.
 */
function exposedWarning(host: string, port: number, baseUrl: string, wildcard: boolean): string {
  const here = wildcard ? ` From this machine use --base-url ${baseUrl}.` : '';
  const target = wildcard ? `127.0.0.1:${port}` : `${host.includes(':') ? `[${host}]` : host}:${port}`;
  return (
    `the sandbox listens on ${host}, so other machines can reach it: its demo keys are public values that anyone can use, and it answers over plain http.` +
    `${here} notevox sends a key over http:// only to loopback addresses: from another machine, tunnel to it (ssh -L ${port}:${target} <this host>, then --base-url http://127.0.0.1:${port}) or put an HTTPS proxy in front.`
  );
}

/** What the banner says about the rate limit and the faults in force. */
function inForce(limit: RateLimit | null, flags: Flags<typeof cmd.start>): string {
  const rate = limit
    ? `Rate limit: ${limit.requests} requests per ${limit.windowSeconds} s per key (${limit.window ?? 'fixed'} window; --rate-limit 0 turns it off).`
    : 'Rate limit: off.';
  const faults = flags.faults ? ` Faults: ${flags.faults}${flags.faultSeed !== undefined ? ` (seed ${flags.faultSeed})` : ''}.` : ' Faults: none.';
  return rate + faults;
}

export async function start(ctx: Context, flags: Flags<typeof cmd.start>): Promise<number> {
  // Imported side by side: each import() of a chunk not yet loaded waits for its file before the next one starts.
  const [{ startSandbox, SandboxConfigError, isWildcardHost }, { isLoopbackHost }, { FaultSpecError }, { RateLimitError, parseRateLimit }, { readSecret }, { cacheDir }, { join }] = await Promise.all([
    import('../../sandbox/server.js'),
    import('../../config/baseurl.js'),
    import('../../sandbox/faults.js'),
    import('../../sandbox/ratelimit.js'),
    import('../secret-file.js'),
    import('../wm/journal.js'),
    import('node:path'),
  ]);
  const jobSeconds = flags.jobSeconds;
  const webhookPace = flags.webhookPace !== undefined ? Number(flags.webhookPace) : undefined;
  if (webhookPace !== undefined && !(webhookPace > 0 && Number.isFinite(webhookPace)))
    throw new UsageError(`--webhook-pace "${flags.webhookPace}" must be a number above 0`, 'e.g. --webhook-pace 0.001 runs the whole retry schedule in about 10 seconds');
  const webhookSecret = await readSecret({ file: flags.webhookSecretFile, flag: '--webhook-secret-file', env: ctx.env, envName: 'NOTEVOX_SANDBOX_WEBHOOK_SECRET', what: 'webhook secret' });
  const controlToken = await readSecret({ file: flags.controlTokenFile, flag: '--control-token-file', env: ctx.env, envName: 'NOTEVOX_SANDBOX_CONTROL_TOKEN', what: 'control token' });
  ctx.takeOverInterrupt();
  let sandbox;
  try {
    sandbox = await startSandbox({
      port: flags.port,
      host: flags.host,
      seedFile: flags.seed,
      stateFile: flags.state,
      rateLimit: flags.rateLimit,
      rateLimitWindow: flags.rateLimitWindow,
      faults: flags.faults,
      faultSeed: flags.faultSeed,
      now: flags.now,
      verbose: flags.verbose,
      log: (line) => ctx.io.err(line + '\n'),
      options: { jobSeconds, transcriberCommand: flags.transcriberCommand },
      webhooks: flags.webhook,
      webhookAllowHosts: flags.webhookAllowHost,
      webhookSecret,
      webhookPace,
      controlToken,
      seedCacheDir: flags.seedCache === false ? undefined : join(cacheDir(ctx.env), 'sandbox-seeds'),
    });
  } catch (e) {
    if (e instanceof SandboxConfigError || e instanceof FaultSpecError || e instanceof RateLimitError) throw new UsageError((e as Error).message);
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE') throw new UsageError(`port ${flags.port} is already in use`, 'Pick another with --port, or --port 0 for any free port.');
    throw e;
  }
  const keys = sandbox.keys.map((k) => ({ id: k.id, type: k.type, label: k.label ?? null, workspaceGuid: k.workspaceGuid ?? null, scopes: k.scopes, key: `${k.id}.${k.secret}` }));
  if (!isLoopbackHost(sandbox.host)) ctx.io.warn(exposedWarning(sandbox.host, sandbox.port, sandbox.baseUrl, isWildcardHost(sandbox.host)));
  // A generated webhook secret is shown this once; one from a file, the environment or the state file never.
  const webhooks = sandbox.webhooks.map((w) => ({ id: w.id, url: w.url, ...(w.generatedSecret !== undefined ? { secret: w.generatedSecret } : {}) }));
  if (ctx.output.json) {
    // One line (a script reads it while the sandbox runs), with --fields and --query applied.
    const { renderValue } = await import('../../io/render.js');
    renderValue(ctx.io, { baseUrl: sandbox.baseUrl, ...(sandbox.listenUrl !== sandbox.baseUrl ? { listening: sandbox.listenUrl } : {}), keys, webhooks }, { ...ctx.output, format: 'ndjson' });
  } else {
    ctx.io.out(`notevox sandbox listening on ${sandbox.listenUrl}${sandbox.listenUrl !== sandbox.baseUrl ? ` (base URL ${sandbox.baseUrl})` : ''}\n`);
    if (sandbox.reloaded) ctx.io.out(`State loaded from ${flags.state}; no seed applied.\n`);
    if (keys.length) {
      ctx.io.out(sandbox.reloaded ? 'Demo keys in this state (sandbox demo values, not real credentials):\n' : 'Seeded keys (sandbox demo values, not real credentials):\n');
      const w = Math.max(...keys.map((k) => k.key.length));
      for (const k of keys) ctx.io.out(`  ${k.key.padEnd(w)}  ${k.type.padEnd(16)} ${k.label ?? ''}\n`);
    } else ctx.io.out('The keys of this state are those printed when it was seeded (only their hashes are stored).\n');
    if (webhooks.length) {
      ctx.io.out('Webhook endpoints (every event of this sandbox; docs/events.md):\n');
      for (const w of sandbox.webhooks) ctx.io.out(`  ${w.id}  ${w.url}${w.kept ? '  (secret kept from the state file)' : ''}\n`);
      const generated = sandbox.webhooks.find((w) => w.generatedSecret !== undefined)?.generatedSecret;
      if (generated !== undefined) ctx.io.out(`Webhook secret (generated, shown once; give it to the receiver, e.g. NOTEVOX_WEBHOOK_SECRET): ${generated}\n`);
    }
    ctx.io.out(`${inForce(parseRateLimit(flags.rateLimit, flags.rateLimitWindow), flags)}\n`);
    ctx.io.out(`Try: notevox auth login --base-url ${sandbox.baseUrl} --profile sandbox   (paste a key above), then notevox notes list\n`);
  }
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  ctx.io.err('sandbox: shutting down\n');
  await sandbox.close();
  return 0;
}

export async function seedExample(ctx: Context): Promise<void> {
  const { demoSeed } = await import('../../sandbox/demo-seed.js');
  ctx.io.out(JSON.stringify(demoSeed, null, 2) + '\n');
}
