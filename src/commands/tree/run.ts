import type { Command, Option } from '@commander-js/extra-typings';
import { EXIT, EXIT_CODE_DOCS, type ExitCode } from '../../errors.js';
import { renderObject } from '../../io/render.js';
import { examplesOf } from '../shared.js';
import type { Context } from '../types.js';

/**
 * The command tree as one JSON document, read off the commander tree that --help prints (a test holds the two
 * equal): what agents and scripts need to call notevox without parsing help text.
 */

/**
 * Commands that change something: data on the service, the local config, files they are told to write. Every other
 * command only reads. Paths as typed (`notes rename`); a test checks each one is a command of the tree.
 */
export const CHANGES = new Set([
  'auth login', 'auth logout', 'auth switch',
  'profile use', 'profile remove',
  'config set', 'config unset',
  'notes rename', 'notes share-link create', 'notes share-link delete', 'notes documents generate',
  'folders create', 'folders update', 'folders move', 'folders delete',
  'wm add', 'wm update', 'wm rm', 'wm import', 'wm sync',
  'voice upload', 'voice transcribe', 'voice delete',
  'workspaces create', 'workspaces rename', 'workspaces quota', 'workspaces delete',
  'api',
  'sandbox trigger', 'sandbox live-note start',
  'mcp',
]);

/** Commands that make no API call: their exit codes are those of local work only. */
const LOCAL = /^(config|profile|completion|help|commands|sandbox|api spec|auth (logout|switch))\b/;
/** Commands that wait for a voice file job. */
const WAITS = /^voice (upload|wait|transcribe)$/;

export interface OptionInfo {
  flags: string;
  name: string;
  short?: string;
  description: string;
  /** boolean (no value), string, number, or list (repeatable or comma-separated). */
  type: 'boolean' | 'string' | 'number' | 'list';
  valueName?: string;
  required: boolean;
  choices?: string[];
  default?: unknown;
  negates?: boolean;
  global: boolean;
}

export interface CommandInfo {
  path: string;
  description: string;
  aliases: string[];
  arguments: Array<{ name: string; description: string; required: boolean; variadic: boolean; choices?: string[]; default?: unknown }>;
  options: OptionInfo[];
  examples: string[];
  readOnly: boolean;
  exitCodes: ExitCode[];
  subcommands: string[];
}

/** What a value option's parser makes of a sample: a number, a list, or the text. */
function valueType(o: Option<any, any, any>): OptionInfo['type'] {
  if (!o.required && !o.optional) return 'boolean';
  if (o.variadic) return 'list';
  const parse = (o as { parseArg?: (value: string, previous: unknown) => unknown }).parseArg;
  if (!parse) return 'string';
  for (const sample of ['1', '1,2']) {
    try {
      const v = parse(sample, undefined);
      if (Array.isArray(v)) return 'list';
      if (typeof v === 'number') return 'number';
    } catch {
      // the sample is not a value of this option: try the next
    }
  }
  return 'string';
}

function optionInfo(o: Option<any, any, any>, global: boolean): OptionInfo {
  const info: OptionInfo = {
    flags: o.flags,
    name: o.long ?? o.short ?? o.flags,
    description: o.description,
    type: valueType(o),
    required: Boolean(o.mandatory),
    global,
  };
  if (o.short) info.short = o.short;
  const value = /[<[]([^>\]]+)[>\]]/.exec(o.flags)?.[1];
  if (value) info.valueName = value;
  if (o.argChoices) info.choices = [...o.argChoices];
  if (o.defaultValue !== undefined) info.default = o.defaultValue;
  if (o.negate) info.negates = true;
  return info;
}

function exitCodes(path: string): ExitCode[] {
  const codes: ExitCode[] = [EXIT.OK, EXIT.UNEXPECTED, EXIT.USAGE];
  if (!LOCAL.test(path)) codes.push(EXIT.UNAUTHENTICATED, EXIT.FORBIDDEN, EXIT.NOT_FOUND, EXIT.REJECTED, EXIT.RATE_LIMITED, EXIT.UNAVAILABLE);
  if (WAITS.test(path)) codes.push(EXIT.JOB_FAILED, EXIT.WAIT_TIMEOUT);
  codes.push(EXIT.INPUT_NEEDED, EXIT.OUTPUT_FAILED, EXIT.INTERRUPTED);
  return codes;
}

/** Every command of the tree, depth first, the root's sub-commands first. */
export function describeTree(program: Command<any, any, any>): { program: string; globalOptions: OptionInfo[]; exitCodes: Array<{ code: number; meaning: string }>; commands: CommandInfo[] } {
  const commands: CommandInfo[] = [];
  const visit = (cmd: Command<any, any, any>, prefix: string[]) => {
    const path = [...prefix, cmd.name()].join(' ');
    commands.push({
      path,
      description: cmd.description(),
      aliases: cmd.aliases(),
      arguments: cmd.registeredArguments.map((a) => ({
        name: a.name(),
        description: a.description,
        required: a.required,
        variadic: a.variadic,
        ...(a.argChoices ? { choices: [...a.argChoices] } : {}),
        ...(a.defaultValue !== undefined ? { default: a.defaultValue } : {}),
      })),
      options: cmd.options.filter((o) => !o.hidden).map((o) => optionInfo(o, false)),
      examples: examplesOf(cmd),
      readOnly: !CHANGES.has(path),
      exitCodes: exitCodes(path),
      subcommands: cmd.commands.map((c) => c.name()),
    });
    for (const sub of cmd.commands) visit(sub, [...prefix, cmd.name()]);
  };
  for (const sub of program.commands) visit(sub, []);
  return {
    program: program.name(),
    globalOptions: program.options.filter((o) => !o.hidden).map((o) => optionInfo(o, true)),
    exitCodes: EXIT_CODE_DOCS.map(([code, meaning]) => ({ code, meaning })),
    commands,
  };
}

export async function printTree(ctx: Context, program: Command<any, any, any>): Promise<void> {
  const tree = describeTree(program);
  const { format } = ctx.output;
  if (format === 'json' || format === 'ndjson' || ctx.output.query) return renderObject(ctx.io, tree, { ...ctx.output, format: 'json' });
  const width = Math.max(...tree.commands.map((c) => c.path.length));
  ctx.io.out(tree.commands.map((c) => `${c.path.padEnd(width)}  ${c.readOnly ? '   ' : 'W  '}${c.description}`).join('\n') + '\n');
  ctx.io.info('W: changes something. `notevox commands --json` for arguments, flags, examples and exit codes.');
}
