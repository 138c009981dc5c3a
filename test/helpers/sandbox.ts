import { startSandbox, prepareSandbox, type SandboxOptions, type RunningSandbox } from '../../src/sandbox/server.js';

/** A real sandbox on a free loopback port, for e2e tests; quiet unless told otherwise. */
export async function startTestSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox & { key(id: string): string }> {
  const sb = await startSandbox({ port: 0, rateLimit: '0', log: () => {}, ...opts });
  return Object.assign(sb, {
    key(id: string) {
      const k = sb.keys.find((x) => x.id === id);
      if (!k) throw new Error(`no seeded key ${id}`);
      return `${k.id}.${k.secret}`;
    },
  });
}

/** The sandbox's app without a socket: `app.request()` for fast unit tests. */
export async function inProcessSandbox(opts: SandboxOptions = {}) {
  const p = await prepareSandbox({ rateLimit: '0', log: () => {}, ...opts });
  p.setBaseUrl('http://sandbox.test');
  const keyOf = (id: string) => {
    const k = p.keys.find((x) => x.id === id);
    if (!k) throw new Error(`no seeded key ${id}`);
    return `${k.id}.${k.secret}`;
  };
  async function call(method: string, path: string, o: { key?: string | null; body?: unknown; headers?: Record<string, string>; rawBody?: string } = {}) {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.key) headers.authorization = `Bearer ${o.key.includes('.') ? o.key : keyOf(o.key)}`;
    let body: string | undefined = o.rawBody;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await p.app.request(path, { method, headers, body });
    const text = await res.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {}
    return { status: res.status, headers: res.headers, json, text };
  }
  return { ...p, keyOf, call, close: p.shutdown };
}
