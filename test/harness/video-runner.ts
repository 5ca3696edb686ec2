import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { bootGavel } from '../../core/app/boot.js';
import { MemoryFetcher } from '../../core/stored/index.js';
import { replacing, testConfig } from '../support/gavel.js';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';
import { listFixtureFiles, type FixtureOutcome } from './fixture-outcome.js';
import { FLOORS_OFF } from './mock-bidders.js';
import { isJsonObject } from '../../core/api/index.js';

/**
 * `npm run conformance -- video <dir> [<dir>...]`: posts each sample's `requestPayload` to POST /openrtb2/video.
 *
 * Samples name stored data (`storedrequestid`, each pod's `configid`) that only the deployment they came from had,
 * so the runner provides it: a stored imp per configid offering the pod to two `ortb` bidders on a real local mock
 * bidder (video bids that fit the sample's shortest duration, with IAB categories our example mapping knows), and a
 * stored request that adds a publisher id to the sample's site or app (the specification requires one; hosted
 * deployments keep it in stored configuration). It never adds site/app or pods, so a sample's validity is its own.
 *
 * Expectations: a sample's own `expectedReturnCode` / `expectedErrorMessage` when it states them, else by file name
 * (its first `valid` or `invalid`): an invalid one must be a 400 naming the faulty field (`request missing required
 * field: <Field>`, `request.tmax must be nonnegative. Got -2`), any other a 200 with
 * one `adPods` entry per pod, in order, each either targeted (every entry's `hb_cache_id` fetching the bid's VAST
 * from `GET /cache`) or explaining why not: under `errors.general` when it was dropped, else under its bidders (unless
 * no bidder was called at all: privacy rules may keep them all out).
 */
export interface VideoSample {
  description?: string;
  requestPayload: unknown;
  expectedReturnCode?: number;
  expectedErrorMessage?: string;
}

type Json = Record<string, any>;


const exampleMapping = (adServer: string): string => fileURLToPath(new URL(`../../scripts/demo-data/category-mappings/${adServer}.json`, import.meta.url));

/** The bidders every sample's pods are offered to: distinct prices and categories, so both survive deduplication. */
const SAMPLE_BIDDERS = [
  { name: 'video_alpha', price: 7.25, cat: 'IAB1-5' },
  { name: 'video_beta', price: 3.4, cat: 'IAB17' },
] as const;

export const vastOf = (bidder: string): string => `<VAST version="3.0"><Ad id="${bidder}"><InLine><AdSystem>mock</AdSystem></InLine></Ad></VAST>`;

function podsOf(payload: unknown): unknown[] {
  const pods = isJsonObject(payload) && isJsonObject(payload.podconfig) ? payload.podconfig.pods : undefined;
  return Array.isArray(pods) ? pods : [];
}

/** The duration every mock bid reports: the sample's shortest allowed one, so the bids fit exact and rounded pods. */
function bidDuration(payload: unknown): number {
  const range = isJsonObject(payload) && isJsonObject(payload.podconfig) ? payload.podconfig.durationrangesec : undefined;
  const valid = Array.isArray(range) ? range.filter((value): value is number => Number.isInteger(value) && value > 0) : [];
  return valid.length > 0 ? Math.min(...valid) : 30;
}

/** Stored data for what the sample names. */
export function storedDataFor(payload: unknown): MemoryFetcher {
  const imps: Json = {};
  const bidderParams = Object.fromEntries(SAMPLE_BIDDERS.map(({ name }) => [name, {}]));
  for (const pod of podsOf(payload)) {
    if (isJsonObject(pod) && typeof pod.configid === 'string') imps[pod.configid] = { ext: { prebid: { bidder: bidderParams } } };
  }
  const requests: Json = {};
  if (isJsonObject(payload) && typeof payload.storedrequestid === 'string') {
    const base: Json = {};
    for (const inventory of ['site', 'app']) if (isJsonObject(payload[inventory])) base[inventory] = { publisher: { id: 'conformance-publisher' } };
    requests[payload.storedrequestid] = base;
  }
  return new MemoryFetcher({ requests, imps });
}

/**
 * The bidders a sample's `user.ext.prebid.buyeruids` names: Prebid Server's test host has every bidder enabled, and
 * its endpoint accepts a buyeruids key only for an enabled bidder. The runner enables each (on the mock bidder; no imp
 * offers them anything, so none is called).
 */
function buyerUidBidders(payload: unknown): string[] {
  const user = isJsonObject(payload) ? payload.user : undefined;
  const ext = isJsonObject(user) ? user.ext : undefined;
  const own = isJsonObject(ext) ? ext.prebid : undefined;
  const uids = isJsonObject(own) ? own.buyeruids : undefined;
  return isJsonObject(uids) ? Object.keys(uids) : [];
}

function hostConfig(bidder: MockBidder, durationSec: number, payload: unknown) {
  const bidders: Json = {};
  for (const { name, price, cat } of SAMPLE_BIDDERS) {
    const query = new URLSearchParams({ name, price: String(price), mtype: '2', dur: String(durationSec), cat, adm: vastOf(name) });
    bidders[name] = { adapter: 'ortb', endpoint: `${bidder.url}/rtb?${query}` };
  }
  for (const name of buyerUidBidders(payload)) bidders[name] ??= { adapter: 'ortb', endpoint: `${bidder.url}/rtb` };
  return testConfig({ bidders, modules: FLOORS_OFF, video: { categoryMappings: { freewheel: exampleMapping('freewheel'), dfp: exampleMapping('dfp') } } });
}

/**
 * A sample's verdict is the first `valid` or `invalid` in its file name: Prebid Server names its samples
 * `video_valid_sample_<variant>` and `video_invalid_sample_<variant>`, and a variant may say `invalid` itself
 * (`..._valid_sample_ccpa_invalid`: a valid request carrying an invalid US privacy string).
 */
function expectedStatus(sample: VideoSample, file: string): number {
  return sample.expectedReturnCode ?? (/(in)?valid/i.exec(basename(file))?.[1] ? 400 : 200);
}

/**
 * Without a stated message, a line must name what is wrong with the request, in one of Prebid Server's wordings for
 * a video request: a missing field (`request missing required field: PodConfig.Pods`), a bad request field
 * (`request.tmax must be nonnegative. Got -2`), bad durations (`duration array cannot contain ...`) or a bad price
 * granularity (`Price granularity error: ...`).
 */
const NAMES_THE_FAULT = /^Invalid request: (?:request missing required field: [A-Za-z.]+|request\.[a-z]+\S* |duration array |Price granularity error: )/m;

function checkInvalid(sample: VideoSample, text: string): string[] {
  if (sample.expectedErrorMessage !== undefined) {
    return text.includes(sample.expectedErrorMessage) ? [] : [`body: expected to contain ${JSON.stringify(sample.expectedErrorMessage)}, got ${JSON.stringify(text.slice(0, 300))}`];
  }
  return NAMES_THE_FAULT.test(text) ? [] : [`body: expected a line naming the faulty field, got ${JSON.stringify(text.slice(0, 300))}`];
}

/**
 * `biddersCalled`: whether any bidder was called. When none was (privacy rules kept them all out, as Prebid Server
 * keeps out a bidder under GDPR without consent), no pod can be targeted and none has to say why.
 */
async function checkAdPods(sample: VideoSample, text: string, base: string, biddersCalled: boolean): Promise<string[]> {
  let answer: Json;
  try {
    answer = JSON.parse(text) as Json;
  } catch {
    return [`body: not JSON: ${text.slice(0, 200)}`];
  }
  const pods = podsOf(sample.requestPayload);
  const adPods: Json[] = Array.isArray(answer.adPods) ? answer.adPods : [];
  const diffs: string[] = [];
  if (adPods.length !== pods.length) diffs.push(`adPods: expected ${pods.length} entries (one per pod), got ${adPods.length}`);
  const vasts = new Set(SAMPLE_BIDDERS.map(({ name }) => vastOf(name)));
  for (const [i, adPod] of adPods.entries()) {
    const where = `adPods[${i}]`;
    const requested = isJsonObject(pods[i]) ? pods[i].podid : undefined;
    if (adPod.podid !== requested) diffs.push(`${where}.podid: expected ${requested}, got ${adPod.podid}`);
    const targeting: Json[] = Array.isArray(adPod.targeting) ? adPod.targeting : [];
    if (targeting.length === 0 && biddersCalled && !explained(adPod)) diffs.push(`${where}: no targeting and no errors saying why`);
    for (const [j, entry] of targeting.entries()) {
      const at = `${where}.targeting[${j}]`;
      for (const key of ['hb_pb', 'hb_pb_cat_dur', 'hb_cache_id']) if (typeof entry[key] !== 'string') diffs.push(`${at}.${key}: missing`);
      if (typeof entry.hb_pb_cat_dur === 'string' && !entry.hb_pb_cat_dur.startsWith(`${entry.hb_pb}_`)) diffs.push(`${at}.hb_pb_cat_dur: ${entry.hb_pb_cat_dur} does not start with hb_pb ${entry.hb_pb}`);
      if (typeof entry.hb_cache_id !== 'string') continue;
      const cached = await fetch(`${base}/cache?uuid=${encodeURIComponent(entry.hb_cache_id)}`);
      const body = await cached.text();
      if (cached.status !== 200 || !vasts.has(body)) diffs.push(`${at}.hb_cache_id: GET /cache answered ${cached.status} ${JSON.stringify(body.slice(0, 120))}, not a bid's VAST`);
    }
  }
  return diffs;
}

/**
 * An empty pod must say why: under `errors.general` when the pod itself was dropped, or under its bidders when they
 * could not bid (a tmax too short to call them, say).
 */
function explained(adPod: Json): boolean {
  return isJsonObject(adPod.errors) && Object.values(adPod.errors).some((errors) => Array.isArray(errors) && errors.length > 0);
}

/** Runs one sample against an in-process Gavel whose bidders are `ortb` bidders on the shared mock bidder. */
export async function runVideoSample(sample: VideoSample, file: string, bidder: MockBidder): Promise<FixtureOutcome> {
  const name = `${basename(file)}`;
  const app = await bootGavel(hostConfig(bidder, bidDuration(sample.requestPayload), sample.requestPayload), { configure: replacing({ stored: storedDataFor(sample.requestPayload) }) });
  const server = await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const callsBefore = bidder.received.length;
  try {
    const response = await fetch(`${base}/openrtb2/video`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sample.requestPayload) });
    const text = await response.text();
    const status = expectedStatus(sample, file);
    if (response.status !== status) return { name, ok: false, diffs: [`status: expected ${status}, got ${response.status}: ${text.slice(0, 300)}`] };
    const diffs = status === 200 ? await checkAdPods(sample, text, base, bidder.received.length > callsBefore) : checkInvalid(sample, text);
    return { name, ok: diffs.length === 0, diffs };
  } finally {
    await app.close();
  }
}

/** `npm run conformance -- video <dir> [<dir>...]` */
export async function run(args: string[]): Promise<FixtureOutcome[]> {
  const bidder = await startMockBidder();
  const outcomes: FixtureOutcome[] = [];
  try {
    for (const dir of args) {
      for (const file of listFixtureFiles(dir)) {
        try {
          const sample = JSON.parse(readFileSync(file, 'utf8')) as VideoSample;
          outcomes.push(await runVideoSample(sample, file, bidder));
        } catch (err) {
          outcomes.push({ name: file, ok: false, diffs: [`runner error: ${(err as Error).stack}`] });
        }
      }
    }
  } finally {
    await bidder.close();
  }
  return outcomes;
}
