/**
 * The publisher's page and the script the suite drives it with. The page is what a publisher writes: Prebid.js,
 * ad slots, and `pbjs.que` calls; `gavelRun(setup)` is the publisher's code for one auction (setConfig, ad units,
 * requestBids) and hands back what Prebid.js made of it, as plain JSON.
 */

export const PUBLISHER_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Publisher page (Gavel browser suite)</title>
<script>window.pbjs = window.pbjs || { que: [] };</script>
<script async src="/prebid.js"></script>
<script src="/runner.js"></script>
<style>body { font: 14px sans-serif } iframe { border: 1px solid #999; margin: 4px } #log { white-space: pre-wrap; font-size: 11px }</style>
</head><body>
<h1>Publisher page</h1>
<iframe id="frame-banner" width="300" height="250"></iframe>
<div id="log"></div>
</body></html>`;

/** Runs in the page. */
export const RUNNER_SCRIPT = String.raw`
(function () {
  function plainBid(bid) {
    return {
      bidderCode: bid.bidderCode, adUnitCode: bid.adUnitCode, cpm: bid.cpm, mediaType: bid.mediaType, adId: bid.adId,
      width: bid.width, height: bid.height, ad: bid.ad, vastUrl: bid.vastUrl, vastXml: bid.vastXml,
      videoCacheKey: bid.videoCacheKey, native: bid.native, pbsBidId: bid.pbsBidId, adserverTargeting: bid.adserverTargeting,
      status: bid.status,
    };
  }
  function log(line) {
    var el = document.getElementById('log');
    if (el) el.textContent += line + '\n';
  }
  /** One auction as the publisher's code runs it; resolves with what Prebid.js made of it. */
  window.gavelRun = function (setup) {
    return new Promise(function (resolve) {
      window.pbjs.que.push(function () {
        var pbjs = window.pbjs;
        var events = { bidderDone: [], bidderError: [], bidRejected: [], bidResponse: [], adRenderFailed: [] };
        var handlers = {
          bidderDone: function (request) {
            events.bidderDone.push({ bidderCode: request.bidderCode, src: request.src, serverErrors: request.serverErrors || [], serverResponseTimeMs: request.serverResponseTimeMs, pbsExt: request.pbsExt });
          },
          bidderError: function (failure) {
            events.bidderError.push({ bidderCode: failure.bidderRequest.bidderCode, status: failure.error && failure.error.status, responseText: failure.error && failure.error.responseText });
          },
          bidRejected: function (bid) { events.bidRejected.push({ bidderCode: bid.bidderCode, reason: bid.rejectionReason }); },
          bidResponse: function (bid) { events.bidResponse.push(bid.bidderCode); },
          adRenderFailed: function (failure) { events.adRenderFailed.push(failure.reason + ': ' + failure.message); },
        };
        Object.keys(handlers).forEach(function (name) { pbjs.onEvent(name, handlers[name]); });
        // The publisher's config: an object, or their own script calling pbjs.setConfig (a docs snippet).
        if (setup.configScript) new Function('pbjs', setup.configScript)(pbjs);
        else pbjs.setConfig(setup.config);
        (pbjs.adUnits || []).slice().forEach(function (unit) { pbjs.removeAdUnit(unit.code); });
        pbjs.addAdUnits(setup.adUnits);
        var started = Date.now();
        pbjs.requestBids({
          timeout: setup.timeout,
          adUnitCodes: setup.adUnits.map(function (unit) { return unit.code; }),
          bidsBackHandler: function (bidsByCode, timedOut) {
            Object.keys(handlers).forEach(function (name) { pbjs.offEvent(name, handlers[name]); });
            var result = { timedOut: !!timedOut, elapsedMs: Date.now() - started, events: events, bids: {}, highest: {}, targeting: pbjs.getAdserverTargeting(), fetched: {} };
            Object.keys(bidsByCode || {}).forEach(function (code) { result.bids[code] = bidsByCode[code].bids.map(plainBid); });
            setup.adUnits.forEach(function (unit) { result.highest[unit.code] = pbjs.getHighestCpmBids(unit.code).map(plainBid); });
            log('auction ' + JSON.stringify({ timedOut: result.timedOut, highest: result.highest }));
            var work = [];
            if (setup.render) {
              var winner = result.highest[setup.render.adUnitCode][0];
              var frame = document.getElementById(setup.render.frameId);
              if (winner && frame) pbjs.renderAd(frame.contentWindow.document, winner.adId);
            }
            if (setup.videoUrlFor) {
              var unit = setup.adUnits.filter(function (candidate) { return candidate.code === setup.videoUrlFor; })[0];
              result.gamVideoUrl = pbjs.adServers.gam.buildVideoUrl({ adUnit: unit, params: { iu: '/19968336/gavel-video', output: 'vast' } });
            }
            if (setup.fetchVast) {
              Object.keys(result.bids).forEach(function (code) {
                result.bids[code].forEach(function (bid) {
                  if (!bid.vastUrl) return;
                  work.push(fetch(bid.vastUrl).then(function (answer) { return answer.text(); }).then(function (text) { result.fetched[bid.vastUrl] = text; }, function (error) { result.fetched[bid.vastUrl] = 'FETCH FAILED: ' + error; }));
                });
              });
            }
            Promise.all(work).then(function () { resolve(JSON.parse(JSON.stringify(result))); });
          },
        });
      });
    });
  };
})();
`;

/**
 * An AMP page's ad slot, and the callout its `rtc-config` makes, done as amphtml's real-time config does it: the
 * vendor's URL template from amphtml's `callout-vendors.js`, the page's values for the vendor's macros, then the URL
 * macros (`ATTR(name)` from the amp-ad's attributes, `CANONICAL_URL`, `TIMEOUT`, `HREF`, `TGT`, consent...), each
 * URL-encoded, and a macro without a value (an attribute the amp-ad does not have) replaced by nothing. The callout
 * is a GET with `credentials: include`, answered with `{targeting}`.
 */
export const AMP_PAGE = (gavelUrl: string): string => String.raw`<!doctype html>
<html amp><head><meta charset="utf-8"><title>AMP article (Gavel browser suite)</title>
<link rel="canonical" href="https://news.example/amp-story">
</head><body>
<amp-ad id="slot" width="300" height="250" type="doubleclick" data-slot="/1234/sports" data-gavel="${gavelUrl}"></amp-ad>
<pre id="log"></pre>
<script>
  var URL_MACROS = /ATTR\(([\w-]+)\)|CONSENT_METADATA\((\w+)\)|\b(CANONICAL_URL|TIMEOUT|HREF|TGT|ADCID|CONSENT_STRING|PAGEVIEWID)\b/g;
  function expandCallout(template, vendorMacros, element, options) {
    var url = template;
    Object.keys(vendorMacros).forEach(function (macro) { url = url.split(macro).join(encodeURIComponent(String(vendorMacros[macro]))); });
    var values = {
      CANONICAL_URL: document.querySelector('link[rel=canonical]').href,
      TIMEOUT: String(options.timeoutMillis),
      HREF: location.href,
      TGT: options.targeting ? JSON.stringify(options.targeting) : '',
    };
    return url.replace(URL_MACROS, function (match, attribute, metadata, name) {
      var value = attribute ? element.getAttribute(attribute) : metadata ? (options.consentMetadata || {})[metadata] : values[name];
      return encodeURIComponent(value == null ? '' : value);
    });
  }
  window.ampCallout = function (template, vendorMacros, attributes, options) {
    var element = document.getElementById('slot');
    Object.keys(attributes).forEach(function (name) { element.setAttribute(name, attributes[name]); });
    var url = expandCallout(template, vendorMacros, element, options);
    document.getElementById('log').textContent += url + '\n';
    return fetch(url, { credentials: 'include' }).then(function (answer) {
      return answer.text().then(function (text) {
        document.getElementById('log').textContent += answer.status + ' ' + text + '\n';
        return { url: url, status: answer.status, text: text };
      });
    });
  };
</script>
</body></html>`;
