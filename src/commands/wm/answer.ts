/**
 * The answer of a word-memory create, read for `wm import`: a thousand created items, of which the import needs only
 * how many there are. JSON.parse made a thousand objects of every answer (a fifth of the import's CPU, and most of
 * what its young generation held), which the contract check then walked again.
 *
 * readCreated recognises the answer in the form the service writes it, `{"content":[{"id":1,"entry":"…","subEntry":
 * null,"createdAt":"…"},…]}` with no whitespace, every text free of escapes and control characters: such a text is
 * JSON of the documented shape (wmCreateResponse: an integer id, string entry, string or null subEntry, string
 * createdAt), so it passes the contract check. Anything else (other spacing, field order or fields, an escape, an
 * id that is not a plain integer) is left to the client's JSON.parse and check, as every answer is
 * (RequestOptions.readAnswer): the verdicts and messages are the same as before for every text.
 */

/** How many items a create answer lists (its content's length). */
export class CreatedItems {
  constructor(readonly count: number) {}
}

const HEAD = '{"content":[';
/** A JSON string without escapes or control characters: its text is what it says. */
const STRING = '"[^"\\\\\\u0000-\\u001f]*"';
/**
 * One item and what follows it (a comma, or the end of the list and of the text), from `lastIndex` on (sticky). An
 * id of more than 15 digits may not be a safe integer: left to the full check. A regular expression runs as
 * compiled code over the text, without a string or an object made per item: a fifth of JSON.parse's CPU.
 */
const ITEM = new RegExp(`\\{"id":(?:0|[1-9]\\d{0,14}),"entry":${STRING},"subEntry":(?:null|${STRING}),"createdAt":${STRING}\\}(?:,|\\]\\}$)`, 'y');

/** The items of a create answer written as the service writes it, or undefined for any other text (see above). */
export function readCreated(text: string): CreatedItems | undefined {
  if (!text.startsWith(HEAD)) return undefined;
  if (text.length === HEAD.length + 2) return text.endsWith(']}') ? new CreatedItems(0) : undefined;
  ITEM.lastIndex = HEAD.length;
  for (let n = 1; ITEM.test(text); n++) if (ITEM.lastIndex === text.length) return new CreatedItems(n);
  return undefined;
}
