/**
 * A file as the body of an upload, read in 64 KiB chunks. It is a Readable, and as such every chunk is a fresh
 * buffer (a consumer may hold on to it); the node:http transport instead takes chunks with `takeChunk()` and says
 * with `chunkTaken()` when the socket has handed one to the kernel, so that the same eight buffers serve the whole
 * file. Fresh memory for every chunk cost more than the copying itself: 400 MB of new pages (page faults, zeroing)
 * and the garbage collector's work for them tripled the CPU time of an upload.
 *
 * The reads are synchronous, on the thread that then writes the chunk to the socket, as curl reads its file: a read
 * on libuv's thread pool left the chunk in another core's cache, and its copy into the socket cost half as much
 * CPU again (measured on a 400 MB upload to the sandbox: 0.32 s of CPU with pool reads, 0.20 s with these, curl
 * 0.13-0.24 s). A read of a regular file blocks for as long as the disk takes, as curl's does; the command has
 * nothing else to do meanwhile.
 *
 * The chunk size is the receiver's matter as much as ours. node:http corks the socket for the chunks written in
 * one tick, so a refill of every buffer goes out as one writev: with four 256 KiB chunks, 1 MiB at a time, which
 * the receiving end (the sandbox, on the same machine) took in at a higher cost per byte than curl's 64 KiB
 * sends. Once the sandbox stopped spending a third of its CPU on garbage collection, that was the gap: a 400 MB
 * upload ran at 0.74-0.76x the throughput of `curl -T` with 256 KiB chunks and 0.86-0.91x with 64 KiB ones
 * (alternating pairs, 16-24 each), and the sandbox's CPU for it fell from ~0.49 s to ~0.38 s, for ~0.06 s more
 * of our own (four times the chunks through the stream machinery). Larger chunks were also found to cost us more
 * CPU once they no longer stay in a core's L2 cache between the read and the write (512 KiB: +0.1 s).
 *
 * Progress counts bytes as the consumer takes them: for the Readable, when it asks for the next chunk; for
 * `takeChunk()`, in `chunkTaken()`. A file that ends before `size` bytes were read is a usage error naming it.
 */

import { close, openSync, readSync } from 'node:fs';
import { Readable } from 'node:stream';
import { CliError, EXIT } from '../errors.js';

export const UPLOAD_CHUNK = 64 * 1024;
/** Enough to keep the socket fed while the chunks written before are with the kernel (512 KiB in all). */
export const UPLOAD_BUFFERS = 8;

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
  #fd: number | undefined;
  /** Bytes read from the file. */
  #read = 0;
  /** Bytes the consumer has taken. */
  #taken = 0;
  /** Buffers of `takeChunk()` that are free again, and how many were made. */
  readonly #free: Buffer[] = [];
  #allocated = 0;
  /** Called once a buffer is free again, after `takeChunk()` found none. */
  #whenFree: (() => void) | undefined;
  #closed = false;

  constructor(path: string, size: number, hooks: FileBodyHooks, chunkBytes = UPLOAD_CHUNK) {
    super({ highWaterMark: chunkBytes });
    this.#path = path;
    this.#size = size;
    this.#hooks = hooks;
    this.#chunkBytes = chunkBytes;
  }

  /** Read the next piece of the file into `buf`; undefined at the end. */
  #readInto(buf: Buffer): Buffer | undefined {
    if (this.#read >= this.#size) return undefined;
    if (this.#closed) throw new Error('the upload body was closed');
    this.#fd ??= openSync(this.#path, 'r');
    const want = Math.min(buf.length, this.#size - this.#read);
    const bytesRead = readSync(this.#fd, buf, 0, want, this.#read);
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
    let chunk: Buffer | undefined;
    try {
      chunk = this.#readInto(Buffer.allocUnsafe(Math.min(this.#chunkBytes, Math.max(1, this.#size - this.#read))));
    } catch (e) {
      return void this.destroy(e as Error);
    }
    if (!chunk) return void this.push(null);
    this.#pushed = chunk.length;
    this.push(chunk);
  }

  // ---- chunk by chunk, the buffers reused (node:http)

  /**
   * The next chunk, read now; null after the last; undefined while every buffer is still with the socket, and then
   * `whenFree` is called once `chunkTaken()` gives one back. The buffer of a chunk is reused once `chunkTaken(chunk)`
   * says the socket is done with it. Throws what the read throws (a file that shrank: a usage error).
   */
  takeChunk(whenFree: () => void): Buffer | null | undefined {
    if (this.#closed) throw new Error('the upload body was closed');
    if (this.#read >= this.#size) return null;
    let buf = this.#free.pop();
    if (!buf && this.#allocated < UPLOAD_BUFFERS) {
      this.#allocated++;
      buf = Buffer.allocUnsafeSlow(this.#chunkBytes);
    }
    if (!buf) {
      this.#whenFree = whenFree;
      return undefined;
    }
    return this.#readInto(buf) ?? null;
  }

  /** The socket has taken `chunk` (from `takeChunk()`): it counts as sent, and its buffer is free for a later chunk. */
  chunkTaken(chunk: Buffer): void {
    this.#count(chunk.length);
    if (this.#closed) return;
    this.#free.push(Buffer.from(chunk.buffer, chunk.byteOffset, this.#chunkBytes));
    const wake = this.#whenFree;
    this.#whenFree = undefined;
    wake?.();
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    this.#closed = true;
    this.#whenFree = undefined;
    const fd = this.#fd;
    if (fd === undefined) return callback(err);
    close(fd, () => callback(err));
  }
}
