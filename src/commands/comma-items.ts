/**
 * The items of a comma-separated option value (`a, b,a`): trimmed, empty and repeated ones dropped, in order. A
 * module of its own, without commander: args.ts commaList checks each item and reports through commander, and the
 * fast path (fast-path.ts), which loads no commander, splits the same way.
 */
export const commaItems = (value: string): string[] => [...new Set(value.split(',').map((s) => s.trim()).filter(Boolean))];
