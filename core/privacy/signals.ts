import { GppModel } from '@iabgpp/cmpapi';
import { isJsonObject, type BidRequest } from '../api/index.js';

type Json = Record<string, unknown>;

/** GPP section ids Gavel reads (IAB's GPP section registry). */
export const GPP_TCF_EU_V2 = 2;
export const GPP_US_PRIVACY = 6;
/** US national (7) and the state sections after it. */
const GPP_US_SECTIONS_FIRST = 7;
const GPP_US_SECTIONS_LAST = 30;
const US_OPT_OUT_FIELDS = ['SaleOptOut', 'SharingOptOut', 'TargetedAdvertisingOptOut'] as const;
/** In the US sections, 1 means opted out (2 did not opt out, 0 not applicable). */
const OPTED_OUT = 1;

/** The request's GPP string as far as Gavel reads it. */
export interface GppSignals {
  /** `regs.gpp_sid`: the sections that apply. */
  sids: readonly number[];
  /** The TCF EU v2 section of the string, when it has one. */
  tcfConsent?: string;
  /** The US privacy (`uspv1`) section, when the string has one. */
  usPrivacy?: string;
  /** A US national or state section that applies (in `gpp_sid`) says the user opted out of sale, sharing or targeting. */
  usOptOut: boolean;
  /** Why the string was not read, for the warning. */
  invalid?: string;
}

/** `regs.gpp_sid` as numbers (an absent or malformed list is empty). */
export function gppSids(regs: Json | undefined): number[] {
  const sids = regs?.gpp_sid;
  return Array.isArray(sids) ? sids.filter((sid): sid is number => typeof sid === 'number') : [];
}

/** Reads `regs.gpp`: the sections Gavel enforces, once per request. */
export function readGpp(regs: Json | undefined): GppSignals {
  const sids = gppSids(regs);
  const gpp = regs?.gpp;
  if (typeof gpp !== 'string' || gpp === '') return { sids, usOptOut: false };
  let ids: number[];
  let model: GppModel;
  try {
    model = new GppModel(gpp);
    ids = model.getSectionIds();
  } catch (err) {
    return { sids, usOptOut: false, invalid: (err as Error).message };
  }
  // The string is the header then each section in the header's order.
  const parts = gpp.split('~');
  const signals: GppSignals = { sids, usOptOut: false };
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (id === GPP_TCF_EU_V2) signals.tcfConsent = parts[i + 1];
    else if (id === GPP_US_PRIVACY) signals.usPrivacy = parts[i + 1];
    else if (id >= GPP_US_SECTIONS_FIRST && id <= GPP_US_SECTIONS_LAST && sids.includes(id) && usSectionOptedOut(model, id)) signals.usOptOut = true;
  }
  return signals;
}

function usSectionOptedOut(model: GppModel, id: number): boolean {
  for (const field of US_OPT_OUT_FIELDS) {
    try {
      if (model.getFieldValueBySectionId(id, field) === OPTED_OUT) return true;
    } catch {
      // A field this state's section does not have.
    }
  }
  return false;
}

/** `regs.<name>`, or its OpenRTB 2.5 home `regs.ext.<name>`. */
export function regsValue(request: BidRequest, name: string): unknown {
  const regs = request.regs as Json | undefined;
  if (!regs) return undefined;
  // A `null` 2.6 field is an absent one: Prebid Server then reads (moves up) the 2.5 one.
  if (regs[name] !== undefined && regs[name] !== null) return regs[name];
  return isJsonObject(regs.ext) ? regs.ext[name] : undefined;
}

/** `user.consent`, or `user.ext.consent`. */
export function userConsent(request: BidRequest): string {
  const user = request.user as Json | undefined;
  if (!user) return '';
  if (typeof user.consent === 'string') return user.consent;
  return isJsonObject(user.ext) && typeof user.ext.consent === 'string' ? user.ext.consent : '';
}

/** Why a US privacy string is not valid (Prebid Server's texts), or undefined when it is (or is empty). */
export function usPrivacyProblem(consent: string): string | undefined {
  if (consent === '') return undefined;
  if (consent.length !== 4) return 'must contain 4 characters';
  if (consent[0] !== '1') return 'must specify version 1';
  if (!isUspChar(consent[1]!)) return "must specify 'N', 'Y', or '-' for the explicit notice";
  if (!isUspChar(consent[2]!)) return "must specify 'N', 'Y', or '-' for the opt-out sale";
  if (!isUspChar(consent[3]!)) return "must specify 'N', 'Y', or '-' for the limited service provider agreement";
  return undefined;
}

function isUspChar(char: string): boolean {
  return char === 'Y' || char === 'N' || char === '-';
}

/** The country of the user (`user.geo`, else `device.geo`), and its region, upper case. */
export function userGeo(request: BidRequest): { country?: string; region?: string } {
  const geo = (isJsonObject(request.user) && isJsonObject(request.user.geo) ? request.user.geo : isJsonObject(request.device) && isJsonObject(request.device.geo) ? request.device.geo : undefined) as Json | undefined;
  if (!geo) return {};
  return {
    country: typeof geo.country === 'string' ? geo.country.toUpperCase() : undefined,
    region: typeof geo.region === 'string' ? geo.region.toUpperCase() : undefined,
  };
}
