import { expect } from 'chai';
import type { BidResponse, PluginLogger } from '../../core/api/index.js';
import { ampAnswer, encodeAmpBody, type AnswerContext } from '../../core/amp/amp-answer.js';
import { responseErrors } from '../../core/amp/index.js';
import type { AuctionOutcome } from '../../core/auction/pipeline.js';
import type { RequestJournal } from '../../core/context/request-context.js';

/** A logger that keeps what it was told, so the "logged" rows of spec 7.3 can be checked. */
function recordingLogger(): PluginLogger & { lines: Array<{ level: string; message: string | undefined; fields: object | string }> } {
  const lines: Array<{ level: string; message: string | undefined; fields: object | string }> = [];
  const at = (level: string) => (fields: object | string, message?: string) => {
    lines.push({ level, message, fields });
  };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** The outcome of an auction that ran; `test` is the request's (1 asks for debug output). */
function completed(response: BidResponse, test?: number): AuctionOutcome {
  return { kind: 'completed', response, request: { id: 'r', imp: [{ id: 'i' }], ...(test !== undefined && { test }) }, seats: [] };
}

function context(logger: PluginLogger, journal: RequestJournal = {}): AnswerContext {
  return { namespace: 'prebid', journal, logger, tagId: 'tag' };
}

const bidWithTargeting = (targeting: unknown) => ({ id: 'b', impid: 'i', price: 1, ext: { prebid: { targeting } } });

describe('AMP answer: spec 7.3 response-stage errors', () => {
  it('merges the targeting of every cached bid in the response (one naming an hb_cache_id), as Prebid Server does', () => {
    const answer = ampAnswer(
      completed({
        id: 'r',
        seatbid: [
          { seat: 'a', bid: [bidWithTargeting({ hb_pb: '2.00', hb_pb_a: '2.00', hb_cache_id: 'c-a', hb_cache_id_a: 'c-a' })] },
          { seat: 'b', bid: [bidWithTargeting({ hb_pb_b: '1.00', hb_cache_id_b: 'c-b' }), { id: 'plain', impid: 'i', price: 0.5 }] },
          // Not cached (the cache failed, say): the page could not show it.
          { seat: 'c', bid: [bidWithTargeting({ hb_pb_c: '0.50', hb_bidder_c: 'c' })] },
        ],
        ext: { errors: { c: [{ code: 1, message: 'timeout' }] } },
      }),
      context(recordingLogger()),
    );
    expect(answer.status).to.equal(200);
    expect(answer.body).to.deep.equal({
      targeting: { hb_pb: '2.00', hb_pb_a: '2.00', hb_cache_id: 'c-a', hb_cache_id_a: 'c-a', hb_pb_b: '1.00', hb_cache_id_b: 'c-b' },
      errors: { c: [{ code: 1, message: 'timeout' }] },
    });
  });

  it("keeps the auction's modules outcome and seat non-bids beside errors, as Prebid Server's AMP answer does", () => {
    const seatnonbid = [{ seat: 'a', nonbid: [{ impid: 'i', statuscode: 301 }] }];
    const answer = ampAnswer(
      completed({ id: 'r', seatbid: [], ext: { prebid: { modules: { trace: [] }, seatnonbid, auctiontimestamp: 1 } } }),
      context(recordingLogger()),
    );
    expect(answer.body).to.deep.equal({ targeting: {}, errors: {}, prebid: { modules: { trace: [] }, seatnonbid } });
  });

  it('targeting that cannot be unpacked is a 500 with the spec message, and is logged', () => {
    for (const targeting of ['hb_cache_id=c', { hb_pb: 1, hb_cache_id: 'c' }]) {
      const logger = recordingLogger();
      const answer = ampAnswer(completed({ id: 'r', seatbid: [{ bid: [bidWithTargeting(targeting)] }] }), context(logger));
      expect(answer.status).to.equal(500);
      expect(answer.body).to.equal(`${responseErrors.unpackTargets}\n`);
      expect(answer.body).to.equal('Critical error while unpacking AMP targets.\n');
      expect(logger.lines.map((line) => line.message)).to.include(responseErrors.unpackTargets);
    }
  });

  it('a response.ext that cannot be unpacked is logged and the answer goes out without errors', () => {
    const logger = recordingLogger();
    const answer = ampAnswer(completed({ id: 'r', seatbid: [], ext: { errors: 'broken' } }), context(logger));
    expect(answer.status).to.equal(200);
    expect(answer.body).to.deep.equal({ targeting: {}, errors: {} });
    expect(logger.lines.map((line) => line.message)).to.include('AMP response: failed to unpack OpenRTB response.ext, debug info cannot be forwarded.');
  });

  it('debug asked for but missing from the response is logged', () => {
    const logger = recordingLogger();
    const answer = ampAnswer(completed({ id: 'r', seatbid: [], ext: {} }, 1), context(logger));
    expect(answer.status).to.equal(200);
    expect(answer.body).to.not.have.property('debug');
    expect(logger.lines.map((line) => line.message)).to.include('Test set on request but debug not present in response.');
  });

  it('an answer that cannot be encoded is logged and replaced by its targeting', () => {
    const logger = recordingLogger();
    const encoded = encodeAmpBody({ status: 200, headers: {}, body: { targeting: { hb_pb: '1.00' }, errors: {}, debug: { big: 10n } } }, logger);
    expect(JSON.parse(encoded.body as string)).to.deep.equal({ targeting: { hb_pb: '1.00' }, errors: {} });
    expect(logger.lines.map((line) => line.message)).to.include('Failure to send the response from the AMP endpoint.');
  });

  it('a request a module rejected gets empty targeting, not an error', () => {
    const answer = ampAnswer({ kind: 'rejected', response: { id: 'r', nbr: 2 } }, context(recordingLogger()));
    expect(answer.status).to.equal(200);
    expect(answer.body).to.deep.equal({ targeting: {}, errors: {} });
  });

  it("a rejected request's answer keeps its warnings so far but the account's debug one, and the hooks trace, as Prebid Server's", () => {
    const trace = [{ stage: 'processed-auction-request', module: 'acme', hook: 'h', status: 'success', action: 'reject', executiontimemillis: 1 }];
    const journal = {
      warnings: { general: [{ code: 10002, message: 'debug turned off for account' }, { code: 10001, message: 'TCF1 consent is deprecated and no longer supported.' }] },
      trace,
    } as RequestJournal;
    const answer = ampAnswer({ kind: 'rejected', response: { id: 'r', nbr: 2 } }, context(recordingLogger(), journal));
    expect(answer.body).to.deep.equal({
      targeting: {},
      errors: {},
      warnings: { general: [{ code: 10001, message: 'TCF1 consent is deprecated and no longer supported.' }] },
      prebid: { modules: { trace } },
    });
  });

  it('an invalid request is a 400 with one line per message', () => {
    const answer = ampAnswer({ kind: 'invalid', messages: ['one', 'two'] }, context(recordingLogger()));
    expect(answer.status).to.equal(400);
    expect(answer.body).to.equal('Invalid request: one\nInvalid request: two\n');
  });
});
