import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../../../test/support/eventually.js';
import { postJson, startGavel, type RunningGavel } from '../../../test/support/gavel.js';
import { startMockBidder, type MockBidder } from '../../../test/support/mock-bidder.js';

type Json = Record<string, any>;

/** Floors by media type, the way each source gives them. */
const groupOf = (banner: number, currency = 'USD') => ({ currency, schema: { fields: ['mediaType'] }, values: { banner } });

describe('prebid.floors: auctions with floors from each source (request, account, fetched URL)', () => {
  let bidder: MockBidder;
  let gavel: RunningGavel;
  let floorsServer: Server;
  let floorsUrl: string;
  let dir: string;

  before(async () => {
    bidder = await startMockBidder();
    floorsServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ currency: 'USD', modelgroups: [groupOf(2.2)] })));
    await new Promise<void>((resolve) => floorsServer.listen(0, '127.0.0.1', resolve));
    floorsUrl = `http://127.0.0.1:${(floorsServer.address() as AddressInfo).port}/floors.json`;
    dir = mkdtempSync(join(tmpdir(), 'gavel-floors-'));
    mkdirSync(join(dir, 'accounts'));
    const accounts: Record<string, Json> = {
      ruled: { id: 'ruled', hooks: { modules: { prebid: { floors: { rules: { data: { modelgroups: [groupOf(1.8)] } } } } } } },
      fetched: { id: 'fetched', price_floors: { use_dynamic_data: true, fetch: { enabled: true, url: floorsUrl, period_sec: 300, max_age_sec: 600 } } },
      off: { id: 'off', price_floors: { enabled: false } },
      deals: { id: 'deals', price_floors: { enforce_deal_floors: true } },
    };
    for (const [id, account] of Object.entries(accounts)) writeFileSync(join(dir, 'accounts', `${id}.json`), JSON.stringify(account));
    const endpoint = (query: string) => ({ adapter: 'ortb', endpoint: `${bidder.url}/rtb?${query}` });
    gavel = await startGavel({
      modules: { 'prebid.floors': { enabled: true } },
      storedRequests: { filesystem: { dir } },
      currency: { rates: { EUR: { USD: 1.25 }, USD: { EUR: 0.8 } } },
      bidders: {
        alpha: endpoint('name=alpha&price=2.5'),
        beta: endpoint('name=beta&price=1.5'),
        gamma: endpoint('name=gamma&price=1&dealid=d1'),
        delta: endpoint('name=delta&price=1.84&cur=EUR'),
      },
    });
  });

  after(async () => {
    await gavel?.close();
    await bidder?.close();
    await new Promise((resolve) => floorsServer?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  function auction(floors: Json | undefined, account?: string, extra: Json = {}): Promise<Json> {
    const body = {
      id: 'req-1',
      site: { page: 'https://publisher.example/a', ...(account && { publisher: { id: account } }) },
      imp: [{ id: 'imp-1', banner: { format: [{ w: 300, h: 250 }] }, ext: { prebid: { bidder: { alpha: {}, beta: {}, gamma: {}, delta: {} } } } }],
      tmax: 1000,
      ext: { prebid: { returnallbidstatus: true, ...(floors && { floors }), ...extra } },
    };
    return postJson(`${gavel.url}/openrtb2/auction`, body).then((answer) => {
      expect(answer.status, answer.text).to.equal(200);
      return answer.json;
    });
  }

  const winners = (answer: Json): string[] => ((answer.seatbid ?? []) as Json[]).flatMap((seat) => seat.bid.map((bid: Json) => seat.seat)).sort();
  const nonBids = (answer: Json): Array<[string, number]> =>
    ((answer.ext.prebid?.seatnonbid ?? []) as Json[]).flatMap((seat) => seat.nonbid.map((nonbid: Json) => [seat.seat, nonbid.statuscode] as [string, number])).sort();
  const lastSent = (name: string): Json => [...bidder.received].reverse().find((entry) => entry.url.includes(`name=${name}&`))!.body;

  it('request rules: every bidder is sent the floor, bids under it are dropped (301) with the warning', async () => {
    const answer = await auction({ data: { modelgroups: [groupOf(2)] } });
    // delta bids 1.84 EUR = 2.30 USD; gamma's deal is not held to the floor (the account does not enforce deal floors).
    expect(winners(answer)).to.deep.equal(['alpha', 'delta', 'gamma']);
    expect(nonBids(answer)).to.deep.equal([['beta', 301]]);
    expect(answer.ext.warnings.prebid.map((w: Json) => w.code)).to.deep.equal([10009]);
    expect(lastSent('alpha').imp[0]).to.include({ bidfloor: 2, bidfloorcur: 'USD' });
    expect(lastSent('beta').imp[0]).to.include({ bidfloor: 2, bidfloorcur: 'USD' });
    const alphaBid = answer.seatbid.find((seat: Json) => seat.seat === 'alpha').bid[0];
    expect(alphaBid.ext.prebid.floors).to.deep.equal({ floorCurrency: 'USD', floorRule: 'banner', floorRuleValue: 2, floorValue: 2 });
  });

  it('enforcement off (enforcepbs: false): the floor is signalled, no bid is dropped', async () => {
    const answer = await auction({ enforcement: { enforcepbs: false }, data: { modelgroups: [groupOf(2)] } });
    expect(winners(answer)).to.deep.equal(['alpha', 'beta', 'delta', 'gamma']);
    expect(nonBids(answer)).to.deep.equal([]);
    expect(lastSent('beta').imp[0]).to.include({ bidfloor: 2 });
  });

  it('deals: held to the floor (304) when the account and the request both enforce deal floors', async () => {
    const answer = await auction({ enforcement: { floordeals: true }, data: { modelgroups: [groupOf(2)] } }, 'deals');
    expect(winners(answer)).to.deep.equal(['alpha', 'delta']);
    expect(nonBids(answer)).to.deep.equal([['beta', 301], ['gamma', 304]]);
  });

  it('currency: a EUR floor is signalled in EUR and bids are compared converted', async () => {
    // 1.6 EUR = 2 USD: alpha (2.5 USD) and delta (2.3 USD) pass, beta (1.5 USD) does not.
    const answer = await auction({ data: { currency: 'EUR', modelgroups: [{ schema: { fields: ['mediaType'] }, values: { banner: 1.6 } }] } });
    expect(lastSent('alpha').imp[0]).to.include({ bidfloor: 1.6, bidfloorcur: 'EUR' });
    expect(nonBids(answer)).to.deep.equal([['beta', 301]]);
    expect(answer.ext.warnings.prebid[0].message).to.equal('beta bid id beta-bid-0 rejected - bid price 1.5000 USD is less than bid floor 1.6000 EUR for imp imp-1');
  });

  it('a plain imp.bidfloor is enforced without any rules', async () => {
    const body = {
      id: 'req-1',
      site: { page: 'https://publisher.example/a' },
      imp: [{ id: 'imp-1', bidfloor: 2.4, bidfloorcur: 'USD', banner: { format: [{ w: 300, h: 250 }] }, ext: { prebid: { bidder: { alpha: {}, beta: {} } } } }],
      ext: { prebid: { returnallbidstatus: true } },
    };
    const answer = (await postJson(`${gavel.url}/openrtb2/auction`, body)).json;
    expect(winners(answer)).to.deep.equal(['alpha']);
  });

  it('account rules: used over the request rules', async () => {
    const answer = await auction({ data: { modelgroups: [groupOf(0.5)] } }, 'ruled');
    expect(lastSent('beta').imp[0]).to.include({ bidfloor: 1.8 });
    expect(nonBids(answer)).to.deep.equal([['beta', 301]]);
  });

  it('an account that switches floors off: the request rules are ignored', async () => {
    const answer = await auction({ data: { modelgroups: [groupOf(2)] } }, 'off');
    expect(winners(answer)).to.deep.equal(['alpha', 'beta', 'delta', 'gamma']);
    expect(lastSent('beta').imp[0]).to.not.have.property('bidfloor');
  });

  it('fetched floors: the first request starts the fetch and runs on its own rules, later ones use the file', async () => {
    // Bidders are not sent ext.prebid.floors (Prebid Server's allowed list); a debug answer's resolved request shows them.
    const resolvedFloors = (answer: Json): Json => answer.ext.debug.resolvedrequest.ext.prebid.floors;
    const first = await auction({ data: { modelgroups: [groupOf(0.5)] } }, 'fetched', { debug: true });
    // Prebid Server reports a fetch still in progress as `none`: the request's own rules are what ran.
    expect(resolvedFloors(first)).to.include({ location: 'request', fetchstatus: 'none' });
    expect(first.ext.debug.resolvedrequest.imp[0]).to.include({ bidfloor: 0.5 });
    expect(nonBids(first)).to.deep.equal([]);
    const later = await eventually('the fetched floors in use', () => auction({ data: { modelgroups: [groupOf(0.5)] } }, 'fetched', { debug: true }), (answer: Json) => resolvedFloors(answer).location === 'fetch', 3000);
    expect(resolvedFloors(later)).to.include({ fetchstatus: 'success' });
    expect(lastSent('beta').imp[0]).to.include({ bidfloor: 2.2 });
    expect(lastSent('beta').ext?.prebid?.floors).to.equal(undefined);
    expect(nonBids(later)).to.deep.equal([['beta', 301]]);
  });

  async function floorOnlyAuction(modules: Json): Promise<Json> {
    const plain = await startGavel({ modules, bidders: { beta: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=beta&price=1.5` } } });
    try {
      const answer = await postJson(`${plain.url}/openrtb2/auction`, {
        id: 'r',
        site: { page: 'https://publisher.example/a' },
        imp: [{ id: 'imp-1', banner: { format: [{ w: 300, h: 250 }] }, ext: { prebid: { bidder: { beta: {} } } } }],
        ext: { prebid: { returnallbidstatus: true, floors: { data: { modelgroups: [groupOf(2)] } } } },
      });
      return answer.json;
    } finally {
      await plain.close();
    }
  }

  it('on by default (reference-behaviour 13): a host that configures nothing enforces the floors a request carries', async () => {
    const answer = await floorOnlyAuction({});
    expect(answer.seatbid ?? []).to.deep.equal([]);
    expect(nonBids(answer)).to.deep.equal([['beta', 301]]);
  });

  it('a host that switches the module off ignores floors', async () => {
    const answer = await floorOnlyAuction({ 'prebid.floors': { enabled: false } });
    expect(answer.seatbid[0].bid[0].price).to.equal(1.5);
  });
});
