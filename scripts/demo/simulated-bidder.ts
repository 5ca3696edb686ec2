import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A simulated OpenRTB bidder on loopback, for the demo and for end-to-end tests. Its behaviour comes from the query string of the URL it is
 * called on, so one server plays many bidders:
 *   price=1.5     bid this CPM on every imp (default 1)
 *   delayMs=200   answer after this long
 *   hang=1        never answer
 *   dripMs=100    answer 200 at once, then one byte of body every this many ms, never finishing
 *   reset=1       close the connection without an answer
 *   garbage=1     answer 200 with a body that is not JSON
 *   bytes=10485760  answer 200 with a body this large
 *   keep=0        do not keep the request body in `received` (soak and load runs)
 *   status=500    answer this status with no bid
 *   cur=EUR       answer in this currency
 *   dur=18&cat=IAB1-1&mtype=2   video bid facts
 *   adm=...       creative markup
 *   prices=2,1.5  several bids per imp, one per price (instead of price)
 *   seat=groupm   the seat the bids come under
 *   bidid=b1      every bid gets this id (a bidder repeating ids)
 *   dealid=d1     a deal id on every bid
 *   nocrid=1      bids without a creative id
 *   w=300&h=250   the creative size (default: the imp's first size)
 *   ext={...}     a bid ext (JSON)
 *   native=echo   native markup whose assets answer the request's, id for id (`{"native": {...}}`)
 *   native=root   the same without the `native` wrapper (assets at the root, as Prebid.js reads native markup)
 *   garbage=1     answer 200 with a JSON body that is not OpenRTB
 * Every request body it receives is kept in `received`, per path+query.
 */
export interface MockBidder {
  url: string;
  received: Array<{ url: string; body: Record<string, unknown>; headers: IncomingMessage['headers'] }>;
  close(): Promise<void>;
}

function answer(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>, query: URLSearchParams): void {
  if (query.get('garbage') === '1') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"seatbid": "this is not OpenRTB"}');
    return;
  }
  const status = Number(query.get('status') ?? 200);
  if (status !== 200) {
    res.writeHead(status, { 'content-type': 'text/plain' }).end('server trouble');
    return;
  }
  const imps = Array.isArray(body.imp) ? (body.imp as Array<Record<string, any>>) : [];
  const prices = (query.get('prices') ?? query.get('price') ?? '1').split(',').map(Number);
  const bids = imps.flatMap((imp, index) => prices.map((price, rank) => {
    const format = imp.banner?.format?.[0] ?? imp.banner ?? imp.video ?? {};
    const suffix = prices.length > 1 ? `${index}-${rank}` : `${index}`;
    const bid: Record<string, unknown> = {
      id: `${query.get('name') ?? 'mock'}-bid-${suffix}`,
      impid: imp.id,
      price,
      adm: query.get('native') === 'echo' || query.get('native') === 'root' ? nativeAnswer(imp, query.get('native') === 'root') : query.get('adm') ?? '<div>ad</div>',
      crid: `creative-${suffix}`,
      adomain: ['advertiser.example'],
      w: Number(query.get('w') ?? format.w ?? 300),
      h: Number(query.get('h') ?? format.h ?? 250),
    };
    if (query.get('nocrid') === '1') delete bid.crid;
    if (query.get('bidid')) bid.id = query.get('bidid');
    if (query.get('mtype')) bid.mtype = Number(query.get('mtype'));
    if (query.get('dur')) bid.dur = Number(query.get('dur'));
    if (query.get('cat')) bid.cat = [query.get('cat')];
    if (query.get('dealid')) bid.dealid = query.get('dealid');
    if (query.get('ext')) bid.ext = JSON.parse(query.get('ext')!);
    return bid;
  }));
  const seat = query.get('seat') ?? query.get('name') ?? 'mock';
  const response = bids.length === 0 ? null : { id: body.id, cur: query.get('cur') ?? 'USD', seatbid: [{ seat, bid: bids }] };
  if (!response) {
    res.writeHead(204).end();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(response));
}

/** Native markup answering each asset of the imp's native request with the same id: what a native bidder sends. */
function nativeAnswer(imp: Record<string, any>, atRoot: boolean): string {
  let assets: Array<Record<string, any>> = [];
  try {
    const request = JSON.parse(String(imp.native?.request ?? '{}'));
    assets = (request.assets ?? request.native?.assets ?? []) as Array<Record<string, any>>;
  } catch {
    assets = [];
  }
  const answers = assets.map((asset) => {
    if (asset.title) return { id: asset.id, title: { text: `title of asset ${asset.id}` } };
    if (asset.img) return { id: asset.id, img: { url: `https://cdn.example/${asset.id}.png`, w: asset.img.w ?? 100, h: asset.img.h ?? 100 } };
    if (asset.data) return { id: asset.id, data: { value: `data of asset ${asset.id}` } };
    return { id: asset.id, video: { vasttag: '<VAST/>' } };
  });
  const markup = { ver: '1.2', assets: answers, link: { url: 'https://advertiser.example/' } };
  return JSON.stringify(atRoot ? markup : { native: markup });
}

export async function startMockBidder(listenPort = 0): Promise<MockBidder> {
  const received: MockBidder['received'] = [];
  const hanging = new Set<ServerResponse>();
  const filler = new Map<number, Buffer>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://mock');
      let body: Record<string, unknown> = {};
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
      } catch {
        res.writeHead(400).end();
        return;
      }
      const query = url.searchParams;
      if (query.get('keep') !== '0') received.push({ url: req.url ?? '/', body, headers: req.headers });
      if (query.get('hang') === '1') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      if (query.get('reset') === '1') {
        req.socket.destroy();
        return;
      }
      if (query.get('garbage') === '1') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('<html>not json');
        return;
      }
      if (query.get('bytes')) {
        const size = Number(query.get('bytes'));
        // One buffer per size: a run of huge answers must not spend the bidder's time allocating.
        const body = filler.get(size) ?? filler.set(size, Buffer.alloc(size, 0x20)).get(size)!;
        res.writeHead(200, { 'content-type': 'application/json' }).end(body);
        return;
      }
      const drip = Number(query.get('dripMs') ?? 0);
      if (drip > 0) {
        hanging.add(res);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{');
        const timer = setInterval(() => res.write(' '), drip);
        res.on('close', () => {
          clearInterval(timer);
          hanging.delete(res);
        });
        return;
      }
      const delay = Number(url.searchParams.get('delayMs') ?? 0);
      if (delay > 0) setTimeout(() => answer(req, res, body, url.searchParams), delay);
      else answer(req, res, body, url.searchParams);
    });
  });
  await new Promise<void>((resolve) => server.listen(listenPort, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
