/**
 * A TCF v2 consent string (the core segment) for the benchmark's production-shaped request: consent to the given
 * purposes and vendors, legitimate interest for the same, no publisher restrictions. Written bit by bit after the
 * IAB's "Transparency & Consent String with Global Vendor List Format" (v2.2), so the request carries a real,
 * decodable string rather than an opaque constant.
 */

export interface TcfConsent {
  /** Purpose ids (1-24) consented to, and given legitimate interest transparency. */
  purposes: number[];
  /** GVL vendor ids consented to (and given legitimate interest). */
  vendors: number[];
  /** Epoch ms written as Created and LastUpdated. */
  createdAt: number;
  vendorListVersion: number;
}

class BitWriter {
  private readonly bits: number[] = [];

  int(value: number, width: number): this {
    for (let bit = width - 1; bit >= 0; bit--) this.bits.push(Math.floor(value / 2 ** bit) % 2);
    return this;
  }

  flags(width: number, set: number[]): this {
    for (let id = 1; id <= width; id++) this.bits.push(set.includes(id) ? 1 : 0);
    return this;
  }

  letters(code: string): this {
    for (const letter of code) this.int(letter.charCodeAt(0) - 65, 6);
    return this;
  }

  /** Base64url without padding, as TCF strings are written. */
  toBase64Url(): string {
    const bytes = Buffer.alloc(Math.ceil(this.bits.length / 8));
    this.bits.forEach((bit, index) => {
      if (bit) bytes[index >> 3]! |= 0x80 >> (index & 7);
    });
    return bytes.toString('base64url');
  }
}

export function tcfConsentString(consent: TcfConsent): string {
  const deciseconds = Math.round(consent.createdAt / 100);
  const maxVendor = Math.max(0, ...consent.vendors);
  const writer = new BitWriter()
    .int(2, 6) // Version
    .int(deciseconds, 36) // Created
    .int(deciseconds, 36) // LastUpdated
    .int(7, 12) // CmpId
    .int(1, 12) // CmpVersion
    .int(1, 6) // ConsentScreen
    .letters('EN') // ConsentLanguage
    .int(consent.vendorListVersion, 12)
    .int(4, 6) // TcfPolicyVersion (TCF 2.2)
    .int(0, 1) // IsServiceSpecific
    .int(0, 1) // UseNonStandardTexts
    .flags(12, []) // SpecialFeatureOptIns
    .flags(24, consent.purposes) // PurposesConsent
    .flags(24, consent.purposes) // PurposesLITransparency
    .int(0, 1) // PurposeOneTreatment
    .letters('AA'); // PublisherCC
  // Vendor consents and vendor legitimate interests, each as a bit field up to the highest vendor id.
  for (let section = 0; section < 2; section++) writer.int(maxVendor, 16).int(0, 1).flags(maxVendor, consent.vendors);
  writer.int(0, 12); // NumPubRestrictions
  return writer.toBase64Url();
}

/** The fields a bidder's enforcement reads, decoded back (for the benchmark's own test of the string above). */
export function readTcfCore(consent: string): { version: number; purposesConsent: number[]; vendorConsents: number[]; vendorListVersion: number } {
  const bytes = Buffer.from(consent.split('.')[0]!, 'base64url');
  let position = 0;
  const int = (width: number): number => {
    let value = 0;
    for (let index = 0; index < width; index++, position++) value = value * 2 + ((bytes[position >> 3]! >> (7 - (position & 7))) & 1);
    return value;
  };
  const flags = (width: number): number[] => {
    const set: number[] = [];
    for (let id = 1; id <= width; id++) if (int(1)) set.push(id);
    return set;
  };
  const version = int(6);
  int(36 + 36 + 12 + 12 + 6 + 12);
  const vendorListVersion = int(12);
  int(6 + 1 + 1 + 12);
  const purposesConsent = flags(24);
  int(24 + 1 + 12);
  const maxVendor = int(16);
  if (int(1) !== 0) throw new Error('range-encoded vendor consents are not read here');
  return { version, purposesConsent, vendorConsents: flags(maxVendor), vendorListVersion };
}
