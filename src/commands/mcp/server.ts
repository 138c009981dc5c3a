import { ProtocolError, ProtocolErrorCode, Server, type Transport } from '@modelcontextprotocol/server';
import type * as z from 'zod';
import type { ApiClient, QueryValue } from '../../client/client.js';
import { explainError, redact } from '../../client/client.js';
import { ApiError } from '../../client/errors.js';
import type { EndpointWithSchemas } from '../../contract/endpoint-schemas.js';
import { CliError, EXIT } from '../../errors.js';
import { VERSION } from '../../version.js';
import type { Context } from '../types.js';
import { apiTools, riskOf, TOOL_PAGE_SIZE, type Annotations, type ApiTool, type Risk } from './catalogue.js';
import { compositeTools, type CompositeTool } from './composite.js';
import { readResource, resourceTemplates, listResources } from './resources.js';
import { jsonResult, type CallContext, type ToolResult } from './shape.js';

export type { CallContext, ToolResult } from './shape.js';
export { jsonResult } from './shape.js';

/**
 * `notevox mcp`: the API as MCP tools (catalogue.ts), the composite tools (composite.ts) and resources
 * (resources.ts), safe by default. The low-level `Server` of the SDK, not McpServer: the tools are data made from
 * the contract, with JSON Schemas made once by zod's own converter, and the tools a flag withholds must answer a
 * tool error that names the flag (McpServer answers a protocol error for a tool it does not list).
 */

export interface SafetyOptions {
  allowWrites?: boolean;
  allowDestructive?: boolean;
  /** Globs of tool names (`notes_*`, `wm_list`): only these are offered. */
  tools?: string[];
}


interface AnyTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations: Annotations;
}

const globRe = (glob: string) => new RegExp('^' + glob.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$');
/** Whether a `--tools` glob (`*` for any characters) names the tool. */
export const matchesTool = (glob: string, name: string) => globRe(glob.trim()).test(name);

/** Why a tool is withheld, as the flag that would allow it; undefined when it is allowed. */
export function refusal(tool: { name: string; annotations: Annotations }, o: SafetyOptions): string | undefined {
  if (o.tools?.length && !o.tools.some((g) => matchesTool(g, tool.name)))
    return `the tool ${tool.name} is not among --tools ${o.tools.join(',')}: add it to --tools (or leave --tools out) in the server's command line`;
  const risk: Risk = riskOf(tool.annotations);
  if (risk === 'write' && !o.allowWrites) return `${tool.name} changes data, and this server is read-only: start it with --allow-writes to allow it`;
  if (risk === 'destructive' && !(o.allowWrites && o.allowDestructive))
    return `${tool.name} deletes or replaces data: start the server with --allow-writes --allow-destructive to allow it`;
  return undefined;
}

/** A tool error the agent can act on: the service's code and message, and the CLI's hint. */
export function toolError(err: unknown): ToolResult {
  const e = explainError(err);
  const error: Record<string, unknown> = { message: e.message };
  if (err instanceof ApiError) error.status = err.status;
  if (e.errorType !== undefined) error.errorType = e.errorType;
  if (e.code !== undefined) error.code = e.code;
  if (e.hint) error.hint = e.hint;
  error.exitCode = e.exitCode;
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }) }] };
}

const refused = (why: string): ToolResult =>
  toolError(new CliError(why, { exitCode: EXIT.USAGE, hint: "The flags are on the server's command line, in the MCP client's configuration (docs/mcp.md)." }));

const issuesText = (where: string, error: z.ZodError) => error.issues.map((i) => `${[where, ...i.path].join('.')}: ${i.message}`).join('; ');

/** Path, query and body of a call from the tool's arguments, checked with the endpoint's own zod schemas. */
function requestOf(ep: EndpointWithSchemas, args: Record<string, unknown>) {
  const names = Object.keys(ep.params.shape);
  const path: Record<string, string | number> = {};
  for (const n of names) if (args[n] !== undefined) path[n] = args[n] as string | number;
  const missing = names.filter((n) => path[n] === undefined);
  if (missing.length) throw new CliError(`${ep.id} needs ${missing.join(', ')}`, { exitCode: EXIT.USAGE, hint: `Pass ${missing.join(' and ')} in the arguments.` });
  const p = ep.params.safeParse(path);
  if (!p.success) throw new CliError(`invalid arguments: ${issuesText('path', p.error)}`, { exitCode: EXIT.USAGE });
  let query: Record<string, QueryValue> | undefined;
  const body = args.body;
  if (ep.query) {
    query = {};
    const shape = (ep.query as z.ZodObject).shape as Record<string, unknown>;
    for (const k of Object.keys(shape)) if (args[k] !== undefined) query[k] = args[k] as QueryValue;
    if (ep.page && query[ep.page.param] === undefined) query[ep.page.param] = Math.min(TOOL_PAGE_SIZE, ep.page.max);
    if (ep.updateMask && query.updateMask === undefined && body && typeof body === 'object') query.updateMask = Object.keys(body).filter((k) => ep.updateMask!.includes(k)).join(',');
    const q = ep.query.safeParse(query);
    if (!q.success) throw new CliError(`invalid arguments: ${issuesText('query', q.error)}`, { exitCode: EXIT.USAGE });
  }
  if (ep.body) {
    const b = ep.body.safeParse(body);
    if (!b.success) throw new CliError(`invalid arguments: ${issuesText('body', b.error)}`, { exitCode: EXIT.USAGE, hint: 'The tool input schema says what the body takes.' });
  } else if (body !== undefined) throw new CliError(`${ep.id} takes no body`, { exitCode: EXIT.USAGE });
  return { path, query, body };
}

async function callApi(tool: ApiTool, args: Record<string, unknown>, client: ApiClient, call: CallContext): Promise<ToolResult> {
  const chosen = (args.endpoint as string | undefined) ?? tool.endpoints[0]!.id;
  const ep = tool.endpoints.find((e) => e.id === chosen);
  if (!ep) throw new CliError(`${tool.name}: unknown endpoint ${chosen}`, { exitCode: EXIT.USAGE, hint: `Pick one of ${tool.endpoints.map((e) => e.id).join(', ')}.` });
  const known = new Set(Object.keys((tool.inputSchema.properties ?? {}) as object));
  const unknown = Object.keys(args).filter((k) => !known.has(k));
  if (unknown.length) throw new CliError(`${tool.name} has no argument ${unknown.join(', ')}`, { exitCode: EXIT.USAGE, hint: `Its arguments: ${[...known].join(', ')}.` });
  const req = requestOf(ep, args);
  const res = await client.callEndpoint(ep, { ...req, signal: call.signal });
  if (ep.response) {
    // The answer as the contract reads it: a 2xx that is not the documented shape is an error, not a result.
    const { assertAnswer } = await import('../../contract/answers.js');
    assertAnswer(ep, res.data);
  }
  return jsonResult(res.data, tool.outputSchema !== undefined);
}

export interface McpServerOptions extends SafetyOptions {
  /** Secrets besides the API key never to send (a webhook secret); the key is read from the context. */
  secrets?: string[];
}

/** The tools, as they are offered under the options. */
export function offeredTools(o: SafetyOptions): Array<ApiTool | CompositeTool> {
  return [...compositeTools(), ...apiTools()].filter((t) => refusal(t, o) === undefined);
}

/** Every tool, offered or not (a withheld one answers a tool error naming its flag). */
export function allTools(): Array<ApiTool | CompositeTool> {
  return [...compositeTools(), ...apiTools()];
}

const toolEntry = (t: AnyTool) => ({
  name: t.name,
  description: t.description,
  inputSchema: t.inputSchema as { type: 'object' },
  ...(t.outputSchema ? { outputSchema: t.outputSchema as { type: 'object' } } : {}),
  annotations: t.annotations,
});

/** The server, not yet connected; `ctx` gives the client, credentials and settings as to every command. */
export function createMcpServer(ctx: Context, o: McpServerOptions = {}): Server {
  const tools = allTools();
  const byName = new Map<string, ApiTool | CompositeTool>(tools.map((t) => [t.name, t]));
  const listed = tools.filter((t) => refusal(t, o) === undefined).map(toolEntry);
  const server = new Server(
    { name: 'notevox', version: VERSION },
    {
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
      instructions:
        'Tools for the Note and Voice File Service (notes, folders, word memories, templates, wiki, workspaces, voice file jobs). ' +
        'Lists are paged: pass nextCursor as cursor. Results larger than the context allows are cut and say so. ' +
        (o.allowWrites ? (o.allowDestructive ? 'Writes and deletes are allowed.' : 'Writes are allowed; deletes are not.') : 'This server is read-only.'),
    },
  );

  server.setRequestHandler('tools/list', () => ({ tools: listed }));
  server.setRequestHandler('tools/call', async (request, rctx) => {
    const { name } = request.params;
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const tool = byName.get(name);
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool ${name}`);
    const why = refusal(tool, o);
    if (why) return refused(why);
    const token = rctx.mcpReq._meta?.progressToken;
    const call: CallContext = {
      signal: rctx.mcpReq.signal,
      progress: (progress, total, message) => {
        if (token === undefined) return;
        void rctx.mcpReq
          .notify({ method: 'notifications/progress', params: { progressToken: token, progress, ...(total !== undefined ? { total } : {}), ...(message ? { message } : {}) } })
          .catch(() => undefined);
      },
    };
    try {
      const result = tool.kind === 'api' ? await callApi(tool, args, await ctx.client(), call) : await tool.run(args, ctx, call);
      return server.projectCallToolResult(result, tool.outputSchema);
    } catch (e) {
      return toolError(e);
    }
  });

  server.setRequestHandler('resources/list', async (request) => listResources(ctx, request.params?.cursor));
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: resourceTemplates() }));
  server.setRequestHandler('resources/read', async (request) => {
    try {
      return await readResource(ctx, request.params.uri);
    } catch (e) {
      if (e instanceof ProtocolError) throw e;
      const x = explainError(e);
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${x.message}${x.hint ? ` (hint: ${x.hint})` : ''}`);
    }
  });
  return server;
}

/**
 * A transport that masks every secret in everything the server sends (results, errors, notifications): the
 * client's redactor, over the whole message. The key cannot reach an agent, even inside an echoed service error.
 */
export function redacting(transport: Transport, secrets: () => Array<string | undefined>): Transport {
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    const text = JSON.stringify(message);
    let safe = text;
    for (const s of secrets()) if (s) safe = redact(safe, s);
    return send(safe === text ? message : JSON.parse(safe), options);
  };
  return transport;
}
