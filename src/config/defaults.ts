/** Built-in defaults of the CLI's configuration (the last step of the precedence: flag > env > profile > default). */
export const DEFAULT_BASE_URL = 'https://api.notevox.example';

/** Where `notevox sandbox start` listens unless told otherwise. */
export const DEFAULT_SANDBOX_URL = 'http://127.0.0.1:4010';

/** The profile used when neither --profile, NOTEVOX_PROFILE nor `profile use` chose one. */
export const DEFAULT_PROFILE = 'default';

/** Environment variables the configuration layer reads. */
export const ENV_VARS = {
  apiKey: 'NOTEVOX_API_KEY',
  baseUrl: 'NOTEVOX_BASE_URL',
  profile: 'NOTEVOX_PROFILE',
  configDir: 'NOTEVOX_CONFIG_DIR',
} as const;
