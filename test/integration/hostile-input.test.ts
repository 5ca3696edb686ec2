import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { getJson, postJson, useGavelWithBidders } from '../support/gavel.js';

/** Bodies a careless or hostile client might send. None may cost a 500, a hang or a crash. */
const hostileAuctionBodies: unknown[] = [
  {},
  { id: 1, imp: 'x' },
  { id: 'r', imp: [1, 2] },
  { id: 'r', imp: [null] },
  { id: 'r', imp: [{}] },
  { id: 'r', imp: [{ id: 'i', banner: 'big' }], site: { page: 'p' } },
  { id: 'r', imp: [{ id: 'i', banner: { format: 'x' } }], site: { page: 'p' } },
  { id: 'r', imp: [{ id: 'i', banner: { format: [null] } }], site: { page: 'p' } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: [] }], site: { page: 'p' } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: null } }], site: { page: 'p' } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { prebid: { bidder: [] } } }], site: { page: 'p' } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { prebid: 'x' } }], site: { page: 'p' } },
  { id: 'r', imp: [{ id: 'i', native: { request: '{"assets":' } , ext: { alpha: {} } }], site: { page: 'p' } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: null },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: { page: 'p' }, ext: [] },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: { page: 'p' }, ext: { prebid: { targeting: 'yes' } } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: { page: 'p' }, ext: { prebid: { targeting: { pricegranularity: { ranges: 'x' } } } } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: { page: 'p' }, ext: { prebid: { aliases: { a: 5 } } } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: { page: 'p' }, ext: { prebid: { cache: 'x' } } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: { page: 'p' }, user: { ext: { prebid: { buyeruids: 'x' } } } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: { page: 'p' }, tmax: 'soon' },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: { page: 'p' }, tmax: 1e12 },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { prebid: { storedrequest: { id: '../../etc/passwd' } } } }], site: { page: 'p' } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: { page: 'p' }, cur: 'USD' },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: { page: 'p' }, ext: { prebid: { bidadjustmentfactors: [] } } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: { page: 'p' }, ext: { prebid: { trace: { level: 1 } } } },
];

describe('hostile input never costs a 500', () => {
  const servers = useGavelWithBidders({ alpha: 'name=alpha&price=1' });

  hostileAuctionBodies.forEach((body, index) => {
    it(`auction body #${index}: ${JSON.stringify(body).slice(0, 90)}`, async () => {
      const { status, text } = await postJson(`${servers.gavel.url}/openrtb2/auction`, body);
      expect(status, text).to.be.oneOf([200, 400]);
      if (status === 400) expect(text).to.match(/^Invalid request: /);
    });
  });

  for (const body of [[], 'x', { podconfig: 'x' }, { podconfig: { pods: [{}] } }, { podconfig: { durationrangesec: [15], pods: [{ podid: 1, adpoddurationsec: 1e9, configid: 'x' }] }, site: { page: 'p', publisher: { id: 'p' } }, video: { mimes: ['video/mp4'], protocols: [2] } }]) {
    it(`video body ${JSON.stringify(body).slice(0, 90)}`, async () => {
      const { status, text } = await postJson(`${servers.gavel.url}/openrtb2/video`, body);
      expect(status, text).to.be.within(400, 499);
    });
  }

  for (const query of ['', 'tag_id=', 'tag_id=../../x', 'tag_id=x&timeout=1', 'tag_id=%E0%A4%A&timeout=0.0001', 'tag_id=x&ms=1x1,abc', 'tag_id=x&w=-5&timeout=abc&targeting={bad', 'tag_id=x&debug=maybe']) {
    it(`amp query "${query}"`, async () => {
      const { status } = await getJson(`${servers.gavel.url}/openrtb2/amp?${query}`);
      expect(status).to.be.within(400, 499);
    });
  }

  for (const query of ['', 'bidder=', 'bidder=nope&uid=1', 'bidder=adnxs&uid=' + 'x'.repeat(5000)]) {
    it(`setuid query "${query.slice(0, 40)}"`, async () => {
      const { status } = await getJson(`${servers.gavel.url}/setuid?${query}`);
      expect(status).to.be.within(400, 499);
    });
  }
});

/** Raw HTTP/1.1 on one keep-alive socket: each answer's status line and headers, as the client sees them. */
function onOneSocket(port: number, requests: Buffer[], settleMs = 1500): Promise<string[]> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    // The server may close while the rest of a large body is still being written: that is the point.
    socket.on('error', () => undefined);
    const done = () => {
      socket.destroy();
      resolve(received.split(/(?=HTTP\/1\.1 )/).filter((part) => part.startsWith('HTTP/1.1')));
    };
    socket.on('close', done);
    socket.on('connect', async () => {
      for (const request of requests) {
        if (socket.destroyed) break;
        socket.write(request);
        await new Promise((wait) => setTimeout(wait, 100));
      }
      setTimeout(done, settleMs);
    });
  });
}

function post(path: string, body: Buffer, headers: Record<string, string> = {}): Buffer {
  const lines = [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', `Content-Length: ${body.length}`, 'Content-Type: application/json', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]);
}

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const deepAuction = (extra: string) => `{"id":"r","imp":[{"id":"i","banner":{"w":1,"h":1},"ext":{"alpha":{}}}],"site":{"page":"p"}${extra},"ext":{"deep":${nested(2000)}}}`;

describe('hostile input never costs a 500 or a misleading 503 (faults round)', () => {
  const servers = useGavelWithBidders({ alpha: 'name=alpha&price=1' }, { server: { maxRequestBytes: 16384 } });
  const port = () => Number(new URL(servers.gavel.url).port);

  const deepBodies: Array<[string, string, string]> = [
    ['/openrtb2/video', 'a video body nested 2,000 deep', `{"podconfig":{"pods":${nested(2000)}}}`],
    ['/openrtb2/auction', 'an auction with test: 1 nested 2,000 deep', deepAuction(',"test":1')],
    ['/openrtb2/auction', 'an auction naming a stored request, nested 2,000 deep', deepAuction(',"ext":{"prebid":{"storedrequest":{"id":"s"}}}')],
  ];
  for (const [path, what, body] of deepBodies) {
    it(`${path}: ${what} is a 400 naming the depth limit`, async () => {
      const { status, text } = await postJson(`${servers.gavel.url}${path}`, body);
      expect(status, text).to.equal(400);
      expect(text).to.contain('deeper than the 64-level limit (server.maxJsonDepth)');
    });
  }

  it('an auction naming a stored request with a tmax of 1e-58 is never a 503 blaming the stored-data backend', async () => {
    const body = { id: 'r', tmax: 1e-58, imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: { page: 'p' }, ext: { prebid: { storedrequest: { id: 'nope' } } } };
    const { status, text } = await postJson(`${servers.gavel.url}/openrtb2/auction`, body);
    expect(status, text).to.be.oneOf([200, 400]);
  });

  for (const field of ['us_privacy', 'gpp', 'gpp_sid', 'gdpr_consent']) {
    it(`/cookie_sync with a lone surrogate in ${field} is a 4xx or a 200, never a 500`, async () => {
      const { status, text } = await postJson(`${servers.gavel.url}/cookie_sync`, `{"bidders":["appnexus","rubicon","alpha"],"gdpr":0,"${field}":"1Y\\udfffN"}`);
      expect(status, text).to.be.within(200, 499);
    });
  }

  it('GET /info/bidders/% is a 400 naming the path', async () => {
    const { status, text } = await getJson(`${servers.gavel.url}/info/bidders/%`);
    expect(status, text).to.equal(400);
  });

  it('after a gzip 413 (?gzip=1, as Prebid.js sends) the connection is closed, never left hanging', async () => {
    // Incompressible: most of the compressed body is still unread when the decompressed size passes the limit.
    const big = gzipSync(randomBytes(1 << 20));
    const answers = await onOneSocket(port(), [post('/openrtb2/auction?gzip=1', big), post('/openrtb2/auction', Buffer.from('{}'))]);
    expect(answers[0]).to.match(/^HTTP\/1\.1 413/);
    expect(answers[0]!.toLowerCase()).to.contain('connection: close');
    expect(answers).to.have.length(1);
  });

  it('after a 413 on Content-Length the connection is closed', async () => {
    const answers = await onOneSocket(port(), [post('/openrtb2/auction', Buffer.alloc(20000, 0x20))]);
    expect(answers[0]).to.match(/^HTTP\/1\.1 413/);
    expect(answers[0]!.toLowerCase()).to.contain('connection: close');
  });
});

describe('slow clients are cut at the configured timeouts', () => {
  const servers = useGavelWithBidders({ alpha: 'name=alpha&price=1' }, { server: { headersTimeoutMs: 300, requestTimeoutMs: 600 } });

  it('a body sent slower than server.requestTimeoutMs gets a 408 and a closed connection', async function () {
    this.timeout(10_000);
    const socket = connect(Number(new URL(servers.gavel.url).port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.write('POST /openrtb2/auction HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{');
    const drip = setInterval(() => !socket.destroyed && socket.write(' '), 100);
    await closed;
    clearInterval(drip);
    expect(received).to.match(/^HTTP\/1\.1 408/);
  });
});
