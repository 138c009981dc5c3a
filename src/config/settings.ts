import { UsageError } from '../errors.js';
import { OUTPUT_FORMATS, isOutputFormat } from '../io/formats.js';

interface SettingSpec {
  description: string;
  /** What a valid value looks like, for the error message. */
  rule: string;
  valid(value: string): boolean;
}

const wholeNumber = (min: number, max: number) => (v: string) => /^\d+$/.test(v) && Number(v) >= min && Number(v) <= max;

/** CLI preferences stored in the config file (`notevox config set <key> <value>`). */
export const SETTINGS: Readonly<Record<string, SettingSpec>> = {
  output: { description: 'default output format', rule: `one of ${OUTPUT_FORMATS.join(', ')}`, valid: isOutputFormat },
  timeout: { description: 'per-request timeout in seconds', rule: 'a whole number of seconds from 1 to 3600', valid: wholeNumber(1, 3600) },
  max_retries: { description: 'retries for failed requests that are safe to repeat', rule: 'a whole number from 0 to 10', valid: wholeNumber(0, 10) },
  color: { description: 'colour in the terminal', rule: 'one of auto, always, never', valid: (v) => ['auto', 'always', 'never'].includes(v) },
};

export const SETTING_KEYS = Object.keys(SETTINGS);

export function checkSettingKey(key: string): SettingSpec {
  const spec = Object.hasOwn(SETTINGS, key) ? SETTINGS[key] : undefined;
  if (!spec) throw new UsageError(`unknown setting "${key}"`, `Valid settings: ${SETTING_KEYS.join(', ')}.`);
  return spec;
}

/** Validate a key and a value; returns the value trimmed. */
export function checkSetting(key: string, value: string): string {
  const spec = checkSettingKey(key);
  const v = value.trim();
  if (!spec.valid(v)) throw new UsageError(`invalid value "${value}" for ${key}: must be ${spec.rule}`);
  return v;
}
