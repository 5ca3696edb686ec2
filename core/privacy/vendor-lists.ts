import { readFileSync } from 'node:fs';
import { isJsonObject } from '../api/index.js';

/** What a vendor declares in the Global Vendor List, as the enforcement reads it. */
export interface GvlVendor {
  purposes: ReadonlySet<number>;
  legIntPurposes: ReadonlySet<number>;
  specialFeatures: ReadonlySet<number>;
}

/** One Global Vendor List: its vendors by id. */
export interface VendorList {
  specVersion: number;
  version: number;
  vendor(id: number): GvlVendor | undefined;
}

/**
 * The vendor lists a host ships (`privacy.gdpr.vendorLists`), keyed by GVL specification version and list version:
 * a TC string names the list it was made with (its `vendorListVersion`, and through its policy version the GVL
 * specification: policy 4 and above is specification 3), and the enforcement reads that one, as Prebid Server does.
 */
export class VendorLists {
  private readonly lists = new Map<string, VendorList>();

  add(list: VendorList): void {
    this.lists.set(`${list.specVersion}:${list.version}`, list);
  }

  /** Told of a list asked for and not loaded (the fetcher, when the host names a vendor list URL). */
  onMissing: ((specVersion: number, version: number) => void) | undefined = undefined;

  /** The list a TC string names, or undefined when the host has not loaded it (yet). */
  find(specVersion: number, version: number): VendorList | undefined {
    const list = this.lists.get(`${specVersion}:${version}`);
    if (!list && this.onMissing) this.onMissing(specVersion, version);
    return list;
  }

  get size(): number {
    return this.lists.size;
  }

  /** Reads the host's files; a file that is not a vendor list stops the boot with its name. */
  static fromFiles(paths: readonly string[]): VendorLists {
    const lists = new VendorLists();
    for (const path of paths) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(readFileSync(path, 'utf8'));
      } catch (err) {
        throw new Error(`privacy.gdpr.vendorLists: cannot read ${path}: ${(err as Error).message}`);
      }
      lists.add(parseVendorList(parsed, path));
    }
    return lists;
  }
}

/** A vendor list from IAB's JSON (`gvlSpecificationVersion`, `vendorListVersion`, `vendors`). */
export function parseVendorList(json: unknown, source = 'vendor list'): VendorList {
  if (!isJsonObject(json) || typeof json.vendorListVersion !== 'number' || !isJsonObject(json.vendors)) {
    throw new Error(`${source} is not a Global Vendor List: it needs "vendorListVersion" and "vendors"`);
  }
  const specVersion = typeof json.gvlSpecificationVersion === 'number' ? json.gvlSpecificationVersion : 2;
  const vendors = new Map<number, GvlVendor>();
  for (const [id, vendor] of Object.entries(json.vendors)) {
    if (!isJsonObject(vendor)) continue;
    // A flexible purpose may be used under either basis (the publisher picks): Prebid Server's vendor list reader
    // (go-gdpr's Purpose and LegitimateInterest) counts it as declared for consent and for legitimate interest.
    const flexible = idSet(vendor.flexiblePurposes);
    vendors.set(Number(id), { purposes: idSet(vendor.purposes, flexible), legIntPurposes: idSet(vendor.legIntPurposes, flexible), specialFeatures: idSet(vendor.specialFeatures) });
  }
  return { specVersion, version: json.vendorListVersion, vendor: (id) => vendors.get(id) };
}

function idSet(value: unknown, also: ReadonlySet<number> = NO_IDS): ReadonlySet<number> {
  const ids = new Set(Array.isArray(value) ? value.filter((id): id is number => typeof id === 'number') : []);
  for (const id of also) ids.add(id);
  return ids;
}

const NO_IDS: ReadonlySet<number> = new Set();
