import type { Context } from '../types.js';

/**
 * `notevox api spec`: the OpenAPI 3.1 document of the contract built into this CLI, the same as docs/openapi.json
 * and a sandbox's `GET /openapi.json`. Always JSON (compact with -o ndjson); --query and --fields apply.
 */
export async function apiSpec(ctx: Context): Promise<void> {
  const [{ buildOpenApi }, { renderValue }] = await Promise.all([import('../../contract/openapi.js'), import('../../io/render.js')]);
  renderValue(ctx.io, buildOpenApi(), { ...ctx.output, format: ctx.output.format === 'ndjson' ? 'ndjson' : 'json' });
}
