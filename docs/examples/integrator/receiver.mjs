// An integrator's webhook receiver (docs/events.md, "Recipe: an integrator's receiver, end to end").
// Node 20 or later, no dependencies. It checks the endpoint secret in constant time, answers at once,
// deduplicates on the event id, and does the work after answering: on note.ended it runs
// on-note-ended.sh (beside this file) with bash, in the current directory.
//
//   export NOTEVOX_BASE_URL=… NOTEVOX_API_KEY=…   # an organization key: the work runs with it
//   WEBHOOK_SECRET=$(cat whsec.txt) node receiver.mjs
//
// It listens on 127.0.0.1 only (PORT, default 3000): put a TLS-terminating proxy in front of it to
// take events from the service.
import { execFile } from 'node:child_process';
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error('receiver: set WEBHOOK_SECRET to the endpoint secret');
  process.exit(2);
}
if (!process.env.NOTEVOX_API_KEY) {
  console.error('receiver: export NOTEVOX_API_KEY (an organization key) before starting: the work it runs needs it');
  process.exit(2);
}
const port = Number(process.env.PORT ?? 3000);
const work = fileURLToPath(new URL('./on-note-ended.sh', import.meta.url));
const digest = (s) => createHash('sha256').update(s).digest();
const seen = new Set(); // use a table with a unique key in production

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const auth = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (!timingSafeEqual(digest(auth), digest(secret))) return res.writeHead(401).end();
    let event;
    try {
      event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return res.writeHead(400).end();
    }
    res.writeHead(200).end(); // acknowledge first: the sender waits 60 s at most
    if (seen.has(event.id)) return;
    seen.add(event.id);
    if (event.type === 'note.ended') onNoteEnded(event.data.resourceId);
  });
});
server.listen(port, '127.0.0.1', () => console.log(`receiver: listening on http://127.0.0.1:${port}/`));

function onNoteEnded(guid) {
  execFile('bash', [work, guid], (err, _stdout, stderr) => {
    // A failure leaves no file: the reconcile (reconcile.sh) finds the note again.
    if (err) console.error(`receiver: note ${guid} failed (${stderr.trim().split('\n').pop() || err.message}); reconcile.sh will retry it`);
    else console.log(`receiver: saved notes/${guid}.json`);
  });
}

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
