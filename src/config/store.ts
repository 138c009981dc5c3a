import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CliError, EXIT, UsageError } from '../errors.js';
import { withLock } from './lock.js';
import { writeFileAtomic } from '../io/atomic-file.js';
import { cannotWrite, makeDirectory } from '../io/fs-errors.js';
import { isRecord } from '../io/values.js';
import { DEFAULT_PROFILE, ENV_VARS } from './defaults.js';
import { checkSetting, checkSettingKey, SETTING_KEYS } from './settings.js';

export interface ProfileData {
  baseUrl?: string;
  apiKey?: string;
}

export interface ProfileSummary {
  name: string;
  baseUrl?: string;
  hasKey: boolean;
  current: boolean;
}

/** The CLI's configuration file: profiles (base URL and API key each) and settings. The key is stored only here. */
export interface ConfigStore {
  /** Absolute path of the config file (it may not exist yet). */
  path: string;
  currentProfile(): string;
  listProfiles(): ProfileSummary[];
  getProfile(name: string): ProfileData | undefined;
  /** Create or replace a profile; fields left undefined are removed. `makeCurrent`: in the same change, make it current. */
  setProfile(name: string, data: ProfileData, opts?: { makeCurrent?: boolean }): void;
  /** False when there was no such profile. Removing the current profile makes `default` current. */
  removeProfile(name: string): boolean;
  /** UsageError when the profile does not exist. */
  useProfile(name: string): void;
  getSetting(key: string): string | undefined;
  setSetting(key: string, value: string): void;
  unsetSetting(key: string): void;
  listSettings(): Record<string, string>;
}

interface StoredConfig extends Record<string, unknown> {
  currentProfile: string;
  profiles: Record<string, ProfileData>;
  settings: Record<string, string>;
}

export const CONFIG_FILE_MODE = 0o600;
export const CONFIG_DIR_MODE = 0o700;
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Profile names: letters, digits, ".", "_" and "-", at most 64, starting with a letter or digit. */
export function checkProfileName(name: string): void {
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(`invalid profile name "${name}"`, 'Use letters, digits, ".", "_" and "-" (at most 64, starting with a letter or digit).');
  }
}

/**
 * The user's home directory (os.homedir()), node:os loaded only when it is asked: HOME names it nearly always, and
 * loading node:os cost every command's start-up its compile.
 */
function homedir(): string {
  return process.getBuiltinModule('node:os').homedir();
}

/** NOTEVOX_CONFIG_DIR, else $XDG_CONFIG_HOME/notevox, else ~/.config/notevox (%APPDATA%\notevox on Windows). */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const override = env[ENV_VARS.configDir];
  if (override) return resolve(override);
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && xdg.startsWith('/') ? xdg : process.platform === 'win32' && env.APPDATA ? env.APPDATA : join(env.HOME || homedir(), '.config');
  return join(base, 'notevox');
}


function stringEntries(v: unknown): Array<[string, string]> {
  return isRecord(v) ? Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string') : [];
}

/** Whatever is in the file (possibly hand-edited), as the stored shape; entries of the wrong type are ignored. */
function normalize(raw: unknown): StoredConfig {
  const r = isRecord(raw) ? raw : {};
  const profiles: Record<string, ProfileData> = {};
  if (isRecord(r.profiles)) {
    for (const [name, p] of Object.entries(r.profiles)) {
      if (isRecord(p)) profiles[name] = profileData(Object.fromEntries(stringEntries(p)));
    }
  }
  const settings = Object.fromEntries(stringEntries(r.settings).filter(([k]) => SETTING_KEYS.includes(k)));
  return { currentProfile: typeof r.currentProfile === 'string' && r.currentProfile ? r.currentProfile : DEFAULT_PROFILE, profiles, settings };
}

/** Only the defined fields, so JSON never holds `undefined` placeholders. */
function profileData(p: ProfileData): ProfileData {
  const out: ProfileData = {};
  if (p.baseUrl) out.baseUrl = p.baseUrl;
  if (p.apiKey) out.apiKey = p.apiKey;
  return out;
}

/**
 * Permissions this process found different and set (the config file or its directory), oldest first: `notevox doctor`
 * reports a file that was readable by others before this run tightened it (the key may have been read meanwhile).
 */
export const modeRepairs: Array<{ path: string; was: number; now: number }> = [];

/** chmod `path` to `mode` when it differs. Strict: throw on failure; otherwise best effort. */
function enforceMode(path: string, mode: number, strict: boolean): void {
  if (process.platform === 'win32') return;
  try {
    const was = statSync(path).mode & 0o777;
    if (was !== mode) {
      chmodSync(path, mode);
      modeRepairs.push({ path, was, now: mode });
    }
  } catch (e) {
    if (strict) {
      throw new CliError(`cannot set the permissions of ${path} to ${mode.toString(8)}: ${(e as Error).message}`, {
        hint: 'The config file holds your API key; fix its owner or permissions by hand.',
      });
    }
  }
}

export { CONFIG_LOCK_WAIT_MS, withLock } from './lock.js';

export function openConfig(env: NodeJS.ProcessEnv = process.env): ConfigStore {
  const dir = configDir(env);
  const path = join(dir, 'config.json');
  const lock = `${path}.lock`;

  const repair = (strict: boolean) => {
    enforceMode(dir, CONFIG_DIR_MODE, strict);
    enforceMode(path, CONFIG_FILE_MODE, strict);
  };

  const read = (): StoredConfig => {
    // Reading never creates the file or its directory, and needs no lock: the file is replaced by a rename.
    if (!existsSync(path)) return normalize({});
    repair(false);
    try {
      return normalize(JSON.parse(readFileSync(path, 'utf8')));
    } catch (e) {
      throw new CliError(`cannot read the config file ${path}: ${(e as Error).message}`, {
        exitCode: EXIT.USAGE,
        hint: 'Fix the file by hand, or delete it and run `notevox auth login` again.',
      });
    }
  };
  /**
   * Change the stored config: under the lock, read the file as it is now, change it, write it beside itself and
   * rename it into place. Concurrent changes (100 `auth login` at once) are applied one after the other, and none
   * is lost; readers see the old file or the new one, never half of one.
   */
  const update = (change: (c: StoredConfig) => void) => {
    const cannotSave = (e: unknown) =>
      e instanceof CliError ? e : cannotWrite(`the config file ${path}`, e, `Make ${dir} writable, or set ${ENV_VARS.configDir} to a writable directory.`);
    try {
      makeDirectory(dir, CONFIG_DIR_MODE);
      withLock(lock, () => {
        const next = read();
        change(next);
        writeFileAtomic(path, JSON.stringify(next, null, 2) + '\n', { mode: CONFIG_FILE_MODE });
      });
    } catch (e) {
      throw cannotSave(e);
    }
    repair(true);
  };
  const hasProfile = (c: StoredConfig, name: string) => Object.hasOwn(c.profiles, name);

  return {
    path,
    currentProfile: () => read().currentProfile,
    listProfiles() {
      const c = read();
      return Object.keys(c.profiles)
        .sort()
        .map((name) => ({ name, baseUrl: c.profiles[name].baseUrl, hasKey: Boolean(c.profiles[name].apiKey), current: name === c.currentProfile }));
    },
    getProfile(name) {
      const c = read();
      return hasProfile(c, name) ? { ...c.profiles[name] } : undefined;
    },
    setProfile(name, data, opts = {}) {
      checkProfileName(name);
      update((c) => {
        c.profiles[name] = profileData(data);
        if (opts.makeCurrent) c.currentProfile = name;
      });
    },
    removeProfile(name) {
      if (!hasProfile(read(), name)) return false;
      update((c) => {
        delete c.profiles[name];
        if (c.currentProfile === name) c.currentProfile = DEFAULT_PROFILE;
      });
      return true;
    },
    useProfile(name) {
      const c = read();
      if (!hasProfile(c, name)) {
        const known = Object.keys(c.profiles);
        throw new UsageError(
          `no profile "${name}"`,
          known.length ? `Known profiles: ${known.join(', ')}. Create one with \`notevox auth login --profile ${name}\`.` : `Create it with \`notevox auth login --profile ${name}\`.`,
        );
      }
      update((s) => {
        s.currentProfile = name;
      });
    },
    getSetting(key) {
      checkSettingKey(key);
      return read().settings[key];
    },
    setSetting(key, value) {
      const v = checkSetting(key, value);
      update((c) => {
        c.settings[key] = v;
      });
    },
    unsetSetting(key) {
      checkSettingKey(key);
      update((c) => {
        delete c.settings[key];
      });
    },
    listSettings: () => ({ ...read().settings }),
  };
}
