import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileBody } from '../../src/client/file-body.js';
import { EXIT } from '../../src/errors.js';

/** The upload body (src/client/file-body.ts), as node:http takes it chunk by chunk and as undici takes it as a stream. */

const CHUNK = 1000;
let dir: string;
let path: string;
/** 10.5 chunks of numbered bytes, so that a chunk read from the wrong offset or a reused buffer shows. */
const content = Buffer.from(Array.from({ length: CHUNK * 10 + 500 }, (_, i) => (i * 7) % 251));

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
  it('serves the whole file from three buffers, each reused only after the socket took its chunk', async () => {
    const c = counting();
    const body = new FileBody(path, content.length, c.hooks, CHUNK);
    const received: Buffer[] = [];
    const buffers = new Set<ArrayBufferLike>();
    const held: Buffer[] = [];
    for (;;) {
      const chunk = await body.nextChunk();
      if (!chunk) break;
      buffers.add(chunk.buffer);
      received.push(Buffer.from(chunk)); // a copy: the buffer is reused
      held.push(chunk);
      // The socket hands chunks back late: two are held while the third is read.
      if (held.length === 3) body.chunkTaken(held.shift()!);
    }
    for (const chunk of held) body.chunkTaken(chunk);
    body.destroy();
    expect(Buffer.concat(received).equals(content)).toBe(true);
    expect(buffers.size).toBe(3);
    expect(c.sent.at(-1)).toBe(content.length);
    expect(c.sent).toHaveLength(11);
    expect(c.doneCalls()).toBe(1);
  });

  it('waits for a chunk to be taken when all three buffers are out', async () => {
    const body = new FileBody(path, content.length, counting().hooks, CHUNK);
    const out = [await body.nextChunk(), await body.nextChunk(), await body.nextChunk()];
    let fourth: Buffer | null | undefined;
    const waiting = body.nextChunk().then((c) => (fourth = c));
    await new Promise((r) => setTimeout(r, 20));
    expect(fourth).toBeUndefined();
    body.chunkTaken(out[1]!);
    await waiting;
    expect(fourth?.buffer).toBe(out[1]!.buffer);
    expect(Buffer.from(fourth!).equals(content.subarray(3 * CHUNK, 4 * CHUNK))).toBe(true);
    body.destroy();
  });

  it('a file that shrank is a usage error naming it', async () => {
    const body = new FileBody(path, content.length, counting().hooks, CHUNK);
    const first = await body.nextChunk();
    await truncate(path, 10);
    body.chunkTaken(first!);
    const err = await body.nextChunk().catch((e: unknown) => e);
    expect(err).toMatchObject({ message: `${path} shrank while it was being uploaded`, exitCode: EXIT.USAGE });
    body.destroy();
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
