/**
 * A file as the body of an upload, read in 1 MiB chunks. It is a Readable, and as such every chunk is a fresh
 * buffer (a consumer may hold on to it); the node:http transport instead asks for chunks with `nextChunk()` and
 * says with `chunkTaken()` when the socket has handed one to the kernel, so that the same three buffers serve
 * the whole file. Fresh memory for every chunk cost more than the copying itself: 400 MB of new pages
 * (page faults, zeroing) and the garbage collector's work for them tripled the CPU time of an upload.
 *
 * Progress counts bytes as the consumer takes them: for the Readable, when it asks for the next chunk; for
 * `nextChunk()`, in `chunkTaken()`. A file that ends before `size` bytes were read is a usage error naming it.
 *
 * node:fs's callbacks rather than node:fs/promises: the node:http transport imports this module, and every command
 * loads that transport, while fs/promises would load a dozen more modules (readline among them) at each start.
 */

const openFile = (path: string) => new Promise<number>((resolve, reject) => open(path, 'r', (e, fd) => (e ? reject(e) : resolve(fd))));
const readAt = (fd: number, buf: Buffer, length: number, position: number) =>
  new Promise<number>((resolve, reject) => read(fd, buf, 0, length, position, (e, n) => (e ? reject(e) : resolve(n))));

import { close, open, read } from 'node:fs';
import { Readable } from 'node:stream';
import { CliError, EXIT } from '../errors.js';

export const UPLOAD_CHUNK = 1024 * 1024;
/** One chunk with the kernel, one being read ahead, one spare. */
const BUFFERS = 3;

export interface FileBodyHooks {
  /** Bytes taken so far (the whole count, not the increment). */
  sent(bytes: number): void;
  /** The last chunk was taken. */
  done(): void;
}

export class FileBody extends Readable {
  readonly #path: string;
  readonly #size: number;
  readonly #hooks: FileBodyHooks;
  readonly #chunkBytes: number;
  #opening: Promise<number> | undefined;
  /** The read under way, if any (settled; never rejects). */
  #reading: Promise<unknown> = Promise.resolve();
  /** Bytes read from the file. */
  #read = 0;
  /** Bytes the consumer has taken. */
  #taken = 0;
  /** Buffers of `nextChunk()` that are free again, and those handed out. */
  readonly #free: Buffer[] = [];
  #allocated = 0;
  #waiting: (() => void) | undefined;
  #closed = false;

  constructor(path: string, size: number, hooks: FileBodyHooks, chunkBytes = UPLOAD_CHUNK) {
    super({ highWaterMark: chunkBytes });
    this.#path = path;
    this.#size = size;
    this.#hooks = hooks;
    this.#chunkBytes = chunkBytes;
  }

  #fd(): Promise<number> {
    return (this.#opening ??= openFile(this.#path));
  }

  /** Read the next piece of the file into `buf`; undefined at the end. */
  async #readInto(buf: Buffer): Promise<Buffer | undefined> {
    if (this.#read >= this.#size) return undefined;
    const fd = await this.#fd();
    if (this.#closed) throw new Error('the upload body was closed'); // its fd is being closed
    const want = Math.min(buf.length, this.#size - this.#read);
    const reading = readAt(fd, buf, want, this.#read);
    this.#reading = reading.catch(() => undefined);
    const bytesRead = await reading;
    if (bytesRead === 0) throw new CliError(`${this.#path} shrank while it was being uploaded`, { exitCode: EXIT.USAGE });
    this.#read += bytesRead;
    return bytesRead === buf.length ? buf : buf.subarray(0, bytesRead);
  }

  #count(bytes: number) {
    this.#taken += bytes;
    this.#hooks.sent(this.#taken);
    if (this.#taken === this.#size) this.#hooks.done();
  }

  // ---- as a Readable (undici, tests): a fresh buffer per chunk

  #pushed = 0;

  override _read(): void {
    // Asked for more: what was pushed before has been taken.
    if (this.#pushed) this.#count(this.#pushed);
    this.#pushed = 0;
    const buf = Buffer.allocUnsafe(Math.min(this.#chunkBytes, Math.max(1, this.#size - this.#read)));
    this.#readInto(buf).then(
      (chunk) => {
        if (!chunk) return void this.push(null);
        this.#pushed = chunk.length;
        this.push(chunk);
      },
      (e: Error) => this.destroy(e),
    );
  }

  // ---- chunk by chunk, the buffers reused (node:http)

  /**
   * The next chunk, or null after the last. Its buffer is reused once `chunkTaken(chunk)` says the socket is done
   * with it, so that one call may wait for an earlier chunk to be taken. At most one call at a time.
   */
  async nextChunk(): Promise<Buffer | null> {
    if (this.#read >= this.#size) return null;
    let buf = this.#free.pop();
    if (!buf && this.#allocated < BUFFERS) {
      this.#allocated++;
      buf = Buffer.allocUnsafeSlow(this.#chunkBytes);
    }
    while (!buf) {
      await new Promise<void>((resolve) => (this.#waiting = resolve));
      if (this.#closed) throw new Error('the upload body was closed');
      buf = this.#free.pop();
    }
    if (this.#closed) throw new Error('the upload body was closed');
    return (await this.#readInto(buf)) ?? null;
  }

  /** The socket has taken `chunk` (from `nextChunk()`): it counts as sent, and its buffer is free for a later chunk. */
  chunkTaken(chunk: Buffer): void {
    this.#count(chunk.length);
    if (this.#closed) return;
    this.#free.push(Buffer.from(chunk.buffer, chunk.byteOffset, this.#chunkBytes));
    const wake = this.#waiting;
    this.#waiting = undefined;
    wake?.();
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    this.#closed = true;
    const wake = this.#waiting;
    this.#waiting = undefined;
    wake?.();
    const opening = this.#opening;
    if (!opening) return callback(err);
    // After a read still under way (a callback of node:fs cannot be cancelled): its fd is closed once it is done.
    void this.#reading
      .then(() => opening)
      .then(
        (fd) => close(fd, () => callback(err)),
        () => callback(err),
      );
  }
}
