/**
 * A file as the body of an upload, read in 256 KiB chunks. It is a Readable, and as such every chunk is a fresh
 * buffer (a consumer may hold on to it); the node:http transport instead takes chunks with `takeChunk()` and says
 * with `chunkTaken()` when the socket has handed one to the kernel, so that one buffer serves the whole file.
 * Fresh memory for every chunk cost more than the copying itself: 400 MB of new pages (page faults, zeroing) and
 * the garbage collector's work for them tripled the CPU time of an upload.
 *
 * The reads are synchronous, on the thread that then writes the chunk to the socket, as curl reads its file: a read
 * on libuv's thread pool left the chunk in another core's cache, and its copy into the socket cost half as much
 * CPU again (measured on a 400 MB upload to the sandbox: 0.32 s of CPU with pool reads, 0.20 s with these, curl
 * 0.13-0.24 s). A read of a regular file blocks for as long as the disk takes, as curl's does; the command has
 * nothing else to do meanwhile.
 *
 * One chunk at a time, as curl sends its file: the next is read once the socket has taken the last. What the
 * sender queues ahead is the receiver's matter as much as ours. node:http corks the socket for the chunks written
 * in one tick, so with several buffers every refill went out as one writev (512 KiB with eight of 64 KiB), and the
 * receiving end (the sandbox, on the same machine) then read bytes queued a while ago rather than ones just sent,
 * at a higher cost per byte: ~0.52 s of the sandbox's CPU for a 400 MB upload against ~0.39 s for curl's 64 KiB
 * sends. With one buffer it is curl's ~0.39 s. The chunk is 256 KiB: a quarter of the calls (and of the JS per
 * call) of 64 KiB chunks, still in a core's L2 cache between the read and the write; 512 KiB cost more again.
 * Measured on this 2-core machine with the sandbox and the clients at real-time priority (the other work kept
 * out), 12 alternating rounds, the transfer against `curl -T`: 64 KiB x 8 buffers 0.71x, 256 KiB x 2 0.76x,
 * 64 KiB x 1 0.90x, 128 KiB x 1 0.92x, 256 KiB x 1 0.94x, 512 KiB x 1 0.81x.
 * Measured again as CPU (the CLI's user + system time from the first chunk to the last, medians of 12 alternating
 * rounds on the shared machine): 128 KiB 249 ms, 256 KiB 205, 512 KiB 219, 1 MiB 251; the JavaScript per call
 * falls with bigger chunks (user 92 → 53 ms) but the kernel's copies rise more (system 119 → 201 ms), the buffer no
 * longer in the core's 1 MiB L2 between its read and its send. Two 256 KiB buffers in flight, written one per tick
 * (so that node:http's cork does not join them into one writev), cost more too: 202 ms against 176 in 8 rounds. The
 * kernel's part is curl's (its reads and sends of the same 400 MB, profiled with perf: within 5 %); what this
 * transfer costs beyond curl's is node's own write path, the same in a bare node:http script writing one buffer.
 * Why the receiver costs more than with curl (perf on the sandbox's thread, the clients at real-time priority): its
 * socket reads are the same (64 KiB each, as many), but with 256 KiB sends more of the sender's queued data is
 * transmitted from the receiver's own ACKs (tcp_write_xmit and the loopback's softirq run in its read(): ~44 ms
 * more of its CPU per 400 MB). The send size decides it, not node: a Python client of 64 KiB sends (poll, send, as
 * curl does) costs the receiver curl's ~110 ms, with 256 KiB sends node's ~150. Smaller chunks were measured again
 * for that (the CLI, 12 alternating rounds each way): on a quiet machine (real-time priority) 64 or 96 KiB beat
 * 256 (the process 300 ms against 349, curl's -T 223) with the receiver at curl's CPU, but the CLI's own CPU rises
 * by ~25 ms (96 KiB) and 55-70 ms (64 KiB), node's JavaScript per write, and with the 2 cores shared (load ~2.5)
 * 256 KiB wins: 500 ms against 581 (96 KiB) and 615 (64 KiB), curl 463. 256 KiB stays: on a shared machine the
 * smaller chunks lose more (81-115 ms) than they gain on a quiet one (~49 ms).
 *
 * Progress counts bytes as the consumer takes them: for the Readable, when it asks for the next chunk; for
 * `takeChunk()`, in `chunkTaken()`. A file that ends before `size` bytes were read is a usage error naming it.
 */

import { close, openSync, readSync } from 'node:fs';
import { Readable } from 'node:stream';
import { CliError, EXIT } from '../errors.js';

export const UPLOAD_CHUNK = 256 * 1024;
/** One chunk in flight: the next is read when the socket has taken it (see above). */
export const UPLOAD_BUFFERS = 1;

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
    this.#free.push(chunk.length === this.#chunkBytes ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, this.#chunkBytes));
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
