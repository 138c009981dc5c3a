import type { CallToolResult } from '@modelcontextprotocol/server';

/**
 * What a tool result may put into an agent's context: at most RESULT_BUDGET characters of JSON. A larger answer is
 * cut, and says so: lists keep their first items (ask for a smaller page, or follow the cursor), long texts their
 * beginning (a resource or an export to a file reads the rest).
 */

/** About 6k tokens: a page of notes fits, a whole meeting's transcript does not. */
export const RESULT_BUDGET = 24_000;

const size = (v: unknown) => JSON.stringify(v)?.length ?? 0;

export interface Fitted<T> {
  value: T;
  /** What was cut, for the agent (undefined when nothing was). */
  note?: string;
}

/** Cut the longest strings of `value` to `max` characters, saying how much each lost. */
function cutStrings(value: unknown, max: number, cuts: string[], path = ''): unknown {
  if (typeof value === 'string') {
    if (value.length <= max) return value;
    cuts.push(path || '(the text)');
    return `${value.slice(0, max)}… [cut: ${value.length - max} more characters]`;
  }
  if (Array.isArray(value)) return value.map((v, i) => cutStrings(v, max, cuts, `${path}[${i}]`));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cutStrings(v, max, cuts, path ? `${path}.${k}` : k)]));
  return value;
}

/** `value` cut to `budget` characters of JSON; lists (`content`, the contract's list field) first, then long strings. */
export function fit<T>(value: T, budget = RESULT_BUDGET): Fitted<T> {
  if (size(value) <= budget) return { value };
  const notes: string[] = [];
  let out: unknown = value;
  const list = (out as { content?: unknown })?.content;
  if (Array.isArray(list) && list.length > 1) {
    let keep = list.length;
    while (keep > 1 && size({ ...(out as object), content: list.slice(0, keep) }) > budget) keep = Math.max(1, Math.floor(keep * 0.7));
    out = { ...(out as object), content: list.slice(0, keep) };
    if (keep < list.length) notes.push(`only the first ${keep} of ${list.length} items are shown (the answer was too large for the context): ask for a page of at most ${keep} items to read them all, page by page`);
  }
  for (let max = 4000; size(out) > budget && max >= 100; max = Math.floor(max / 2)) {
    const cuts: string[] = [];
    const cut = cutStrings(out, max, cuts);
    if (size(cut) < size(out)) out = cut;
    if (cuts.length && size(out) <= budget) notes.push(`long texts were cut to ${max} characters (${cuts.slice(0, 5).join(', ')}${cuts.length > 5 ? ', …' : ''})`);
  }
  return { value: out as T, note: notes.length ? `Result cut: ${notes.join('; ')}.` : 'Result cut to fit the context.' };
}

/** Plain text cut to `budget` characters, with a note saying where the rest is. */
export function fitText(text: string, rest: string, budget = RESULT_BUDGET): Fitted<string> {
  if (text.length <= budget) return { value: text };
  return { value: text.slice(0, budget), note: `Result cut: the first ${budget} of ${text.length} characters are shown. ${rest}` };
}

/** What a tool call may use: the request's signal (cancellation) and progress notifications. */
export interface CallContext {
  signal: AbortSignal;
  /** Report progress (no-op when the client asked for none). */
  progress(progress: number, total: number | undefined, message?: string): void;
}

export type ToolResult = CallToolResult;

/** A successful answer: the JSON as text (cut to fit, saying so) and, for tools with an output schema, structured. */
export function jsonResult(data: unknown, structured: boolean): ToolResult {
  if (data === null || data === undefined) return { content: [{ type: 'text', text: 'Done (the service answered with no content).' }] };
  const { value, note } = fit(data);
  const content: ToolResult['content'] = [{ type: 'text', text: JSON.stringify(value) }];
  if (note) content.push({ type: 'text', text: note });
  return structured && typeof value === 'object' && !Array.isArray(value) ? { content, structuredContent: value as Record<string, unknown> } : { content };
}

