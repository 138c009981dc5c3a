import { Command, Option } from '@commander-js/extra-typings';
import { integer } from '../args.js';
import { eventTypes } from '../shared.js';
import type { Registry } from '../registry.js';

export const listen = () =>
  new Command('listen')
    .description(
      'a local webhook receiver: checks the Bearer secret, answers at once, drops duplicates and prints each event (a line on a terminal, NDJSON when piped); runs until Ctrl-C',
    )
    .addOption(new Option('--port <port>', 'port to listen on (0 = any free port)').argParser(integer(0, 65535)).default(4242))
    .addOption(new Option('--host <host>', 'address to bind').default('127.0.0.1'))
    .option('--forward-to <url>', "also POST each event (same body and headers) to your app, and answer the sender with your app's status")
    .addOption(eventTypes('--events <types>', 'only these event types (comma-separated, see docs/events.md); others are acknowledged and skipped'))
    .option('--secret-file <file>', 'the endpoint secret to expect (else env NOTEVOX_WEBHOOK_SECRET)');

export function registerWebhooks(program: Command<any, any, any>, r: Registry): void {
  const webhooks = program.command('webhooks').description('receive and inspect webhook events locally (docs/events.md)');
  if (!r.wants('webhooks')) return;
  r.add(webhooks, listen, () => import('./run.js'), 'listen', [
    'NOTEVOX_WEBHOOK_SECRET=whsec_… notevox webhooks listen',
    'notevox webhooks listen --secret-file ./whsec.txt --forward-to http://127.0.0.1:3000/webhooks',
    'notevox webhooks listen --events note.ended,note_summary.generated -o ndjson | jq .data.resourceId',
  ]);
}
