import { pino, type DestinationStream, type Logger } from 'pino';
import { defineModule, readJsonBeside, SDK_VERSION, type AnalyticsRecord, type AnalyticsReporter } from '../../core/api/index.js';

export interface NdjsonAnalyticsConfig {
  /** `stdout` (the default) or a file path, appended to. */
  destination?: string;
  /** The transaction types written; all when absent. */
  types?: Array<AnalyticsRecord['type']>;
}

type SonicBoomLike = DestinationStream & { flush?(cb?: (err?: Error) => void): void; end(): void; once(event: string, listener: () => void): void };

/**
 * One JSON line per transaction, written by pino asynchronously (its own buffered stream, so a slow disk never holds
 * the event loop): `{"log":"analytics","time":<epoch ms>,"type":"auction",...record}` (`log` tells the lines apart from Gavel's own logs on a shared stdout).
 */
export function createNdjsonReporter(config: NdjsonAnalyticsConfig): AnalyticsReporter {
  const target = config.destination ?? 'stdout';
  const destination = pino.destination({ dest: target === 'stdout' ? 1 : target, sync: false, mkdir: target !== 'stdout' }) as unknown as SonicBoomLike;
  const logger: Logger = pino({ base: null, formatters: { level: () => ({ log: 'analytics' }) } }, destination);
  const types = config.types ? new Set<string>(config.types) : undefined;
  return {
    report(record) {
      if (types && !types.has(record.type)) return;
      logger.info(record);
    },
    async close() {
      await new Promise<void>((resolve) => {
        if (target === 'stdout') {
          destination.flush?.(() => resolve());
          return;
        }
        destination.once('close', resolve);
        destination.end();
      });
    },
  };
}

/** Analytics to NDJSON lines on stdout or in a file. */
export default defineModule<NdjsonAnalyticsConfig>({
  code: 'analytics.ndjson',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  description: 'Writes every auction, AMP, video, cookie sync, setuid and /event transaction as one JSON line (stdout or a file).',
  configSchema: readJsonBeside(import.meta.url, './config.schema.json'),
  analytics: (config) => createNdjsonReporter(config),
});
