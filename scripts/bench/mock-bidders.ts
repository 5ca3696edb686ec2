import { createServer, type Server } from 'node:http';
import { isEntryPoint } from './processes.js';

/**
 * The Node stand-in for ../shared/bench/nginx.conf, used when nginx is not installed: the same paths answering
 * the same static bodies (`/b0`..`/b4` one bid for imp "1", `/nobid` 204), over keep-alive.
 * Usage: node mock-bidders.js [port]
 */

export const MOCK_BIDDER_PORT = 9801;
const PRICES = [1.1, 1.52, 0.87, 2.05, 0.42];

function staticAnswer(index: number): string {
  const bid = { id: `b${index}`, impid: '1', price: PRICES[index], adm: `<div>ad-${index}</div>`, adomain: [`a${index}.com`], crid: `c${index}`, w: 300, h: 250 };
  return JSON.stringify({ id: 'r', seatbid: [{ bid: [bid] }], cur: 'USD' });
}

const answers = new Map(PRICES.map((_, index) => [`/b${index}`, staticAnswer(index)]));

/** The body a mock bidder answers on `path` (`/b0`..`/b4`), or undefined where it answers no bid. */
export function mockBidderBody(path: string): string | undefined {
  return answers.get(path);
}

export function createMockBidderServer(): Server {
  const server = createServer((req, res) => {
    // The body is read to the end before answering, as a real bidder would, so the connection stays reusable.
    req.resume();
    req.once('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      const body = mockBidderBody(path);
      if (body !== undefined) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      } else {
        res.writeHead(path === '/nobid' ? 204 : 404);
        res.end();
      }
    });
  });
  server.keepAliveTimeout = 120_000;
  return server;
}

if (isEntryPoint(import.meta.url)) {
  const port = Number(process.argv[2] ?? MOCK_BIDDER_PORT);
  const server = createMockBidderServer();
  server.listen(port, '127.0.0.1', () => console.log(`mock bidders listening on ${port}`));
  process.once('SIGTERM', () => {
    server.close(() => process.exit(0));
    // Idle keep-alive connections from the server under test would otherwise hold close() open.
    server.closeAllConnections();
  });
}
