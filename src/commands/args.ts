import { InvalidArgumentError } from '@commander-js/extra-typings';
import { EVENT_ID_PATTERN } from '../contract/events.js';
import { charCount, DOCUMENT_LOCALES, LIMITS } from '../contract/limits.js';
import { parseIsoInstant } from '../dates.js';
import { didYouMean } from '../suggest.js';
import { commaItems } from './comma-items.js';

/**
 * The commander argument parsers of every command (`.option('--limit <n>', '…', integer(1, 1000))`,
 * `.argument('<id>', '…', folderId)`): a value is checked, and typed, while the command line is parsed, before any
 * request or prompt. A bad value throws commander's InvalidArgumentError: the CLI reports it as a usage error (exit 2)
 * naming the option or argument, the message's first line saying what is wrong and the line after it (the hint)
 * what to pass instead.
 */

/** Refuse a value: `problem` completes "argument 'x' is invalid: …"; `hint` is printed as the error's hint. */
export function invalid(problem: string, hint?: string): never {
  throw new InvalidArgumentError(hint ? `${problem}\n${hint}` : problem);
}

/** The message of a commander error split into the error line and its hint (the lines after the first). */
export function splitHint(message: string): { message: string; hint?: string } {
  const [first, ...rest] = message.split('\n');
  const hint = rest.join(' ').trim().replace(/^\((.*)\)$/, '$1');
  return { message: first.trim(), hint: hint || undefined };
}

/**
 * A usage error of commander, in the CLI's words: a value refused by a parser here (or by `.choices()`) reads
 * `--limit "0" must be a whole number of at least 1` or `guid "x" is not a note guid`, naming the option or argument
 * and the value as typed; its hint is the line after. Other messages keep commander's words.
 */
export function usageMessage(raw: string): { message: string; hint?: string } {
  const { message, hint } = splitHint(raw.replace(/^error:\s*/, ''));
  const problem = (text: string) => text.replace(/^Allowed choices are (.*?)\.?$/, 'is not one of $1');
  // `.choices()` refusals get the "Did you mean" of a mistyped command name too.
  const nearest = (value: string, text: string) => hint ?? didYouMean(value, /^Allowed choices are (.*?)\.?$/.exec(text)?.[1].split(', ') ?? []);
  const option = /^option '(?:[^']*?(--[\w-]+)|(-\w))[^']*' argument '([\s\S]*)' is invalid\. ([\s\S]*)$/.exec(message);
  if (option) return { message: `${option[1] ?? option[2]} "${option[3]}" ${problem(option[4])}`, hint: nearest(option[3], option[4]) };
  const argument = /^command-argument value '([\s\S]*)' is invalid for argument '([^']+)'\. ([\s\S]*)$/.exec(message);
  if (argument) return { message: `${argument[2]} "${argument[1]}" ${problem(argument[3])}`, hint: nearest(argument[1], argument[3]) };
  return { message, hint };
}

/** A whole number from `min` to `max` (both included). */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER, hint?: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `a whole number of at least ${min}` : `a whole number from ${min} to ${max}`;
      invalid(`must be ${range}`, hint);
    }
    return n;
  };
}

/** A number of at least `min` (fractions allowed): seconds and the like. */
export function number(min: number, hint?: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < min) invalid(`must be a number of at least ${min}`, hint);
    return n;
  };
}

/** A positive whole-number id (documents, summaries, templates). */
export function positiveId(what: string) {
  return (value: string): number => {
    if (!/^[1-9]\d{0,15}$/.test(value)) invalid(`is not a ${what}`, `A ${what} is a positive whole number.`);
    return Number(value);
  };
}

/** A folder id: a numeric string (decisions.md §1.7). */
export function folderId(value: string): string {
  if (!LIMITS.folderIdPattern.test(value)) invalid('is not a folder id', 'Folder ids are numbers, e.g. from `notevox folders list`.');
  return value;
}

/** A note guid: 13 letters and digits. */
export function noteGuid(value: string): string {
  if (!LIMITS.noteGuidPattern.test(value)) invalid('is not a note guid', 'A note guid is 13 letters and digits, e.g. from `notevox notes list`.');
  return value;
}

/** A voice job id (a UUID), in lower case. */
export function jobId(value: string): string {
  if (!LIMITS.uuidPattern.test(value)) invalid('is not a voice job id', 'A job id is a UUID, as printed by `notevox voice upload`.');
  return value.toLowerCase();
}

/** A locale `ll_CC`. */
export function locale(value: string): string {
  if (!LIMITS.localePattern.test(value)) invalid('is not a locale of the form ll_CC', 'Use the form ll_CC, e.g. en_US, ko_KR, ja_JP.');
  return value;
}

/** The translation locales of a voice job: `ko_KR,ja_JP`, at most LIMITS.translationLocalesMax. */
export const translationLocales = commaList(locale, {
  max: LIMITS.translationLocalesMax,
  hint: `A job takes at most ${LIMITS.translationLocalesMax} translation locales, e.g. --translate ko_KR,ja_JP.`,
});

/** A locale in which documents and summaries can be made (decisions.md §1.6). */
export function documentLocale(value: string): (typeof DOCUMENT_LOCALES)[number] {
  locale(value);
  const known = DOCUMENT_LOCALES.find((l) => l === value);
  if (!known) invalid('is not a document locale', `Documents can be made in ${DOCUMENT_LOCALES.join(', ')}.`);
  return known;
}

/** An ISO 8601 date (a whole UTC day: its first millisecond, or its last for `dateMeans: 'end'`) or instant with a zone, as an ISO instant. */
export function isoInstant(dateMeans: 'start' | 'end' = 'start') {
  return (value: string): string => {
    const at = parseIsoInstant(value, dateMeans);
    if (!at) invalid('is not an ISO 8601 date or instant', 'Use e.g. 2026-10-01 (a whole day, UTC) or 2026-10-01T09:00:00Z (with Z or an offset such as +02:00).');
    return at.toISOString();
  };
}

/**
 * Where an event log starts (`sandbox events --since`): an event id as printed (`evt_` and 26 letters and digits),
 * kept as typed, or an ISO 8601 date or instant, as an ISO instant.
 */
export function eventIdOrInstant(value: string): string {
  if (value.startsWith('evt_')) {
    if (!EVENT_ID_PATTERN.test(value)) invalid('is not an event id', 'An event id is evt_ and 26 letters and digits, as `notevox sandbox events` prints it.');
    return value;
  }
  const at = parseIsoInstant(value);
  if (!at) invalid('is neither an event id nor an ISO 8601 date or instant', 'Pass an event id (evt_…, from `notevox sandbox events`) or e.g. 2026-10-01T09:00:00Z.');
  return at.toISOString();
}

/** Text with at least one non-space character. */
export function nonBlank(value: string): string {
  if (value.trim() === '') invalid('is blank', 'Give a value with at least one non-space character.');
  return value;
}

/** Text of `min` to `max` characters (code points), not blank: titles and names. */
export function boundedText(what: string, limits: { min: number; max: number }) {
  return (value: string): string => {
    const hint = `A ${what} has ${limits.min} to ${limits.max} characters, at least one of them not a space.`;
    if (value.trim() === '') invalid('is blank', hint);
    const n = charCount(value);
    if (n < limits.min || n > limits.max) invalid(`is ${n} characters long`, hint);
    return value;
  };
}

/** A comma-separated list (`a,b,c`), items trimmed, empty and repeated ones dropped, each checked by `item`, at most `max`. */
export function commaList<T>(item: (value: string) => T, o: { max?: number; hint?: string } = {}) {
  return (value: string): T[] => {
    const parts = commaItems(value);
    if (parts.length === 0) invalid('names nothing', o.hint);
    if (o.max !== undefined && parts.length > o.max) invalid(`names ${parts.length} items, at most ${o.max} are allowed`, o.hint);
    return parts.map((p) => {
      try {
        return item(p);
      } catch (e) {
        if (e instanceof InvalidArgumentError) invalid(`"${p}" ${e.message}`);
        throw e;
      }
    });
  };
}

/** A repeatable option: each use adds a value (checked by `item`). */
export function repeatable<T>(item: (value: string) => T) {
  return (value: string, previous: T[] = []): T[] => [...previous, item(value)];
}

/** A repeatable `key=value` option: each use adds a pair; the value may be empty and may contain `=`. */
export function keyValue(value: string, previous: Array<[string, string]> = []): Array<[string, string]> {
  const at = value.indexOf('=');
  if (at <= 0) invalid('is not key=value', 'Write the field as name=value, e.g. -f title=Notes.');
  return [...previous, [value.slice(0, at), value.slice(at + 1)]];
}

/** One of `choices`, in any letter case (given back as written in `choices`); a near miss gets "Did you mean …?". */
export function oneOf<const C extends string>(choices: readonly C[]) {
  return (value: string): C => {
    const found = choices.find((c) => c.toLowerCase() === value.toLowerCase());
    if (!found) invalid(`is not one of ${choices.join(', ')}`, didYouMean(value, choices));
    return found;
  };
}

/** A colour `#RRGGBB` (folders). */
export function hexColor(value: string): string {
  if (!LIMITS.folderColorPattern.test(value)) invalid('is not a colour', 'A colour has the form #RRGGBB (six hex digits), e.g. #4A90D9.');
  return value;
}

/** A folder member `USER_ID:VIEWER` or `USER_ID:EDITOR` (the role in any case). */
export const FOLDER_MEMBER = /^(\d+):(viewer|editor)$/i;
export function folderMember(value: string): { userId: number; role: 'VIEWER' | 'EDITOR' } {
  const m = FOLDER_MEMBER.exec(value);
  if (!m) invalid('is not userId:ROLE', 'Pass --member USER_ID:VIEWER or --member USER_ID:EDITOR, e.g. --member 102:EDITOR.');
  return { userId: Number(m[1]), role: m[2].toUpperCase() as 'VIEWER' | 'EDITOR' };
}

/** What a parser says of a value typed at a prompt: true, or the problem and hint (for a prompt's `validate`). */
export function promptCheck(parse: (value: string) => unknown) {
  return (value: string): true | string => {
    try {
      parse(value);
      return true;
    } catch (e) {
      if (!(e instanceof InvalidArgumentError)) throw e;
      const { message, hint } = splitHint(e.message);
      return `The value ${message}.${hint ? ` ${hint}` : ''}`;
    }
  };
}

/** A folder title: 1–50 characters, not blank. */
export const folderTitle = boundedText('folder title', LIMITS.folderTitle);

/** A repeatable `Name: value` header option (api -H). */
export function headerPair(value: string, previous: Array<[string, string]> = []): Array<[string, string]> {
  const at = value.indexOf(':');
  if (at <= 0) invalid('is not key:value', 'Write the header as Name: value, e.g. -H "Accept: application/json".');
  return [...previous, [value.slice(0, at).trim(), value.slice(at + 1).trim()]];
}
