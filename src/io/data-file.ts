import { openAtomicFile, type AtomicFile } from './atomic-file.js';
import type { IOStreams } from './iostreams.js';

/**
 * Files of server data that a command writes for the user (`--out`): atomic like every file (atomic-file.ts), and
 * passed through the same mask as stdout (IOStreams.mask), so that a key the server echoes is not written in clear.
 * Not for the config file (the one place the key is kept) nor the sandbox's own state.
 */
export function openDataFile(io: IOStreams, path: string): AtomicFile {
  const file = openAtomicFile(path);
  return {
    tmpPath: file.tmpPath,
    write: (data) => file.write(typeof data === 'string' ? io.mask(data) : data),
    writeSync: (data) => file.writeSync(typeof data === 'string' ? io.mask(data) : data),
    commit: (opts) => file.commit(opts),
    discard: () => file.discard(),
  };
}

/** A whole data file at once (see openDataFile). */
export function writeDataFile(io: IOStreams, path: string, content: string): void {
  const file = openDataFile(io, path);
  try {
    file.writeSync(content);
    file.commit();
  } catch (e) {
    file.discard();
    throw e;
  }
}
