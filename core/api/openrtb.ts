/**
 * OpenRTB 2.5/2.6 object shapes as Gavel and its plugins see them. Only the fields the core reads are typed;
 * every object stays open (`[key: string]: unknown`) because bidders and publishers extend them freely.
 */
export type Ext = Record<string, unknown>;

export interface Format { w?: number; h?: number; wratio?: number; hratio?: number; wmin?: number; ext?: Ext; [key: string]: unknown }
export interface Banner { w?: number; h?: number; format?: Format[]; pos?: number; ext?: Ext; [key: string]: unknown }
export interface Video {
  mimes?: string[]; minduration?: number; maxduration?: number; protocols?: number[]; w?: number; h?: number;
  placement?: number; plcmt?: number; ext?: Ext; [key: string]: unknown;
}
export interface Audio { mimes?: string[]; ext?: Ext; [key: string]: unknown }
export interface Native { request?: string; ver?: string; ext?: Ext; [key: string]: unknown }
export interface Deal { id?: string; bidfloor?: number; [key: string]: unknown }
export interface Pmp { private_auction?: number; deals?: Deal[]; [key: string]: unknown }

export interface Imp {
  id: string;
  banner?: Banner; video?: Video; audio?: Audio; native?: Native;
  pmp?: Pmp; tagid?: string; bidfloor?: number; bidfloorcur?: string; secure?: number; instl?: number; exp?: number;
  ext?: Ext;
  [key: string]: unknown;
}
export interface Publisher { id?: string; name?: string; domain?: string; ext?: Ext; [key: string]: unknown }
export interface Content { [key: string]: unknown }
export interface Site { id?: string; page?: string; domain?: string; ref?: string; publisher?: Publisher; content?: Content; ext?: Ext; [key: string]: unknown }
export interface App { id?: string; bundle?: string; domain?: string; name?: string; publisher?: Publisher; content?: Content; ext?: Ext; [key: string]: unknown }
export interface Device { ua?: string; ip?: string; ipv6?: string; w?: number; h?: number; ppi?: number; ifa?: string; lmt?: number; dnt?: number; ext?: Ext; [key: string]: unknown }
export interface User { id?: string; buyeruid?: string; consent?: string; eids?: unknown[]; ext?: Ext; [key: string]: unknown }
export interface Regs { coppa?: number; gdpr?: number; us_privacy?: string; ext?: Ext; [key: string]: unknown }
export interface Source { tid?: string; schain?: unknown; ext?: Ext; [key: string]: unknown }

export interface BidRequest {
  id: string;
  imp: Imp[];
  site?: Site; app?: App; dooh?: Record<string, unknown>; device?: Device; user?: User; regs?: Regs; source?: Source;
  test?: number; at?: number; tmax?: number; cur?: string[];
  ext?: Ext;
  [key: string]: unknown;
}

export interface Bid {
  id: string; impid: string; price: number;
  adm?: string; nurl?: string; burl?: string; adid?: string; adomain?: string[]; iurl?: string; cid?: string; crid?: string;
  cat?: string[]; dealid?: string; w?: number; h?: number; mtype?: number; dur?: number; exp?: number;
  ext?: Ext;
  [key: string]: unknown;
}
export interface SeatBid { seat?: string; bid: Bid[]; group?: number; ext?: Ext; [key: string]: unknown }
export interface BidResponse { id: string; seatbid?: SeatBid[]; bidid?: string; cur?: string; nbr?: number; ext?: Ext; [key: string]: unknown }

export const MEDIA_TYPES = ['banner', 'video', 'audio', 'native'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

/** OpenRTB 2.6 `bid.mtype` values. */
export const MTYPE_TO_MEDIA_TYPE: Readonly<Record<number, MediaType>> = { 1: 'banner', 2: 'video', 3: 'audio', 4: 'native' };
