/** API keys have the form `{id}.{secret}`; the whole string is the bearer value. */

export type ParsedApiKey = { ok: true; id: string; secret: string } | { ok: false; reason: string; hint: string };

const WHOLE_KEY_HINT = 'Paste the whole key `{id}.{secret}` shown once when the key was created.';
/** Secrets shorter than this are hidden entirely by maskKey (showing 4 characters would give too much away). */
const MIN_SECRET_FOR_TAIL = 12;

const invalid = (reason: string, hint = WHOLE_KEY_HINT): ParsedApiKey => ({ ok: false, reason, hint });

/** Check a pasted key; never echoes the key itself in the reason. */
export function parseApiKey(raw: string): ParsedApiKey {
  const key = raw.trim();
  if (key === '') return invalid('the API key is empty');
  if (/\s/.test(key)) return invalid('the API key contains whitespace', 'Paste the key `{id}.{secret}` on one line, with nothing else around it.');
  const parts = key.split('.');
  if (parts.length === 1) return invalid('the API key has no ".": this looks like only the key id');
  if (parts.length > 2) return invalid('the API key has more than one "."', 'A key is `{id}.{secret}` with exactly one dot; check that nothing else was pasted with it.');
  const [id, secret] = parts;
  if (id === '') return invalid('the API key has no id before the "."');
  if (secret === '') return invalid('the API key has no secret after the ".": this looks like only the key id');
  return { ok: true, id, secret };
}

/** `{id}.****{last 4 of the secret}` (the tail only for long secrets); `****` when there is no dot. */
export function maskKey(key: string): string {
  const whole = key.trim();
  const dot = whole.indexOf('.');
  if (dot < 0) return '****';
  const secret = whole.slice(dot + 1);
  const tail = secret.length >= MIN_SECRET_FOR_TAIL ? secret.slice(-4) : '';
  return `${whole.slice(0, dot)}.****${tail}`;
}
