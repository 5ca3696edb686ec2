import { isJsonObject } from '../../../core/api/index.js';
import type { ValidationScope } from './scope.js';
import type { JsonObject } from './values.js';

/** Prebid Server's warning codes for eids and uids it drops. */
const INVALID_USER_EIDS_WARNING = 10013;
const INVALID_USER_UIDS_WARNING = 10014;

/**
 * `user.eids`, as Prebid Server keeps them (endpoints/openrtb2/auction.go, validateEIDs): an eid without a source, a
 * uid without an id, and an eid left with no uid are dropped, each with a warning naming it; the request is not
 * refused. The kept eids replace the request's when the request is otherwise valid.
 */
export function checkEids(request: JsonObject, scope: ValidationScope): void {
  const user = request.user;
  if (!isJsonObject(user) || !Array.isArray(user.eids) || user.eids.length === 0) return;
  const kept: unknown[] = [];
  let dropped = false;
  user.eids.forEach((eid, eidIndex) => {
    if (!isJsonObject(eid)) {
      kept.push(eid);
      return;
    }
    if (typeof eid.source !== 'string' || eid.source === '') {
      scope.report.addWarning(INVALID_USER_EIDS_WARNING, `request.user.eids[${eidIndex}] removed due to missing source`);
      dropped = true;
      return;
    }
    const uids = Array.isArray(eid.uids) ? eid.uids : [];
    const keptUids = uids.filter((uid, uidIndex) => {
      if (isJsonObject(uid) && typeof uid.id === 'string' && uid.id !== '') return true;
      scope.report.addWarning(INVALID_USER_UIDS_WARNING, `request.user.eids[${eidIndex}].uids[${uidIndex}] removed due to empty ids`);
      return false;
    });
    if (keptUids.length === 0) {
      scope.report.addWarning(INVALID_USER_EIDS_WARNING, `request.user.eids[${eidIndex}] (source: ${eid.source}) removed due to empty uids`);
      dropped = true;
      return;
    }
    if (keptUids.length !== uids.length) dropped = true;
    kept.push(keptUids.length === uids.length ? eid : { ...eid, uids: keptUids });
  });
  if (!dropped) return;
  scope.report.addChange(({ request: changed }) => {
    const target = changed.user;
    if (!target) return;
    if (kept.length > 0) target.eids = kept;
    else delete target.eids;
  });
}
