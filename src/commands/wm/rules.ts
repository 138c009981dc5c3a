import { charCount, LIMITS } from '../../contract/limits.js';
import { UsageError } from '../../errors.js';

/** `--scope` values: the user, workspace and organization word-memory scopes. */
export const SCOPE_CHOICES = ['user', 'workspace', 'org'] as const;

/** The most requests `wm import` and `wm sync` keep in flight. */
export const MAX_CONCURRENCY = 16;

/** The word-memory rules the service enforces (decisions.md §3.7), checked before anything is sent. */

/** The first C0 control character or DEL in `value` (whitespace ones are reported as whitespace before). */
function controlCharacter(value: string): number | undefined {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return c;
  }
  return undefined;
}

/** Printable ASCII (no space) only, within the length limits: what nearly every row is, told in one pass. */
function plainAscii(value: string, min: number, max: number): boolean {
  if (value.length < min || value.length > max) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f) return false;
  }
  return true;
}

/** Why `value` cannot be a word-memory `entry`/`subEntry`, or undefined when it can. */
export function textProblem(name: string, value: string): string | undefined {
  const { min, max } = LIMITS.wordMemoryText;
  if (plainAscii(value, min, max)) return undefined;
  const length = charCount(value);
  if (length < min) return `${name} is empty`;
  // csv-parse decodes bytes that are not UTF-8 as U+FFFD.
  if (value.includes('\uFFFD')) return `${name} is not valid UTF-8`;
  if (/\s/.test(value)) return `${name} contains whitespace`;
  // Not a rule of the service, but never part of a name: a NUL is what a UTF-16 file read as UTF-8 looks like.
  const control = controlCharacter(value);
  if (control !== undefined)
    return `${name} contains the control character U+${control.toString(16).toUpperCase().padStart(4, '0')}${control === 0 ? ' (is the file UTF-16? save it as UTF-8)' : ''}`;
  if (length > max) return `${name} is ${length} characters long (at most ${max})`;
  return undefined;
}

/** Throw a usage error naming the flag when `value` breaks the rules. */
export function checkText(flag: string, name: string, value: string): string {
  const problem = textProblem(name, value);
  if (problem) throw new UsageError(`${flag} "${value}": ${problem}`, `A word memory is ${LIMITS.wordMemoryText.min} to ${LIMITS.wordMemoryText.max} characters without whitespace.`);
  return value;
}
