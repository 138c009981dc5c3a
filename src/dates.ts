/**
 * ISO 8601 values on the command line (--from, --to, --since, the sandbox's --now): a date `YYYY-MM-DD`, meaning a
 * whole UTC day, or an instant with `Z` or an offset. No local times (they would depend on the machine), no
 * free-form dates, no impossible ones (2026-02-30).
 */
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** The instant `value` names (a date: its first millisecond, or its last with `dateMeans: 'end'`), or undefined. */
export function parseIsoInstant(value: string, dateMeans: 'start' | 'end' = 'start'): Date | undefined {
  const v = value.trim();
  if (DATE_ONLY.test(v)) {
    const t = Date.parse(`${v}T${dateMeans === 'start' ? '00:00:00.000' : '23:59:59.999'}Z`);
    return !Number.isNaN(t) && new Date(t).toISOString().startsWith(v) ? new Date(t) : undefined;
  }
  if (!INSTANT.test(v)) return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : new Date(t);
}
