import { describe, expect, it } from 'vitest';
import { parseIsoInstant } from '../../src/dates.js';

describe('ISO 8601 values on the command line', () => {
  it.each([
    ['2026-10-30', 'start', '2026-10-30T00:00:00.000Z'],
    ['2026-10-30', 'end', '2026-10-30T23:59:59.999Z'],
    ['2026-10-30T09:00:00Z', 'start', '2026-10-30T09:00:00.000Z'],
    ['2026-10-30T11:00:00+02:00', 'end', '2026-10-30T09:00:00.000Z'],
    ['2026-10-30T09:00Z', 'start', '2026-10-30T09:00:00.000Z'],
    [' 2026-10-30T09:00:00.250z ', 'start', '2026-10-30T09:00:00.250Z'],
  ] as const)('%s (%s) is %s', (value, means, iso) => {
    expect(parseIsoInstant(value, means)?.toISOString()).toBe(iso);
  });

  it.each(['last week', '2026-02-30', '2026-10-30T09:00:00', '2026-13-01', '30/10/2026', '', '2026-10-30T25:00:00Z'])('refuses %j', (value) => {
    expect(parseIsoInstant(value)).toBeUndefined();
  });
});
