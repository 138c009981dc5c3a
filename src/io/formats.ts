import { UsageError } from '../errors.js';

/** Output formats of -o/--output (and the `output` setting). */
export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv', 'tsv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
/** What the root's -o/--output accepts: the formats above, and text and srt for voice upload, wait and transcript. */
export const ROOT_OUTPUT_CHOICES = [...OUTPUT_FORMATS, 'text', 'srt'] as const;

export function isOutputFormat(value: string): value is OutputFormat {
  return (OUTPUT_FORMATS as readonly string[]).includes(value);
}

export function parseOutputFormat(value: string): OutputFormat {
  if (isOutputFormat(value)) return value;
  throw new UsageError(`output format "${value}" is not one of ${OUTPUT_FORMATS.join(', ')}`, 'Pass e.g. -o json.');
}
