import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP stand-in for a backend (PostgreSQL, Redis) on a loopback port, switchable while connections are open:
 * - `pass`: forwards every connection to the real backend;
 * - `hang`: accepts connections and never answers (a backend that is up at the TCP level and stuck above it);
 * Switching drops every open connection, so clients must connect again and meet the new mode.
 */
export interface TcpStandIn {
  readonly port: number;
  /** `<scheme>://127.0.0.1:<port>`. */
  readonly url: (scheme: string) => string;
  readonly mode: 'pass' | 'hang';
  switchTo(mode: 'pass' | 'hang'): void;
  close(): Promise<void>;
}

export async function startTcpStandIn(target: { host: string; port: number }, mode: 'pass' | 'hang' = 'pass'): Promise<TcpStandIn> {
  const sockets = new Set<Socket>();
  const state = { mode };
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (state.mode === 'hang') return;
    const upstream = connect(target.port, target.host);
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (scheme) => `${scheme}://127.0.0.1:${port}`,
    get mode() {
      return state.mode;
    },
    switchTo(next) {
      state.mode = next;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Host and port of a `postgres://` or `redis://` URL. */
export function hostAndPortOf(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port) };
}
