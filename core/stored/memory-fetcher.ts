import { uniqueIds, type StoredDataFetcher } from './fetcher.js';

export interface StoredDocuments {
  requests?: Record<string, unknown>;
  imps?: Record<string, unknown>;
  accounts?: Record<string, unknown>;
  responses?: Record<string, unknown>;
}

/** Stored data held in memory: for tests, demos and hosts that load their stored data at boot. */
export class MemoryFetcher implements StoredDataFetcher {
  constructor(private readonly documents: StoredDocuments = {}) {}

  async fetchRequests(ids: string[]): Promise<Map<string, unknown>> {
    return pick(this.documents.requests, ids);
  }

  async fetchImps(ids: string[]): Promise<Map<string, unknown>> {
    return pick(this.documents.imps, ids);
  }

  async fetchAccount(id: string): Promise<unknown | undefined> {
    return pick(this.documents.accounts, [id]).get(id);
  }

  async fetchResponses(ids: string[]): Promise<Map<string, unknown>> {
    return pick(this.documents.responses, ids);
  }
}

function pick(documents: Record<string, unknown> | undefined, ids: string[]): Map<string, unknown> {
  const found = new Map<string, unknown>();
  if (!documents) return found;
  for (const id of uniqueIds(ids)) {
    if (Object.hasOwn(documents, id)) found.set(id, documents[id]);
  }
  return found;
}
