import { Command, Option } from '@commander-js/extra-typings';
import { RATE_LIMIT_SPEC, RATE_LIMIT_WINDOWS } from '../../contract/limits.js';
import { integer, isoInstant, number, repeatable } from '../args.js';
import type { Registry } from '../registry.js';
import { registerSandboxEvents } from './events-index.js';

export const start = () =>
  new Command('start')
    .description('start the sandbox; prints its base URL and the seeded keys, runs until Ctrl-C or SIGTERM')
    .addOption(new Option('--port <port>', 'port to listen on (0 = any free port)').argParser(integer(0, 65535)).default(4010))
    .addOption(new Option('--host <host>', 'address to bind (other than loopback, other machines reach it, and its demo keys are public)').default('127.0.0.1'))
    .option('--seed <file>', 'seed JSON to load instead of the built-in demo seed (docs/sandbox-seed.md)')
    .option('--state <file>', 'keep state in this SQLite file (opened in place; each change is in it before it is answered)')
    .option('--no-seed-cache', 'load --seed afresh instead of opening the database cached for its content (in the cache directory)')
    .addOption(new Option('--rate-limit <n/60s>', 'requests per key and window; 0 turns it off').default(RATE_LIMIT_SPEC))
    .addOption(new Option('--rate-limit-window <kind>', 'count requests in fixed windows (reset at each window end) or a sliding window (any window-length span)').choices(RATE_LIMIT_WINDOWS).default('fixed' as const))
    .option('--faults <spec>', 'inject faults, e.g. "503=0.1,429=0.05:2,reset=0.02,latency=0.2:50-400"')
    .option('--fault-seed <n>', 'seed for the fault dice, for reproducible runs', integer(0))
    .option('--now <iso>', 'start the sandbox clock at this instant', isoInstant())
    .option('--job-seconds <n>', 'seconds each voice-job stage takes (default 2)', number(0))
    .option('--transcriber-command <cmd>', "speech-to-text program for voice jobs, e.g. 'whisper-cli {file}'")
    .option('--webhook <url>', 'deliver every event to this URL (repeatable); see docs/events.md', repeatable(String))
    .option('--webhook-allow-host <host>', 'also deliver webhooks to this host beyond loopback (repeatable); without it, only localhost, 127.0.0.0/8 and [::1]', repeatable(String))
    .option('--webhook-secret-file <file>', 'the secret of the --webhook endpoints (else env NOTEVOX_SANDBOX_WEBHOOK_SECRET, else generated and shown once)')
    .option('--webhook-pace <f>', 'multiply webhook retry delays and the 60 s delivery timeout, e.g. 0.001 in tests (default 1)')
    .option('--control-token-file <file>', 'token the control API (/_sandbox/) requires (else env NOTEVOX_SANDBOX_CONTROL_TOKEN); needed on a non-loopback --host')
    .option('--verbose', 'log one line per request and webhook attempt to stderr (key id, never a secret)');
export const seedExample = () => new Command('seed-example').description('print the built-in demo seed (a starting point for --seed)');

export function registerSandbox(program: Command, r: Registry): void {
  const sandbox = program.command('sandbox').description('a local emulator of the whole service, for trying things out and for tests');
  if (!r.wants('sandbox')) return;
  const load = () => import('./run.js');
  r.add(sandbox, start, load, 'start', [
    'notevox sandbox start',
    'notevox sandbox start --port 0 --json            # one JSON line: baseUrl, keys and webhooks',
    'notevox sandbox start --state ./sandbox.db --rate-limit 0',
    'notevox sandbox start --rate-limit 600/60s --rate-limit-window sliding',
    'notevox sandbox start --faults "503=0.2,reset=0.05" --fault-seed 42',
    'notevox sandbox start --webhook http://127.0.0.1:4242/webhooks --webhook-secret-file ./whsec.txt',
    'notevox sandbox start --webhook https://hooks.example.test/in --webhook-allow-host hooks.example.test',
  ]);
  registerSandboxEvents(sandbox, r);
  r.add(sandbox, seedExample, load, 'seedExample', ['notevox sandbox seed-example > seed.json']);
}
