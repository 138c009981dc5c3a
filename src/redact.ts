/**
 * Keeping the API key out of text: used by the client (traces, errors), the renderers of src/io (everything printed
 * or written from server data) and the commands, so it belongs to none of them.
 */

export const MASK = '****';
/**
 * Bearer credentials in free text; auth-parameter forms such as `Bearer error="…"` are left alone. A credential
 * carries a digit or a joiner (`-._~+/`) inside it (a key is `{id}.{secret}`), or is long: a short plain word after "bearer" is
 * prose ("the bearer value is the whole key"), not a secret.
 */
const BEARER = /\b(Bearer\s+)(?!(?:realm|error|error_description|scope)=)(?=[A-Za-z]*(?:[0-9]|[-._~+/][A-Za-z0-9])|[A-Za-z]{20})[A-Za-z0-9\-._~+/]+=*/gi;
/** Shorter fragments would mangle ordinary text; real secrets are far longer. */
const MIN_SECRET_LENGTH = 4;

/** Mask the key (whole, and its secret part) and any bearer credential in `text`. */
export function redact(text: string, key?: string): string {
  let out = text.replace(BEARER, `$1${MASK}`);
  if (key) {
    for (const s of secretsOf(key)) out = out.split(s).join(MASK);
  }
  return out;
}

/** The strings of a key that must never be shown: the whole key and its secret part (long enough to be one). */
export function secretsOf(key: string): string[] {
  const whole = key.trim();
  const secret = whole.includes('.') ? whole.slice(whole.indexOf('.') + 1) : whole;
  return [...new Set([whole, secret])].filter((s) => s.length >= MIN_SECRET_LENGTH);
}

/**
 * What to look for so that a key is masked in rendered output too: each secret string as is and as the formats
 * write it when it holds `"` or `\` (JSON and CSV escape them; TSV doubles a backslash). Longest first, so that the
 * whole key is masked before its secret part.
 */
export function secretForms(key: string): string[] {
  const forms = new Set<string>();
  for (const s of secretsOf(key)) {
    forms.add(s);
    forms.add(JSON.stringify(s).slice(1, -1));
    forms.add(s.replaceAll('"', '""'));
    forms.add(s.replaceAll('\\', '\\\\'));
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/** `text` with every one of `forms` (secretForms) replaced by the mask. */
export function maskForms(text: string, forms: readonly string[]): string {
  let out = text;
  for (const f of forms) if (out.includes(f)) out = out.split(f).join(MASK);
  return out;
}
