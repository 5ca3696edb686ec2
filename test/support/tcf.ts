import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GVL, PurposeRestriction, TCModel, TCString } from '@iabtcf/core';

/** The tests' own Global Vendor List (version 3, specification 3): vendors 32, 52 (LI for purpose 2), 99, 700. */
export const TEST_GVL_PATH = fileURLToPath(new URL('../fixtures/gvl/vendor-list-v3.json', import.meta.url));

const gvls = new Map<number, GVL>();

function gvlOf(version: number | undefined): GVL {
  const key = version ?? 0;
  let gvl = gvls.get(key);
  if (!gvl) {
    const json = JSON.parse(readFileSync(TEST_GVL_PATH, 'utf8'));
    if (version !== undefined) json.vendorListVersion = version;
    gvl = new GVL(json);
    gvls.set(key, gvl);
  }
  return gvl;
}

/** What a TC string made for a test says. */
export interface TcStringSpec {
  purposes?: number[];
  purposeLegitimateInterests?: number[];
  vendors?: number[];
  vendorLegitimateInterests?: number[];
  specialFeatures?: number[];
  purposeOneTreatment?: boolean;
  /** Publisher restrictions: `[purpose, type (0 not allowed, 1 consent only, 2 LI only), vendor]`. */
  restrictions?: Array<[number, number, number]>;
  /** Made with another list version than the test GVL's. */
  vendorListVersion?: number;
}

/** Encodes a TCF v2 string against the test GVL (no network). */
export function tcString(spec: TcStringSpec): string {
  const model = new TCModel(gvlOf(spec.vendorListVersion));
  model.cmpId = 10;
  model.cmpVersion = 1;
  model.purposeConsents.set(spec.purposes ?? []);
  model.purposeLegitimateInterests.set(spec.purposeLegitimateInterests ?? []);
  model.vendorConsents.set(spec.vendors ?? []);
  model.vendorLegitimateInterests.set(spec.vendorLegitimateInterests ?? []);
  model.specialFeatureOptins.set(spec.specialFeatures ?? []);
  model.purposeOneTreatment = spec.purposeOneTreatment === true;
  for (const [purpose, type, vendor] of spec.restrictions ?? []) model.publisherRestrictions.add(vendor, new PurposeRestriction(purpose, type));
  return TCString.encode(model);
}
