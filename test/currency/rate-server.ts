import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A currency-file server on loopback whose answer the test changes between fetches. */
export interface RateServer {
  url: string;
  /** What the next fetch gets: a status and a body (an object is sent as JSON, a string as it is). */
  answer: { status: number; body: unknown };
  fetches: number;
  close(): Promise<void>;
}

export async function startRateServer(body: unknown): Promise<RateServer> {
  const state = { answer: { status: 200, body }, fetches: 0 };
  const server: Server = createServer((_req, res) => {
    state.fetches += 1;
    const { status, body: answer } = state.answer;
    const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
    res.writeHead(status, { 'content-type': 'application/json' }).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/currency/latest.json`,
    get answer() {
      return state.answer;
    },
    set answer(next) {
      state.answer = next;
    },
    get fetches() {
      return state.fetches;
    },
    set fetches(count) {
      state.fetches = count;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port nothing listens on: bound once, then released. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/latest.json`;
}

export interface RecordedLog {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg?: string;
  obj: object | string;
}

/** A logger that keeps what it is told, so a test can check that a failure was reported. */
export function recordingLogger() {
  const records: RecordedLog[] = [];
  const at = (level: RecordedLog['level']) => (obj: object | string, msg?: string) => {
    records.push({ level, obj, msg });
  };
  return { records, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}
