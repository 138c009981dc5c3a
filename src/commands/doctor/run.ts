import type { ResolvedCredentials } from '../../config/resolve.js';
import type { ConfigStore } from '../../config/store.js';
import { CliError, EXIT, UsageError } from '../../errors.js';
import type { Column } from '../../io/render.js';
import { paint, type Style } from '../../io/text.js';
import type { Flags } from '../registry.js';
import type { Context } from '../types.js';
import {
  checkClock,
  checkConfig,
  checkKey,
  checkNode,
  checkProfile,
  checkProxy,
  checkRateLimit,
  checkReachable,
  checkScopes,
  checkTls,
  checkVoice,
  checkWorkspace,
  COMMAND_GROUPS,
  skipped,
  type Check,
  type SettingSource,
  type Verdict,
  voicePermission,
} from './checks.js';
import type * as cmd from './index.js';

/** `--for notes,voice` → the groups; every group when not given. */
function chosenGroups(value: string | undefined): string[] {
  if (value === undefined) return COMMAND_GROUPS;
  const groups = value.split(',').map((g) => g.trim()).filter(Boolean);
  const unknown = groups.filter((g) => !COMMAND_GROUPS.includes(g));
  if (!groups.length || unknown.length) {
    throw new UsageError(`--for: unknown command group${unknown.length > 1 ? 's' : ''} ${unknown.map((g) => `"${g}"`).join(', ') || '(none given)'}`, `Name some of: ${COMMAND_GROUPS.join(', ')}, e.g. --for wm,voice.`);
  }
  return groups;
}

/** Where output, timeout, max_retries and color come from: a flag, the environment, the config file, or the default. */
function settingSources(ctx: Context, stored: Record<string, string>): Record<string, SettingSource> {
  const g = ctx.globals;
  const pick = (flag: string | undefined, key: string, fallback: string): SettingSource =>
    flag !== undefined ? { value: flag, source: 'flag' } : stored[key] !== undefined ? { value: stored[key], source: 'config' } : { value: fallback, source: 'default' };
  // NO_COLOR and FORCE_COLOR cannot be told apart from what the CLI itself sets for its libraries: say what was decided.
  const color: SettingSource =
    g.color === false ? { value: 'never', source: 'flag' } : stored.color !== undefined ? { value: stored.color, source: 'config' } : { value: `auto (${ctx.io.color ? 'on' : 'off'} here)`, source: 'default' };
  return {
    output: pick(g.json ? 'json' : g.output, 'output', 'table on a terminal, else tsv'),
    timeout: pick(g.timeout, 'timeout', '30'),
    max_retries: pick(g.maxRetries, 'max_retries', '3'),
    color,
  };
}

/** Every check, in order; the network ones only when asked and when what they build on passed. */
export async function runChecks(ctx: Context, o: { network: boolean; groups: string[]; narrowed: boolean }): Promise<Check[]> {
  const now = () => ctx.clock.now();
  const checks: Check[] = [checkNode(now())];

  let store: ConfigStore | undefined;
  let creds: ResolvedCredentials | undefined;
  let readError: string | undefined;
  let stored: Record<string, string> = {};
  try {
    store = await ctx.config();
    stored = store.listSettings();
    creds = await ctx.credentials();
  } catch (e) {
    readError = e instanceof Error ? e.message : String(e);
  }
  if (store) checks.push(checkConfig(store, creds, readError));
  else checks.push({ check: 'config', verdict: 'fail', found: readError ?? 'cannot open the config', fix: 'Set NOTEVOX_CONFIG_DIR to a directory you own.' });
  if (!store || !creds) {
    for (const name of ['profile', 'proxy', 'base-url', 'tls', 'key', 'scopes', 'workspace', 'voice', 'rate-limit', 'clock']) checks.push(skipped(name, 'the config file could not be read'));
    return checks;
  }
  checks.push(checkProfile(store, creds, settingSources(ctx, stored)));
  checks.push(checkProxy(ctx.env, creds.baseUrl));

  const network = ['base-url', 'tls', 'key', 'scopes', 'workspace', 'voice', 'rate-limit', 'clock'];
  const skipRest = (why: string) => {
    for (const name of network) if (!checks.some((c) => c.check === name)) checks.push(skipped(name, why));
    return checks;
  };
  if (!o.network) return skipRest('--no-network');

  let baseUrl: string;
  try {
    const { validateBaseUrl } = await import('../../config/baseurl.js');
    baseUrl = validateBaseUrl(creds.baseUrl);
  } catch (e) {
    const hint = e instanceof CliError ? e.hint : undefined;
    checks.push({ check: 'base-url', verdict: 'fail', found: (e as Error).message, fix: hint ?? 'Set a valid base URL with `notevox auth login --base-url …`.' });
    return skipRest('the base URL cannot be used');
  }
  // No retries: the doctor reports what it sees, at once.
  const anonymous = await ctx.clientFor({ baseUrl, maxRetries: 0 });
  const reach = await checkReachable(anonymous, baseUrl, now);
  checks.push(reach.result);
  checks.push(await checkTls(baseUrl, ctx.env, now(), reach.result.verdict === 'ok'));
  if (reach.result.verdict !== 'ok') return skipRest('the base URL did not answer');
  if (!creds.apiKey) return skipRest('no API key');

  const client = await ctx.clientFor({ baseUrl, apiKey: creds.apiKey, maxRetries: 0 });
  const key = await checkKey(client, creds, now);
  checks.push(key.result);
  const me = key.me;
  if (!me) {
    if (key.answer) {
      checks.push(checkRateLimit(key.answer.response.headers, now()));
      checks.push(checkClock(key.answer));
    }
    return skipRest('the key was not accepted');
  }
  checks.push(checkScopes(me, o.groups, o.narrowed));
  const ws = await checkWorkspace(client, me);
  checks.push(ws.result);
  if (o.groups.includes('voice')) {
    checks.push(checkVoice(ws.bound, ws.reachable, me, await voicePermission(client, me)));
  } else checks.push(skipped('voice', 'voice is not in --for'));
  checks.push(checkRateLimit(key.answer!.response.headers, now()));
  checks.push(checkClock(key.answer ?? reach.answer));
  return checks;
}

const STYLE: Record<Verdict, Style> = { ok: 'green', warn: 'yellow', fail: 'red', skip: 'dim' };

/** On a terminal: a table of check, verdict and finding, then the fixes in full (they are too long for a column). */
function printTable(ctx: Context, checks: Check[]): Promise<void> {
  return import('../../io/table.js').then(({ formatTable }) => {
    const io = ctx.io;
    io.out(
      formatTable({
        headers: ['CHECK', 'RESULT', 'FOUND'],
        rows: checks.map((c) => [c.check, c.verdict, c.found]),
        columns: io.columns,
        color: io.color,
      }).replace(/^(\S+)(\s+)(ok|warn|fail|skip)\b/gm, (_, name: string, gap: string, v: Verdict) => `${name}${gap}${paint(io.color, STYLE[v], v)}`),
    );
    const fixes = checks.filter((c) => c.fix);
    if (fixes.length) {
      // What was found in full (the table cuts it to the terminal's width), and the fix.
      io.out('\nTo fix:\n');
      for (const c of fixes) io.out(`  ${paint(io.color, STYLE[c.verdict], `${c.check} (${c.verdict})`)}: ${c.found}\n    ${c.fix}\n`);
    }
    const failed = checks.filter((c) => c.verdict === 'fail').length;
    const warned = checks.filter((c) => c.verdict === 'warn').length;
    io.out(`\n${failed ? `${failed} check${failed === 1 ? '' : 's'} failed` : 'No problem found'}${warned ? `, ${warned} warning${warned === 1 ? '' : 's'}` : ''}.\n`);
  });
}

const COLUMNS: Column<Check>[] = [
  { key: 'check', header: 'CHECK' },
  { key: 'verdict', header: 'RESULT' },
  { key: 'found', header: 'FOUND' },
  { key: 'fix', header: 'FIX', get: (c) => c.fix ?? '' },
];

export async function doctor(ctx: Context, flags: Flags<typeof cmd.doctor>): Promise<number> {
  const groups = chosenGroups(flags.for);
  const checks = await runChecks(ctx, { network: flags.network, groups, narrowed: flags.for !== undefined });
  const { renderList } = await import('../../io/render.js');
  if (ctx.output.format === 'table' && ctx.output.human) await printTable(ctx, checks);
  else renderList(ctx.io, checks, COLUMNS, ctx.output);
  return checks.some((c) => c.verdict === 'fail') ? EXIT.CHECK_FAILED : EXIT.OK;
}
