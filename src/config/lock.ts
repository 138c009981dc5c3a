import { closeSync, fstatSync, linkSync, openSync, readdirSync, readFileSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CliError, EXIT } from '../errors.js';

/**
 * The config file's lock: a file beside it that holds its owner's token (`<pid>-<random>`), never empty.
 *
 * - Taking it: the token is written to a file of its own, which is then hard-linked to the lock's name; the link is
 *   made only if no lock exists (atomic, like `O_EXCL`), and a lock appears with its content or not at all.
 * - A lock is stale when its process is gone (checked by pid: a SIGKILLed holder is taken over at once), when it is
 *   empty or unreadable for a second (a lock written by an older notevox killed between create and write), or older
 *   than any change could take (60 s: a reused pid).
 * - A takeover removes the lock only if it is still the very file that was judged (inode and token), checked under
 *   a marker that only one process can create for that file (`<lock>.takeover-<token>`): of all the waiters that
 *   judged it, one removes it, and none removes a newer, live lock it did not judge. An owner removes the lock only
 *   if it still holds its token.
 * - Files left by processes killed mid-way (a token file, a marker, the config's temporary file) are swept by the
 *   next change once their process is gone.
 *
 * Why not `conf` with a lock library: `conf` writes atomically but takes no lock across processes, so it needs one
 * beside it, and the well-kept ones (proper-lockfile and its kind) judge a lock stale only by its age (mtime,
 * refreshed by a timer), so every killed holder blocks all changes for the stale period (≥ 2 s, 10 s by default),
 * the refresh timer cannot run while this synchronous store holds the lock, and their synchronous API does not
 * wait. A pid check takes over a killed holder's lock at once. Under one kill harness (40 writers, 12 holders
 * killed, a loaded machine, four runs) proper-lockfile 4.1.2 took 31–48 s against 6–22 s, and once lost 9
 * acknowledged changes (a starved live holder judged stale); this lock lost none. The kill test
 * (test/e2e/config-file.test.ts) holds it to that.
 */

/** A lock file as found: which file (inode), what it holds, and how old it is. */
export interface LockFile {
  ino: number;
  content: string;
  ageMs: number;
}

/**
 * How long a change waits for one holder of the lock, at most. A queue of changes (100 logins at once) that keeps
 * moving is waited for; one holder that does not let go for this long is not.
 */
export const CONFIG_LOCK_WAIT_MS = 30_000;
/** A lock this old is left over (a change takes milliseconds): its pid was reused, or its holder is stuck. */
const STALE_LOCK_MS = 60_000;
/** A lock without a token (an older notevox killed between creating and writing it) is left over after this. */
const EMPTY_LOCK_STALE_MS = 1_000;
/** Lock files made while taking over a marker that was itself left over: a bound on that recursion. */
const MAX_MARKER_DEPTH = 3;

const pause = new Int32Array(new SharedArrayBuffer(4));
/** Block for `ms` (the store's API is synchronous, and the wait is short and bounded). */
const sleepSync = (ms: number) => void Atomics.wait(pause, 0, 0, ms);

const newToken = () => `${process.pid}-${Math.random().toString(36).slice(2, 10)}`;

/** The pid at the start of a token (`<pid>-<random>`, or `<pid>` as older versions wrote). */
function tokenPid(content: string): number | undefined {
  const m = /^(\d+)(?:-[a-z0-9]*)?$/.exec(content.trim());
  const pid = m ? Number(m[1]) : NaN;
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/** Whether process `pid` exists (EPERM: it does, under another user). */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** The lock file at `path` (read through one descriptor, so inode and content belong together), or undefined. */
export function inspect(path: string): LockFile | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const st = fstatSync(fd);
    return { ino: st.ino, content: readFileSync(fd, 'utf8'), ageMs: Date.now() - st.mtimeMs };
  } finally {
    closeSync(fd);
  }
}

/** A lock left over: its process is gone, it never got a token, or it is older than any change could take. */
function isStale(f: LockFile): boolean {
  const pid = tokenPid(f.content);
  if (pid === undefined) return f.ageMs > EMPTY_LOCK_STALE_MS;
  return !processAlive(pid) || f.ageMs > STALE_LOCK_MS;
}

/**
 * Create `path` holding `content`, only if it does not exist; false when it does. The content is complete before
 * the name appears: it is written to `<path>.new-<token>`, then hard-linked to `path`.
 */
function createExclusive(path: string, content: string, mode: number): boolean {
  const temp = `${path}.new-${newToken()}`;
  const fd = openSync(temp, 'wx', mode);
  try {
    try {
      writeSync(fd, content);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(temp, path);
      return true;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS' || code === 'EOPNOTSUPP') return createExclusiveWithoutLinks(path, content, mode);
      throw e;
    }
  } finally {
    rmSync(temp, { force: true });
  }
}

/** A file system without hard links: create exclusively and write at once (a kill in between leaves an empty lock). */
function createExclusiveWithoutLinks(path: string, content: string, mode: number): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', mode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Which takeover a marker is for: the judged file's token, unique to it (an inode is not: a file made right after
 * another was removed often gets its number); an older notevox's lock without a token, by inode.
 */
function markerKey(f: LockFile): string {
  const token = f.content.trim();
  return /^\d+-[a-z0-9]+$/.test(token) ? token : `ino${f.ino}`;
}

/**
 * Remove `path` if it is still the file `judged` (same inode, same content). Done under `<path>.takeover-<token>`,
 * which one process at a time creates: of all who judged that file, one removes it, and none removes a file that
 * replaced it. A marker left by a process that died is itself removed the same way.
 */
export function removeIfStill(path: string, judged: LockFile, mode = 0o600, depth = 0): void {
  const marker = `${path}.takeover-${markerKey(judged)}`;
  const token = newToken();
  if (!createExclusive(marker, `${token}\n`, mode)) {
    const m = inspect(marker);
    if (m && depth < MAX_MARKER_DEPTH && isStale(m)) removeIfStill(marker, m, mode, depth + 1);
    return;
  }
  try {
    const now = inspect(path);
    if (now && now.ino === judged.ino && now.content === judged.content) unlinkSync(path);
  } finally {
    const m = inspect(marker);
    if (m && m.content === `${token}\n`) unlinkSync(marker);
  }
}

/**
 * Remove what processes that died left beside the lock in `dir`: token files (`<lock>.new-<pid>-…`), takeover
 * markers, and temporary files of the file the lock guards (`.<name>.tmp-<pid>-…`). Files of live processes stay.
 */
function sweep(lock: string, mode: number): void {
  const dir = dirname(lock);
  const lockName = basename(lock);
  const guarded = lockName.replace(/\.lock$/, '');
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const deadPid = (s: string) => {
    const pid = tokenPid(/^\d+/.exec(s)?.[0] ?? '');
    return pid !== undefined && !processAlive(pid);
  };
  for (const name of names) {
    const path = join(dir, name);
    try {
      if (name.startsWith(`.${guarded}.tmp-`) && deadPid(name.slice(guarded.length + 6))) rmSync(path, { force: true });
      else if (name.startsWith(`${lockName}.new-`) && deadPid(name.slice(lockName.length + 5))) rmSync(path, { force: true });
      else if (name.startsWith(`${lockName}.stale-`) && deadPid(name.slice(lockName.length + 7))) rmSync(path, { force: true });
      else if (name.startsWith(`${lockName}.takeover-`)) {
        const m = inspect(path);
        if (m && isStale(m)) removeIfStill(path, m, mode);
      }
    } catch {
      // best effort: a file another sweeper removed first, or one we may not remove
    }
  }
}

/**
 * Hold `lock` while `fn` runs. Another holder is waited for, with short random pauses, for at most `waitMs` each
 * (the wait starts again when the lock changes hands); a lock left by a dead process is taken over at once. Before
 * `fn`, files left by dead writers are swept. The lock is released only if it is still ours.
 */
export function withLock<T>(lock: string, fn: () => T, waitMs = CONFIG_LOCK_WAIT_MS, mode = 0o600): T {
  const token = `${newToken()}\n`;
  let deadline = Date.now() + waitMs;
  let holder = '';
  for (let attempt = 0; ; attempt++) {
    if (createExclusive(lock, token, mode)) {
      try {
        sweep(lock, mode);
        return fn();
      } finally {
        // Ours to remove only if it is still ours. (A waiter takes over a live holder's lock only after a minute.)
        const mine = inspect(lock);
        if (mine && mine.content === token) rmSync(lock, { force: true });
      }
    }
    const found = inspect(lock);
    if (!found) continue; // released meanwhile
    if (isStale(found)) {
      removeIfStill(lock, found, mode);
      continue;
    }
    const current = `${found.ino}:${found.content}`;
    if (current !== holder) {
      holder = current;
      deadline = Date.now() + waitMs;
    }
    if (Date.now() >= deadline) {
      const pid = tokenPid(found.content);
      throw new CliError(`the config file is being changed by another notevox${pid ? ` (pid ${pid})` : ''}; gave up after waiting ${waitMs / 1000}s for it`, {
        exitCode: EXIT.UNEXPECTED,
        hint: `Try again. If no other notevox is running, delete ${lock}.`,
      });
    }
    sleepSync(Math.min(50, 2 + Math.random() * 2 ** Math.min(attempt, 5)));
  }
}
