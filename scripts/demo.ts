/**
 * `npm run demo`: Gavel on its embedded defaults plus a simulated bidder on loopback, then one sample auction
 * printed, so a newcomer sees real bids with no network. `--once` exits after printing.
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { bootGavel } from '../core/app/boot.js';
import { loadConfig } from '../core/config/index.js';
import { startMockBidder } from './demo/simulated-bidder.js';

const once = process.argv.includes('--once');
const demoData = (path: string) => fileURLToPath(new URL(`./demo-data/${path}`, import.meta.url));
const bidder = await startMockBidder();
const config = loadConfig({
  overrides: {
    logging: { level: 'warn' },
    storedRequests: { filesystem: { dir: demoData('stored') } },
    video: { categoryMappings: { freewheel: demoData('category-mappings/freewheel.json') } },
    bidders: {
      alpha: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=alpha&price=1.87` },
      beta: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=beta&price=2.42&dealid=deal-7` },
      gamma: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=gamma&price=3.10&mtype=2&dur=28&cat=IAB1-5&adm=%3CVAST%20version%3D%223.0%22%3E%3C%2FVAST%3E` },
    },
  },
});
const app = await bootGavel(config);
const server = await app.listen(config.server.port, '127.0.0.1');
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const sample = {
  id: 'demo-auction',
  site: { page: 'https://news.example/story', publisher: { id: 'pub-1' } },
  imp: [
    { id: 'top-banner', banner: { format: [{ w: 728, h: 90 }] }, ext: { alpha: { zone: 'top' }, beta: { zone: 'top' } } },
    { id: 'preroll', video: { mimes: ['video/mp4'], protocols: [2, 3], w: 640, h: 360, maxduration: 30 }, ext: { gamma: { slot: 'preroll' } } },
  ],
  tmax: 500,
  ext: { prebid: { targeting: { pricegranularity: 'med', includebidderkeys: true }, cache: { bids: {} } } },
};
async function show(path: string, body: unknown): Promise<void> {
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  console.log(`POST ${base}${path}\n${JSON.stringify(body, null, 2)}\n`);
  console.log(`HTTP ${response.status}\n${JSON.stringify(await response.json(), null, 2)}\n`);
}

await show('/openrtb2/auction', sample);
// A video ad pod request: two pods, each a stored imp offered to gamma, which answers 28 s bids in IAB1-5.
await show('/openrtb2/video', JSON.parse(readFileSync(demoData('video-request.json'), 'utf8')));

if (once) {
  await app.close();
  await bidder.close();
} else {
  console.log(`\nGavel is running at ${base} with bidders alpha, beta (banner) and gamma (video) on a simulated bidder.`);
  console.log(`Try: curl -s ${base}/info/bidders   (Ctrl-C to stop)`);
  const stop = async () => {
    await app.close();
    await bidder.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
