// The help fast path: bin/notevox.js answers `--help`, `-h` and `help <command>` from text generated at build
// time (dist/help/*.json, written by scripts/build.mjs from the command tree through ./model.ts), without loading
// the bundle or commander. The text is laid out here exactly as commander 14's Help.formatHelp lays it out, at the
// width commander would use; test/unit/help-fast.test.ts compares the two for every command, form and width.
// Anything this module cannot answer exactly returns undefined, and the launcher runs the bundle instead.
// No imports but Node built-ins, so that it stays one small file in dist/.
import { readFileSync } from 'node:fs';

/** One command's help: what commander's formatHelp prints, as data, plus the text written around it. */
export interface HelpEntry {
  /** The whole usage line, `Usage: notevox notes list [options]`. */
  usage: string;
  /** The command's description, wrapped to the help width ('' when it has none). */
  description: string;
  /** Arguments, option groups and command groups in commander's order: a heading and [term, description] items. */
  sections: Array<[heading: string, items: Array<[term: string, description: string]>]>;
  /** The width of the longest term (commander's padWidth). */
  termWidth: number;
  /** Below this width commander does not wrap (Help.minWidthToWrap). */
  minWidthToWrap: number;
  /** Text written before and after the help (addHelpText), independent of the width. */
  before: string;
  after: string;
  /** The flags that ask this command for its help (`-h`, `--help`). */
  helpFlags: string[];
}

/** One file of generated help: the entries of one top-level command (or of the root), keyed by command path. */
export interface HelpFile {
  entries: Record<string, HelpEntry>;
  /** Only in the root file: `help <topic>` texts, and whether `help [command...]` is a command. */
  topics?: Record<string, string>;
  helpCommand?: boolean;
}

/** The root's file; no command can be named like this (see fileFor). */
export const ROOT_FILE = '_root';

/** The file holding a top-level command's help, or undefined for a word that cannot be a command name. */
export function fileFor(word: string): string | undefined {
  return /^[a-z0-9][a-z0-9-]*$/.test(word) ? word : undefined;
}

/** The help width commander 14 uses for stdout: the terminal's columns, or 80 when stdout is not a terminal. */
export function stdoutHelpWidth(stdout: { isTTY?: boolean; columns?: number } = process.stdout): number {
  const width = stdout.isTTY ? stdout.columns : undefined;
  return width ?? 80;
}

/** commander's Help.boxWrap: wrap at whitespace, keeping line breaks; no wrapping below minWidthToWrap. */
function boxWrap(str: string, width: number, minWidthToWrap: number): string {
  if (width < minWidthToWrap) return str;
  const wrapped: string[] = [];
  for (const line of str.split(/\r\n|\n/)) {
    const chunks = line.match(/[\s]*[^\s]+/g);
    if (chunks === null) {
      wrapped.push('');
      continue;
    }
    let sum = [chunks[0]];
    let sumWidth = chunks[0].length;
    for (const chunk of chunks.slice(1)) {
      if (sumWidth + chunk.length <= width) {
        sum.push(chunk);
        sumWidth += chunk.length;
        continue;
      }
      wrapped.push(sum.join(''));
      const next = chunk.trimStart();
      sum = [next];
      sumWidth = next.length;
    }
    wrapped.push(sum.join(''));
  }
  return wrapped.join('\n');
}

/** commander's Help.formatItem: the term padded to termWidth, the description wrapped beside it. */
function formatItem(term: string, description: string, e: HelpEntry, helpWidth: number): string {
  if (!description) return '  ' + term;
  const remaining = helpWidth - e.termWidth - 4;
  let text = description;
  // A description with a line break followed by blanks is laid out by hand (Help.preformatted).
  if (remaining >= e.minWidthToWrap && !/\n[^\S\r\n]/.test(description)) {
    text = boxWrap(description, remaining, e.minWidthToWrap).replace(/\n/g, '\n' + ' '.repeat(e.termWidth + 2));
  }
  return '  ' + term.padEnd(e.termWidth) + '  ' + text.replace(/\n/g, '\n  ');
}

/** What `notevox <path> --help` writes to stdout at this help width. */
export function renderHelp(e: HelpEntry, helpWidth: number): string {
  const lines = [e.usage, ''];
  if (e.description) lines.push(boxWrap(e.description, helpWidth, e.minWidthToWrap), '');
  for (const [heading, items] of e.sections) lines.push(heading, ...items.map(([term, desc]) => formatItem(term, desc, e, helpWidth)), '');
  return e.before + lines.join('\n') + e.after;
}

const isWord = (a: string) => !a.startsWith('-') && a !== '';

function entryFor(path: string[], load: (file: string) => HelpFile | undefined): HelpEntry | undefined {
  const file = path.length ? fileFor(path[0]) : ROOT_FILE;
  if (!file) return undefined;
  return load(file)?.entries[path.join(' ')];
}

/**
 * The text for a help request, or undefined when `args` is not one this can answer exactly: `[command…] --help`
 * (or that command's other help flag) and `help [command…]` / `help <topic>`, with command names as commander
 * knows them (no options, no arguments, no abbreviations).
 */
export function answerHelp(args: string[], load: (file: string) => HelpFile | undefined, helpWidth: number): string | undefined {
  if (args[0] === 'help' && args.slice(1).every(isWord)) {
    const root = load(ROOT_FILE);
    if (!root?.helpCommand) return undefined;
    const words = args.slice(1);
    const topic = root.topics?.[words.join(' ')];
    if (topic !== undefined) return topic;
    const e = entryFor(words, load);
    return e && renderHelp(e, helpWidth);
  }
  const path = args.slice(0, -1);
  const flag = args[args.length - 1];
  if (!flag?.startsWith('-') || !path.every(isWord)) return undefined;
  const e = entryFor(path, load);
  return e && e.helpFlags.includes(flag) ? renderHelp(e, helpWidth) : undefined;
}

/** Reads the generated files next to this module (dist/help/); a missing or unreadable file answers nothing. */
export function loadBesideMe(file: string): HelpFile | undefined {
  try {
    return JSON.parse(readFileSync(new URL(`./${file}.json`, import.meta.url), 'utf8')) as HelpFile;
  } catch {
    return undefined;
  }
}

/** The launcher's entry: answer from dist/help/ at the width commander would use for stdout. */
export function answerHelpFromBuild(args: string[]): string | undefined {
  return answerHelp(args, loadBesideMe, stdoutHelpWidth());
}
