import { STATUS_CODES } from 'node:http';
import { DEFAULT_SANDBOX_URL } from '../config/defaults.js';
import { VERSION } from '../version.js';
import { CONTROL_PREFIX } from './control.js';
import { CONTROL_WITH_SCHEMAS, delivery, deliveryAttempt, loggedEvent, webhookEndpoint, type ControlEndpointWithSchemas } from './control-schemas.js';
import { Components, errorResponses, requestBody, responseName, type Json } from './openapi.js';

/**
 * The sandbox's control API (control.ts, control-schemas.ts) as an OpenAPI 3.1 document of its own, built the way
 * docs/openapi.json is built for the service (openapi.ts: the same components, error envelope and request bodies).
 * `npm run docs` writes it to docs/sandbox-control.openapi.json, a sandbox serves it at `GET /_sandbox/openapi.json`,
 * and the docs test fails when the file drifts from the table.
 */

const SECURITY_SCHEME = 'controlToken';
const JSON_MEDIA = 'application/json';

/** The control API's own shapes, named as components (the service's, such as Note, keep their names). */
const CONTROL_SHAPES = new Map<unknown, string>([
  [webhookEndpoint, 'WebhookEndpoint'],
  [loggedEvent, 'LoggedEvent'],
  [delivery, 'Delivery'],
  [deliveryAttempt, 'DeliveryAttempt'],
]);

function parameters(ep: ControlEndpointWithSchemas, c: Components): Json[] {
  const out: Json[] = [];
  for (const name of Object.keys(ep.params.shape)) out.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  if (ep.query) {
    const query = c.schema(ep.query, 'input');
    const required = new Set((query.required ?? []) as string[]);
    for (const [name, schema] of Object.entries((query.properties ?? {}) as Record<string, Json>)) {
      const { description, ...rest } = schema;
      out.push({ name, in: 'query', required: required.has(name), ...(description ? { description } : {}), schema: rest });
    }
  }
  return out;
}

/** The error statuses a control endpoint can answer besides the `default` (control token, bad input, unknown id). */
function errorStatuses(ep: ControlEndpointWithSchemas): number[] {
  const out = [401, 403];
  if (ep.body || ep.query) out.unshift(400);
  if (Object.keys(ep.params.shape).length) out.push(404);
  if (ep.body) out.push(413);
  return out.sort((a, b) => a - b);
}

function operation(ep: ControlEndpointWithSchemas, c: Components): Json {
  const op: Json = { operationId: ep.id, summary: ep.summary, tags: [ep.id.split('.')[1]] };
  const params = parameters(ep, c);
  if (params.length) op.parameters = params;
  if (ep.body) op.requestBody = requestBody(ep.body, c);
  const success: Json = { description: STATUS_CODES[ep.successStatus] ?? 'Success' };
  if (ep.response) success.content = { [JSON_MEDIA]: { schema: c.schema(ep.response, 'output') } };
  else if (ep.successStatus !== 204) throw new Error(`control openapi: ${ep.id} answers ${ep.successStatus} without a response schema`);
  const responses: Json = { [ep.successStatus]: success };
  for (const status of errorStatuses(ep)) responses[status] = { $ref: `#/components/responses/${responseName(status)}` };
  responses.default = { $ref: '#/components/responses/Error' };
  op.responses = responses;
  op['x-idempotent'] = ep.idempotent;
  return op;
}

/** Build the document from the control table (a fresh object each call). */
export function buildControlOpenApi(): Json {
  const c = new Components(CONTROL_SHAPES);
  const paths: Record<string, Record<string, Json>> = {};
  const tags: string[] = [];
  for (const ep of CONTROL_WITH_SCHEMAS) {
    (paths[ep.path] ??= {})[ep.method.toLowerCase()] = operation(ep, c);
    const tag = ep.id.split('.')[1];
    if (!tags.includes(tag)) tags.push(tag);
  }
  const all = errorResponses(c);
  const used = new Set(['Error', ...CONTROL_WITH_SCHEMAS.flatMap((ep) => errorStatuses(ep).map(responseName))]);
  return {
    openapi: '3.1.1',
    info: {
      title: 'notevox sandbox control API',
      version: VERSION,
      summary: 'Webhook endpoints, the event log with every delivery attempt, test events, redelivery and live notes of a local sandbox',
      description:
        `Generated from src/contract/control.ts and control-schemas.ts by \`npm run docs\` (do not edit by hand). Only a \`notevox sandbox\` answers these routes, under ${CONTROL_PREFIX}/; ` +
        'the service has none of them (its own API: openapi.json). On a loopback listener they are open; a sandbox started with --control-token-file ' +
        'needs `Authorization: Bearer <token>`, and one listening beyond loopback without a token answers 403. Errors use the service’s envelope (components.schemas.ErrorEnvelope).',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: DEFAULT_SANDBOX_URL, description: 'A local sandbox: notevox sandbox start' }],
    security: [{}, { [SECURITY_SCHEME]: [] }],
    tags: tags.map((name) => ({ name })),
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(c.schemas).sort(([a], [b]) => a.localeCompare(b))),
      responses: Object.fromEntries(Object.entries(all).filter(([name]) => used.has(name))),
      securitySchemes: {
        [SECURITY_SCHEME]: { type: 'http', scheme: 'bearer', description: 'The token of `notevox sandbox start --control-token-file` (or NOTEVOX_SANDBOX_CONTROL_TOKEN)' },
      },
    },
  };
}

let text: string | undefined;

/** The document as the JSON text of docs/sandbox-control.openapi.json, built once. */
export function controlOpenApiText(): string {
  return (text ??= JSON.stringify(buildControlOpenApi(), null, 2) + '\n');
}
