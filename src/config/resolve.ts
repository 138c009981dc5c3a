import { DEFAULT_BASE_URL, DEFAULT_PROFILE, ENV_VARS } from './defaults.js';
import type { ConfigStore } from './store.js';

export type ApiKeySource = { kind: 'env'; name: typeof ENV_VARS.apiKey } | { kind: 'profile'; profile: string };

export interface ResolvedCredentials {
  apiKey?: string;
  apiKeySource?: ApiKeySource;
  /** Not validated here: validateBaseUrl runs when a client is built. */
  baseUrl: string;
  baseUrlSource: 'flag' | 'env' | 'profile' | 'default';
  profile: string;
  profileSource: 'flag' | 'env' | 'config' | 'default';
  /** NOTEVOX_API_KEY is set while the chosen profile also has a stored key. */
  envOverridesProfile: boolean;
}

/** A set, non-blank value; empty environment variables count as unset. */
const present = (v: string | undefined): string | undefined => (v !== undefined && v.trim() !== '' ? v.trim() : undefined);

/** The first candidate that has a value, with its source. */
function pick<S extends string>(candidates: Array<[S, string | undefined]>): { value: string; source: S } | undefined {
  for (const [source, v] of candidates) {
    const value = present(v);
    if (value !== undefined) return { value, source };
  }
  return undefined;
}

/** Precedence: flags > environment > profile > defaults. No flag ever carries a secret. */
export function resolveCredentials(input: { flags: { profile?: string; baseUrl?: string }; env: NodeJS.ProcessEnv; store: ConfigStore }): ResolvedCredentials {
  const { flags, env, store } = input;
  const stored = store.currentProfile();
  const profile = pick<ResolvedCredentials['profileSource']>([
    ['flag', flags.profile],
    ['env', env[ENV_VARS.profile]],
    [stored === DEFAULT_PROFILE ? 'default' : 'config', stored],
  ]) ?? { value: DEFAULT_PROFILE, source: 'default' as const };
  const data = store.getProfile(profile.value) ?? {};

  const baseUrl = pick<ResolvedCredentials['baseUrlSource']>([
    ['flag', flags.baseUrl],
    ['env', env[ENV_VARS.baseUrl]],
    ['profile', data.baseUrl],
    ['default', DEFAULT_BASE_URL],
  ])!;

  const envKey = present(env[ENV_VARS.apiKey]);
  const profileKey = present(data.apiKey);
  const apiKey = envKey ?? profileKey;
  const apiKeySource: ApiKeySource | undefined = envKey
    ? { kind: 'env', name: ENV_VARS.apiKey }
    : profileKey
      ? { kind: 'profile', profile: profile.value }
      : undefined;

  return {
    apiKey,
    apiKeySource,
    baseUrl: baseUrl.value,
    baseUrlSource: baseUrl.source,
    profile: profile.value,
    profileSource: profile.source,
    envOverridesProfile: Boolean(envKey && profileKey),
  };
}
