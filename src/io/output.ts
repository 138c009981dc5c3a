import type { OutputFormat } from './formats.js';
import type { IOStreams } from './iostreams.js';

/** What the flags and settings ask of the output: -o/--json (or the `output` setting), --fields, --query. */
export interface OutputOptions {
  /** Undefined: decided by decideOutput (table when stdout is a terminal, tsv when it is piped). */
  format?: OutputFormat;
  /** Dotted paths: the columns of table/csv/tsv, the kept keys of JSON. */
  fields?: string[];
  /** JMESPath expression applied to the JSON value. */
  query?: string;
}

/**
 * The one decision of what a command's output is for, taken once per command (createContext) and passed on:
 * renderers read `format`, commands read `json` and `human` instead of looking at the flags and the terminal again.
 */
export interface Output extends OutputOptions {
  /** The format lists and objects render in: the one asked for, else table on a terminal and tsv when piped. */
  format: OutputFormat;
  /** A format was asked for (-o, --json or the `output` setting), rather than chosen by the terminal. */
  chosen: boolean;
  /** For a script reading JSON: -o json / ndjson (or --json), or a --query (it selects from the JSON value). */
  json: boolean;
  /**
   * For people: no data format asked for (or `table`), no --fields and no --query. Commands then say what they did
   * in words on stderr, print text (documents, trees) rather than data, and ask nothing of the data's shape.
   */
  human: boolean;
}

/** JSON formats: what a script parses (also how errors are printed, decided before the command line is parsed). */
export const isJsonFormat = (format: string | undefined): boolean => format === 'json' || format === 'ndjson';

const isDecided = (o: OutputOptions): o is Output => typeof (o as Partial<Output>).human === 'boolean';

/** Decide once (an Output passed again is returned as it is, with any format it was given). */
export function decideOutput(io: Pick<IOStreams, 'isStdoutTTY'>, opts: OutputOptions): Output {
  if (isDecided(opts)) return opts;
  const chosen = opts.format !== undefined;
  const format = opts.format ?? (io.isStdoutTTY ? 'table' : 'tsv');
  const query = opts.query;
  return {
    ...opts,
    format,
    chosen,
    json: isJsonFormat(format) || query !== undefined,
    human: (!chosen || format === 'table') && query === undefined && !opts.fields?.length,
  };
}
