import { UsageError } from '../errors.js';
import { OUTPUT_FORMATS, isOutputFormat } from '../io/formats.js';
import { didYouMean } from '../suggest.js';

interface SettingSpec {
  description: string;
  /** What a valid value looks like, for the error message. */
  rule: string;
  valid(value: string): boolean;
  /** The values it takes, when they are a list (a near miss then gets "Did you mean …?"). */
  choices?: readonly string[];
}

const COLORS: readonly string[] = ['auto', 'always', 'never'];
const wholeNumber = (min: number, max: number) => (v: string) => /^\d+$/.test(v) && Number(v) >= min && Number(v) <= max;

/** CLI preferences stored in the config file (`notevox config set <key> <value>`). */
export const SETTINGS: Readonly<Record<string, SettingSpec>> = {
  output: { description: 'default output format', rule: `one of ${OUTPUT_FORMATS.join(', ')}`, valid: isOutputFormat, choices: OUTPUT_FORMATS },
  timeout: { description: 'per-request timeout in seconds', rule: 'a whole number of seconds from 1 to 3600', valid: wholeNumber(1, 3600) },
  max_retries: { description: 'retries for failed requests that are safe to repeat', rule: 'a whole number from 0 to 10', valid: wholeNumber(0, 10) },
  color: { description: 'colour in the terminal', rule: `one of ${COLORS.join(', ')}`, valid: (v) => COLORS.includes(v), choices: COLORS },
};

export const SETTING_KEYS = Object.keys(SETTINGS);

export function checkSettingKey(key: string): SettingSpec {
  const spec = Object.hasOwn(SETTINGS, key) ? SETTINGS[key] : undefined;
  if (!spec) throw new UsageError(`unknown setting "${key}"`, [didYouMean(key, SETTING_KEYS), `Valid settings: ${SETTING_KEYS.join(', ')}.`].filter(Boolean).join(' '));
  return spec;
}

/** Validate a key and a value; returns the value trimmed. */
export function checkSetting(key: string, value: string): string {
  const spec = checkSettingKey(key);
  const v = value.trim();
  if (!spec.valid(v)) throw new UsageError(`invalid value "${value}" for ${key}: must be ${spec.rule}`, spec.choices && didYouMean(v, spec.choices));
  return v;
}
