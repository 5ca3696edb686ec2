import { expect } from 'chai';
import { getJson, postJson, startGavel, type RunningGavel } from '../support/gavel.js';

describe('user sync endpoints on a booted Gavel', () => {
  let gavel: RunningGavel;
  before(async () => {
    gavel = await startGavel({ server: { externalUrl: 'https://gavel.example' } });
  });
  after(async () => gavel?.close());

  it('POST /cookie_sync offers appnexus a sync URL that comes back to /setuid', async () => {
    const { status, json } = await postJson(`${gavel.url}/cookie_sync`, { bidders: ['appnexus'] });
    expect(status).to.equal(200);
    const entry = json.bidder_status.find((item: { bidder: string }) => item.bidder === 'appnexus');
    expect(decodeURIComponent(entry.usersync.url)).to.contain('https://gavel.example/setuid?bidder=adnxs');
  });

  it('GET /setuid writes the uids cookie with its flags, and the pixel form answers a PNG', async () => {
    const answer = await getJson(`${gavel.url}/setuid?bidder=adnxs&uid=12345&f=i`, { 'user-agent': 'Mozilla/5.0 (iPhone) CriOS/119.0.6045.109 Mobile' });
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('content-type')).to.equal('image/png');
    const cookie = answer.headers.get('set-cookie')!;
    expect(cookie).to.match(/^uids=/);
    expect(cookie).to.contain('SameSite=None').and.contain('Secure').and.contain('HttpOnly');
  });
});
