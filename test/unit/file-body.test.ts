import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileBody, UPLOAD_BUFFERS } from '../../src/client/file-body.js';
import { EXIT } from '../../src/errors.js';

/** The upload body (src/client/file-body.ts), as node:http takes it chunk by chunk and as undici takes it as a stream. */

const CHUNK = 1000;
let dir: string;
let path: string;
/** 20.5 chunks of numbered bytes (more than twice the buffers), so that a chunk read from the wrong offset or a reused buffer shows. */
const CHUNKS = 20;
const content = Buffer.from(Array.from({ length: CHUNK * CHUNKS + 500 }, (_, i) => (i * 7) % 251));

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'notevox-file-body-'));
  path = join(dir, 'a.wav');
  await writeFile(path, content);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function counting() {
  const sent: number[] = [];
  let done = 0;
  return { sent, doneCalls: () => done, hooks: { sent: (n: number) => sent.push(n), done: () => void done++ } };
}

describe('FileBody chunk by chunk (node:http)', () => {
  const never = () => expect.unreachable('no buffer was waited for');

  it('serves the whole file from its few buffers, each reused only after the socket took its chunk', () => {
    const c = counting();
    const body = new FileBody(path, content.length, c.hooks, CHUNK);
    const received: Buffer[] = [];
    const buffers = new Set<ArrayBufferLike>();
    const held: Buffer[] = [];
    for (;;) {
      const chunk = body.takeChunk(never);
      if (chunk === null) break;
      if (!chunk) throw new Error('no buffer free although one was given back');
      buffers.add(chunk.buffer);
      received.push(Buffer.from(chunk)); // a copy: the buffer is reused
      held.push(chunk);
      // The socket hands chunks back late: all but one buffer are held while the last is read.
      if (held.length === UPLOAD_BUFFERS) body.chunkTaken(held.shift()!);
    }
    for (const chunk of held) body.chunkTaken(chunk);
    body.destroy();
    expect(Buffer.concat(received).equals(content)).toBe(true);
    expect(buffers.size).toBe(UPLOAD_BUFFERS);
    expect(c.sent.at(-1)).toBe(content.length);
    expect(c.sent).toHaveLength(CHUNKS + 1);
    expect(c.doneCalls()).toBe(1);
  });

  it('with every buffer out, says to wait and calls back once a chunk is taken', () => {
    const body = new FileBody(path, content.length, counting().hooks, CHUNK);
    const out = Array.from({ length: UPLOAD_BUFFERS }, () => body.takeChunk(never)!);
    let woken = 0;
    expect(body.takeChunk(() => woken++)).toBeUndefined();
    expect(woken).toBe(0);
    const given = out.at(-1)!;
    body.chunkTaken(given);
    expect(woken).toBe(1);
    const next = body.takeChunk(never)!;
    expect(next.buffer).toBe(given.buffer);
    expect(Buffer.from(next).equals(content.subarray(UPLOAD_BUFFERS * CHUNK, (UPLOAD_BUFFERS + 1) * CHUNK))).toBe(true);
    body.chunkTaken(next);
    expect(woken).toBe(1); // a wake-up only for the call that waited
    body.destroy();
  });

  it('a file that shrank is a usage error naming it', async () => {
    const body = new FileBody(path, content.length, counting().hooks, CHUNK);
    const first = body.takeChunk(never);
    await truncate(path, 10);
    body.chunkTaken(first!);
    expect(() => body.takeChunk(never)).toThrow(expect.objectContaining({ message: `${path} shrank while it was being uploaded`, exitCode: EXIT.USAGE }));
    body.destroy();
  });

  it('after destroy() no chunk is read, and chunks still with the socket still count', () => {
    const c = counting();
    const body = new FileBody(path, content.length, c.hooks, CHUNK);
    const first = body.takeChunk(never)!;
    body.destroy();
    expect(() => body.takeChunk(never)).toThrow('the upload body was closed');
    body.chunkTaken(first);
    expect(c.sent).toEqual([CHUNK]);
  });
});

describe('FileBody as a stream (undici)', () => {
  it('yields the file in fresh buffers and counts what was taken', async () => {
    const c = counting();
    const body = new FileBody(path, content.length, c.hooks, CHUNK);
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(content)).toBe(true);
    expect(c.sent.at(-1)).toBe(content.length);
    expect(c.doneCalls()).toBe(1);
  });
});
