/**
 * Warnings an adapter returns (`MakeRequestsResult.warnings`, `MakeBidsResult.warnings`) reach the response's
 * `ext.warnings.<bidder>`, apart from its errors, as Prebid Server reports its adapters' `errortypes.Warning`s.
 */
import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import type { ResponseData } from '../../core/api/index.js';
import type { BidderTransport } from '../../core/bidders/transport.js';
import { bannerRequest, postJson, replacing, startGavel, type RunningGavel } from '../support/gavel.js';

const WARNING_ADAPTER = fileURLToPath(new URL('./warning-adapter', import.meta.url));

describe('adapter warnings in the auction response', () => {
  let gavel: RunningGavel;
  let calls = 0;
  const transport: BidderTransport = {
    send: async (): Promise<ResponseData> => {
      calls += 1;
      return { status: 200, body: '{}', headers: {} };
    },
    close: async () => undefined,
  };

  before(async () => {
    gavel = await startGavel({ plugins: [WARNING_ADAPTER], bidders: { warner: {}, warned: { adapter: 'warner' } } }, { configure: replacing({ transport }) });
  });
  after(() => gavel?.close());

  it('lists the warnings of makeRequests and makeBids under the bidder, in ext.warnings, and the errors apart', async () => {
    const { status, json } = await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ warner: {} }));
    expect(status).to.equal(200);
    expect(calls).to.equal(1);
    expect(json.ext.warnings.warner).to.deep.equal([
      { code: 10999, message: 'built with a warning' },
      { code: 10002, message: 'read with a warning' },
    ]);
    expect(json.ext.errors.warner).to.deep.equal([{ code: 3, message: 'an error' }]);
  });

  it('lists them under the name the bidder runs as (an alias)', async () => {
    const { json } = await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ warned: {} }));
    // `general` carries the account's debug warning, as Prebid Server's answers do.
    expect(Object.keys(json.ext.warnings).filter((scope) => scope !== 'general')).to.deep.equal(['warned']);
  });
});
